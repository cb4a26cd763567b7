"""Kreĭn Nyström: a low-rank signed factorization K ≈ Φ S Φᵀ of an indefinite kernel from m landmarks.

After Oglic & Gärtner, "Scalable learning in reproducing kernel Kreĭn spaces" (ICML 2019, §3).
With landmarks Z (m rows), K_nm = k(X, Z) and W = k(Z, Z) = U diag(λ) Uᵀ, indefinite in general,
the Nyström approximation is K ≈ K_nm W⁺ K_mn. Keeping r of W's eigenvalues, the largest in
magnitude (W⁺ is the pseudo-inverse on them; which r: ``rcond``),

    K ≈ Φ S Φᵀ,   Φ = K_nm U_r |λ_r|^(−1/2),   S = diag(sign λ_r),

so the columns of Φ split by their sign into the two parts of a Kreĭn feature space,
K ≈ Φ₊Φ₊ᵀ − Φ₋Φ₋ᵀ (the positive and the negative "reproducing kernel Hilbert" parts). Memory is
O(n·m) (Φ is computed in row blocks, the n × n kernel never), time O(n·m·d + m³).

Which eigenvalues to keep is the one choice an indefinite W makes hard. For a positive semi-definite
W the approximation stays below K (a Schur complement) and every eigenvalue above round-off can be
kept. For an indefinite W nothing bounds k_xᵀ W⁺ k_x: a small eigenvalue whose eigenvector k_x
still meets blows the approximation up (MONK-2, TL1, 40 and 80 uniform landmarks: relative Frobenius
error 4.0 and 2.9 with every eigenvalue kept). A fixed cut relative to max|λ| is no answer either: the
papers' TL1 kernels have one eigenvalue near n·mean(K) far above the rest, so a cut at 1e-3·max|λ|
keeps 28 and 29 of 500 on EEG and ijcnn1 and costs IKLR 9 and 3 points (0.670 against 0.757 on
EEG, n = 2000; 0.912 against 0.943 on ijcnn1, n = 4000; ``benchmarks/nystrom_truncation.py``).
``rcond="auto"`` therefore measures: the approximation's error on rows that are not landmarks,
for every number r of kept eigenvalues at once, and keeps the r of the least error.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import scipy.linalg

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import block_rows, kernel_function

LANDMARKS = ("uniform", "kmeans")
# Rows (not landmarks) on which rcond="auto" measures the error of each truncation: their s × s
# kernel and s × m cross-kernel cost O(s·m² + s²·m), below the transform's O(n·m·d) for n ≥ s.
HELDOUT_ROWS = 500


class KreinNystrom:
    """Landmark features Φ and signature S with k(X, X) ≈ Φ S Φᵀ, for any (indefinite) kernel.

    Parameters
    ----------
    kernel : dict or callable
        Resolved kernel parameters (:func:`kreinbench.linalg.kernels.resolve_params`), or ``f(X, Y)``
        returning the kernel between the rows of X and Y.
    n_components : int, default=500
        Number m of landmarks.
    landmarks : {"uniform", "kmeans"}, default="uniform"
        Landmarks drawn uniformly without replacement from the rows, or the k-means centres of
        the rows (Oglic & Gärtner's two choices).
    random_state : int or None
        Seed of the landmark draw (and of k-means).
    rcond : "auto" or float, default="auto"
        A float drops the eigenvalues of W with |λ| ≤ rcond·max|λ|. ``"auto"`` keeps the r largest
        in magnitude, r minimizing the relative Frobenius error ‖K_ss − Φ_s S Φ_sᵀ‖ / ‖K_ss‖ on up
        to 500 rows s of X that are not landmarks (seeded by ``random_state``), among the
        eigenvalues above round-off (m·ε·max|λ|); with every row a landmark there is no such row
        and all eigenvalues above round-off are kept (then Φ S Φᵀ = K). See the module docstring.

    Attributes
    ----------
    components_ : ndarray of shape (m, d)
        The landmarks Z.
    projection_ : ndarray of shape (m, r)
        U_r |λ_r|^(−1/2): Φ = k(X, Z) @ projection_.
    signature_ : ndarray of shape (r,)
        ±1: the sign of each feature's eigenvalue.
    eigenvalues_ : ndarray of shape (r,)
        The kept eigenvalues λ_r of W, largest magnitude first.
    heldout_error_ : float or None
        With ``rcond="auto"``: the relative Frobenius error on the held-out rows at the kept r
        (None when every row is a landmark).
    """

    def __init__(self, kernel: dict[str, Any] | Callable, *, n_components: int = 500, landmarks: str = "uniform",
                 random_state: int | None = None, rcond: float | str = "auto"):
        self.kernel = kernel
        self.n_components = n_components
        self.landmarks = landmarks
        self.random_state = random_state
        self.rcond = rcond

    def _kernel(self) -> Callable:
        return self.kernel if callable(self.kernel) else kernel_function(self.kernel)

    def fit(self, X) -> KreinNystrom:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise KreinbenchError(f"KreinNystrom: X must be a 2-D feature matrix, got shape {X.shape}")
        m = self.n_components
        if not isinstance(m, (int, np.integer)) or not 1 <= m <= X.shape[0]:
            raise KreinbenchError(f"KreinNystrom: parameter n_components={m!r} must be an integer in [1, n] "
                                  f"(n = {X.shape[0]} rows)")
        if self.landmarks not in LANDMARKS:
            raise KreinbenchError(f"KreinNystrom: parameter landmarks={self.landmarks!r} must be one of {LANDMARKS}")
        if self.rcond != "auto" and not (isinstance(self.rcond, (int, float)) and self.rcond >= 0):
            raise KreinbenchError(f"KreinNystrom: parameter rcond={self.rcond!r} must be 'auto' or a number >= 0")
        rng = np.random.default_rng(self.random_state)
        if self.landmarks == "uniform":
            chosen = rng.choice(X.shape[0], m, replace=False)
            Z = X[np.sort(chosen)]
            others = np.setdiff1d(np.arange(X.shape[0]), chosen)
        else:
            from sklearn.cluster import KMeans  # noqa: PLC0415 (only k-means landmarks need scikit-learn's)

            seed = int(rng.integers(2**31 - 1))
            Z = KMeans(n_clusters=m, n_init=1, random_state=seed).fit(X).cluster_centers_
            others = np.arange(X.shape[0])
        kernel = self._kernel()
        W = kernel(Z, Z)
        W = (W + W.T) / 2  # exactly symmetric for eigh
        lam, U = scipy.linalg.eigh(W)
        order = np.argsort(-np.abs(lam), kind="stable")
        lam, U = lam[order], U[:, order]
        if not lam.any():
            raise KreinbenchError("KreinNystrom: the landmarks' kernel matrix is zero")
        self.heldout_error_ = None
        if self.rcond == "auto":
            r = int((np.abs(lam) > m * np.finfo(float).eps * np.abs(lam[0])).sum())
            if others.size:
                heldout = X[np.sort(rng.choice(others, min(others.size, HELDOUT_ROWS), replace=False))]
                errors = truncation_errors(kernel(heldout, heldout), kernel(heldout, Z) @ U[:, :r], lam[:r])
                r = int(np.argmin(errors)) + 1
                self.heldout_error_ = float(errors[r - 1])
        else:
            r = int((np.abs(lam) > self.rcond * np.abs(lam[0])).sum())
        self.components_ = Z
        self.eigenvalues_ = lam[:r]
        self.signature_ = np.sign(lam[:r])
        self.projection_ = U[:, :r] / np.sqrt(np.abs(lam[:r]))
        return self

    def transform(self, X) -> np.ndarray:
        """Φ = k(X, Z) U_r |λ_r|^(−1/2), computed in row blocks (no n × m temporary beyond Φ)."""
        X = np.asarray(X, dtype=float)
        kernel = self._kernel()
        rows = block_rows(self.components_.shape[0])
        out = np.empty((X.shape[0], self.projection_.shape[1]))
        for start in range(0, X.shape[0], rows):
            out[start:start + rows] = kernel(X[start:start + rows], self.components_) @ self.projection_
        return out

    def linear_scores(self, X, coef: np.ndarray) -> np.ndarray:
        """Φ(X) @ coef in row blocks, as k(X, Z) @ (projection_ @ coef): O(block · m) memory
        whatever the number of rows (the scores of a model that is linear in the features)."""
        X = np.asarray(X, dtype=float)
        kernel = self._kernel()
        weights = self.projection_ @ coef
        rows = block_rows(self.components_.shape[0])
        return np.concatenate([kernel(X[start:start + rows], self.components_) @ weights
                               for start in range(0, X.shape[0], rows)]) if X.shape[0] else np.empty(0)

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)

    def approximate_kernel(self, X, Y=None) -> np.ndarray:
        """Φ_X S Φ_Yᵀ, the approximation of k(X, Y) (n × n: for checks on small data)."""
        Phi_X = self.transform(X)
        Phi_Y = Phi_X if Y is None else self.transform(Y)
        return (Phi_X * self.signature_) @ Phi_Y.T


def truncation_errors(A: np.ndarray, C: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """‖A − Σ_{j≤r} c_j φ_j φ_jᵀ‖_F / ‖A‖_F for every r = 1 … len(lam) at once.

    A is the kernel among held-out rows, C = k(rows, Z) U their coordinates on W's eigenvectors
    (columns in the order of ``lam``), φ_j = C[:, j] / √|λ_j| and c_j = sign λ_j. Expanding the
    square, the error at r is ‖A‖² − 2 Σ_{j≤r} c_j φ_jᵀAφ_j + Σ_{i,j≤r} c_i c_j (φ_iᵀφ_j)²: one
    Gram matrix and cumulative sums, O(s·r² + s²·r), instead of r approximations.
    """
    Phi = C / np.sqrt(np.abs(lam))
    c = np.sign(lam)
    fit = np.cumsum(c * np.einsum("ij,ij->j", Phi, A @ Phi))
    M = Phi.T @ Phi
    M *= M
    M *= np.outer(c, c)
    # Σ_{i,j≤r} M_ij grows by 2·Σ_{i<r} M_ir + M_rr from r − 1 to r.
    square = np.cumsum(2 * np.triu(M, 1).sum(axis=0) + np.diag(M))
    total = float(np.sum(A * A))
    return np.sqrt(np.maximum(total - 2 * fit + square, 0.0) / total)
