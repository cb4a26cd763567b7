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
from array_api_compat import array_namespace, is_numpy_namespace

from kreinbench.errors import KreinbenchError


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
        L = xp.linalg.cholesky(A)
    except Exception:  # noqa: BLE001 (each library raises its own LinAlgError)
        return None
    if not (bool(xp.all(xp.isfinite(L))) and bool(xp.all(xp.linalg.diagonal(L) > 0))):
        return None
    return L
