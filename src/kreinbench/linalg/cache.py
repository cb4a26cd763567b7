"""HDF5 caches of kernel matrices and their spectra, written atomically and checked on read.

A kernel file holds ``K_train`` (n x n) and ``K_test`` (n_test x n_train), chunked and optionally
compressed, or, for an implicit kernel (:mod:`kreinbench.linalg.implicit_kernel`), its parameters and
shapes only; a spectrum file holds ``eigenvalues`` (ascending) and, unless its ``kind`` is
``"eigenvalues"`` or ``"lambda_min"``, ``eigenvectors`` (columns) of the train kernel (see :mod:`kreinbench.linalg.spectrum`
for the kinds).  Both carry as attributes what produced them (kernel parameters; a kernel the SHA-256 of
its split file, a spectrum that of the train matrix it decomposes; package version, shapes, dtype),
and readers refuse a file whose attributes differ from what the caller expects (the fit stage
checks both provenances).  Each array's SHA-256 is stored beside it and checked on every read, so a
bit flip or a truncation is detected even where HDF5 still parses the file; a corrupt file is
deleted on detection, and the error says that rerunning the same command rebuilds it (Snakemake
sees the file missing and reruns the job that writes it).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from kreinbench import __version__
from kreinbench.atomic import atomic_path
from kreinbench.errors import CacheMismatchError
from kreinbench.linalg.spectrum import COVERS, Spectrum

COMPRESSIONS = (None, "gzip", "lzf")
# A kernel file's ``storage``: the matrices, or only the parameters of an implicit kernel.
MATRIX, IMPLICIT = "matrix", "implicit"


def _encode(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _write(path: str | Path, arrays: dict[str, np.ndarray], attrs: dict[str, Any], compression: str | None = None) -> None:
    if compression not in COMPRESSIONS:
        raise CacheMismatchError(f"compression={compression!r} is not one of {list(COMPRESSIONS)}")
    with atomic_path(path) as tmp:
        with h5py.File(tmp, "w") as h5:
            for name, array in arrays.items():
                chunked = array.ndim == 2 and array.size > 1
                h5.create_dataset(name, data=array, chunks=True if chunked else None,
                                  compression=compression if chunked else None)
            for key, value in attrs.items():
                h5.attrs[key] = _encode(value)
            for name, array in arrays.items():
                h5.attrs[f"{name}_sha256"] = _digest(array)
            h5.attrs["kreinbench_version"] = __version__


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).view(np.uint8)).hexdigest()


def _corrupt(path: str | Path, what: str) -> CacheMismatchError:
    """Delete the corrupt cache ``path``; the error to raise, saying how it is rebuilt."""
    Path(path).unlink(missing_ok=True)
    return CacheMismatchError(f"HDF5 file {str(path)!r} {what}; it was deleted, and running the same "
                              "snakemake command again rebuilds it")


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
        raise _corrupt(path, f"is unreadable or incomplete ({exc})") from exc
    for name, array in arrays.items():
        stored = attrs.get(f"{name}_sha256")
        # files from before checksums were stored carry none: HDF5's own reading is their check
        if stored is not None and stored != _digest(array):
            raise _corrupt(path, f"has a {name} whose content does not match its checksum (a bit flip or a "
                                 "partial overwrite)")
    return arrays, attrs


def write_kernel(path: str | Path, K_train: np.ndarray, K_test: np.ndarray, attrs: dict[str, Any],
                 compression: str | None = None) -> None:
    """Write a kernel cache file (``compression``: None, ``"gzip"`` or ``"lzf"``)."""
    if K_train.ndim != 2 or K_train.shape[0] != K_train.shape[1]:
        raise CacheMismatchError(f"train kernel for {str(path)!r} is not square: shape {K_train.shape}")
    if K_test.shape[1] != K_train.shape[0]:
        raise CacheMismatchError(
            f"test kernel for {str(path)!r} has {K_test.shape[1]} columns, train kernel has {K_train.shape[0]} rows"
        )
    if K_test.dtype != K_train.dtype:
        raise CacheMismatchError(f"train and test kernels for {str(path)!r} differ in dtype ({K_train.dtype} vs {K_test.dtype})")
    _write(path, {"K_train": K_train, "K_test": K_test},
           {**attrs, "shape_train": K_train.shape, "shape_test": K_test.shape, "dtype": str(K_train.dtype)},
           compression)


def write_implicit_kernel(path: str | Path, shape_train: tuple[int, int], shape_test: tuple[int, int],
                          attrs: dict[str, Any]) -> None:
    """Write the cache file of an implicit kernel (:mod:`kreinbench.linalg.implicit_kernel`): what
    produced it and its shapes, no matrix."""
    _write(path, {}, {**attrs, "storage": IMPLICIT, "shape_train": tuple(shape_train), "shape_test": tuple(shape_test)})


def read_implicit_kernel(path: str | Path, expected: dict[str, Any] | None = None) -> dict:
    """The attributes of an implicit kernel's cache file, checking ``expected`` ones first."""
    return _read(path, (), {**(expected or {}), "storage": IMPLICIT})[1]


def kernel_storage(path: str | Path) -> str:
    """"matrix" (``K_train`` and ``K_test`` stored) or "implicit" (parameters only)."""
    try:
        with h5py.File(path, "r") as h5:
            return str(h5.attrs.get("storage", MATRIX))
    except OSError as exc:
        raise _corrupt(path, f"is unreadable or incomplete ({exc})") from exc


def train_kernel_digest(path: str | Path) -> str:
    """The SHA-256 of the train kernel matrix in a kernel cache file (stored when it was written;
    the matrix is not read): what a spectrum of it records, and its reader checks."""
    try:
        with h5py.File(path, "r") as h5:
            digest = h5.attrs.get("K_train_sha256")
    except OSError as exc:
        raise _corrupt(path, f"is unreadable or incomplete ({exc})") from exc
    if digest is None:
        raise CacheMismatchError(f"HDF5 file {str(path)!r} holds no train kernel checksum (an implicit kernel, or "
                                 "a file older than checksums): rerun the stage that writes it")
    return str(digest)


def read_kernel(path: str | Path, expected: dict[str, Any] | None = None) -> tuple[np.ndarray, np.ndarray, dict]:
    """Read ``K_train`` and ``K_test``, checking ``expected`` attributes first."""
    K_train, attrs = read_kernel_part(path, "train", expected)
    return K_train, read_kernel_part(path, "test", expected)[0], attrs


def read_kernel_part(path: str | Path, part: str, expected: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
    """Read ``K_train`` or ``K_test`` alone (``part``: "train" or "test"), checking ``expected``
    attributes first: a job that needs one kernel need not hold the other."""
    if kernel_storage(path) == IMPLICIT:
        raise CacheMismatchError(f"HDF5 file {str(path)!r} is an implicit kernel (storage: implicit): it holds no "
                                 "matrix to read; its user computes the entries it needs from the features")
    arrays, attrs = _read(path, (f"K_{part}",), expected or {})
    K = arrays[f"K_{part}"]
    stored = (tuple(attrs.get(f"shape_{part}", ())), attrs.get("dtype"))
    if stored != (K.shape, str(K.dtype)):
        raise CacheMismatchError(
            f"HDF5 file {str(path)!r} holds a {part} kernel of shape {K.shape} ({K.dtype}) "
            f"but its attributes say {stored}; it is corrupt, delete it"
        )
    return K, attrs


def write_spectrum(path: str | Path, eigenvalues: np.ndarray, eigenvectors: np.ndarray | None, attrs: dict[str, Any]) -> None:
    """Write a spectrum cache file (eigenvalues ascending; ``eigenvectors`` None for eigenvalues only)."""
    arrays = {"eigenvalues": eigenvalues}
    if eigenvectors is not None:
        arrays["eigenvectors"] = eigenvectors
    _write(path, arrays, attrs)


def read_spectrum(path: str | Path, expected: dict[str, Any] | None = None) -> tuple[np.ndarray, np.ndarray | None, dict]:
    """Read ``eigenvalues`` and ``eigenvectors`` (None if the file has none), checking ``expected`` attributes first."""
    arrays, attrs = _read(path, ("eigenvalues",), expected or {})
    if attrs.get("kind", "full") in ("eigenvalues", "lambda_min"):
        return arrays["eigenvalues"], None, attrs
    vectors, _ = _read(path, ("eigenvectors",), {})
    return arrays["eigenvalues"], vectors["eigenvectors"], attrs


def write_spectrum_object(path: str | Path, spectrum: Spectrum, attrs: dict[str, Any]) -> None:
    """Write a :class:`~kreinbench.linalg.spectrum.Spectrum` of any kind with its summary as attributes."""
    write_spectrum(path, spectrum.eigenvalues, spectrum.eigenvectors, {
        **attrs, **spectrum.summary(), "kind": spectrum.kind, "dimension": spectrum.dimension,
        "trace": spectrum.trace,
    })


def read_spectrum_object(path: str | Path, expected: dict[str, Any] | None = None, kind: str = "full") -> Spectrum:
    """Read a spectrum file as the ``kind`` spectrum a method needs, refusing a file that cannot serve it."""
    mu, V, attrs = read_spectrum(path, expected)
    stored = attrs.get("kind", "full")
    if kind not in COVERS.get(stored, ()):
        raise CacheMismatchError(
            f"HDF5 file {str(path)!r} holds a {stored!r} spectrum, but a {kind!r} spectrum was asked for; "
            "delete it or rerun the spectrum stage"
        )
    if stored == "full":
        return Spectrum(eigenvalues=mu, eigenvectors=V).restrict(kind)
    spectrum = Spectrum(eigenvalues=mu, eigenvectors=V, kind=stored, dimension=int(attrs["dimension"]),
                        mu_max=float(attrs["mu_max"]), trace=float(attrs["trace"]))
    return spectrum.restrict(kind)
