"""TDCASVM (Akoa, IEEE TNN 2008): the SVM dual with an indefinite kernel solved by DCA + SMO.

In minimization form the dual is  F(α) = ½αᵀQα − eᵀα  over {yᵀα = 0, 0 ≤ α ≤ C}, Q = YKY, which
is non-convex when K is indefinite.  With ρ ≥ −λ_min(K) (Q and K share their spectrum), the DC
decomposition F = g − h,

    g(α) = ½αᵀ(Q + ρI)α − eᵀα   (convex),      h(α) = ½ρ‖α‖²   (convex),

gives the DCA step  α_{k+1} = argmin g(α) − ∇h(α_k)ᵀα = argmin ½αᵀ(Q + ρI)α − (e + ρα_k)ᵀα,
a convex SVM-type QP with a linear term, solved by :func:`kreinbench.methods.solvers.smo.smo_solve`
warm-started at α_k.  Because the DC model touches F at α_k and majorizes it, and SMO steps only
decrease it, F(α_k) is non-increasing even when the inner solves are inexact.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.spectrum import Spectrum, compute_spectrum
from kreinbench.methods.base import (
    ConvergenceWarning,
    KernelClassifierMixin,
    check_cross_kernel,
    check_int,
    check_positive,
    check_train_kernel,
    warn_at_caller,
)
from kreinbench.methods.solvers.smo import intercept, kkt_violation, smo_solve

log = logging.getLogger(__name__)

# Seconds between progress lines of a long fit.
PROGRESS_INTERVAL = 5.0


class TDCASVM(KernelClassifierMixin):
    """SVM with an indefinite kernel by the DC algorithm with SMO inner solves (Akoa 2008).

    Parameters
    ----------
    C : float, default=1.0
        Box constraint C > 0.
    rho : float or None, default=None
        ρ of the DC decomposition, must be ≥ −λ_min(K) (checked when ``spectrum`` is given);
        ``None`` means max(−λ_min, 0) plus a round-off margin (the tightest convex g, hence the
        largest DCA steps).
    tol : float, default=1e-6
        DCA stops when |F(α_{k+1}) − F(α_k)| ≤ tol · |F(α_{k+1})|.
    inner_tol : float, default=1e-6
        SMO's tolerance on the maximal KKT violation of each DC subproblem.
    max_outer : int, default=500
        Cap on DCA iterations.
    max_inner : int, default=1000000
        Cap on SMO iterations per DC subproblem.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        Dual variables, 0 ≤ α ≤ C.
    dual_coef_ : ndarray of shape (n,)
        y ⊙ α.
    intercept_ : float
        b from the KKT conditions of the original (indefinite) dual at α (libsvm's rule).
    classes_ : ndarray of shape (2,)
    history_ : list of dict
        Row 0 is α = 0; then one row per DCA iteration: ``objective`` (the SVM dual
        eᵀα − ½αᵀQα, to be maximized; it is −F), ``inner_steps`` (SMO iterations),
        ``kkt_violation`` (of the original problem), ``elapsed``.
    n_iter_ : int
    stationarity_ : float
        Maximal KKT violation m(α) − M(α) of the original problem at the returned α.
    rho_ : float
    diverged_ : bool
        Always False: the feasible set is bounded, so DCA iterates cannot run away.
    """

    # Only λ_min (for ρ) and the round-off tolerance, which every spectrum kind carries.
    needs_spectrum = "lambda_min"

    def __init__(self, *, C=1.0, rho=None, tol=1e-6, inner_tol=1e-6, max_outer=500, max_inner=1_000_000):
        self.C = C
        self.rho = rho
        self.tol = tol
        self.inner_tol = inner_tol
        self.max_outer = max_outer
        self.max_inner = max_inner

    def check_params(self) -> None:
        self._validated()
        if self.rho is not None:
            check_positive("rho", self.rho, allow_zero=True)

    def _validated(self) -> tuple[float, float, float, int, int]:
        return (check_positive("C", self.C), check_positive("tol", self.tol),
                check_positive("inner_tol", self.inner_tol), check_int("max_outer", self.max_outer, minimum=1),
                check_int("max_inner", self.max_inner, minimum=1))

    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        """Fit on ``K`` (n, n); ``spectrum`` (any kind; only λ_min is used) is computed if None and rho is None."""
        C, tol, inner_tol, max_outer, max_inner = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        if spectrum is not None and spectrum.dimension != K.shape[0]:
            raise KreinbenchError(f"spectrum is of a {spectrum.dimension} x {spectrum.dimension} kernel but K is "
                                  f"{K.shape[0]} x {K.shape[0]}")
        if self.rho is None:
            if spectrum is None:
                spectrum = compute_spectrum(K, "lambda_min")
            self.rho_ = max(-float(spectrum.eigenvalues[0]), 0.0) + spectrum.negative_tolerance()
        else:
            self.rho_ = check_positive("rho", self.rho, allow_zero=True)
            # Only checkable without an extra eigendecomposition when the spectrum is at hand.
            if spectrum is not None and self.rho_ < -float(spectrum.eigenvalues[0]) - spectrum.negative_tolerance():
                raise KreinbenchError(f"parameter rho={self.rho!r} must be >= -lambda_min(K) = "
                                      f"{-float(spectrum.eigenvalues[0])!r} so that each DC subproblem is convex")
        self._solve(K, y_pm, C, tol, inner_tol, max_outer, max_inner)
        return self

    def _solve(self, K, y, C, tol, inner_tol, max_outer, max_inner) -> None:
        n = y.size
        Q = (y[:, None] * K) * y[None, :]
        Q_conv = Q + self.rho_ * np.eye(n)
        alpha = np.zeros(n)
        F = 0.0
        start = last_log = time.perf_counter()
        self.history_ = [{"iteration": 0, "objective": 0.0, "inner_steps": 0,
                          "kkt_violation": kkt_violation(-np.ones(n), alpha, y, C), "elapsed": 0.0}]
        converged = False
        k = 0
        while k < max_outer:
            res = smo_solve(Q_conv, -1.0 - self.rho_ * alpha, y, C, alpha0=alpha, tol=inner_tol, max_iter=max_inner)
            alpha = res.alpha
            k += 1
            G = Q @ alpha - 1.0          # gradient of F, the original (indefinite) problem
            F_new = 0.5 * float(alpha @ (G - 1.0))
            violation = kkt_violation(G, alpha, y, C)
            now = time.perf_counter()
            self.history_.append({"iteration": k, "objective": -F_new, "inner_steps": res.n_iter,
                                  "kkt_violation": violation, "elapsed": now - start})
            if now - last_log >= PROGRESS_INTERVAL:
                log.info("TDCASVM DCA iteration %d: dual objective %.8g, KKT violation %.3g, %.1f s",
                         k, -F_new, violation, now - start)
                last_log = now
            change = abs(F - F_new)
            F = F_new
            if change <= tol * abs(F):
                converged = True
                break
        G = Q @ alpha - 1.0
        self.alpha_ = alpha
        self.dual_coef_ = y * alpha
        self.intercept_ = intercept(G, alpha, y, C)
        self.n_iter_ = k
        self.stationarity_ = kkt_violation(G, alpha, y, C)
        self.diverged_ = False
        if not converged:
            warn_at_caller(f"TDCASVM stopped at max_outer={max_outer} with relative objective change above "
                          f"tol={tol:g} (KKT violation {self.stationarity_:.3g})", ConvergenceWarning)

    def decision_function(self, K_cross):
        """Scores K_cross (y ⊙ α) + b for a cross-kernel of shape (n_test, n_train)."""
        K_cross = check_cross_kernel(K_cross, self.alpha_.size)
        return K_cross @ self.dual_coef_ + self.intercept_
