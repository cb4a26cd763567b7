"""C-SVM on a precomputed kernel (libsvm via scikit-learn) and the Kreĭn SVM (KSVM) built on it.

Both solve the SVM dual  max_α eᵀα − ½αᵀYKYα  s.t. yᵀα = 0, 0 ≤ α ≤ C  with libsvm's SMO, and
predict with f(x) = Σ_i c_i k(x, x_i) + b.
"""

from __future__ import annotations

import time

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.implicit_kernel import LIBSVM_TYPES
from kreinbench.linalg.spectrum import Spectrum, eigendecompose
from kreinbench.methods.base import (
    KernelClassifierMixin,
    check_cross_kernel,
    check_int,
    check_positive,
    check_train_kernel,
)
from kreinbench.methods.solvers.libsvm import libsvm_dual


def dual_objective(K: np.ndarray, y: np.ndarray, alpha: np.ndarray) -> float:
    """eᵀα − ½αᵀYKYα, the SVM dual objective (to be maximized)."""
    v = y * alpha
    return float(alpha.sum() - 0.5 * v @ (K @ v))


class SVM(KernelClassifierMixin):
    """C-SVM on a precomputed (PSD) kernel, solved by libsvm's SMO (scikit-learn ``SVC``).

    Parameters
    ----------
    C : float, default=1.0
        Box constraint C > 0 of the dual.
    tol : float, default=1e-3
        libsvm's stopping tolerance on the maximal KKT violation.
    max_iter : int, default=-1
        libsvm's iteration cap; -1 means none.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        Dual variables, 0 ≤ α ≤ C, one per training point.
    dual_coef_ : ndarray of shape (n,)
        y ⊙ α, the expansion coefficients of the decision function.
    intercept_ : float
    classes_ : ndarray of shape (2,)
    history_ : list of dict
        A single row (libsvm reports no per-iteration trace): ``iteration`` (libsvm's count),
        ``objective`` (dual objective at the solution), ``elapsed``.
    n_iter_ : int
    """

    def __init__(self, *, C=1.0, tol=1e-3, max_iter=-1):
        self.C = C
        self.tol = tol
        self.max_iter = max_iter

    def check_params(self) -> None:
        self._validated()

    def _validated(self) -> tuple[float, float, int]:
        return (check_positive("C", self.C), check_positive("tol", self.tol),
                check_int("max_iter", self.max_iter, minimum=-1))

    def takes_implicit_kernel(self, kernel_type: str) -> bool:
        return type(self) is SVM and kernel_type in LIBSVM_TYPES

    def fit(self, K, y):
        """Fit on the train kernel ``K`` (n, n), or an implicit one of a kernel libsvm computes
        itself (RBF, sigmoid), and labels ``y`` (two classes)."""
        C, tol, max_iter = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y, implicit=type(self) is SVM)
        start = time.perf_counter()
        self.alpha_, self.intercept_, self.n_iter_ = libsvm_dual(K, y_pm, C, tol=tol, max_iter=max_iter)
        self.dual_coef_ = y_pm * self.alpha_
        self.history_ = [{"iteration": self.n_iter_, "objective": dual_objective(K, y_pm, self.alpha_),
                          "elapsed": time.perf_counter() - start}]
        self.diverged_ = False
        return self

    def decision_function(self, K_cross):
        """Scores K_cross (y ⊙ α) + b for a cross-kernel of shape (n_test, n_train)."""
        K_cross = check_cross_kernel(K_cross, self.alpha_.size, implicit=True)
        return K_cross @ self.dual_coef_ + self.intercept_


class KSVM(SVM):
    """SVM in a Kreĭn space (Loosli, Canu, Ong, TPAMI 2016), on a precomputed indefinite kernel.

    With K = U diag(μ) Uᵀ and S = sign(μ), an SVM is trained on the flipped kernel
    |K| = U diag(|μ|) Uᵀ (a stabilization problem in the Kreĭn space equals this minimization
    problem), and its coefficients c = y ⊙ α are mapped back by c̃ = U S Uᵀ c.  Prediction uses
    the original indefinite cross-kernel: f(x) = K_cross c̃ + b.  On the training set
    K c̃ = U|μ|Uᵀ c, i.e. KSVM's training scores are exactly those of the flipped SVM.

    Eigenvalues with |μ| below the round-off level of the eigendecomposition
    (:meth:`Spectrum.negative_tolerance`) count as non-negative (S = +1): their sign is noise.

    Parameters
    ----------
    C, tol, max_iter
        As for :class:`SVM`.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        Dual variables of the flipped SVM.
    dual_coef_ : ndarray of shape (n,)
        c̃ = U S Uᵀ (y ⊙ α), the coefficients on the original kernel.
    intercept_, classes_, history_, n_iter_
        As for :class:`SVM`.
    """

    needs_spectrum = True

    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        """Fit on ``K`` (n, n); ``spectrum`` is K's cached eigendecomposition, computed here if None."""
        C, tol, max_iter = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        if spectrum is None:
            spectrum = eigendecompose(K)
        elif spectrum.eigenvalues.size != K.shape[0]:
            raise KreinbenchError(f"spectrum has {spectrum.eigenvalues.size} eigenvalues but K is {K.shape[0]} x {K.shape[0]}")
        start = time.perf_counter()
        mu, U = spectrum.eigenvalues, spectrum.eigenvectors
        K_flip = (U * np.abs(mu)) @ U.T
        K_flip = (K_flip + K_flip.T) / 2
        self.alpha_, self.intercept_, self.n_iter_ = libsvm_dual(K_flip, y_pm, C, tol=tol, max_iter=max_iter)
        signs = np.where(mu < -spectrum.negative_tolerance(), -1.0, 1.0)
        c = y_pm * self.alpha_
        self.dual_coef_ = U @ (signs * (U.T @ c))
        self.history_ = [{"iteration": self.n_iter_, "objective": dual_objective(K_flip, y_pm, self.alpha_),
                          "elapsed": time.perf_counter() - start}]
        self.diverged_ = False
        return self
