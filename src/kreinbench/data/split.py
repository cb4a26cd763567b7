"""The `split` stage: seeded train/test split and (by default) [0, 1] min-max scaling, fitted on the
train part (``scaler_fit: train``) or on all rows the split is drawn from (``scaler_fit: whole``)."""

from __future__ import annotations

import json
import math
import zlib
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from kreinbench import __version__
from kreinbench.atomic import atomic_path
from kreinbench.data.parse import ParsedData
from kreinbench.data.registry import check_scaler_fit
from kreinbench.errors import DataError


def repetition_seed(base_seed: int, dataset: str, rep: int) -> int:
    """The seed of one dataset x repetition, derived from the config's base seed.

    Different repetitions (and datasets) get independent streams; the same triple always gives
    the same seed.
    """
    sequence = np.random.SeedSequence([base_seed, zlib.crc32(dataset.encode()), rep])
    return int(sequence.generate_state(1)[0])


def minmax_fit(X_fit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature minimum and range of ``X_fit`` (range 1 for constant features)."""
    lo = X_fit.min(axis=0)
    span = X_fit.max(axis=0) - lo
    span[span == 0] = 1.0
    return lo, span


# Values of the split option `scaling`. Images need "none": min-max per pixel column would change
# each image differently (and blow up nearly constant border pixels), destroying its gradients.
SCALINGS = ("minmax", "none")


def scale_features(X_train: np.ndarray, X_test: np.ndarray, scaling: str, where: str,
                   X_fit: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Both parts scaled with the minimum and range of ``X_fit`` (default: the training part)
    (``minmax``) or left as they are (``none``)."""
    if scaling not in SCALINGS:
        raise DataError(f"{where}: unknown split.scaling {scaling!r} (known: {', '.join(SCALINGS)})")
    if scaling == "none":
        return X_train, X_test
    lo, span = minmax_fit(X_train if X_fit is None else X_fit)
    return (X_train - lo) / span, (X_test - lo) / span


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


def shuffled_split(n: int, *, n_train: int, n_test: int, labels: np.ndarray | None, seed: int,
                   where: str) -> tuple[np.ndarray, np.ndarray]:
    """Positions (train, test) of a seeded random split of ``n`` rows into ``n_train`` and
    ``n_test`` rows, stratified by ``labels`` when given.

    Index for index scikit-learn's ``train_test_split`` with these sizes and
    ``random_state=seed`` (``ShuffleSplit``, or ``StratifiedShuffleSplit`` with ``labels``; the
    same RandomState draws in the same order), so the splits are those the pipeline made when it
    called scikit-learn, whose import took most of a split job (tests/test_split_sampling.py).
    """
    if n_train < 1 or n_test < 1 or n_train + n_test > n:
        raise DataError(f"{where}: cannot split {n} rows into {n_train} train and {n_test} test rows")
    rng = np.random.RandomState(seed)
    if labels is None:
        permutation = rng.permutation(n)
        return permutation[n_test:n_test + n_train], permutation[:n_test]
    classes, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    if counts.min() < 2:
        label = classes[counts.argmin()]
        label = label.item() if isinstance(label, np.generic) else label  # 1.0, not np.float64(1.0)
        raise DataError(f"{where}: cannot stratify the split: the class with label {label!r} has one row "
                        f"(each class needs two, one for each part)")
    if min(n_train, n_test) < classes.size:
        raise DataError(f"{where}: cannot stratify {classes.size} classes into {n_train} train and {n_test} test rows")
    members = np.split(np.argsort(inverse, kind="stable"), np.cumsum(counts)[:-1])
    train_counts = _approximate_mode(counts, n_train, rng)
    test_counts = _approximate_mode(counts - train_counts, n_test, rng)
    train, test = [], []
    for rows, k_train, k_test in zip(members, train_counts, test_counts):
        shuffled = rows[rng.permutation(rows.size)]
        train.extend(shuffled[:k_train])
        test.extend(shuffled[k_train:k_train + k_test])
    return rng.permutation(train), rng.permutation(test)


def _approximate_mode(counts: np.ndarray, draws: int, rng: np.random.RandomState) -> np.ndarray:
    """Rows per class of a stratified draw: the proportional share floored, the rest added to
    the largest remainders, ties broken at random (scikit-learn's ``_approximate_mode``)."""
    continuous = counts / counts.sum() * draws
    floored = np.floor(continuous)
    missing = int(draws - floored.sum())
    remainder = continuous - floored
    for value in np.sort(np.unique(remainder))[::-1]:
        if missing <= 0:
            break
        (tied,) = np.where(remainder == value)
        chosen = rng.choice(tied, size=min(tied.size, missing), replace=False)
        floored[chosen] += 1
        missing -= chosen.size
    return floored.astype(int)


def _subsample(rows: np.ndarray, y: np.ndarray, *, max_n: int | None, per_class: int | None, stratify: bool,
               rng: np.random.Generator, where: str) -> np.ndarray:
    """Seeded subsample of ``rows``: exactly ``per_class`` rows of each class, then at most ``max_n``
    rows (stratified for classification, so class proportions are kept up to rounding)."""
    if per_class is not None:
        chosen = []
        for label in np.unique(y[rows]):
            members = rows[y[rows] == label]
            if members.size < per_class:
                raise DataError(f"{where}: split.per_class = {per_class} but class {label:g} has only {members.size} rows")
            chosen.append(rng.choice(members, size=per_class, replace=False))
        rows = np.concatenate(chosen)
    if max_n is not None and rows.size > max_n:
        state = int(rng.integers(2**32))
        kept, _ = shuffled_split(rows.size, n_train=max_n, n_test=rows.size - max_n,
                                 labels=y[rows] if stratify else None, seed=state, where=where)
        rows = rows[kept]
    return np.sort(rows)


def make_split(data: ParsedData, *, dataset: str, rep: int, base_seed: int, test_size: float = 0.5,
               protocol: str = "random", parts: list[str] | None = None, max_n: int | None = None,
               per_class: int | None = None, scaling: str = "minmax", scaler_fit: str = "train") -> Split:
    """Train/test split of ``data``, then (by default) min-max scaling fitted on the training part only.

    Protocols: ``random`` (stratified for classification, ``test_size`` of the rows to the test
    part) and ``provided`` (the files' own train/test parts). ``parts`` first restricts the rows to
    some provided parts (e.g. a random split of the monks *training* file, as in IKLR Table II).
    ``per_class`` and ``max_n`` subsample the rows (per part for ``provided``) with a seed derived
    from the repetition seed; both seeds are recorded in the attributes. ``scaling="none"`` keeps
    the raw features (images, whose pixels share one scale); it is recorded as the ``scaling`` attribute.

    ``scaler_fit="whole"`` takes the minimum and range over every row the split is drawn from:
    after ``parts``, before ``per_class`` and ``max_n`` (a paper that scales its file and then
    splits it scales the whole file, even where our config caps the rows); recorded as the
    ``scaler_fit`` attribute.

    Test features scaled with the training part's minimum and range are deliberately *not* clipped:
    clipping would hide how far test points lie outside the training box, and both TL1 and RBF
    kernels are defined for any real input.
    """
    where = f"dataset {dataset!r}"
    check_scaler_fit(scaler_fit, where)
    seed = repetition_seed(base_seed, dataset, rep)
    subsample_seed = repetition_seed(base_seed, f"{dataset}/subsample", rep)
    rng = np.random.default_rng(subsample_seed)
    stratify = data.task != "regression"
    idx = np.arange(data.y.size)
    if parts is not None:
        if data.part is None:
            raise DataError(f"{where}: split.parts = {parts} but the dataset has no provided train/test parts")
        idx = idx[np.isin(data.part, parts)]
    pool = idx
    if protocol == "provided":
        if data.part is None:
            raise DataError(f"{where}: split protocol 'provided' needs files with train/test parts")
        train_idx, test_idx = (
            _subsample(idx[data.part[idx] == name], data.y, max_n=max_n, per_class=per_class, stratify=stratify,
                       rng=rng, where=where)
            for name in ("train", "test")
        )
        if train_idx.size == 0 or test_idx.size == 0:
            raise DataError(f"{where}: the provided split has an empty train or test part")
    else:
        idx = _subsample(idx, data.y, max_n=max_n, per_class=per_class, stratify=stratify, rng=rng, where=where)
        if not 0 < test_size < 1:
            raise DataError(f"{where}: split.test_size must be in (0, 1), got {test_size!r}")
        n_test = math.ceil(test_size * idx.size)
        train, test = shuffled_split(idx.size, n_train=idx.size - n_test, n_test=n_test,
                                     labels=data.y[idx] if stratify else None, seed=seed % 2**32,
                                     where=f"{where} (split.test_size = {test_size})")
        train_idx, test_idx = idx[train], idx[test]
    train_idx = np.sort(train_idx)
    test_idx = np.sort(test_idx)
    X_train, X_test = scale_features(data.X[train_idx], data.X[test_idx], scaling, where,
                                     X_fit=data.X[pool] if scaler_fit == "whole" else None)
    attrs = {
        "dataset": dataset,
        "rep": rep,
        "seed": seed,
        "subsample_seed": subsample_seed,
        "base_seed": base_seed,
        "task": data.task,
        "protocol": protocol,
        "parts": json.dumps(parts),
        "max_n": json.dumps(max_n),
        "per_class": json.dumps(per_class),
        "test_size": test_size if protocol == "random" else float(test_idx.size) / (train_idx.size + test_idx.size),
        "scaling": scaling,
        "scaler_fit": scaler_fit,
        "feature_names": json.dumps(data.feature_names),
        "label_map": json.dumps(data.label_map),
        "kreinbench_version": __version__,
    }
    return Split(
        X_train=X_train,
        y_train=data.y[train_idx],
        X_test=X_test,
        y_test=data.y[test_idx],
        train_index=train_idx,
        test_index=test_idx,
        attrs=attrs,
    )


def split_dataset(data: ParsedData, split_spec: dict, *, dataset: str, rep: int, base_seed: int) -> Split:
    """:func:`make_split` with the options of a registry entry's ``split`` mapping."""
    known = {"protocol", "test_size", "parts", "max_n", "per_class", "scaling", "scaler_fit"}
    unknown = set(split_spec) - known
    if unknown:
        raise DataError(f"dataset {dataset!r}: unknown split option(s) {sorted(unknown)} (known: {sorted(known)})")
    return make_split(data, dataset=dataset, rep=rep, base_seed=base_seed,
                      test_size=float(split_spec.get("test_size", 0.5)), protocol=split_spec["protocol"],
                      parts=split_spec.get("parts"), max_n=split_spec.get("max_n"), per_class=split_spec.get("per_class"),
                      scaling=split_spec.get("scaling", "minmax"), scaler_fit=split_spec.get("scaler_fit", "train"))


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
