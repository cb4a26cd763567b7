"""Indefinite kernel logistic regression (IKLR) by the concave-(inexact-)convex procedure.

Model (IKLR TNNLS eq. (5), with an unregularized bias b):

    f(α, b) = (1/n) Σ_i log(1 + exp(−y_i((Kα)_i + b))) + (λ/2) αᵀKα,   K symmetric, indefinite.

Positive decomposition f = g − h, g = L + (λ/2)αᵀK₊α, h = (λ/2)αᵀK₋α, K = K₊ − K₋ (eq. (7)):

- ``split="eigen"`` (the paper, eq. after (6)): K₋ = τI + V₋ diag(−μ₋) V₋ᵀ over the negative
  eigenpairs (μ₋, V₋), K₊ = K + K₋ — the paper's two diagonal matrices in the eigenbasis, written
  so that only the negative eigenpairs are needed; τ > −μ_min is not even required for PSD-ness
  (τ ≥ 0 is), but is kept as the paper's default.
- ``split="shift"`` (beyond the paper): K₋ = τI, K₊ = K + τI with τ ≥ −μ_min; needs only the
  eigenvalues (no eigenvectors), and has the same stationary points (MM'17 §4.3: the split
  changes only the rate).

Each outer step minimizes the convex majorizer F_k (see :mod:`kreinbench.methods.iklr_inner`),
which touches f at α_k, so every decrease of F_k is a decrease of f.
"""

from __future__ import annotations

import logging
import time
import warnings

import numpy as np
import scipy.linalg

from kreinbench.errors import KreinbenchError
from kreinbench.methods import iklr_inner
from kreinbench.methods.base import (
    ConvergenceWarning,
    RunawayWarning,
    check_choice,
    check_int,
    check_positive,
    check_train_kernel,
)
from kreinbench.methods.logistic import KernelLogisticMixin, LogisticKernelLoss
from kreinbench.spectrum import Spectrum, eigendecompose

log = logging.getLogger(__name__)

# Per solver: inner solver, its stopping rule, and the paper's defaults.
SOLVERS = {
    # TNNLS Algorithm 1 with GD; CCICP-SGD with ε = 1e-4 (TNNLS §V-A), SGD-I with ε = 1 (Table VII).
    "ccicp-gd": {"inner": "gd", "stop": "objective", "eps": 1.0, "max_outer": 20, "eta": 0.02, "rho": 0.8},
    "ccicp-sgd": {"inner": "sgd", "stop": "objective", "eps": 1e-4, "max_outer": 20, "eta": 0.02, "rho": 0.8},
    "ccicp-sgd-i": {"inner": "sgd", "stop": "objective", "eps": 1.0, "max_outer": 20, "eta": 0.02, "rho": 0.8},
    # MM'17 Algorithm 1: inner ‖∇F‖ ≤ ε‖α‖, t_max = 15, η = 0.2, decay 0.5, outer stop on relative change.
    "ccicp-gd-mm17": {"inner": "gd", "stop": "gradient", "eps": None, "max_outer": 15, "eta": 0.2, "rho": 0.5},
    # Exact CCCP: every subproblem solved to ‖∇F_k‖ ≤ ε‖∇f(α⁰, b⁰)‖, until ‖∇f‖ ≤ ε‖∇f(α⁰, b⁰)‖.
    "cccp-gd": {"inner": "gd-exact", "stop": "gradient", "eps": 1e-4, "max_outer": 2000, "eta": None, "rho": None},
    "cccp-lbfgs": {"inner": "lbfgs", "stop": "gradient", "eps": 1e-4, "max_outer": 2000, "eta": None, "rho": None},
}
SPLITS = {"eigen", "shift"}
INITS = {"zeros", "ones", "minus_ones", "uniform"}
# MM'17's ε when Theorem 1 allows none (its bound is negative): a stated, not derived, value.
MM17_FALLBACK_EPS = 1e-3
# Seconds between progress lines of a long fit.
PROGRESS_INTERVAL = 5.0
# A stationary point satisfies K(λα − y⊙β/n) = 0, hence ‖α‖ ≤ 1/(λ√n) on range(K); iterates
# beyond this many times that radius cannot be approaching one.
RUNAWAY_FACTOR = 10.0


class IKLR(KernelLogisticMixin):
    """Indefinite kernel logistic regression on a precomputed kernel.

    Parameters
    ----------
    lam : float, default=1.0
        Regularization weight λ > 0 of (λ/2)αᵀKα.
    solver : str, default="ccicp-gd"
        ``"ccicp-gd"`` (TNNLS Algorithm 1: inner GD stopped when |ΔF_k| ≤ ε),
        ``"ccicp-sgd"`` / ``"ccicp-sgd-i"`` (one random column per inner step, eq. (12)),
        ``"ccicp-gd-mm17"`` (MM'17 Algorithm 1), ``"cccp-gd"`` (exact CCCP, inner GD to
        ‖∇F_k‖ ≤ ε‖∇f(α⁰, b⁰)‖), ``"cccp-lbfgs"`` (exact CCCP, inner L-BFGS; beyond the paper).
    eps : float or None
        The solver's ε; ``None`` means its paper default (1, 1e-4, 1, Theorem 1, 1e-4, 1e-4).
        For ``"ccicp-gd-mm17"`` the default is half of Theorem 1's bound when that is positive,
        else 1e-3.
    max_outer : int or None
        k_max; ``None`` means the solver's default (20; 15 for MM'17; 2000 for exact CCCP).
    eta, rho : float or None
        Initial inner step η and its per-step decay ρ (CCICP solvers; defaults 0.02/0.8, MM'17 0.2/0.5).
    max_inner : int, default=10000
        Cap on inner steps per outer iteration.
    split : {"eigen", "shift"}, default="eigen"
        The positive decomposition (see the module docstring).
    tau : float or None
        τ of the decomposition; ``None`` means max(−μ_min, 0) plus a round-off margin.
    init : {"zeros", "ones", "minus_ones", "uniform"}, default="zeros"
        α⁽⁰⁾ of TNNLS Table VI; ``"uniform"`` draws U(0, 1).
    random_state : int or None
        Seed of ``init="uniform"`` and of the SGD column choice.

    Attributes
    ----------
    alpha_, intercept_, classes_
    history_ : list of dict
        One row per outer iteration (0 = the initial point): ``objective`` f, ``grad_norm`` ‖∇f‖,
        ``alpha_norm``, ``inner_steps``, ``inner_residual`` (‖∇_α F_k(α_{k+1})‖ / ‖α_k‖, the ε of
        TNNLS eq. (13) this step achieved), ``elapsed`` seconds.
    n_iter_ : int
    n_matvecs_ : int
        Products with the n×n kernel the solver made (the cost unit; spectral work excluded).
    stationarity_ : float
        ‖∇f(α, b)‖ / ‖∇f(α⁰, b⁰)‖ at the returned point.
    diverged_ : bool
        True when the iterates ran away (see Notes).
    tau_ : float
    theorem1_bound_ : float
        λ(‖K₊‖ − ‖K₋‖) − ‖K‖²/(4n), TNNLS eq. (15) (spectral norms).
    theorem1_satisfied_ : bool
        Whether the largest inner residual (the achieved ε of eq. (13)) is below that bound, i.e.
        whether Theorem 1's convergence guarantee covers this fit.

    Notes
    -----
    With any negative eigenvalue, f is unbounded below (f(tv) → −∞ along a negative eigenvector v),
    so IKLR returns a stationary point, and CCCP iterates can run away from all of them (a
    stationary point is a saddle of f along v unless λ < |μ|h/n, h the logistic weight; MM'17
    §4.3).  Every stationary point has ‖α‖ ≤ 1/(λ√n) on range(K), and iterates keep α⁰'s component
    on null(K); once ‖α‖ exceeds 10/(λ√n) + ‖α⁰‖ the fit stops, sets ``diverged_`` and warns with
    :class:`RunawayWarning`.
    """

    # The pipeline's spectrum (kreinbench.plan.spectrum_kind): the negative eigenpairs for the
    # eigen split, only mu_min and mu_max for the shift split.
    needs_spectrum = staticmethod(lambda params: "lambda_min" if params.get("split") == "shift" else "negative")

    def __init__(self, *, lam=1.0, solver="ccicp-gd", eps=None, max_outer=None, eta=None, rho=None,
                 max_inner=10000, split="eigen", tau=None, init="zeros", random_state=None):
        self.lam = lam
        self.solver = solver
        self.eps = eps
        self.max_outer = max_outer
        self.eta = eta
        self.rho = rho
        self.max_inner = max_inner
        self.split = split
        self.tau = tau
        self.init = init
        self.random_state = random_state

    # -- parameters -------------------------------------------------------------------------
    def _validated(self) -> dict:
        solver = check_choice("solver", self.solver, SOLVERS)
        p = dict(SOLVERS[solver])
        for name in ("eps", "max_outer", "eta", "rho"):
            if getattr(self, name) is not None:
                p[name] = getattr(self, name)
        p["lam"] = check_positive("lam", self.lam)
        if p["eps"] is not None:
            p["eps"] = check_positive("eps", p["eps"], allow_zero=True)
        p["max_outer"] = check_int("max_outer", p["max_outer"], minimum=1)
        if p["eta"] is not None:
            p["eta"] = check_positive("eta", p["eta"])
            p["rho"] = check_positive("rho", p["rho"])
            if p["rho"] >= 1:
                raise KreinbenchError(f"parameter rho must be in (0, 1), got {p['rho']!r}")
        p["max_inner"] = check_int("max_inner", self.max_inner, minimum=1)
        p["split"] = check_choice("split", self.split, SPLITS)
        p["tau"] = None if self.tau is None else check_positive("tau", self.tau, allow_zero=True)
        p["init"] = check_choice("init", self.init, INITS)
        p["solver"] = solver
        return p

    # -- decomposition ----------------------------------------------------------------------
    @staticmethod
    def _extreme_eigenvalues(K: np.ndarray, spectrum: Spectrum | None) -> tuple[float, float]:
        """μ_min and μ_max: from the cached spectrum of any kind (each carries both), else from
        the eigenvalues alone.

        Not by Lanczos: TL1 spectra cluster near zero and ``eigsh(which="SA")`` needed 49 s at
        n = 1000 where LAPACK's eigenvalues-only path (tridiagonalization, no eigenvectors) takes
        0.1 s (benchmarks/bench_iklr.py).
        """
        if spectrum is not None:
            return float(spectrum.eigenvalues[0]), float(spectrum.mu_max)
        mu = scipy.linalg.eigvalsh(K)
        return float(mu[0]), float(mu[-1])

    @staticmethod
    def _kminus(spectrum, split, tau):
        """K₋ as a function v ↦ K₋v costing O(n·#negative), never an n×n product."""
        if split == "shift":
            return lambda v: tau * v
        mu_neg, V_neg = spectrum.negative_part()
        return lambda v: tau * v + V_neg @ (-mu_neg * (V_neg.T @ v))

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        """Fit on the train kernel ``K`` (n, n) and labels ``y`` (two classes).

        ``spectrum`` is K's eigendecomposition if already computed (the pipeline passes the
        cached one); otherwise what the split needs is computed here.
        """
        p = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        n = y_pm.size
        if spectrum is None and p["split"] == "eigen":
            spectrum = eigendecompose(K)
        mu_min, mu_max = self._extreme_eigenvalues(K, spectrum)
        norm_K = max(abs(mu_min), abs(mu_max))
        margin = n * np.finfo(float).eps * norm_K
        self.tau_ = max(-mu_min, 0.0) + margin if p["tau"] is None else p["tau"]
        if self.tau_ < -mu_min - margin:
            raise KreinbenchError(f"parameter tau={self.tau_!r} must be >= -mu_min = {-mu_min!r} so that "
                                  "K+ and K- are positive semi-definite")
        norm_kminus = self.tau_ - min(mu_min, 0.0) if p["split"] == "eigen" else self.tau_
        self.theorem1_bound_ = p["lam"] * ((mu_max + self.tau_) - norm_kminus) - norm_K**2 / (4 * n)
        if p["eps"] is None:  # MM'17: "compute ε" — the largest that Theorem 1 allows, halved
            p["eps"] = 0.5 * self.theorem1_bound_ if self.theorem1_bound_ > 0 else MM17_FALLBACK_EPS
        kminus = self._kminus(spectrum, p["split"], self.tau_)
        # Curvature bounds of F_k over (α, b): λ‖K₊‖ from the quadratic, ‖[K 1]‖²/(4n) from the
        # loss (logistic weights ≤ 1/4), and per sample ‖[K_j 1]‖²/4 for one-column SGD steps.
        # A step 1/L always passes the Armijo test, so GD needs no backtracking below it.
        quad = p["lam"] * (mu_max + self.tau_)
        p["gd_step_cap"] = 1.0 / (quad + (norm_K**2 + n) / (4 * n))
        p["sgd_step_cap"] = 1.0 / (quad + (float((K * K).sum(axis=0).max()) + 1.0) / 4.0)
        self._solve(K, y_pm, kminus, p)
        residuals = [h["inner_residual"] for h in self.history_[1:] if np.isfinite(h["inner_residual"])]
        self.theorem1_satisfied_ = bool(residuals) and max(residuals) < self.theorem1_bound_
        return self

    def _initial_alpha(self, n: int, rng) -> np.ndarray:
        if self.init == "zeros":
            return np.zeros(n)
        if self.init == "ones":
            return np.ones(n)
        if self.init == "minus_ones":
            return -np.ones(n)
        return rng.uniform(0.0, 1.0, size=n)

    @staticmethod
    def _objective_and_gradient_norm(loss: LogisticKernelLoss, lam: float, alpha, b):
        Ka = loss.K @ alpha
        g_alpha, g_b = loss.gradient(Ka, b)
        g_alpha = g_alpha + lam * Ka
        f = loss.value(Ka, b) + 0.5 * lam * float(alpha @ Ka)
        return f, float(np.sqrt(g_alpha @ g_alpha + g_b * g_b))

    def _inner(self, sub, alpha, b, p, g0, rng, state):
        kind = p["inner"]
        if kind == "gd":
            return iklr_inner.gd_decay(sub, alpha, b, eta=p["eta"], rho=p["rho"], eps=p["eps"],
                                       max_inner=p["max_inner"], stop=p["stop"], step_cap=p["gd_step_cap"])
        if kind == "sgd":
            return iklr_inner.sgd(sub, alpha, b, eta=p["eta"], rho=p["rho"], eps=p["eps"], max_inner=p["max_inner"],
                                  rng=rng, step_cap=p["sgd_step_cap"])
        if kind == "lbfgs":
            return iklr_inner.lbfgs(sub, alpha, b, gtol=p["eps"] * g0, max_inner=p["max_inner"])
        alpha, b, F, t, state["step"] = iklr_inner.gd_exact(sub, alpha, b, gtol=p["eps"] * g0,
                                                            max_inner=p["max_inner"], step0=state["step"])
        return alpha, b, F, t

    def _solve(self, K, y, kminus, p) -> None:
        n = y.size
        lam = p["lam"]
        loss = LogisticKernelLoss(K, y)
        rng = np.random.default_rng(self.random_state)
        alpha0 = self._initial_alpha(n, rng)
        alpha, b = alpha0.copy(), 0.0
        exact = p["solver"].startswith("cccp")
        start = last_log = time.perf_counter()
        f, g0 = self._objective_and_gradient_norm(loss, lam, alpha, b)
        g0 = max(g0, np.finfo(float).tiny)
        self.history_ = [{"iteration": 0, "objective": f, "grad_norm": g0, "alpha_norm": float(np.linalg.norm(alpha)),
                          "inner_steps": 0, "inner_residual": float("nan"), "elapsed": 0.0}]
        # Stationary points lie within 1/(λ√n) of the origin on range(K); on null(K) every step
        # keeps α⁰'s component.  So ‖α*‖ ≤ 1/(λ√n) + ‖α⁰‖ for every stationary point reachable.
        runaway_radius = RUNAWAY_FACTOR / (lam * np.sqrt(n)) + float(np.linalg.norm(alpha0))
        self.diverged_ = False
        state = {"step": 1.0}
        grad_norm = g0
        matvecs = 2  # the gradient at α⁰
        k = 0
        while k < p["max_outer"]:
            sub = iklr_inner.Subproblem(loss, lam, kminus, alpha)
            previous = alpha
            alpha, b, _, t = self._inner(sub, alpha, b, p, g0, rng, state)
            k += 1
            _, Ka = sub.value(alpha, b)
            g_sub = sub.gradient(alpha, b, Ka)[0]
            matvecs += sub.matvecs + 2  # + the full gradient below
            prev_norm = float(np.linalg.norm(previous))
            residual = float(np.linalg.norm(g_sub)) / prev_norm if prev_norm > 0 else float("nan")
            f, grad_norm = self._objective_and_gradient_norm(loss, lam, alpha, b)
            now = time.perf_counter()
            self.history_.append({"iteration": k, "objective": f, "grad_norm": grad_norm,
                                  "alpha_norm": float(np.linalg.norm(alpha)), "inner_steps": t,
                                  "inner_residual": residual, "elapsed": now - start})
            if now - last_log >= PROGRESS_INTERVAL:
                log.info("IKLR %s outer %d: f = %.6g, |grad f| = %.3g, %.1f s", p["solver"], k, f, grad_norm, now - start)
                last_log = now
            if np.linalg.norm(alpha) > runaway_radius:
                self.diverged_ = True
                warnings.warn(
                    f"IKLR iterates ran away at outer iteration {k}: ||alpha|| = {np.linalg.norm(alpha):.3g} exceeds "
                    f"{RUNAWAY_FACTOR:g}/(lam*sqrt(n)) + ||alpha0|| = {runaway_radius:.3g}, beyond any stationary point, and "
                    f"f = {f:.3g} is falling along a negative eigendirection of K. Try a larger lam or tau, "
                    "or fewer outer iterations.", RunawayWarning, stacklevel=3)
                break
            # t == 0: the inner solve cannot decrease F_k in floating point any more.
            if exact and (grad_norm <= p["eps"] * g0 or t == 0):
                break
            if p["solver"] == "ccicp-gd-mm17":
                norm = float(np.linalg.norm(alpha))
                if norm > 0 and np.linalg.norm(alpha - previous) / norm <= p["eps"]:
                    break
        self.alpha_, self.intercept_, self.n_iter_, self.n_matvecs_ = alpha, float(b), k, matvecs
        self.stationarity_ = grad_norm / g0
        if not self.diverged_ and exact and self.stationarity_ > p["eps"]:
            warnings.warn(f"IKLR {p['solver']} stopped after {k} outer iterations at relative stationarity "
                          f"{self.stationarity_:.3g} > eps={p['eps']:g}", ConvergenceWarning, stacklevel=3)
