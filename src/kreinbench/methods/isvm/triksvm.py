"""TrIK-SVM (Loosli, ESANN 2019, arXiv 1902.10569): the Kreĭn SVM with a triangular decomposition in
place of the eigendecomposition.

KSVM (:class:`~kreinbench.methods.KSVM`) writes K = U diag(μ) Uᵀ, trains an SVM on the flipped kernel
U|μ|Uᵀ and maps its coefficients back, c̃ = U sign(μ) Uᵀ (y ⊙ α), so that K c̃ = U|μ|Uᵀ (y ⊙ α).  TrIK-SVM
does the same with K = L D Lᵀ (L unit lower triangular, D block diagonal):

    K̃ = L|D|Lᵀ  (positive semi-definite),   c̃ = L⁻ᵀ sign(D) Lᵀ (y ⊙ α),   so K c̃ = L D sign(D) Lᵀ (y ⊙ α) = K̃ (y ⊙ α),

and predicts f(x) = K_cross c̃ + b with the original kernel.  |D| and sign(D) act on D's blocks as
matrix functions (a 2 × 2 block's eigenvalues flipped), and sign(0) = +1 as in KSVM (a pivot within n·ε·max|K_ij| of
0 counts as 0), so a singular K
(duplicated rows) keeps K c̃ = K̃ (y ⊙ α).  By Sylvester's law of inertia D has K's numbers of
positive, negative and zero eigenvalues, and on a positive semi-definite K both K̃ = K: the SVM.
The factorization costs n³/3 flops and K̃ = (L|D|^(1/2))(L|D|^(1/2))ᵀ another n³, against about 4n³
for a symmetric eigendecomposition with its vectors; row by row the factorization needs only the
kernel rows of the points factored so far, the paper's route to a solver that never forms the
whole kernel matrix (not implemented here: this estimator factors the n × n matrix it is given).

Only the paper's abstract and introduction were readable here; the construction is taken from the
author's public code (github.com/gloosli/SimpleSVM, ``solvers/activeSetSVM.py``: ``preKSVM2`` /
``postKSVM2``, an LDLᵀ without pivoting in place of ``preKSVM``'s ``eigh``), whose map back is
c̃ = L⁻ᵀ (sign(D) Lᵀ)(y ⊙ α), the formula above.  That code factors without pivoting, which breaks
down at a zero leading minor (it stops there): here LAPACK's Bunch–Kaufman LDLᵀ (``sytrf`` through
:func:`scipy.linalg.ldl`), the same decomposition with symmetric pivoting and 2 × 2 blocks, stable on
any symmetric K.  L|D|Lᵀ depends on the order of elimination (unlike U|μ|Uᵀ): where Bunch–Kaufman
does not pivot (K strongly diagonally dominant) it is the unpivoted factorization in the rows'
order, as ``tests/test_triksvm.py`` checks against an unpivoted reference.
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

# Bunch–Kaufman bounds the multipliers in exact arithmetic; where a Schur complement is round-off (K
# numerically singular: transfusion's TL1 kernel, 244 of 374 pivots at 0 or below 1e-12) it pivots on
# round-off and L reaches 1e19: the factorization no longer represents K.  (MONK-2, singular too:
# below 10.)
MAX_GROWTH = 1e6


def block_root_and_sign(D: np.ndarray, tolerance: float) -> tuple[scipy.sparse.csr_array, np.ndarray, int]:
    """|D|^(1/2) (sparse), sign(D) and the number of negative eigenvalues of a symmetric block-diagonal D
    with 1 × 1 and 2 × 2 blocks (:func:`scipy.linalg.ldl`'s), each block through its own
    eigendecomposition; an eigenvalue within ``tolerance`` of 0 counts as positive, as KSVM's."""
    n = D.shape[0]
    root, sign = np.zeros_like(D), np.zeros_like(D)
    negative = 0
    i = 0
    while i < n:
        size = 2 if i + 1 < n and D[i, i + 1] != 0.0 else 1
        block = slice(i, i + size)
        mu, V = np.linalg.eigh(D[block, block])
        root[block, block] = (V * np.sqrt(np.abs(mu))) @ V.T
        negative_here = mu < -tolerance
        sign[block, block] = (V * np.where(negative_here, -1.0, 1.0)) @ V.T
        negative += int(np.sum(negative_here))
        i += size
    return scipy.sparse.csr_array(root), sign, negative


def trik_decomposition(K: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """(lu, perm, |D|^(1/2), sign(D), D's negative eigenvalues) with K = lu D luᵀ, lu[perm] unit lower
    triangular (Bunch–Kaufman)."""
    with serial_syrk(K.shape[0]):  # sytrf's trailing updates are syrk-like (kreinbench.linalg.blas)
        lu, D, perm = scipy.linalg.ldl(K, lower=True, hermitian=True)
    # A zero eigenvalue of K (duplicated rows) comes out as a pivot at round-off, of either sign.
    tolerance = K.shape[0] * np.finfo(float).eps * max(float(np.abs(K).max()), np.finfo(float).tiny)
    return lu, perm, *block_root_and_sign(D, tolerance)


def solve_transposed(lu: np.ndarray, perm: np.ndarray, z: np.ndarray) -> np.ndarray:
    """x with luᵀ x = z, lu[perm] = L unit lower triangular: luᵀ x = Lᵀ x[perm]."""
    x = np.empty_like(z)
    x[perm] = scipy.linalg.solve_triangular(lu[perm], z, trans="T", lower=True, unit_diagonal=True)
    return x


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
        c̃ = L⁻ᵀ sign(D) Lᵀ (y ⊙ α), the coefficients on the original kernel.
    n_negative_ : int
        D's negative eigenvalues, K's by Sylvester's law of inertia.
    intercept_, classes_, history_, n_iter_
        As for :class:`~kreinbench.methods.SVM`.
    """

    def fit(self, K, y):
        """Fit on ``K`` (n, n), symmetric, any sign, and labels ``y`` (two classes)."""
        C, tol, max_iter = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        start = time.perf_counter()
        lu, perm, root, sign, n_negative = trik_decomposition(K)
        growth = float(np.abs(lu).max())
        if not np.isfinite(growth) or growth > MAX_GROWTH:
            raise KreinbenchError(
                f"TrIKSVM: the LDLᵀ factorization of K is unstable (multipliers up to {growth:.3g}): K is "
                f"numerically singular (many duplicated or isolated rows), and Bunch–Kaufman pivoted on "
                f"round-off; KSVM's eigendecomposition does not depend on it")
        self.n_negative_ = n_negative
        factor = (root @ lu.T).T  # L|D|^(1/2): |D|^(1/2) is symmetric with at most two entries a row
        with serial_syrk(factor.shape[0]):
            K_flip = factor @ factor.T
        self.alpha_, self.intercept_, self.n_iter_ = libsvm_dual(K_flip, y_pm, C, tol=tol, max_iter=max_iter)
        self.dual_coef_ = solve_transposed(lu, perm, sign @ (lu.T @ (y_pm * self.alpha_)))
        self.history_ = [{"iteration": self.n_iter_, "objective": dual_objective(K_flip, y_pm, self.alpha_),
                          "elapsed": time.perf_counter() - start}]
        self.diverged_ = False
        return self
