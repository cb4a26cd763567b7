"""Indefinite kernel logistic regression (IKLR) by the concave-(inexact-)convex procedure.

Model (IKLR TNNLS eq. (5), with an unregularized bias b):

    f(α, b) = (1/n) Σ_i log(1 + exp(−y_i((Kα)_i + b))) + (λ/2) αᵀKα,   K symmetric, indefinite.

Positive decomposition (eq. after (6)): with K = V diag(μ) Vᵀ and τ > −μ_min,
K₊ = K + K₋ and K₋ = τI + V₋ diag(−μ₋) V₋ᵀ, where (μ₋, V₋) are the negative eigenpairs.
This is the paper's pair of diagonal matrices written so that only the negative eigenpairs are
needed.  f = g − h with g = L + (λ/2)αᵀK₊α and h = (λ/2)αᵀK₋α (eq. (7)); each outer step
minimizes the convex majorizer F_k(α, b) = g(α, b) − h(α_k) − ∇h(α_k)ᵀ(α − α_k) (eqs. (8)–(9)),
which touches f at α_k, so every decrease of F_k is a decrease of f.
"""

from __future__ import annotations

import logging
import time
import warnings

import numpy as np
from scipy.special import expit

from kreinbench.errors import KreinbenchError
from kreinbench.methods.base import (
    ConvergenceWarning,
    KernelClassifierMixin,
    RunawayWarning,
    check_choice,
    check_cross_kernel,
    check_int,
    check_positive,
    check_train_kernel,
)
from kreinbench.methods.logistic import ARMIJO, LogisticKernelLoss
from kreinbench.methods.newton import klr_newton
from kreinbench.spectrum import TRANSFORMS, Spectrum, eigendecompose, transformed_kernel

log = logging.getLogger(__name__)

SOLVERS = {"ccicp-gd", "cccp-gd"}
INITS = {"zeros", "ones", "minus_ones", "uniform"}
# Seconds between progress lines of a long fit.
PROGRESS_INTERVAL = 5.0
# A stationary point satisfies K(λα − yβ/n) = 0, hence ‖α‖ ≤ 1/(λ√n) on range(K); iterates
# beyond this many times that radius cannot be approaching one (see IKLR._runaway).
RUNAWAY_FACTOR = 10.0


class _Subproblem:
    """F_k(α, b) = L(α, b) + (λ/2)αᵀK₊α − λ(K₋α_k)ᵀα + (λ/2)α_kᵀK₋α_k, convex."""

    def __init__(self, loss: LogisticKernelLoss, lam: float, kminus, alpha_k: np.ndarray):
        self.loss = loss
        self.lam = lam
        self.kminus = kminus
        km_k = kminus(alpha_k)
        self.linear = lam * km_k
        self.const = 0.5 * lam * float(alpha_k @ km_k)

    def value(self, alpha: np.ndarray, b: float) -> tuple[float, np.ndarray]:
        Ka = self.loss.K @ alpha
        kplus_a = Ka + self.kminus(alpha)
        F = self.loss.value(Ka, b) + 0.5 * self.lam * float(alpha @ kplus_a) - float(self.linear @ alpha) + self.const
        return F, Ka

    def gradient(self, alpha: np.ndarray, b: float, Ka: np.ndarray) -> tuple[np.ndarray, float]:
        g_alpha, g_b = self.loss.gradient(Ka, b)
        return g_alpha + self.lam * (Ka + self.kminus(alpha)) - self.linear, g_b


def _inner_gd_paper(sub: _Subproblem, alpha, b, *, eta, rho, eps, max_inner):
    """Algorithm 1's inner loop: GD with η_t = η ρ^t, stopped when |F(α^(t+1)) − F(α^(t))| ≤ ε.

    The paper's fixed schedule diverges whenever η·λ‖K₊‖ > 2 (TL1 kernels have ‖K‖ in the
    thousands), so each step is safeguarded: a step that fails the Armijo condition is shrunk by
    ρ until it passes.  Where the schedule is stable the safeguard never triggers and the
    iterates are exactly the paper's.
    """
    F, Ka = sub.value(alpha, b)
    step = eta
    t = 0
    while t < max_inner:
        g_alpha, g_b = sub.gradient(alpha, b, Ka)
        gg = float(g_alpha @ g_alpha) + g_b * g_b
        if gg == 0.0:
            break
        while True:
            new_alpha, new_b = alpha - step * g_alpha, b - step * g_b
            F_new, Ka_new = sub.value(new_alpha, new_b)
            if F_new <= F - ARMIJO * step * gg or step < 1e-300:
                break
            step *= rho
        if not F_new < F:  # no decrease representable in floating point: converged
            break
        t += 1
        alpha, b, Ka, F_prev, F = new_alpha, new_b, Ka_new, F, F_new
        if abs(F_prev - F) <= eps:
            break
        step *= rho
    return alpha, b, F, t


def _inner_gd_exact(sub: _Subproblem, alpha, b, *, gtol, max_inner, step0):
    """Gradient descent to ‖∇F_k‖ ≤ gtol: Barzilai–Borwein trial steps, Armijo backtracking.

    This is the "exact" CCCP baseline.  The paper's |ΔF| ≤ ε rule stops GD on any flat stretch
    of an ill-conditioned problem, not at the minimizer, so the exact variant tests the gradient.
    """
    F, Ka = sub.value(alpha, b)
    g_alpha, g_b = sub.gradient(alpha, b, Ka)
    step = step0
    t = 0
    while t < max_inner:
        gg = float(g_alpha @ g_alpha) + g_b * g_b
        if np.sqrt(gg) <= gtol:
            break
        while True:
            new_alpha, new_b = alpha - step * g_alpha, b - step * g_b
            F_new, Ka_new = sub.value(new_alpha, new_b)
            if F_new <= F - ARMIJO * step * gg or step < 1e-300:
                break
            step *= 0.5
        if not F_new < F:
            break
        new_g_alpha, new_g_b = sub.gradient(new_alpha, new_b, Ka_new)
        s_a, s_b = new_alpha - alpha, new_b - b
        r_a, r_b = new_g_alpha - g_alpha, new_g_b - g_b
        sr = float(s_a @ r_a) + s_b * r_b
        # BB1 step (s·s / s·r); F_k is strongly convex on the iterates' span, so sr > 0 there.
        step = (float(s_a @ s_a) + s_b * s_b) / sr if sr > 0 else step * 2.0
        alpha, b, Ka, F, g_alpha, g_b = new_alpha, new_b, Ka_new, F_new, new_g_alpha, new_g_b
        t += 1
    return alpha, b, F, t, step


class IKLR(KernelClassifierMixin):
    """Indefinite kernel logistic regression on a precomputed kernel.

    Parameters
    ----------
    lam : float, default=1.0
        Regularization weight λ > 0 of (λ/2)αᵀKα.
    solver : {"ccicp-gd", "cccp-gd"}, default="ccicp-gd"
        ``"ccicp-gd"``: Algorithm 1 of the TNNLS paper, inner GD stopped early (|ΔF_k| ≤ eps).
        ``"cccp-gd"``: exact CCCP; inner GD run to ‖∇F_k‖ ≤ eps·‖∇f(α⁰, b⁰)‖ and outer iterations
        until ‖∇f‖ ≤ eps·‖∇f(α⁰, b⁰)‖.
    eps : float or None
        Inner tolerance; ``None`` means the solver's default (1 for ccicp-gd, 1e-4 for cccp-gd).
    max_outer : int or None
        k_max; ``None`` means 20 for ccicp-gd (the paper) and 2000 for cccp-gd.
    eta, rho : float, default=0.02, 0.8
        Initial inner step size η and its per-step decay ρ (Algorithm 1, ccicp-gd only).
    max_inner : int, default=10000
        Cap on inner steps per outer iteration.
    tau : float or None
        τ of the positive decomposition; ``None`` means max(−μ_min, 0) plus a round-off margin,
        the smallest value the paper's condition τ > −μ_min allows.
    init : {"zeros", "ones", "minus_ones", "uniform"}, default="zeros"
        α⁽⁰⁾ of Table VI; "uniform" draws U(0, 1) from ``random_state``.
    random_state : int or None
        Seed for ``init="uniform"``.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
    intercept_ : float
    classes_ : ndarray of shape (2,)
    history_ : list of dict
        One row per outer iteration (0 = the initial point): ``objective``, ``grad_norm``,
        ``alpha_norm``, ``inner_steps``, ``elapsed``.
    n_iter_ : int
        Outer iterations run.
    stationarity_ : float
        ‖∇f(α, b)‖ / ‖∇f(α⁰, b⁰)‖ at the returned point.
    diverged_ : bool
        True when the iterates ran away (see Notes); the fit stopped and warned.
    tau_ : float

    Notes
    -----
    With any negative eigenvalue f is unbounded below (f(tv) → −∞ along a negative eigenvector v),
    so IKLR returns a stationary point, and CCCP iterates can run away from all of them.  Every
    stationary point satisfies K(λα − y⊙β/n) = 0, hence ‖α‖ ≤ 1/(λ√n) on range(K).  Once
    ‖α − α⁰‖ exceeds ten times that radius the fit stops, sets ``diverged_`` and warns with
    :class:`RunawayWarning`; larger λ or τ, or fewer outer steps, are the remedies.
    """

    needs_spectrum = True

    def __init__(self, *, lam=1.0, solver="ccicp-gd", eps=None, max_outer=None, eta=0.02, rho=0.8,
                 max_inner=10000, tau=None, init="zeros", random_state=None):
        self.lam = lam
        self.solver = solver
        self.eps = eps
        self.max_outer = max_outer
        self.eta = eta
        self.rho = rho
        self.max_inner = max_inner
        self.tau = tau
        self.init = init
        self.random_state = random_state

    # -- parameters -------------------------------------------------------------------------
    def _validated(self) -> dict:
        solver = check_choice("solver", self.solver, SOLVERS)
        eps = self.eps if self.eps is not None else {"ccicp-gd": 1.0, "cccp-gd": 1e-4}[solver]
        max_outer = self.max_outer if self.max_outer is not None else {"ccicp-gd": 20, "cccp-gd": 2000}[solver]
        rho = check_positive("rho", self.rho)
        if rho >= 1:
            raise KreinbenchError(f"parameter rho must be in (0, 1), got {self.rho!r}")
        return {
            "lam": check_positive("lam", self.lam),
            "solver": solver,
            "eps": check_positive("eps", eps, allow_zero=True),
            "max_outer": check_int("max_outer", max_outer, minimum=1),
            "eta": check_positive("eta", self.eta),
            "rho": rho,
            "max_inner": check_int("max_inner", self.max_inner, minimum=1),
            "tau": None if self.tau is None else check_positive("tau", self.tau, allow_zero=True),
            "init": check_choice("init", self.init, INITS),
        }

    def _initial_alpha(self, n: int) -> np.ndarray:
        if self.init == "zeros":
            return np.zeros(n)
        if self.init == "ones":
            return np.ones(n)
        if self.init == "minus_ones":
            return -np.ones(n)
        return np.random.default_rng(self.random_state).uniform(0.0, 1.0, size=n)

    def _kminus(self, spectrum: Spectrum, tau: float):
        """K₋ as a function v ↦ τv + V₋ diag(−μ₋) V₋ᵀ v (cost n·#negative, no n×n product)."""
        mu_neg, V_neg = spectrum.negative_part()
        return lambda v: tau * v + V_neg @ (-mu_neg * (V_neg.T @ v))

    def _default_tau(self, spectrum: Spectrum) -> float:
        return max(-float(spectrum.eigenvalues[0]), 0.0) + spectrum.negative_tolerance()

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        """Fit on the train kernel ``K`` (n, n) and labels ``y`` (two classes).

        ``spectrum`` is K's eigendecomposition if already computed (the pipeline passes the
        cached one); otherwise it is computed here.
        """
        p = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        if spectrum is None:
            spectrum = eigendecompose(K)
        elif spectrum.eigenvalues.size != K.shape[0]:
            raise KreinbenchError(f"spectrum has {spectrum.eigenvalues.size} eigenvalues but K is {K.shape[0]} x {K.shape[0]}")
        self.tau_ = self._default_tau(spectrum) if p["tau"] is None else p["tau"]
        if self.tau_ < -float(spectrum.eigenvalues[0]):
            raise KreinbenchError(
                f"parameter tau={self.tau_!r} must be >= -mu_min = {-float(spectrum.eigenvalues[0])!r} "
                "so that K+ and K- are positive semi-definite"
            )
        self._solve(K, y_pm, self._kminus(spectrum, self.tau_), p)
        return self

    def _full_gradient(self, loss: LogisticKernelLoss, lam: float, alpha, b):
        Ka = loss.K @ alpha
        g_alpha, g_b = loss.gradient(Ka, b)
        g_alpha = g_alpha + lam * Ka
        f = loss.value(Ka, b) + 0.5 * lam * float(alpha @ Ka)
        return f, float(np.sqrt(g_alpha @ g_alpha + g_b * g_b))

    def _solve(self, K, y, kminus, p) -> None:
        n = y.size
        loss = LogisticKernelLoss(K, y)
        lam = p["lam"]
        alpha0 = self._initial_alpha(n)
        alpha, b = alpha0.copy(), 0.0
        start = time.perf_counter()
        last_log = start
        f, g0 = self._full_gradient(loss, lam, alpha, b)
        g0 = max(g0, np.finfo(float).tiny)
        self.history_ = [{"iteration": 0, "objective": f, "grad_norm": g0, "alpha_norm": float(np.linalg.norm(alpha)),
                          "inner_steps": 0, "elapsed": 0.0}]
        runaway_radius = RUNAWAY_FACTOR / (lam * np.sqrt(n))
        self.diverged_ = False
        step = 1.0
        k = 0
        grad_norm = g0
        while k < p["max_outer"]:
            sub = _Subproblem(loss, lam, kminus, alpha)
            if p["solver"] == "ccicp-gd":
                alpha, b, _, t = _inner_gd_paper(sub, alpha, b, eta=p["eta"], rho=p["rho"], eps=p["eps"],
                                                 max_inner=p["max_inner"])
            else:
                alpha, b, _, t, step = _inner_gd_exact(sub, alpha, b, gtol=p["eps"] * g0, max_inner=p["max_inner"],
                                                       step0=step)
            k += 1
            f, grad_norm = self._full_gradient(loss, lam, alpha, b)
            now = time.perf_counter()
            self.history_.append({"iteration": k, "objective": f, "grad_norm": grad_norm,
                                  "alpha_norm": float(np.linalg.norm(alpha)), "inner_steps": t,
                                  "elapsed": now - start})
            if now - last_log >= PROGRESS_INTERVAL:
                log.info("IKLR %s outer %d: f = %.6g, |grad f| = %.3g, %.1f s", p["solver"], k, f, grad_norm, now - start)
                last_log = now
            if np.linalg.norm(alpha - alpha0) > runaway_radius:
                self.diverged_ = True
                warnings.warn(
                    f"IKLR iterates ran away at outer iteration {k}: ||alpha|| = {np.linalg.norm(alpha):.3g} exceeds "
                    f"{RUNAWAY_FACTOR:g}/(lam*sqrt(n)) = {runaway_radius:.3g}, beyond any stationary point, and "
                    f"f = {f:.3g} is falling along a negative eigendirection of K. Try a larger lam or tau, "
                    "or fewer outer iterations.", RunawayWarning, stacklevel=3)
                break
            # t == 0: the inner solve cannot decrease F_k in floating point any more.
            if p["solver"] == "cccp-gd" and (grad_norm <= p["eps"] * g0 or t == 0):
                break
        self.alpha_, self.intercept_, self.n_iter_ = alpha, float(b), k
        self.stationarity_ = grad_norm / g0
        if not self.diverged_ and p["solver"] == "cccp-gd" and self.stationarity_ > p["eps"]:
            warnings.warn(f"IKLR cccp-gd stopped at max_outer={p['max_outer']} with relative stationarity "
                          f"{self.stationarity_:.3g} > eps={p['eps']:g}", ConvergenceWarning, stacklevel=3)

    # -- prediction -------------------------------------------------------------------------
    def decision_function(self, K_cross):
        """Scores K_cross α + b for a cross-kernel of shape (n_test, n_train)."""
        K_cross = check_cross_kernel(K_cross, self.alpha_.size)
        return K_cross @ self.alpha_ + self.intercept_

    def predict_proba(self, K_cross):
        """Class probabilities, columns ordered as ``classes_`` (IKLR's p(z) = σ(K_z α + b))."""
        p1 = expit(self.decision_function(K_cross))
        return np.column_stack([1.0 - p1, p1])


class KLR(IKLR):
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
        K = np.asarray(K, dtype=float)
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
