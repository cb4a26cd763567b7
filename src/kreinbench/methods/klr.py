"""Kernel logistic regression on PSD kernels: plain, and on a spectrum-modified kernel."""

from __future__ import annotations

import warnings

import numpy as np

from kreinbench.methods.base import (
    ConvergenceWarning,
    check_choice,
    check_cross_kernel,
    check_int,
    check_positive,
    check_train_kernel,
)
from kreinbench.methods.logistic import KernelLogisticMixin
from kreinbench.methods.newton import klr_newton
from kreinbench.spectrum import TRANSFORMS, Spectrum, eigendecompose, transformed_kernel

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
        lam = check_positive("lam", self.lam)
        tol = check_positive("tol", self.tol)
        max_iter = check_int("max_iter", self.max_iter, minimum=1)
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        self.alpha_, b, self.history_, self.stationarity_ = klr_newton(K, y_pm, lam, tol=tol, max_iter=max_iter)
        self.intercept_ = float(b)
        self.n_iter_ = len(self.history_) - 1
        self.diverged_ = False
        if self.stationarity_ > 1e-6:
            warnings.warn(f"KLR Newton stopped after {self.n_iter_} iterations at relative stationarity "
                          f"{self.stationarity_:.3g}", ConvergenceWarning, stacklevel=2)
        return self


class SpectrumKLR(KLR):
    """KLR on a spectrum-modified train kernel: Flip (|μ|), Clip (max(μ, 0)) or Shift (μ − μ_min).

    ``test_kernel`` says how the test cross-kernel is treated:
    ``"original"`` (default) uses it unchanged; ``"projected"`` maps it through the training
    eigenvectors, K_cross V diag(t(μ)/μ) Vᵀ, i.e. it applies to test points the same change of
    spectrum as to training points (eigenvalues with |μ| at round-off level are dropped).
    """

    needs_spectrum = True

    def __init__(self, *, transform="flip", lam=1.0, test_kernel="original", tol=1e-10, max_iter=100):
        super().__init__(lam=lam, tol=tol, max_iter=max_iter)
        self.transform = transform
        self.test_kernel = test_kernel

    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        check_choice("transform", self.transform, {"flip", "clip", "shift"})
        check_choice("test_kernel", self.test_kernel, {"original", "projected"})
        # Validate before the O(n³) eigendecomposition, with the same messages as KLR.fit.
        check_positive("lam", self.lam)
        check_positive("tol", self.tol)
        check_int("max_iter", self.max_iter, minimum=1)
        K, _, _ = check_train_kernel(K, y)
        if spectrum is None:
            spectrum = eigendecompose(K)
        super().fit(transformed_kernel(spectrum, self.transform), y)
        if self.test_kernel == "projected":
            mu = spectrum.eigenvalues
            keep = np.abs(mu) > spectrum.negative_tolerance()
            V = spectrum.eigenvectors[:, keep]
            ratio = TRANSFORMS[self.transform](mu)[keep] / mu[keep]
            self._test_map = V @ (ratio * (V.T @ self.alpha_))
        return self

    def decision_function(self, K_cross):
        K_cross = check_cross_kernel(K_cross, self.alpha_.size)
        coef = self._test_map if self.test_kernel == "projected" else self.alpha_
        return K_cross @ coef + self.intercept_
