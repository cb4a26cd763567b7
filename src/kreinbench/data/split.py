"""The `split` stage: seeded train/test split and [0, 1] min-max scaling fitted on the train part."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np
from sklearn.model_selection import train_test_split

from kreinbench import __version__
from kreinbench.atomic import atomic_path
from kreinbench.data.parse import ParsedData
from kreinbench.errors import DataError


def repetition_seed(base_seed: int, dataset: str, rep: int) -> int:
    """The seed of one dataset x repetition, derived from the config's base seed.

    Different repetitions (and datasets) get independent streams; the same triple always gives
    the same seed.
    """
    sequence = np.random.SeedSequence([base_seed, zlib.crc32(dataset.encode()), rep])
    return int(sequence.generate_state(1)[0])


def minmax_fit(X_train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature minimum and range on the training part (range 1 for constant features)."""
    lo = X_train.min(axis=0)
    span = X_train.max(axis=0) - lo
    span[span == 0] = 1.0
    return lo, span


# Arrays of a split file; the indices are rows of the parsed raw data.
_ARRAYS = ("X_train", "y_train", "X_test", "y_test", "train_index", "test_index")


@dataclass(frozen=True)
class Split:
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    train_index: np.ndarray
    test_index: np.ndarray
    attrs: dict


def make_split(data: ParsedData, *, dataset: str, rep: int, base_seed: int, test_size: float) -> Split:
    """Stratified random split, then min-max scaling fitted on the training part only.

    Test features are scaled with the training minimum and range and deliberately *not* clipped:
    clipping would hide how far test points lie outside the training box, and both TL1 and RBF
    kernels are defined for any real input.
    """
    seed = repetition_seed(base_seed, dataset, rep)
    idx = np.arange(data.y.size)
    try:
        train_idx, test_idx = train_test_split(idx, test_size=test_size, stratify=data.y, random_state=seed % 2**32)
    except ValueError as exc:
        raise DataError(f"dataset {dataset!r}: cannot split with test_size={test_size}: {exc}") from exc
    train_idx.sort()
    test_idx.sort()
    lo, span = minmax_fit(data.X[train_idx])
    attrs = {
        "dataset": dataset,
        "rep": rep,
        "seed": seed,
        "base_seed": base_seed,
        "test_size": test_size,
        "scaling": "min-max to [0,1] fitted on train; test not clipped",
        "feature_names": json.dumps(data.feature_names),
        "label_map": json.dumps(data.label_map),
        "kreinbench_version": __version__,
    }
    return Split(
        X_train=(data.X[train_idx] - lo) / span,
        y_train=data.y[train_idx],
        X_test=(data.X[test_idx] - lo) / span,
        y_test=data.y[test_idx],
        train_index=train_idx,
        test_index=test_idx,
        attrs=attrs,
    )


def write_split(split: Split, path: str | Path, provenance: dict) -> None:
    """Write a split to HDF5 atomically, with provenance (raw file hashes) as attributes."""
    with atomic_path(path) as tmp:
        with h5py.File(tmp, "w") as h5:
            for name in _ARRAYS:
                h5.create_dataset(name, data=getattr(split, name))
            for key, value in split.attrs.items():
                h5.attrs[key] = value
            h5.attrs["provenance"] = json.dumps(provenance, sort_keys=True)


def read_split(path: str | Path) -> Split:
    """Read a split file written by :func:`write_split`."""
    try:
        with h5py.File(path, "r") as h5:
            arrays = {name: h5[name][()] for name in _ARRAYS}
            attrs = dict(h5.attrs)
    except (OSError, KeyError) as exc:
        raise DataError(f"split file {str(path)!r} is unreadable or incomplete: {exc}") from exc
    return Split(attrs=attrs, **arrays)
