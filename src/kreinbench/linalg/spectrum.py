"""Eigendecompositions of a symmetric kernel (full or cheaper partial ones) and the spectrum transforms.

Kinds of spectrum, from cheapest to complete (a method declares the one it needs, see
:func:`kreinbench.pipeline.plan.spectrum_kind`):

- ``"lambda_min"``: μ_min and μ_max only (see :func:`compute_spectrum` for how);
- ``"negative"``: the negative eigenpairs (LAPACK ``syevr`` with ``subset_by_value``); when there
  is none, the μ_min pair, so ``eigenvalues[0]`` is always μ_min;
- ``"eigenvalues"``: every eigenvalue, no eigenvectors;
- ``"full"``: every eigenpair (``scipy.linalg.eigh``).

Eigenvalues are ascending.  Partial spectra also carry the matrix size n, μ_max and trace(K), so
that the tolerance and the summary (μ_min, μ_max, number of negative eigenvalues, negative mass
Σ|μ₋|/Σ|μ|, using Σ|μ| = trace(K) + 2Σ|μ₋|) agree with those of the full spectrum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.eigen import largest_eigenvalue, negative_eigenpairs, smallest_eigenvalue
from kreinbench.linalg.kernels import block_rows, check_memory

KINDS = ("lambda_min", "negative", "eigenvalues", "full")
# Which kinds a spectrum of each kind can serve (by restriction).
COVERS = {
    "full": frozenset(KINDS),
    "eigenvalues": frozenset({"eigenvalues", "lambda_min"}),
    "negative": frozenset({"negative", "lambda_min"}),
    "lambda_min": frozenset({"lambda_min"}),
}

def covering_kind(kinds) -> str | None:
    """The cheapest kind serving every kind in ``kinds`` (None entries ignored; None if empty)."""
    wanted = {k for k in kinds if k is not None}
    unknown = wanted - set(KINDS)
    if unknown:
        raise KreinbenchError(f"unknown spectrum kind(s) {sorted(unknown)} (known: {', '.join(KINDS)})")
    if not wanted:
        return None
    return next(kind for kind in KINDS if wanted <= COVERS[kind])


@dataclass(frozen=True)
class Spectrum:
    """K = V diag(μ) Vᵀ with eigenvalues ``μ`` ascending and orthonormal columns ``V``, or a part of it.

    ``eigenvectors`` is None for the kinds ``"eigenvalues"`` and ``"lambda_min"``.  ``dimension``
    (n), ``mu_max`` and ``trace`` default to what a full spectrum implies; partial spectra give them.
    """

    eigenvalues: np.ndarray
    eigenvectors: np.ndarray | None = None
    kind: str = "full"
    dimension: int | None = None
    mu_max: float | None = None
    trace: float | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise KreinbenchError(f"unknown spectrum kind {self.kind!r} (known: {', '.join(KINDS)})")
        mu = np.asarray(self.eigenvalues)
        object.__setattr__(self, "eigenvalues", mu)
        if mu.size == 0:
            raise KreinbenchError("a spectrum needs at least one eigenvalue (mu_min)")
        if self.kind in ("full", "eigenvalues"):
            for name, value in (("dimension", mu.size), ("mu_max", float(mu[-1])), ("trace", float(mu.sum()))):
                if getattr(self, name) is None:
                    object.__setattr__(self, name, value)
        missing = [name for name in ("dimension", "mu_max", "trace") if getattr(self, name) is None]
        if missing:
            raise KreinbenchError(f"a {self.kind!r} spectrum must give {', '.join(missing)}")
        if self.kind in ("full", "negative") and (self.eigenvectors is None or self.eigenvectors.shape != (self.dimension, mu.size)):
            shape = None if self.eigenvectors is None else self.eigenvectors.shape
            raise KreinbenchError(f"a {self.kind!r} spectrum needs eigenvectors of shape ({self.dimension}, {mu.size}), got {shape}")

    @property
    def scale(self) -> float:
        """max |μ| = max(−μ_min, μ_max)."""
        return max(-float(self.eigenvalues[0]), float(self.mu_max), 0.0)

    def negative_tolerance(self) -> float:
        """Eigenvalues above ``-tol`` count as zero: round-off of eigh is ~ n * eps * ||K||."""
        return self.dimension * np.finfo(float).eps * self.scale

    def _need(self, kinds: set, what: str) -> None:
        if self.kind not in kinds:
            raise KreinbenchError(f"{what} needs a spectrum of kind {' or '.join(sorted(kinds))}, this one is {self.kind!r}")

    def negative_part(self) -> tuple[np.ndarray, np.ndarray]:
        """Eigenpairs with eigenvalue below ``-negative_tolerance()``."""
        self._need({"full", "negative"}, "the negative eigenpairs")
        mask = self.eigenvalues < -self.negative_tolerance()
        return self.eigenvalues[mask], self.eigenvectors[:, mask]

    def summary(self) -> dict[str, float | int]:
        """μ_min, μ_max and, when the spectrum has them, the count and mass of negative eigenvalues."""
        mu = self.eigenvalues
        out: dict[str, float | int] = {"mu_min": float(mu[0]), "mu_max": float(self.mu_max)}
        if self.kind == "lambda_min":
            return out
        neg = mu[mu < -self.negative_tolerance()]
        neg_mass = float(np.abs(neg).sum())
        total = float(np.abs(mu).sum()) if self.kind != "negative" else float(self.trace) + 2.0 * neg_mass
        out["n_negative"] = int(neg.size)
        out["negative_mass"] = neg_mass / total if total > 0 else 0.0
        return out

    def restrict(self, kind: str) -> Spectrum:
        """The part of this spectrum that a ``kind`` spectrum holds (same tolerance and summary)."""
        if kind not in COVERS[self.kind]:
            raise KreinbenchError(f"a {self.kind!r} spectrum cannot serve a method that needs {kind!r}")
        if kind == self.kind:
            return self
        common = {"kind": kind, "dimension": self.dimension, "mu_max": self.mu_max, "trace": self.trace}
        if kind == "eigenvalues":
            return Spectrum(eigenvalues=self.eigenvalues, **common)
        if kind == "lambda_min":
            return Spectrum(eigenvalues=self.eigenvalues[:1], **common)
        mu_neg, V_neg = self.negative_part()
        if mu_neg.size == 0:
            mu_neg, V_neg = self.eigenvalues[:1], self.eigenvectors[:, :1]
        return Spectrum(eigenvalues=mu_neg, eigenvectors=V_neg, **common)


def check_symmetric_kernel(K: np.ndarray, what: str = "kernel") -> None:
    """Raise a clear error unless ``K`` is a finite, square, symmetric matrix (checked in row blocks)."""
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise KreinbenchError(f"{what} must be a square matrix, got shape {K.shape}")
    n = K.shape[0]
    rows = block_rows(n)
    scale = np.finfo(float).tiny
    for start in range(0, n, rows):
        block = K[start:start + rows]
        if not np.all(np.isfinite(block)):
            raise KreinbenchError(f"{what} contains NaN or infinite entries")
        scale = max(scale, float(np.max(np.abs(block))))
    worst = max(float(np.max(np.abs(K[s:s + rows] - K[:, s:s + rows].T))) for s in range(0, n, rows))
    if worst > 1e-10 * scale:
        raise KreinbenchError(f"{what} is not symmetric (max |K - K^T| = {worst:.3g})")


# Peak memory of each kind in units of n² float64 (input copy, eigenvectors, LAPACK workspace).
_MEMORY_FACTOR = {"full": 3, "negative": 3, "eigenvalues": 2, "lambda_min": 2}


def compute_spectrum(K: np.ndarray, kind: str = "full", *, seed: int = 0) -> Spectrum:
    """The ``kind`` spectrum of a symmetric kernel; ``seed`` fixes the Lanczos start vector.

    μ_max of the partial kinds comes from Lanczos.  μ_min does not: it sits at the edge of the
    cluster of small eigenvalues of a kernel matrix, where Lanczos converges too slowly (on TL1
    kernels of n = 1000 and 2000 points ARPACK had not converged after the matrix-vector products
    a dense tridiagonalization costs, and took 15 s where LAPACK takes 0.15 s), so it comes from
    LAPACK ``syevr`` restricted to index 0 (``"lambda_min"``) or to the values below −n·eps·μ_max
    (``"negative"``; only when there are none is a second ``syevr`` call made for the μ_min pair).
    From :data:`kreinbench.linalg.eigen.CHOLESKY_FIRST_FROM` rows on, both try a Cholesky
    certificate first: a positive definite K has no negative part and its μ_min pair comes from
    Lanczos on K⁻¹ (the spectrum is the same, without the tridiagonalization).
    """
    if kind not in KINDS:
        raise KreinbenchError(f"unknown spectrum kind {kind!r} (known: {', '.join(KINDS)})")
    check_symmetric_kernel(K)
    n = K.shape[0]
    check_memory(_MEMORY_FACTOR[kind] * n * n * 8, f"a {kind!r} eigendecomposition of a {n} x {n} kernel")
    K = np.asarray(K, dtype=np.float64)
    if kind == "full":
        mu, V = scipy.linalg.eigh(K, driver="evr")
        return Spectrum(eigenvalues=mu, eigenvectors=V)
    if kind == "eigenvalues":
        return Spectrum(eigenvalues=scipy.linalg.eigh(K, eigvals_only=True, driver="evr"), kind="eigenvalues")
    common = {"kind": kind, "dimension": n, "trace": float(np.trace(K)), "mu_max": largest_eigenvalue(K, seed=seed)}
    if kind == "lambda_min":
        return Spectrum(eigenvalues=np.array([smallest_eigenvalue(K, seed=seed)]), **common)
    # Every eigenvalue below -tol of the full spectrum lies below this threshold, since
    # tol = n eps max|mu| >= n eps mu_max; negative_part() then applies the exact tol.
    mu, V = negative_eigenpairs(K, n * np.finfo(float).eps * max(common["mu_max"], 0.0), seed=seed)
    return Spectrum(eigenvalues=mu, eigenvectors=V, **common)


def eigendecompose(K: np.ndarray) -> Spectrum:
    """Full eigendecomposition of a symmetric kernel (LAPACK ``syevr`` via scipy)."""
    return compute_spectrum(K, "full")


TRANSFORMS = {
    # Flip: |mu|.
    "flip": np.abs,
    # Clip: max(mu, 0).  (The IKLR text says Clip "sets the non-negative eigenvalues to zero";
    # the method of Wu et al. / Chen et al. it cites sets the *negative* ones to zero.)
    "clip": lambda mu: np.maximum(mu, 0.0),
    # Shift: mu - min(mu_min, 0), i.e. add |mu_min| to every eigenvalue when K is indefinite.
    "shift": lambda mu: mu - min(mu.min(), 0.0),
}
TEST_KERNEL_MODES = ("original", "projected")


def _check_transform(transform: str) -> None:
    if transform not in TRANSFORMS:
        raise KreinbenchError(f"unknown spectrum transform {transform!r} (known: {sorted(TRANSFORMS)})")


def transformed_kernel(spectrum: Spectrum, transform: str, block: int = 512) -> np.ndarray:
    """V diag(t(mu)) V^T for a named spectrum transform, exactly symmetric (needs a full spectrum).

    Built block by block, each upper block (V_i diag(t)) V_jᵀ mirrored into the lower one: exactly
    symmetric, half the flops of the full product, and no n×n temporary beside the result (the
    Flip-KLR fit job holds the kernel, V and this result, then Newton's system: issue #11's
    3× memory budget).
    """
    _check_transform(transform)
    spectrum._need({"full"}, f"the {transform} transform")
    V = spectrum.eigenvectors
    t = TRANSFORMS[transform](spectrum.eigenvalues)
    n = V.shape[0]
    K = np.empty((n, n))
    for i in range(0, n, block):
        weighted = V[i:i + block] * t
        for j in range(i, n, block):
            product = weighted @ V[j:j + block].T
            if j == i:  # a diagonal block from one product is symmetric only to round-off
                product = (product + product.T) / 2
            K[i:i + block, j:j + block] = product
            K[j:j + block, i:i + block] = product.T
    return K


def transformed_cross_kernel(spectrum: Spectrum, K_cross: np.ndarray, transform: str, mode: str = "original") -> np.ndarray:
    """The test cross-kernel (n_test x n) that goes with ``transformed_kernel(spectrum, transform)``.

    ``mode="original"`` returns ``K_cross`` unchanged (the usual practice: the transform only
    repairs the training matrix).  ``mode="projected"`` returns K_cross V diag(t(μ)/μ) Vᵀ, the same
    change of spectrum applied to test points through the training eigenvectors; on the training
    points themselves (K_cross = K) it gives the transformed kernel on range(K), i.e. exactly it
    for Flip and Clip, and for Shift all but the |μ_min| it adds on the null space of K, which no
    kernel row can carry.  Eigenvalues with |μ| ≤ tol carry no information about the map and are
    dropped.
    """
    _check_transform(transform)
    if mode not in TEST_KERNEL_MODES:
        raise KreinbenchError(f"test kernel mode {mode!r} is not one of {list(TEST_KERNEL_MODES)}")
    if K_cross.ndim != 2 or K_cross.shape[1] != spectrum.dimension:
        raise KreinbenchError(f"K_cross must have shape (n_test, {spectrum.dimension}), got {K_cross.shape}")
    if mode == "original":
        return K_cross
    spectrum._need({"full"}, "the projected test kernel")
    mu = spectrum.eigenvalues
    keep = np.abs(mu) > spectrum.negative_tolerance()
    V = spectrum.eigenvectors[:, keep]
    ratio = TRANSFORMS[transform](mu)[keep] / mu[keep]
    return ((K_cross @ V) * ratio) @ V.T


def positive_decomposition(K: np.ndarray, spectrum: Spectrum, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """K₊, K₋ with K = K₊ − K₋, both PSD (IKLR TNNLS, the equation after (6)).

    K₋ = V diag(τ, …, τ, τ − μ_{s+1}, …, τ − μ_n) Vᵀ = τI + V₋ diag(−μ₋) V₋ᵀ and K₊ = K + K₋,
    which needs only the negative eigenpairs.  (The paper writes "ρ − µ_{v+1}" and indexes by v
    where it defined s; the decomposition K₊ − K₋ = K fixes it to τ − μ_{s+1} with s as defined.)
    τ must be ≥ −μ_min.
    """
    mu_min = float(spectrum.eigenvalues[0])
    if not tau >= -mu_min:
        raise KreinbenchError(f"parameter tau={tau!r} must be >= -mu_min = {-mu_min!r} so that K+ and K- are PSD")
    mu_neg, V_neg = spectrum.negative_part()
    K_minus = (V_neg * -mu_neg) @ V_neg.T
    K_minus = (K_minus + K_minus.T) / 2
    K_minus[np.diag_indices_from(K_minus)] += tau
    return K + K_minus, K_minus
