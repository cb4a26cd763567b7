"""The eigen routines of every method and stage: extreme eigenvalues, negative eigenpairs and a
Cholesky certificate of positive definiteness of a symmetric matrix, with seeded start vectors.

Which routine serves which end of a kernel's spectrum, measured on the papers' kernels:

- μ_max is well separated on kernel matrices: Lanczos (ARPACK ``eigsh``, ``which="LA"``) converges
  in a few dozen products (:func:`largest_eigenvalue`).
- μ_min sits at the edge of the cluster of small eigenvalues: ARPACK's ``which="SA"`` with its
  defaults took 49 s at n = 1000 on TL1 kernels where LAPACK ``syevr`` restricted to index 0 takes
  0.15 s (:func:`smallest_eigenvalue`); :func:`lanczos_extremes` (full reorthogonalization,
  residual-checked) gets both ends in tens of products where it converges, and says when not.
- The negative eigenpairs: LAPACK ``syevr`` restricted by value (:func:`negative_eigenpairs`); plain
  Lanczos does not find them with certainty (they sit against a cluster of near-zero positive ones).
- K ≻ 0: one Cholesky factorization (n³/3 flops, failing early on an indefinite K) certifies it,
  where any eigensolver costs a tridiagonalization (:func:`positive_definite`). From
  :data:`CHOLESKY_FIRST_FROM` rows on, μ_min (:func:`smallest_eigenvalue`) and the negative part
  (:func:`negative_eigenpairs`) try that certificate first: a certified K has no negative part,
  and its μ_min pair is the top pair of K⁻¹, by Lanczos with two triangular solves a step
  (:func:`smallest_pair_positive_definite`), where ``syevr`` would tridiagonalize K (IKLR Table IV's
  ijcnn1-tr at 17 500 rows: 1759 s and 9.5 GB).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.linalg.lapack

from kreinbench.linalg.blas import serial_syrk
from kreinbench.linalg.kernels import check_memory

# Below this size Lanczos has no advantage over a dense eigensolver (and eigsh needs n > k + 1).
DENSE_BELOW = 64
# extreme_eigenvalues: up to this size every eigenvalue from one dense call is cheap.
DENSE_LIMIT = 3000
# Lanczos checks convergence every this many steps (a tridiagonal eigensolve each time).
LANCZOS_CHECK_EVERY = 10
# From this many rows on, μ_min and the negative part try the Cholesky certificate before syevr.
# Below it they stay on syevr, which every committed record used: the paper configs' kernels have
# at most 4000 training rows, so their μ_min are unchanged to the last bit. Measured on a positive
# definite TL1 kernel of uniform 20-d points, one thread, a loaded machine: n = 3000, syevr's μ_min
# 4.3 s against Cholesky 0.4 s + Lanczos on K⁻¹ 2.1 s; n = 5000, 60 s against 5.1 s + 13.8 s; the
# same μ_min to the digits printed.
CHOLESKY_FIRST_FROM = 5000


def start_vector(n: int, seed: int) -> np.ndarray:
    """The seeded random start vector of every Krylov method here (reproducible results)."""
    return np.random.default_rng(seed).standard_normal(n)


def largest_eigenvalue(K: np.ndarray, *, seed: int = 0, exact: bool = False) -> float:
    """μ_max of the symmetric ``K``: Lanczos from a seeded start (well separated on kernel
    matrices), or LAPACK ``syevr`` restricted to the last index when ``exact`` or n is tiny."""
    n = K.shape[0]
    if exact or n < DENSE_BELOW:
        return float(scipy.linalg.eigh(K, eigvals_only=True, subset_by_index=[n - 1, n - 1], driver="evr")[0])
    # Imported here: scipy.sparse.linalg adds to every job's start, and only n >= DENSE_BELOW needs it.
    from scipy.sparse.linalg import eigsh  # noqa: PLC0415

    return float(eigsh(K, k=1, which="LA", v0=start_vector(n, seed), return_eigenvectors=False)[0])


def smallest_eigenvalue(K: np.ndarray, *, seed: int = 0, cholesky_from: int | None = None) -> float:
    """μ_min of the symmetric ``K`` by LAPACK ``syevr`` restricted to index 0 (exact; see the module
    docstring for why not Lanczos), or, from ``cholesky_from`` rows on and K certified positive
    definite, by Lanczos on K⁻¹ (:func:`smallest_pair_positive_definite`; ``cholesky_from`` None:
    :data:`CHOLESKY_FIRST_FROM`)."""
    pair = _certified_smallest_pair(K, seed, cholesky_from)
    if pair is not None:
        return float(pair[0][0])
    return float(scipy.linalg.eigh(K, eigvals_only=True, subset_by_index=[0, 0], driver="evr")[0])


def _certified_smallest_pair(K: np.ndarray, seed: int, cholesky_from: int | None):
    """The μ_min pair of ``K`` when it has at least ``cholesky_from`` rows (None:
    :data:`CHOLESKY_FIRST_FROM`), a Cholesky factor and the inverse Lanczos converges; None
    otherwise (the caller's syevr then decides)."""
    if K.shape[0] < (CHOLESKY_FIRST_FROM if cholesky_from is None else cholesky_from):
        return None
    R = cholesky_factor(K)
    return None if R is None else smallest_pair_positive_definite(R, seed=seed)


def smallest_pair_positive_definite(R: np.ndarray, *, seed: int = 0):
    """(μ_min as a 1-array, its unit eigenvector as an n × 1 array) of K = RᵀR ≻ 0 from its upper
    Cholesky factor ``R``: the largest eigenpair of K⁻¹ by ARPACK Lanczos to machine precision,
    each step two triangular solves (2n² flops, no n × n work beyond R). None when ARPACK does not
    converge (a cluster at the bottom of K's spectrum), for the caller to use a dense eigensolver."""
    from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh  # noqa: PLC0415

    n = R.shape[0]
    inverse = LinearOperator((n, n), dtype=np.float64,
                             matvec=lambda x: scipy.linalg.cho_solve((R, False), np.ravel(x), check_finite=False))
    try:
        theta, V = eigsh(inverse, k=1, which="LA", v0=start_vector(n, seed), tol=0)
    except ArpackNoConvergence:
        return None
    return np.array([1.0 / theta[0]]), V


def extreme_eigenvalues(K: np.ndarray, *, seed: int = 0) -> tuple[float, float]:
    """(μ_min, μ_max) of the symmetric ``K``: every eigenvalue from one dense call up to
    :data:`DENSE_LIMIT`, above it :func:`smallest_eigenvalue` and :func:`largest_eigenvalue`."""
    if K.shape[0] <= DENSE_LIMIT:
        mu = scipy.linalg.eigh(K, eigvals_only=True, driver="evr")
        return float(mu[0]), float(mu[-1])
    return smallest_eigenvalue(K, seed=seed), largest_eigenvalue(K, seed=seed)


def negative_eigenpairs(K: np.ndarray, threshold: float, *, seed: int = 0,
                        cholesky_from: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The eigenpairs of ``K`` with eigenvalue below −``threshold`` (LAPACK ``syevr`` by value),
    ascending; when there is none, the μ_min pair, so that the first eigenvalue is always μ_min.
    From ``cholesky_from`` rows on, a Cholesky certificate comes first: K ≻ 0 has none below
    −threshold (threshold ≥ 0), and its μ_min pair comes from :func:`smallest_pair_positive_definite`."""
    pair = _certified_smallest_pair(K, seed, cholesky_from)
    if pair is not None:
        return pair
    mu, V = scipy.linalg.eigh(K, subset_by_value=(-np.inf, -threshold), driver="evr")
    if mu.size == 0:
        mu, V = scipy.linalg.eigh(K, subset_by_index=[0, 0], driver="evr")
    return mu, V


def cholesky_factor(K: np.ndarray) -> np.ndarray | None:
    """The upper Cholesky factor R of the symmetric ``K`` (K = RᵀR; its strict lower triangle is
    not cleared, and no solve reads it) when LAPACK finds one with a finite diagonal, else None:
    the certificate of :func:`positive_definite`."""
    n = K.shape[0]
    check_memory(n * n * 8, f"a Cholesky factorization of a {n} x {n} kernel")
    # K is symmetric, so its transpose is the Fortran-ordered matrix LAPACK takes without a
    # transposing copy.
    with serial_syrk(n):
        factor, info = scipy.linalg.lapack.dpotrf(np.asarray(K, dtype=np.float64).T, lower=0, clean=0)
    # a NaN pivot must never certify (some LAPACK builds, and CuPy, do not report it)
    return factor if info == 0 and bool(np.isfinite(np.diag(factor)).all()) else None


def positive_definite(K: np.ndarray, *, jitter: float = 0.0) -> bool:
    """Whether LAPACK's Cholesky factorization of K + jitter·max|Kᵢᵢ|·I succeeds with a finite factor.

    Success means the matrix plus a backward error E of round-off size (‖E‖ ~ n·eps·‖K‖) is
    positive definite: no eigenvalue of K below −jitter·max|Kᵢᵢ| beyond that tolerance. Failure (a
    non-positive pivot) usually comes early and costs a fraction of the factorization. The factor's
    finiteness is checked too: a NaN pivot must never certify (some LAPACK builds, and CuPy, do not
    report it).
    """
    A = np.asarray(K, dtype=np.float64)
    if jitter:
        diagonal = np.diag(A)
        A = A.copy()  # one n × n copy; no identity matrix beside it
        A[np.diag_indices(A.shape[0])] += jitter * max(float(np.max(np.abs(diagonal))), np.finfo(float).tiny)
    return cholesky_factor(A) is not None


@dataclass(frozen=True)
class LanczosExtremes:
    """μ_min and μ_max estimated by Lanczos: the extreme Ritz values, their residual norms
    (by Kahan's theorem an eigenvalue lies within the residual of each Ritz value), the number of
    steps (= kernel matvecs) taken, and whether both residuals met the tolerance."""

    mu_min: float
    mu_min_residual: float
    mu_max: float
    steps: int
    converged: bool


def lanczos_extremes(K: np.ndarray, *, seed: int = 0, rtol: float = 1e-8, max_steps: int = 300) -> LanczosExtremes:
    """Both ends of K's spectrum from one Krylov space, by Lanczos with full reorthogonalization.

    Stops once the residuals of the smallest and largest Ritz values are at most ``rtol``·‖K‖.
    ARPACK's ``eigsh(which="SA")`` is not used: its default 3-vector restarted subspace, and its
    tolerance relative to |μ_min| (tiny next to ‖K‖ on kernel matrices), made it take seconds
    where this takes tens of steps on the TL1 kernels of EEG and svmguide1 (n = 1000: 40-80
    matvecs).  Full reorthogonalization (classical Gram-Schmidt, twice) costs O(n·steps²), small
    beside the matvecs at these step counts, and keeps the Ritz values free of ghost copies.

    The residual bound brackets *an* eigenvalue: from a random start Lanczos finds the extreme ones
    first, which is what is relied on (with probability one in exact arithmetic).  Callers fall back
    to LAPACK when ``converged`` is False (a cluster at the bottom of the spectrum, as on positive
    definite kernels, converges slowly).
    """
    n = K.shape[0]
    steps_max = min(n, max_steps)
    Q = np.empty((steps_max + 1, n))
    q = start_vector(n, seed)
    Q[0] = q / np.linalg.norm(q)
    diag, off = np.empty(steps_max), np.empty(steps_max)
    for m in range(1, steps_max + 1):
        w = K @ Q[m - 1]
        diag[m - 1] = Q[m - 1] @ w
        basis = Q[:m]
        w -= basis.T @ (basis @ w)
        w -= basis.T @ (basis @ w)
        off[m - 1] = np.linalg.norm(w)
        # A (numerically) zero residual: the Krylov space is invariant and its Ritz values exact.
        invariant = off[m - 1] <= np.finfo(float).eps * np.abs(diag[:m]).max()
        if invariant or m % LANCZOS_CHECK_EVERY == 0 or m == steps_max:
            theta, S = scipy.linalg.eigh_tridiagonal(diag[:m], off[: m - 1])
            residual = (0.0, 0.0) if invariant else off[m - 1] * np.abs(S[-1, [0, -1]])
            converged = bool(max(residual) <= rtol * np.abs(theta).max())
            if converged or m == steps_max:
                return LanczosExtremes(float(theta[0]), float(residual[0]), float(theta[-1]), m, converged)
        Q[m] = w / off[m - 1]
