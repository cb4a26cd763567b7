"""Array namespaces: NumPy by default, any Python array API standard namespace where the input is one.

A method's array route (kernels, the spectral step, IKLR's solvers) takes its namespace from its
input through ``array_api_compat`` (PyTorch and CuPy arrays on a GPU, ``array_api_strict`` in the
tests, which proves that nothing NumPy-only is used).  NumPy input keeps the NumPy route, which
also uses what the standard lacks (SciPy's ``cdist``, LAPACK's subset eigensolvers, L-BFGS), so
that its results stay bit for bit what they were.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np
from array_api_compat import array_namespace, is_array_api_obj, is_numpy_namespace

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.blas import serial_syrk


def is_array_api(x) -> bool:
    """Whether ``x`` takes the array route: an array of an array API library other than NumPy
    (PyTorch, CuPy, ``array_api_strict``).  PyTorch tensors have no ``__array_namespace__`` of
    their own: array_api_compat recognizes them."""
    return not isinstance(x, np.ndarray) and is_array_api_obj(x)


def namespace(*arrays) -> ModuleType:
    """The array API namespace of ``arrays`` (all of one library), e.g. ``array_api_compat.numpy``."""
    try:
        return array_namespace(*arrays)
    except TypeError as exc:
        raise KreinbenchError(f"arrays of different libraries or no array library: {exc}") from exc


# The namespaces a config's ``array_api: {namespace: ...}`` names (array_api_compat wraps the first
# two as the standard says them; the strict one is the standard).
NAMESPACES = ("torch", "cupy", "array_api_strict")


def from_numpy(a: np.ndarray, namespace_name: str, device: str | None = None):
    """``a`` as an array of the named namespace, on ``device`` (e.g. ``"cuda"``; None: the
    namespace's default), float64 kept."""
    if namespace_name not in NAMESPACES:
        raise KreinbenchError(f"array namespace {namespace_name!r} is not one of {list(NAMESPACES)}")
    module = "array_api_strict" if namespace_name == "array_api_strict" else f"array_api_compat.{namespace_name}"
    try:
        xp = importlib.import_module(module)
    except ImportError as exc:
        raise KreinbenchError(f"array namespace {namespace_name!r} is not installed here ({exc})") from exc
    return xp.asarray(a) if device is None else xp.asarray(a, device=device)


def is_numpy(xp: ModuleType) -> bool:
    return is_numpy_namespace(xp)


def to_numpy(a) -> np.ndarray:
    """A NumPy copy of an array of any namespace (from a GPU: a transfer to host memory)."""
    if isinstance(a, np.ndarray):
        return a
    if hasattr(a, "get"):  # CuPy: device to host
        return a.get()
    if hasattr(a, "detach"):  # PyTorch
        return a.detach().cpu().numpy()
    return np.from_dlpack(a)


def as_float64(xp: ModuleType, a):
    """``a`` in float64 on its own device (the solvers' round-off is studied in float64 only)."""
    return xp.astype(xp.asarray(a), xp.float64) if a.dtype != xp.float64 else a


def cholesky_or_none(xp: ModuleType, A):
    """The lower Cholesky factor of the symmetric ``A``, or None where ``A`` is not positive definite.

    Libraries report failure differently: NumPy and PyTorch raise, CuPy returns NaN entries (and
    some builds a partial factor): so a factor counts only if every entry is finite and its
    diagonal positive."""
    try:
        with serial_syrk(A.shape[0]):  # NumPy's Cholesky is OpenBLAS's (the others' are unaffected)
            L = xp.linalg.cholesky(A)
    except Exception:  # noqa: BLE001 (each library raises its own LinAlgError)
        return None
    if not (bool(xp.all(xp.isfinite(L))) and bool(xp.all(xp.linalg.diagonal(L) > 0))):
        return None
    return L


class Subset:
    """Ascending host indices ``index`` into one axis (of length ``size``) of arrays on ``device``:
    ``take`` gathers them and ``put`` writes values back by ``where`` over the whole axis, since the
    standard has no integer-array assignment.  ``axis="columns"`` is the last axis (of a matrix or a
    vector), ``"rows"`` the first of a matrix.  Every value ``put`` leaves in place is kept exactly.
    Indices covering the whole axis (a lock step's columns while none has stopped) take and put the
    arrays themselves: the array route never writes into an array, so none is shared by mistake."""

    def __init__(self, xp: ModuleType, index: np.ndarray, size: int, device, axis: str = "columns"):
        self.xp, self.host, self.rows = xp, index, axis == "rows"
        self.whole = index.size == size
        position, mask = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=bool)
        position[index], mask[index] = np.arange(index.size), True
        self.index = xp.asarray(index.astype(np.int64), device=device)
        self.position = xp.asarray(position, device=device)  # each place's row of the gathered array
        self.mask = xp.asarray(mask[:, None] if self.rows else mask, device=device)

    def take(self, X):
        if self.whole:
            return X
        return self.xp.take(X, self.index, axis=0 if self.rows else X.ndim - 1)

    def put(self, X, V):
        """X with the subset's places holding V (as gathered by :meth:`take`)."""
        if self.whole:
            return V
        return self.xp.where(self.mask, self.xp.take(V, self.position, axis=0 if self.rows else V.ndim - 1), X)
