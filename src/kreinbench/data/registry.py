"""The declarative dataset registry (``registry.yaml``) and user-supplied entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from kreinbench.errors import DataError

SOURCE_TYPES = {"package", "synthetic", "local"}
PARSER_FORMATS = {"delimited"}
SPLIT_PROTOCOLS = {"random"}


@dataclass(frozen=True)
class DatasetSpec:
    """One registry entry; see ``registry.yaml`` for the meaning of each field."""

    name: str
    task: str
    source: dict[str, Any]
    parser: dict[str, Any]
    label: dict[str, Any]
    split: dict[str, Any]
    description: str = ""
    origin: str = ""
    drop_columns: tuple[int, ...] = field(default_factory=tuple)

    def label_map(self) -> dict[str, int]:
        """Raw label string -> +1/-1."""
        mapping = {str(v): 1 for v in self.label.get("positive", [])}
        for v in self.label.get("negative", []):
            if str(v) in mapping:
                raise DataError(f"dataset {self.name!r}: label {v!r} is both positive and negative")
            mapping[str(v)] = -1
        return mapping


def spec_from_entry(name: str, entry: dict[str, Any]) -> DatasetSpec:
    where = f"dataset {name!r}"
    if not isinstance(entry, dict):
        raise DataError(f"{where}: registry entry must be a mapping, got {type(entry).__name__}")
    for key in ("task", "source", "parser", "label", "split"):
        if key not in entry:
            raise DataError(f"{where}: registry entry lacks the required key {key!r}")
    source_type = entry["source"].get("type")
    if source_type not in SOURCE_TYPES:
        raise DataError(f"{where}: unknown source type {source_type!r} (known: {sorted(SOURCE_TYPES)})")
    fmt = entry["parser"].get("format")
    if fmt not in PARSER_FORMATS:
        raise DataError(f"{where}: unknown parser format {fmt!r} (known: {sorted(PARSER_FORMATS)})")
    protocol = entry["split"].get("protocol")
    if protocol not in SPLIT_PROTOCOLS:
        raise DataError(f"{where}: unknown split protocol {protocol!r} (known: {sorted(SPLIT_PROTOCOLS)})")
    if entry["task"] != "binary":
        raise DataError(f"{where}: task {entry['task']!r} is not supported yet (only 'binary')")
    if not entry["label"].get("positive") or not entry["label"].get("negative"):
        raise DataError(f"{where}: label needs non-empty 'positive' and 'negative' lists")
    return DatasetSpec(
        name=name,
        task=entry["task"],
        source=dict(entry["source"]),
        parser=dict(entry["parser"]),
        label=dict(entry["label"]),
        split=dict(entry["split"]),
        description=entry.get("description", ""),
        origin=entry.get("origin", ""),
        drop_columns=tuple(entry.get("drop_columns", ())),
    )


@lru_cache(maxsize=1)
def _builtin_entries() -> dict[str, Any]:
    text = resources.files("kreinbench.data").joinpath("registry.yaml").read_text()
    return yaml.safe_load(text)


def load_registry(extra: dict[str, Any] | None = None) -> dict[str, DatasetSpec]:
    """The built-in registry, plus ``extra`` entries (e.g. a config's ``custom_datasets``)."""
    entries = dict(_builtin_entries())
    entries.update(extra or {})
    return {name: spec_from_entry(name, entry) for name, entry in entries.items()}


def dataset_entry(name: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The raw registry entry of one dataset (``extra`` entries override built-in ones)."""
    entries = {**_builtin_entries(), **(extra or {})}
    if name not in entries:
        raise DataError(f"unknown dataset {name!r}; known datasets: {', '.join(sorted(entries))}")
    return entries[name]


def get_dataset(name: str, extra: dict[str, Any] | None = None) -> DatasetSpec:
    """Look up one dataset by name, with a clear error for unknown names."""
    return spec_from_entry(name, dataset_entry(name, extra))
