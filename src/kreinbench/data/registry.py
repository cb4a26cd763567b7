"""The declarative dataset registry (``registry.yaml``) and user-supplied entries."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from kreinbench.errors import DataError

TASKS = {"binary", "multiclass", "regression"}
SOURCE_TYPES = {"package", "synthetic", "local", "url"}
PARSER_FORMATS = {"delimited", "arff", "libsvm", "pgm-archive"}
SPLIT_PROTOCOLS = {"random", "provided"}
PARTS = {"train", "test"}
# Values of the split option `scaler_fit`: the rows whose minimum and range the min-max scaler
# takes. "train" (default) lets nothing of the test part into the features; "whole" (every row
# the split is drawn from) is the protocol of papers that scale the data set, then split it
# (MM'17 §5, DANK §6).
SCALER_FITS = ("train", "whole")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class RawFile:
    """One raw file of a dataset and its role: ``part`` of the provided split, ``labels`` file."""

    name: str
    part: str | None = None
    labels: str | None = None
    head_rows: int | None = None
    drop_lines: tuple[int, ...] = ()


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
    drop_columns: tuple[int | str, ...] = field(default_factory=tuple)

    def label_map(self) -> dict[str, int]:
        """Raw label string -> +1/-1 (binary) or class index 0..k-1 (multiclass); {} for regression."""
        if self.task == "regression":
            return {}
        if self.task == "multiclass":
            return {str(v): i for i, v in enumerate(self.label["classes"])}
        mapping = {str(v): 1 for v in self.label.get("positive", [])}
        for v in self.label.get("negative", []):
            if str(v) in mapping:
                raise DataError(f"dataset {self.name!r}: label {v!r} is both positive and negative")
            mapping[str(v)] = -1
        return mapping

    def raw_files(self) -> list[RawFile]:
        """The raw files holding rows (label files are attached to their data file)."""
        kind = self.source["type"]
        if kind == "url":
            label_files = {f["labels"] for f in self.source["files"] if f.get("labels")}
            return [RawFile(f["name"], f.get("part"), f.get("labels"), f.get("head_rows"), tuple(f.get("drop_lines", ())))
                    for f in self.source["files"] if f["name"] not in label_files]
        if kind == "package":
            return [RawFile(Path(rel).name) for rel in self.source["files"]]
        if kind == "local":
            return [RawFile(Path(self.source["path"]).name)]
        return [RawFile(f"{self.source['generator']}.csv")]

    @property
    def needs_download(self) -> bool:
        """True when some raw file has no pinned checksum, i.e. no offline copy was available."""
        return self.source["type"] == "url" and any(f.get("sha256") is None for f in self.source["files"])


def check_scaler_fit(value: Any, where: str, key: str = "split.scaler_fit") -> str:
    """``value`` if it is one of SCALER_FITS, else a DataError naming ``key``."""
    if value not in SCALER_FITS:
        raise DataError(f"{where}: unknown {key} {value!r} (known: {', '.join(SCALER_FITS)})")
    return value


def _check_choice(where: str, what: str, value: Any, known: set[str]) -> None:
    if value not in known:
        raise DataError(f"{where}: unknown {what} {value!r} (known: {sorted(known)})")


def _check_url_files(where: str, source: dict[str, Any]) -> None:
    files = source.get("files")
    if not isinstance(files, list) or not files:
        raise DataError(f"{where}: source type 'url' needs a non-empty list 'files'")
    names = {f.get("name") for f in files if isinstance(f, dict)}
    for i, f in enumerate(files):
        at = f"{where}: source.files[{i}]"
        if not isinstance(f, dict) or not f.get("name"):
            raise DataError(f"{at} needs a 'name'")
        if "sha256" not in f:
            raise DataError(f"{at} ({f['name']!r}) needs 'sha256' (a hex digest, or null for an unpinned file)")
        if f["sha256"] is not None and not _SHA256.match(str(f["sha256"])):
            raise DataError(f"{at} ({f['name']!r}): sha256 {f['sha256']!r} is not 64 lowercase hex digits")
        if not f.get("urls") and not f.get("mirror"):
            raise DataError(f"{at} ({f['name']!r}) needs 'urls' or a 'mirror' path")
        if f.get("part") is not None:
            _check_choice(at, "part", f["part"], PARTS)
        drop = f.get("drop_lines", [])
        if not isinstance(drop, list) or not all(isinstance(n, int) and n >= 1 for n in drop):
            raise DataError(f"{at} ({f['name']!r}): drop_lines must be a list of 1-based line numbers, got {drop!r}")
        if f.get("labels") is not None and f["labels"] not in names:
            raise DataError(f"{at}: labels file {f['labels']!r} is not among the dataset's files")


def _check_label(where: str, task: str, label: dict[str, Any]) -> None:
    if task == "binary" and (not label.get("positive") or not label.get("negative")):
        raise DataError(f"{where}: label needs non-empty 'positive' and 'negative' lists")
    if task == "binary" and label.get("others", "error") not in {"error", "drop"}:
        raise DataError(f"{where}: label.others must be 'error' or 'drop', got {label['others']!r}")
    if task == "multiclass" and (not label.get("classes") or len(label["classes"]) < 2):
        raise DataError(f"{where}: a multiclass label needs a list 'classes' of at least two labels")


def spec_from_entry(name: str, entry: dict[str, Any]) -> DatasetSpec:
    where = f"dataset {name!r}"
    if not isinstance(entry, dict):
        raise DataError(f"{where}: registry entry must be a mapping, got {type(entry).__name__}")
    for key in ("task", "source", "parser", "label", "split"):
        if key not in entry:
            raise DataError(f"{where}: registry entry lacks the required key {key!r}")
    _check_choice(where, "task", entry["task"], TASKS)
    _check_choice(where, "source type", entry["source"].get("type"), SOURCE_TYPES)
    _check_choice(where, "parser format", entry["parser"].get("format"), PARSER_FORMATS)
    _check_choice(where, "split protocol", entry["split"].get("protocol"), SPLIT_PROTOCOLS)
    check_scaler_fit(entry["split"].get("scaler_fit", "train"), where)
    if entry["source"]["type"] == "url":
        _check_url_files(where, entry["source"])
    _check_label(where, entry["task"], entry["label"])
    spec = DatasetSpec(
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
    parts = {f.part for f in spec.raw_files()}
    if spec.split["protocol"] == "provided" and not {"train", "test"} <= parts:
        raise DataError(f"{where}: split protocol 'provided' needs files with part 'train' and part 'test'")
    unknown = set(spec.split.get("parts", ())) - parts
    if unknown:
        raise DataError(f"{where}: split.parts {sorted(unknown)} name no file part (parts: {sorted(p for p in parts if p)})")
    return spec


@lru_cache(maxsize=1)
def _builtin_entries() -> dict[str, Any]:
    import yaml  # noqa: PLC0415 (imported here: only the jobs that read the registry pay for it)

    return yaml.safe_load(resources.files("kreinbench.data").joinpath("registry.yaml").read_text())


def load_registry(extra: dict[str, Any] | None = None) -> dict[str, DatasetSpec]:
    """The built-in registry, plus ``extra`` entries (e.g. a config's ``custom_datasets``)."""
    entries = dict(_builtin_entries())
    entries.update(extra or {})
    return {name: spec_from_entry(name, entry) for name, entry in entries.items()}


def dataset_entry(name: str, extra: dict[str, Any] | None = None, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The raw registry entry of one dataset (``extra`` entries override built-in ones).

    ``options`` (a config's ``dataset_options[name]``) overrides keys of the entry's ``split``
    mapping, e.g. ``{"split": {"protocol": "random", "parts": ["train"], "max_n": 4000}}``.
    """
    entries = {**_builtin_entries(), **(extra or {})}
    if name not in entries:
        raise DataError(f"unknown dataset {name!r}; known datasets: {', '.join(sorted(entries))}")
    entry = dict(entries[name])
    for key, value in (options or {}).items():
        if key != "split":
            raise DataError(f"dataset_options.{name}: unknown key {key!r} (only 'split' can be overridden)")
        entry["split"] = {**entry["split"], **value}
    return entry


def get_dataset(name: str, extra: dict[str, Any] | None = None, options: dict[str, Any] | None = None) -> DatasetSpec:
    """Look up one dataset by name, with a clear error for unknown names."""
    return spec_from_entry(name, dataset_entry(name, extra, options))
