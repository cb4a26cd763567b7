"""TrIK-SVM (Loosli, ESANN 2019, arXiv 1902.10569): the Kreĭn SVM with a triangular decomposition in
place of the eigendecomposition.

KSVM (:class:`~kreinbench.methods.KSVM`) writes K = U diag(μ) Uᵀ, trains an SVM on the flipped kernel
U|μ|Uᵀ and maps its coefficients back, c̃ = U sign(μ) Uᵀ (y ⊙ α), so that K c̃ = U|μ|Uᵀ (y ⊙ α).  TrIK-SVM
does the same with K = L D Lᵀ (L unit lower triangular, D block diagonal):

    K̃ = L|D|Lᵀ  (positive semi-definite),   c̃ = L⁻ᵀ sign(D) Lᵀ (y ⊙ α),   so K c̃ = L D sign(D) Lᵀ (y ⊙ α) = K̃ (y ⊙ α),

and predicts f(x) = K_cross c̃ + b with the original kernel.  |D| and sign(D) act on D's blocks as
matrix functions (a 2 × 2 block's eigenvalues flipped).  By Sylvester's law of inertia D has K's numbers of
positive, negative and zero eigenvalues, and on a positive semi-definite K both K̃ = K: the SVM.
The factorization costs n³/3 flops and K̃ = (L|D|^(1/2))(L|D|^(1/2))ᵀ another n³, against about 4n³
for a symmetric eigendecomposition with its vectors; row by row the factorization needs only the
kernel rows of the points factored so far, the paper's route to a solver that never forms the
whole kernel matrix (not implemented here: this estimator factors the n × n matrix it is given).

Only the paper's abstract and introduction were readable here; the construction is taken from the
author's public code (github.com/gloosli/SimpleSVM, ``solvers/activeSetSVM.py``: ``preKSVM2`` /
``postKSVM2``, an LDLᵀ without pivoting in place of ``preKSVM``'s ``eigh``), whose map back is
c̃ = L⁻ᵀ (sign(D) Lᵀ)(y ⊙ α), the formula above.  That code factors without pivoting, which breaks
down at a zero leading minor (it stops there).  Here LAPACK's Bunch–Kaufman LDLᵀ (``sytrf`` through
:func:`scipy.linalg.ldl`), the same decomposition with symmetric pivoting and 2 × 2 blocks, where K
is numerically nonsingular; L|D|Lᵀ depends on the order of elimination (unlike U|μ|Uᵀ), and where
Bunch–Kaufman does not pivot (K strongly diagonally dominant) it is the unpivoted factorization in the
rows' order, as ``tests/test_triksvm.py`` checks against an unpivoted reference.  So the decision
changes with the order of the training rows where K is clearly indefinite (on the monks' TL1
kernels, 10 permutations move the test accuracy by up to 12 points: benchmarks/trik_row_order.py).

A numerically singular K (duplicated rows: every discrete data set's TL1 kernel) needs more: there
Bunch–Kaufman pivots on round-off and its multipliers reach 1e14–1e19, so L|D|Lᵀ is no longer a
factorization of anything.  :func:`rank_revealing_ldl` eliminates only the r rows that QR with column
pivoting finds numerically independent (in their order) and stops at their Schur complement, which
is round-off: K = L D Lᵀ with L of shape (n, r).  The map back is the same on the eliminated rows,
L₁ᵀ c̃₁ = sign(D) Lᵀ (y ⊙ α), with c̃ = 0 on the others, and still K c̃ = K̃ (y ⊙ α).  On exactly
repeated rows this is the author's factorization of the distinct rows, their dual weights summed (a
test).  On the benchmark's 110 TL1 kernels (22 data sets × 5 splits) r and D's inertia equal K's
numerical rank and inertia counted from its eigenvalues, the multipliers stay below 14 and
max |K − LDLᵀ| below 1e-14 max |K| (docs/beyond-papers.md).  The QR costs about twice the
factorization and runs only where K is numerically singular.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.linalg
import scipy.sparse

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.blas import serial_syrk
from kreinbench.methods.base import check_train_kernel
from kreinbench.methods.isvm.svm import SVM, dual_objective
from kreinbench.methods.solvers.libsvm import libsvm_dual

# Bunch–Kaufman's multipliers are bounded where K is well conditioned; where a Schur complement is
# round-off it pivots on round-off and L reaches 1e14-1e19 (transfusion, the monks, spect, splice:
# every numerically singular TL1 kernel of the benchmark), and the factorization no longer represents K.
MAX_GROWTH = 1e6
# What the rank-revealing factorization's last Schur complement may leave, relative to max |K_ij|:
# at most 1e-14 on the benchmark's 110 TL1 training kernels (benchmarks/results/trik_factorization.md).
MAX_RESIDUAL = np.sqrt(np.finfo(float).eps)


def diagonal_blocks(D: np.ndarray) -> list[slice]:
    """The 1 × 1 and 2 × 2 blocks of a block-diagonal D (:func:`scipy.linalg.ldl`'s)."""
    blocks, i = [], 0
    while i < D.shape[0]:
        size = 2 if i + 1 < D.shape[0] and D[i, i + 1] != 0.0 else 1
        blocks.append(slice(i, i + size))
        i += size
    return blocks


def block_root_and_sign(D: np.ndarray, tolerance: float) -> tuple[scipy.sparse.csr_array, np.ndarray, int]:
    """|D|^(1/2) (sparse), sign(D) and the number of negative eigenvalues of a symmetric block-diagonal D,
    each block through its own eigendecomposition; an eigenvalue within ``tolerance`` of 0 counts as
    positive, as KSVM's."""
    root, sign = np.zeros_like(D), np.zeros_like(D)
    negative = 0
    for block in diagonal_blocks(D):
        mu, V = np.linalg.eigh(D[block, block])
        root[block, block] = (V * np.sqrt(np.abs(mu))) @ V.T
        negative_here = mu < -tolerance
        sign[block, block] = (V * np.where(negative_here, -1.0, 1.0)) @ V.T
        negative += int(np.sum(negative_here))
    return scipy.sparse.csr_array(root), sign, negative


def round_off(K: np.ndarray) -> float:
    """n·ε·max|K_ij|: a pivot, an eigenvalue or a diagonal of R within it of 0 counts as 0 (a zero
    eigenvalue of K, e.g. from duplicated rows, comes out of an elimination at round-off, of either sign)."""
    return K.shape[0] * np.finfo(float).eps * max(float(np.abs(K).max(initial=0.0)), np.finfo(float).tiny)


def bunch_kaufman(K: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lu, D, perm): K = lu D luᵀ, lu[perm] unit lower triangular, D with 1 × 1 and 2 × 2 blocks."""
    if K.shape[0] == 0:
        return np.zeros((0, 0)), np.zeros((0, 0)), np.zeros(0, dtype=int)
    with serial_syrk(K.shape[0]):  # sytrf's trailing updates are syrk-like (kreinbench.linalg.blas)
        return scipy.linalg.ldl(K, lower=True, hermitian=True)


def solve_transposed(lu: np.ndarray, perm: np.ndarray, z: np.ndarray) -> np.ndarray:
    """x with luᵀ x = z, lu[perm] = L unit lower triangular: luᵀ x = Lᵀ x[perm]."""
    x = np.empty_like(z)
    x[perm] = scipy.linalg.solve_triangular(lu[perm], z, trans="T", lower=True, unit_diagonal=True)
    return x


def rank_revealing_ldl(K: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(L, D, pivots, perm): K = L D Lᵀ up to round-off, L of shape (n, r) with r K's numerical rank,
    L[pivots][perm] unit lower triangular, D (r, r) block diagonal: an LDLᵀ that eliminates r
    numerically independent rows (``tolerance``: what counts as round-off) and stops at their Schur
    complement, which is round-off.

    A numerically nonsingular K with bounded multipliers keeps Bunch–Kaufman's factorization (pivots
    all rows, r = n).  Otherwise QR with column pivoting picks the r independent rows (K symmetric: r
    columns that span its range make a nonsingular principal submatrix K₁₁); Bunch–Kaufman factors
    K₁₁ = L₁ D L₁ᵀ in the rows' order and the other rows follow, L₂ = K₂₁ L₁⁻ᵀ D⁻¹, so that
    K₂₂ − L₂ D L₂ᵀ is the Schur complement of K₁₁, asserted below ``MAX_RESIDUAL``."""
    n = K.shape[0]
    lu, D, perm = bunch_kaufman(K)
    smallest_pivot = min((np.abs(np.linalg.eigvalsh(D[block, block])).min() for block in diagonal_blocks(D)),
                         default=np.inf)
    if np.abs(lu).max(initial=0.0) <= MAX_GROWTH and smallest_pivot > tolerance:
        return lu, D, np.arange(n), perm
    R, columns = scipy.linalg.qr(K, mode="r", pivoting=True)
    pivots = np.sort(columns[:np.count_nonzero(np.abs(np.diag(R)) > tolerance)])
    rest = np.setdiff1d(np.arange(n), pivots)
    lu, D, perm = bunch_kaufman(K[np.ix_(pivots, pivots)])
    if not len(pivots):  # K is round-off: K̃ = 0
        return np.zeros((n, 0)), D, pivots, perm
    # L₂ᵀ = D⁻¹ L₁⁻¹ K₁₂, with L₁ = lu[perm] and D tridiagonal
    lower = scipy.linalg.solve_triangular(lu[perm], K[np.ix_(pivots, rest)][perm], lower=True, unit_diagonal=True)
    bands = np.array([np.concatenate([[0.0], np.diag(D, 1)]), np.diag(D), np.concatenate([np.diag(D, -1), [0.0]])])
    L = np.empty((n, len(pivots)))
    L[pivots] = lu
    L[rest] = scipy.linalg.solve_banded((1, 1), bands, lower).T
    residual = K[np.ix_(rest, rest)] - (L[rest] @ D) @ L[rest].T
    scale = max(float(np.abs(K).max()), np.finfo(float).tiny)
    if np.abs(residual).max(initial=0.0) > MAX_RESIDUAL * scale:
        raise KreinbenchError(
            f"TrIKSVM: K's rank-revealing LDLᵀ leaves a Schur complement of {np.abs(residual).max() / scale:.3g} "
            f"(relative) on the {len(rest)} rows it did not eliminate; KSVM's eigendecomposition does not "
            f"depend on it")
    return L, D, pivots, perm


def trik_decomposition(K: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, scipy.sparse.csr_array,
                                                np.ndarray, int]:
    """(L, pivots, perm, |D|^(1/2), sign(D), D's negative eigenvalues) of K's rank-revealing LDLᵀ."""
    tolerance = round_off(K)
    L, D, pivots, perm = rank_revealing_ldl(K, tolerance)
    growth = float(np.abs(L).max(initial=0.0))
    if not np.isfinite(growth) or growth > MAX_GROWTH:
        raise KreinbenchError(
            f"TrIKSVM: the LDLᵀ factorization of K is unstable (multipliers up to {growth:.3g}) although it "
            f"eliminates only K's numerically independent rows; KSVM's eigendecomposition does not depend on it")
    return L, pivots, perm, *block_root_and_sign(D, tolerance)


class TrIKSVM(SVM):
    """TrIK-SVM: the Kreĭn SVM on K's LDLᵀ factorization instead of its eigendecomposition (see the module).

    Parameters
    ----------
    C, tol, max_iter
        As for :class:`~kreinbench.methods.SVM`.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        Dual variables of the SVM on K̃ = L|D|Lᵀ.
    dual_coef_ : ndarray of shape (n,)
        c̃ = L⁻ᵀ sign(D) Lᵀ (y ⊙ α), the coefficients on the original kernel (0 on the rows that a
        numerically singular K's factorization did not eliminate).
    n_negative_ : int
        D's negative eigenvalues, K's by Sylvester's law of inertia.
    rank_ : int
        The rows eliminated: K's numerical rank (n where K is numerically nonsingular).
    intercept_, classes_, history_, n_iter_
        As for :class:`~kreinbench.methods.SVM`.
    """

    def fit(self, K, y):
        """Fit on ``K`` (n, n), symmetric, any sign, and labels ``y`` (two classes)."""
        C, tol, max_iter = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        start = time.perf_counter()
        L, pivots, perm, root, sign, self.n_negative_ = trik_decomposition(K)
        self.rank_ = L.shape[1]
        factor = (root @ L.T).T  # L|D|^(1/2): |D|^(1/2) is symmetric with at most two entries a row
        with serial_syrk(factor.shape[0]):
            K_flip = factor @ factor.T
        self.alpha_, self.intercept_, self.n_iter_ = libsvm_dual(K_flip, y_pm, C, tol=tol, max_iter=max_iter)
        # Lᵀ c̃ = sign(D) Lᵀ (y ⊙ α) on the eliminated rows; the others' coefficients are 0
        self.dual_coef_ = np.zeros(len(y_pm))
        self.dual_coef_[pivots] = solve_transposed(L[pivots], perm, sign @ (L.T @ (y_pm * self.alpha_)))
        self.history_ = [{"iteration": self.n_iter_, "objective": dual_objective(K_flip, y_pm, self.alpha_),
                          "elapsed": time.perf_counter() - start}]
        self.diverged_ = False
        return self
