"""Datasets: registry, fetching raw files, parsing, normalization and splits."""

from kreinbench.data.registry import DatasetSpec, get_dataset, load_registry

__all__ = ["DatasetSpec", "get_dataset", "load_registry"]
