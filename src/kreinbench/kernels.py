"""Kernel functions on feature matrices, computed in row blocks with scipy's distance kernels.

Every function takes ``X`` (n x m) and ``Y`` (p x m) and returns the n x p matrix
``K[i, j] = k(X[i], Y[j])``; :func:`kernel_matrices` builds the train kernel (exactly symmetric)
and the test cross-kernel of shape (n_test, n_train).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.spatial.distance import cdist

from kreinbench.errors import KreinbenchError

# Rows per block: bounds the temporary distance block to ~32 MB at p = 4096 columns.
_BLOCK_ROWS = 1024


def _blocked(fn, X: np.ndarray, Y: np.ndarray, dtype) -> np.ndarray:
    out = np.empty((X.shape[0], Y.shape[0]), dtype=dtype)
    for start in range(0, X.shape[0], _BLOCK_ROWS):
        stop = start + _BLOCK_ROWS
        out[start:stop] = fn(X[start:stop], Y)
    return out


def tl1(X: np.ndarray, Y: np.ndarray, *, tau: float, dtype=np.float64) -> np.ndarray:
    """Truncated l1-distance kernel max(tau - ||x - y||_1, 0) (Huang et al.; IKLR §V)."""
    return _blocked(lambda a, b: np.maximum(tau - cdist(a, b, "cityblock"), 0.0), X, Y, dtype)


def rbf(X: np.ndarray, Y: np.ndarray, *, sigma: float, convention: str = "iklr", dtype=np.float64) -> np.ndarray:
    """Gaussian kernel; ``convention="iklr"``: exp(-d²/σ²), ``"dank"``: exp(-d²/(2σ²))."""
    scale = {"iklr": 1.0, "dank": 2.0}[convention] * sigma**2
    return _blocked(lambda a, b: np.exp(-cdist(a, b, "sqeuclidean") / scale), X, Y, dtype)


def resolve_params(spec: dict[str, Any], n_features: int) -> dict[str, Any]:
    """Concrete kernel parameters for data with ``n_features`` columns.

    TL1's ``tau_factor`` is resolved to ``tau = tau_factor * m`` (the IKLR paper's τ = 0.7m).
    """
    kind = spec["type"]
    if kind == "tl1":
        tau = spec.get("tau")
        if tau is None:
            tau = float(spec.get("tau_factor", 0.7)) * n_features
        return {"type": "tl1", "tau": float(tau)}
    if kind == "rbf":
        return {"type": "rbf", "sigma": float(spec["sigma"]), "convention": spec.get("convention", "iklr")}
    raise KreinbenchError(f"unknown kernel type {kind!r} (known: tl1, rbf)")


def kernel_function(params: dict[str, Any]):
    """The function computing the kernel described by resolved ``params``."""
    kind = params["type"]
    if kind == "tl1":
        return lambda X, Y: tl1(X, Y, tau=params["tau"])
    if kind == "rbf":
        return lambda X, Y: rbf(X, Y, sigma=params["sigma"], convention=params["convention"])
    raise KreinbenchError(f"unknown kernel type {kind!r} (known: tl1, rbf)")


def kernel_matrices(params: dict[str, Any], X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Train kernel (n x n, exactly symmetric) and test cross-kernel (n_test x n_train)."""
    if X_train.shape[1] != X_test.shape[1]:
        raise KreinbenchError(
            f"train and test have different feature counts ({X_train.shape[1]} vs {X_test.shape[1]})"
        )
    fn = kernel_function(params)
    K_train = fn(X_train, X_train)
    # Floating-point distance kernels can differ in the last bit between (i, j) and (j, i).
    K_train = np.triu(K_train) + np.triu(K_train, 1).T
    return K_train, fn(X_test, X_train)
