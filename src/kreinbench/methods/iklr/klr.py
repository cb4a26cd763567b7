"""Kernel logistic regression on PSD kernels: plain, and on a spectrum-modified kernel."""

from __future__ import annotations

import numpy as np
import scipy.linalg.lapack

from kreinbench.linalg.blas import serial_syrk
from kreinbench.linalg.spectrum import TRANSFORMS, Spectrum, eigendecompose, transformed_kernel
from kreinbench.methods.base import (
    ConvergenceWarning,
    check_choice,
    check_cross_kernel,
    check_int,
    check_positive,
    check_train_kernel,
    warn_at_caller,
)
from kreinbench.methods.solvers.logistic import KernelLogisticMixin
from kreinbench.methods.solvers.newton import klr_newton


class KLR(KernelLogisticMixin):
    """Kernel logistic regression on a PSD kernel: the convex special case of :class:`IKLR`.

    The objective is the same f(α, b); with K ⪰ 0 it is convex and is minimized by Newton's
    method (:func:`kreinbench.methods.newton.klr_newton`) to relative stationarity ``tol``.
    No eigendecomposition is needed.
    """

    needs_spectrum = False

    def __init__(self, *, lam=1.0, tol=1e-10, max_iter=100):
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        self._checked_params()  # before anything is set: a bad parameter leaves the estimator unfitted
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        return self._newton(K, y_pm)

    def check_params(self) -> None:
        self._checked_params()

    def _checked_params(self) -> tuple[float, float, int]:
        return (check_positive("lam", self.lam), check_positive("tol", self.tol),
                check_int("max_iter", self.max_iter, minimum=1))

    def _newton(self, K, y_pm, start=None):
        """Newton on a checked kernel and ±1 labels, from (0, 0) or the warm start ``start``."""
        lam, tol, max_iter = self._checked_params()
        self.alpha_, b, self.history_, self.stationarity_ = klr_newton(K, y_pm, lam, tol=tol, max_iter=max_iter,
                                                                       start=start)
        self.intercept_ = float(b)
        self.n_iter_ = len(self.history_) - 1
        self.diverged_ = False
        if self.stationarity_ > 1e-6:
            warn_at_caller(f"KLR Newton stopped after {self.n_iter_} iterations at relative stationarity "
                          f"{self.stationarity_:.3g}", ConvergenceWarning)
        return self

    def supports_lambda_path(self) -> bool:
        return True

    def lambda_path_scores(self, K, y, folds, lams) -> np.ndarray:
        """Validation accuracies (n_lams × n_folds) with each λ of ``lams`` on each (train,
        validation) index pair of ``folds``, fitted on slices of ``K``.

        Per fold, the λ path runs from the largest λ down, each Newton solve warm-started at the
        previous λ's solution when the objective is convex (the fitted kernel positive
        semi-definite), so that the start changes only the number of iterations, not the solution;
        the stopping rule stays relative to ‖∇f(0, 0)‖, as in :meth:`fit`.  On an indefinite
        kernel Newton may end at another stationary point from another start, so every fit starts
        cold as in :meth:`fit`.  Scores agree with separate fits wherever no validation point's
        decision value is within the solver tolerance of zero.
        """
        K, _, _ = check_train_kernel(K, y)
        y = np.asarray(y)
        warm = self._convex(K)
        scores = np.empty((len(lams), len(folds)))
        for j, (tr, va) in enumerate(folds):
            K_fit, spectrum = self._fold_kernel(K[np.ix_(tr, tr)])
            scores[:, j] = self._fold_path(K_fit, spectrum, K, y, tr, va, lams, warm)
        return scores

    def _fold_path(self, K_fit, spectrum, K, y, tr, va, lams, warm: bool) -> np.ndarray:
        """One fold's validation accuracies along the λ path (:meth:`lambda_path_scores`)."""
        K_fit, y_pm, classes = check_train_kernel(K_fit, y[tr])
        K_va, start = K[np.ix_(va, tr)], None
        scores = np.empty(len(lams))
        for i in np.argsort(lams, kind="stable")[::-1]:
            est = self.__class__(**{**self.get_params(), "lam": lams[i]})
            est.classes_ = classes
            est._newton(K_fit, y_pm, start)
            est._fitted_fold(spectrum)
            start = (est.alpha_, est.intercept_) if warm else None
            scores[i] = est.score(K_va, y[va])
        return scores

    @staticmethod
    def _convex(K) -> bool:
        """Whether K + δI, δ = n·eps·max K_ii (round-off), has a Cholesky factor: K is then PSD to
        working precision, and so is every fold's principal submatrix (one n³/3 test for all)."""
        n = K.shape[0]
        shifted = np.array(K, dtype=np.float64, order="F")
        shifted.flat[:: n + 1] += n * np.finfo(float).eps * max(float(np.abs(np.diag(K)).max()), np.finfo(float).tiny)
        with serial_syrk(n):
            _, info = scipy.linalg.lapack.dpotrf(shifted, lower=0, clean=0, overwrite_a=1)
        return info == 0

    def _fold_kernel(self, K_tr):
        """The kernel a fold's fits are made on and the spectrum they need (none for KLR)."""
        return K_tr, None

    def _fitted_fold(self, spectrum) -> None:
        """Whatever :meth:`fit` derives after Newton from the fold's spectrum (nothing for KLR)."""


class SpectrumKLR(KLR):
    """KLR on a spectrum-modified train kernel: Flip (|μ|), Clip (max(μ, 0)) or Shift (μ − μ_min).

    ``test_kernel`` says how the test cross-kernel is treated:
    ``"original"`` (default) uses it unchanged; ``"projected"`` maps it through the training
    eigenvectors, K_cross V diag(t(μ)/μ) Vᵀ, i.e. it applies to test points the same change of
    spectrum as to training points (eigenvalues with |μ| at round-off level are dropped).
    """

    needs_spectrum = True

    def __init__(self, *, correction="flip", lam=1.0, test_kernel="original", tol=1e-10, max_iter=100):
        super().__init__(lam=lam, tol=tol, max_iter=max_iter)
        self.correction = correction
        self.test_kernel = test_kernel

    def check_params(self) -> None:
        check_choice("correction", self.correction, {"flip", "clip", "shift"})
        check_choice("test_kernel", self.test_kernel, {"original", "projected"})
        self._checked_params()

    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        # Validate before the O(n³) eigendecomposition, with the same messages as KLR.fit.
        self.check_params()
        K, _, _ = check_train_kernel(K, y)
        if spectrum is None:
            spectrum = eigendecompose(K)
        super().fit(transformed_kernel(spectrum, self.correction), y)
        self._fitted_fold(spectrum)
        return self

    @staticmethod
    def _convex(K) -> bool:
        """Flip, Clip and Shift leave no negative eigenvalue: the fitted objective is convex."""
        return True

    def _fold_kernel(self, K_tr, spectrum: Spectrum | None = None):
        """The transformed fold kernel, from the fold's one eigendecomposition (shared by every λ)."""
        self.check_params()
        spectrum = eigendecompose(K_tr) if spectrum is None else spectrum
        return transformed_kernel(spectrum, self.correction), spectrum

    @staticmethod
    def grouped_lambda_path_scores(prototypes: list, K, y, folds, lams) -> list:
        """Each prototype's :meth:`lambda_path_scores` (the hook of
        :func:`kreinbench.methods.selection.cross_validate_group`), each fold's eigendecomposition made
        once for all of them: Flip, Clip and Shift of one kernel share their folds' spectra
        (on 1600 rows one eigendecomposition costs about as much as a λ path)."""
        K, _, _ = check_train_kernel(K, y)
        y = np.asarray(y)
        scores = [np.empty((len(lams), len(folds))) for _ in prototypes]
        for j, (tr, va) in enumerate(folds):
            K_tr = K[np.ix_(tr, tr)]
            spectrum = eigendecompose(K_tr)
            for table, proto in zip(scores, prototypes):
                K_fit, _ = proto._fold_kernel(K_tr, spectrum)
                table[:, j] = proto._fold_path(K_fit, spectrum, K, y, tr, va, lams, warm=True)
        return scores

    def groups_lambda_paths_with(self, other) -> bool:
        """Whether ``other``'s λ path can share this one's CV (:meth:`grouped_lambda_path_scores`)."""
        return isinstance(other, SpectrumKLR)

    def _fitted_fold(self, spectrum) -> None:
        """The test map of ``test_kernel="projected"`` from the training spectrum and ``alpha_``."""
        if self.test_kernel == "projected":
            mu = spectrum.eigenvalues
            keep = np.abs(mu) > spectrum.negative_tolerance()
            V = spectrum.eigenvectors[:, keep]
            ratio = TRANSFORMS[self.correction](mu)[keep] / mu[keep]
            self._test_map = V @ (ratio * (V.T @ self.alpha_))

    def decision_function(self, K_cross):
        K_cross = check_cross_kernel(K_cross, self.alpha_.size)
        coef = self._test_map if self.test_kernel == "projected" else self.alpha_
        return K_cross @ coef + self.intercept_
