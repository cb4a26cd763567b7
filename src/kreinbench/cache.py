"""HDF5 caches of kernel matrices and their spectra, written atomically and checked on read.

A kernel file holds ``K_train`` (n x n) and ``K_test`` (n_test x n_train); a spectrum file holds
``eigenvalues`` (ascending) and ``eigenvectors`` (columns) of the train kernel.  Both carry as
attributes what produced them (kernel parameters, hash of the input file, package version), and
readers refuse a file whose attributes differ from what the caller expects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from kreinbench import __version__
from kreinbench.atomic import atomic_path
from kreinbench.errors import CacheMismatchError


def _encode(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _write(path: str | Path, arrays: dict[str, np.ndarray], attrs: dict[str, Any]) -> None:
    with atomic_path(path) as tmp:
        with h5py.File(tmp, "w") as h5:
            for name, array in arrays.items():
                chunks = True if array.ndim == 2 and array.size > 1 else None
                h5.create_dataset(name, data=array, chunks=chunks)
            for key, value in attrs.items():
                h5.attrs[key] = _encode(value)
            h5.attrs["kreinbench_version"] = __version__


def _read(path: str | Path, names: tuple[str, ...], expected: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict]:
    try:
        with h5py.File(path, "r") as h5:
            attrs = dict(h5.attrs)
            for key, value in expected.items():
                stored = attrs.get(key)
                if stored != _encode(value):
                    raise CacheMismatchError(
                        f"HDF5 file {str(path)!r} was made for {key}={stored!r}, but {key}={_encode(value)!r} "
                        "was asked for; delete it or rerun the stage that writes it"
                    )
            arrays = {name: h5[name][()] for name in names}
    except (OSError, KeyError) as exc:
        raise CacheMismatchError(f"HDF5 file {str(path)!r} is unreadable or incomplete: {exc}") from exc
    return arrays, attrs


def write_kernel(path: str | Path, K_train: np.ndarray, K_test: np.ndarray, attrs: dict[str, Any]) -> None:
    """Write a kernel cache file."""
    if K_train.ndim != 2 or K_train.shape[0] != K_train.shape[1]:
        raise CacheMismatchError(f"train kernel for {str(path)!r} is not square: shape {K_train.shape}")
    if K_test.shape[1] != K_train.shape[0]:
        raise CacheMismatchError(
            f"test kernel for {str(path)!r} has {K_test.shape[1]} columns, train kernel has {K_train.shape[0]} rows"
        )
    _write(path, {"K_train": K_train, "K_test": K_test},
           {**attrs, "shape_train": K_train.shape, "shape_test": K_test.shape, "dtype": str(K_train.dtype)})


def read_kernel(path: str | Path, expected: dict[str, Any] | None = None) -> tuple[np.ndarray, np.ndarray, dict]:
    """Read ``K_train`` and ``K_test``, checking ``expected`` attributes first."""
    arrays, attrs = _read(path, ("K_train", "K_test"), expected or {})
    return arrays["K_train"], arrays["K_test"], attrs


def write_spectrum(path: str | Path, eigenvalues: np.ndarray, eigenvectors: np.ndarray, attrs: dict[str, Any]) -> None:
    """Write a spectrum cache file (eigenvalues ascending)."""
    _write(path, {"eigenvalues": eigenvalues, "eigenvectors": eigenvectors}, attrs)


def read_spectrum(path: str | Path, expected: dict[str, Any] | None = None) -> tuple[np.ndarray, np.ndarray, dict]:
    """Read ``eigenvalues`` and ``eigenvectors``, checking ``expected`` attributes first."""
    arrays, attrs = _read(path, ("eigenvalues", "eigenvectors"), expected or {})
    return arrays["eigenvalues"], arrays["eigenvectors"], attrs
