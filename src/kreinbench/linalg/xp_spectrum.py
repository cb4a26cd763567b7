"""IKLR's spectral step on any array API namespace: what a positive decomposition needs of K.

The NumPy route (:mod:`kreinbench.linalg.spectrum`, :mod:`kreinbench.linalg.eigen`) asks LAPACK for
a subset of the spectrum (``syevr`` with ``subset_by_value``: only the negative eigenpairs) and
runs Lanczos through SciPy's ARPACK; the standard has neither, only the full ``eigh``/``eigvalsh``.
This route therefore:

1. tries a Cholesky certificate (:func:`kreinbench.linalg.arrays.cholesky_or_none`, which also
   catches CuPy's NaN factor): a positive definite K has no negative part, μ_min enters a fit only
   through max(−μ_min, 0), min(μ_min, 0) and max(|μ_min|, μ_max), where 0 stands in for it exactly
   (as on the NumPy route), and μ_max comes from power iteration, stopped by its residual;
2. otherwise computes the whole spectrum with ``eigh`` (``eigvalsh`` for the shift split, which
   needs μ_min and μ_max only) and keeps the eigenpairs below −n·ε·max|μ| (the NumPy route's
   tolerance, :meth:`kreinbench.linalg.spectrum.Spectrum.negative_tolerance`).

On a GPU the full ``eigh`` is the cheap part (cuSOLVER's ``syevd``); on a CPU this route costs more
than the NumPy one and is not its replacement.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import NamedTuple

from array_api_compat import device

from kreinbench.linalg.arrays import cholesky_or_none, namespace

# Power iteration for μ_max of a positive definite K: stop at a relative residual ‖Kv − θv‖/θ below
# this (θ is then within that fraction of an eigenvalue, Bauer–Fike; the top one from a start
# vector with a component along it) or after POWER_MAX_ITER products, then fall back to eigvalsh.
POWER_RTOL = 1e-10
POWER_MAX_ITER = 1000


class XpSpectralData(NamedTuple):
    """As :class:`kreinbench.methods.iklr.estimator.SpectralData`, its arrays in K's namespace."""

    path: str
    mu_min: float
    mu_max: float
    mu_neg: object
    V_neg: object


def largest_eigenvalue_pd(xp: ModuleType, K) -> float:
    """μ_max of a symmetric positive definite K by power iteration from the all-ones vector
    (kernel matrices with nonnegative entries have a top eigenvector of one sign, so the start is
    never orthogonal to it); ``eigvalsh`` where it does not reach :data:`POWER_RTOL`."""
    n = K.shape[0]
    v = xp.ones(n, dtype=K.dtype, device=device(K)) / math.sqrt(n)
    for _ in range(POWER_MAX_ITER):
        w = K @ v
        theta = float(v @ w)
        if theta <= 0.0:
            break
        residual = float(xp.linalg.vector_norm(w - theta * v))
        if residual <= POWER_RTOL * theta:
            return theta
        v = w / float(xp.linalg.vector_norm(w))
    return float(xp.linalg.eigvalsh(K)[-1])


def spectral_step(K, split: str) -> XpSpectralData:
    """What IKLR's ``split`` ("eigen" or "shift") needs of the symmetric K, in K's namespace."""
    xp = namespace(K)
    n = K.shape[0]
    empty = (xp.zeros(0, dtype=K.dtype, device=device(K)), xp.zeros((n, 0), dtype=K.dtype, device=device(K)))
    if cholesky_or_none(xp, K) is not None:
        return XpSpectralData("cholesky", 0.0, largest_eigenvalue_pd(xp, K), *empty)
    if split == "shift":
        mu = xp.linalg.eigvalsh(K)
        return XpSpectralData("eigvalsh", float(mu[0]), float(mu[-1]), *empty)
    mu, V = xp.linalg.eigh(K)
    mu_min, mu_max = float(mu[0]), float(mu[-1])
    tolerance = n * float(xp.finfo(K.dtype).eps) * max(-mu_min, mu_max, 0.0)
    # Eigenvalues come ascending: the negative part is a leading block (no boolean indexing, which
    # the standard leaves optional for data-dependent shapes).
    count = int(xp.sum(xp.astype(mu < -tolerance, xp.int64)))
    return XpSpectralData("eigh", mu_min, mu_max, mu[:count], V[:, :count])
