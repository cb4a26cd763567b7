"""Datasets: registry, fetching raw files, parsing, normalization and splits."""

from kreinbench.data.registry import DatasetSpec, dataset_entry, get_dataset, load_registry, spec_from_entry

__all__ = ["DatasetSpec", "dataset_entry", "get_dataset", "load_registry", "spec_from_entry"]
