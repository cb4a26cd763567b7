"""The kernels of :mod:`kreinbench.linalg.kernels` on any array API namespace (a GPU's, through
PyTorch or CuPy): TL1, Gaussian (both conventions), sigmoid and difference of Gaussians.

The NumPy route keeps SciPy's ``cdist``, which the standard lacks; this one computes the same
entries from the standard's operations, so its matrices equal the NumPy route's up to round-off:
TL1's ℓ1 distances are summed over broadcast differences (exactly symmetric, as |a − b| = |b − a|
is exact); squared distances come from the Gram form ‖x‖² + ‖y‖² − 2⟨x, y⟩ (clipped at 0), one
GEMM per block as GPUs want it, whose round-off is about ε·(‖x‖² + ‖y‖²) rather than cdist's
ε·‖x − y‖² (1e-16 against entries of order 1 for features in [0, 1]); the train kernel is made
exactly symmetric from its upper triangle, as :func:`kreinbench.linalg.kernels.pairwise` makes it.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.arrays import namespace
from kreinbench.linalg.kernels import BLOCK_ELEMENTS, RBF_CONVENTIONS


def _squared_distances(xp: ModuleType, a, b):
    gram = a @ b.T
    d2 = xp.sum(a * a, axis=1)[:, None] + xp.sum(b * b, axis=1)[None, :] - 2.0 * gram
    return xp.clip(d2, min=0.0)


def _block_function(xp: ModuleType, params: dict[str, Any], n_features: int) -> tuple[Callable, int]:
    """``block(a, b)`` of the kernel ``params`` and the floats its temporaries hold per pair."""
    kind = params["type"]
    if kind == "tl1":
        tau = params["tau"]

        def block(a, b):
            d = xp.sum(xp.abs(a[:, None, :] - b[None, :, :]), axis=2)
            return xp.clip(tau - d, min=0.0)
        return block, n_features  # the broadcast differences: a row of m floats per pair
    if kind in ("rbf", "noisy-rbf"):
        scale = RBF_CONVENTIONS[params["convention"]] * params["sigma"] ** 2
        return (lambda a, b: xp.exp(_squared_distances(xp, a, b) / -scale)), 2
    if kind == "sigmoid":
        return (lambda a, b: xp.tanh(params["gamma"] * (a @ b.T) + params["coef0"])), 1
    if kind == "dog":
        def block(a, b):
            d2 = _squared_distances(xp, a, b)
            return (params["a1"] * xp.exp(d2 / (-2.0 * params["sigma1"] ** 2))
                    - params["a2"] * xp.exp(d2 / (-2.0 * params["sigma2"] ** 2)))
        return block, 3
    raise KreinbenchError(f"kernel type {kind!r} has no array API route (it has: tl1, rbf, sigmoid, dog)")


def kernel(params: dict[str, Any], X, Y=None):
    """k(X[i], Y[j]) for resolved kernel ``params`` (:func:`kreinbench.linalg.kernels.resolve_params`),
    in the namespace and on the device of ``X`` (float64); ``Y=None``: the train kernel of ``X``,
    exactly symmetric.  The noise of ``noisy-rbf`` is not added here (its train kernel is the
    NumPy route's)."""
    xp = namespace(X) if Y is None else namespace(X, Y)
    if X.ndim != 2 or (Y is not None and (Y.ndim != 2 or Y.shape[1] != X.shape[1])):
        raise KreinbenchError(f"kernel: X and Y must be 2-d with as many columns, got shapes {X.shape} and "
                              f"{None if Y is None else Y.shape}")
    block, per_pair = _block_function(xp, params, X.shape[1])
    cols = X if Y is None else Y
    rows = max(1, BLOCK_ELEMENTS // max(cols.shape[0] * per_pair, 1))
    n = X.shape[0]
    K = xp.concat([block(X[start:min(start + rows, n), :], cols) for start in range(0, n, rows)], axis=0)
    if Y is None:
        upper = xp.triu(K)
        K = upper + xp.triu(K, k=1).T
    return K
