"""ℓ1-norm regularized indefinite kernel logistic regression (RIKLR; Wang & Yao, arXiv 2510.26043, 2025)
by the proximal linearized algorithm for its DC decomposition.

Notation: μ is the ℓ1 weight (the paper's penalty); the eigenvalues of K are written ν_min ≤ ν_max
here (``SpectralData.mu_min`` / ``mu_max`` in :mod:`kreinbench.methods.iklr.estimator`).

Model: IKLR's objective (Liu et al., TNNLS, eq. (5), with the same unregularized bias b as
:class:`~kreinbench.methods.IKLR`) plus an ℓ1 penalty on the expansion coefficients,

    F(α, b) = f(α, b) + μ‖α‖₁,   f(α, b) = (1/n) Σ_i log(1 + exp(−y_i((Kα)_i + b))) + (λ/2) αᵀKα.

DC decomposition (IKLR's): f = g − h, g = ℒ + (λ/2)αᵀK₊α and h = (λ/2)αᵀK₋α, both convex (ℒ the
mean logistic loss), with K₋ = τI + (the negative spectral part of K) and K₊ = K + K₋.  The proximal
linearized step linearizes both the smooth convex part g and the concave part −h at the iterate
z_k = (α_k, b_k) and keeps the ℓ1 term exact:

    z_{k+1} = argmin_z ⟨∇g(z_k) − ∇h(z_k), z − z_k⟩ + (L/2)‖z − z_k‖² + μ‖α‖₁,

i.e. α_{k+1} = S_{μ/L}(α_k − ∇_α f(z_k)/L), b_{k+1} = b_k − ∇_b f(z_k)/L, with S the soft-thresholding
operator and ∇f = ∇g − ∇h = (K(λα − y⊙β/n), −Σ y⊙β/n) (β the logistic weights at the margins
Kα + b; :class:`~kreinbench.methods.solvers.logistic.LogisticKernelLoss`).  K₋ itself never enters
the iterates: the split acts only through the step constant.  With L ≥ L_g, a Lipschitz constant of
∇g, g's descent lemma and h's convexity give F(z_{k+1}) ≤ F(z_k) − (L_g/2)‖z_{k+1} − z_k‖²: the
objective decreases monotonically, and the limit points of bounded iterates are critical points of
the DC program, 0 ∈ ∇f(α, b) + μ ∂‖α‖₁ × {0} (h is differentiable, so DC-criticality and this
coincide).

Only the arXiv abstract and introduction of the paper could be read here (no internet access;
the stored copy of the page ends there), so its equation numbers, its printed constants and its
experiments are not reproduced in this file.  Where its text could not be checked, the mathematics
above decides, and these are the choices made:

- the intercept: unregularized and unpenalized, in the linearized smooth part (as in IKLR), so its
  step is a plain gradient step with the same 1/L;
- the step constant: L_g = ‖[K 1]‖²/(4n) + λ‖K₊‖ ≤ (ν² + n)/(4n) + λ(max(ν_max, 0) + τ), ν = max|ν_i|
  (the logistic loss's curvature is at most 1/4, and the eigen split lifts K's negative eigenvalues to
  τ, its positive ones by τ); τ defaults to IKLR's max(−ν_min, 0) plus a round-off
  margin, and any τ ≥ 0 is a valid split (``tau=0`` gives the smallest L_g);
- the starting point: α⁰ = 0 and b⁰ = log(n₊/n₋), the intercept-only optimum, so that for μ ≥
  :func:`mu_max` the start is already critical and the returned α is exactly zero;
- the stopping rule: dist(0, ∂F(z_k)) ≤ ``tol``·‖∇f(z⁰)‖, where the distance is that of the
  minimal-norm element of ∇f + μ∂‖α‖₁ (on the support ∇_i f + μ sign α_i, off it
  sign(∇_i f)·max(|∇_i f| − μ, 0), and ∇_b f): the criticality the convergence proof is about,
  ‖∇f‖ itself at μ = 0, on IKLR's ``stationarity_`` scale;
- ``step="bb"`` (beyond the paper, the default): the same prox-linear step with a Barzilai–Borwein
  curvature estimate L_k = sᵀr/sᵀs clipped to [1e-8·L_g, L_g], doubled until the sufficient
  decrease F(z_{k+1}) ≤ F(z_k) − 1e-4·(L_k/2)‖z_{k+1} − z_k‖² holds (L_g always passes it), as in
  SpaRSA (Wright, Nowak & Figueiredo 2009) with a monotone test.  Same fixed points, same monotone
  decrease.  Measured on TL1 and RBF kernels of 100 and 300 points at λ ∈ {1e-4, 1e-3, 1e-2},
  μ ∈ {1e-3, 1e-2}, tol = 1e-6, max_iter = 10⁵ (24 fits per step rule): in 16 both converged, to the
  same objective (within 5e-10 relative) and support, BB in 14 to 225 times fewer iterations
  (median 58); in 5 only BB reached tol; 2 ran away with both.  In the last (TL1, n = 300,
  λ = μ = 1e-3) BB ran away while the constant step lingered at a saddle (negative curvature on its
  support) for 10⁵ iterations, and ran away too within 3·10⁵;
- F's decrease per step is summed from per-term changes (:meth:`_Problem.change`), not taken as the
  difference of two values of F, which round-off swamps near a critical point.

With a negative eigenvalue, F is unbounded below like IKLR's f (the quadratic −(λ/2)|ν|t² beats the
linear μ‖tv‖₁ along an eigenvector v), so the fit returns a critical point and the iterates can run
away.  At μ = 0 they run away where IKLR's do (TL1 kernels at moderate λ); the ℓ1 term, which
holds each coordinate at 0 while |∇_i f| ≤ μ, keeps critical points reachable where μ = 0 has none
(tests/test_sparse_iklr.py: a TL1 kernel at λ = 0.01).  At every
critical point λKα = K(y⊙β/n) − μs with ‖s‖_∞ ≤ 1, so ‖Kα‖ ≤ (‖K‖/√n + μ√n)/λ; once ‖Kα‖ exceeds
10 times this bound the fit stops, sets ``diverged_`` and warns with :class:`RunawayWarning`.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from kreinbench.linalg.spectrum import Spectrum
from kreinbench.methods.base import (
    ConvergenceWarning,
    RunawayWarning,
    check_choice,
    check_int,
    check_positive,
    check_train_kernel,
    warn_at_caller,
)
from kreinbench.methods.iklr.estimator import IKLR, PROGRESS_INTERVAL, RUNAWAY_FACTOR
from kreinbench.methods.solvers.logistic import (
    ARMIJO,
    KernelLogisticMixin,
    LogisticKernelLoss,
    margin_losses,
    margin_weights,
)

log = logging.getLogger(__name__)

STEPS = ("bb", "lipschitz")
# The smallest BB curvature estimate, relative to L_g: bounds the longest trial step (each
# rejected trial costs a kernel product, and 27 doublings reach L_g from here).
BB_FLOOR = 1e-8


def mu_max(K, y) -> float:
    """The smallest ℓ1 weight μ at which α = 0 (with the intercept-only optimum b* = log(n₊/n₋)) is
    a critical point of RIKLR, whatever λ: ‖∇_α f(0, b*)‖_∞ = ‖K(1[y = +1] − n₊/n)‖_∞ / n.

    At α = 0 the term λKα vanishes, and σ(b*) = n₊/n makes y_i β_i = 1[y_i = +1] − n₊/n.  For
    μ ≥ mu_max(K, y), :class:`SparseIKLR` returns α = 0 (its start is critical); a μ grid for
    cross-validation is naturally a fraction of it, as glmnet's λ path is of its λ_max.
    """
    K, y_pm, _ = check_train_kernel(K, y)
    positive = y_pm > 0
    return float(np.abs(K @ (positive - positive.mean())).max()) / y_pm.size


def soft_threshold(v: np.ndarray, threshold: float) -> np.ndarray:
    """The proximal map of threshold·‖·‖₁: sign(v)·max(|v| − threshold, 0), exact zeros below it."""
    return np.sign(v) * np.maximum(np.abs(v) - threshold, 0.0)


def criticality(alpha: np.ndarray, grad_alpha: np.ndarray, grad_b: float, mu: float) -> float:
    """dist(0, ∇f + μ∂‖α‖₁ × {0}): the norm of the subdifferential's minimal-norm element."""
    on_support = grad_alpha + mu * np.sign(alpha)
    off_support = soft_threshold(grad_alpha, mu)
    s = np.where(alpha != 0, on_support, off_support)
    return float(np.sqrt(s @ s + grad_b * grad_b))


class SparseIKLR(KernelLogisticMixin):
    """ℓ1-norm regularized indefinite kernel logistic regression (RIKLR) on a precomputed kernel.

    Minimizes (1/n) Σ log(1 + exp(−y_i((Kα)_i + b))) + (λ/2)αᵀKα + μ‖α‖₁ for a symmetric, possibly
    indefinite K by the proximal linearized DC algorithm (see the module docstring): each step a
    gradient step on the smooth part and a soft-thresholding, which sets coefficients exactly to zero.

    Parameters
    ----------
    lam : float, default=1e-3
        λ > 0 of (λ/2)αᵀKα (IKLR's λ).  The default is not IKLR's 1: on the indefinite TL1 kernel
        of 200 breast-cancer points that tests/test_sklearn_checks.py fits, (λ, μ) = (1, 1e-3),
        (0.1, 0.01) and (0.01, 1e-3) ran away, and λ = μ = 1e-3 learned (test accuracy 0.97, 59 of
        200 points in the support).
    mu : float, default=1e-3
        ℓ1 weight μ ≥ 0; μ = 0 is IKLR's model, μ ≥ :func:`mu_max` gives α = 0 (on kernels with
        entries of order one, μ_max is of order 0.01–0.1).
    step : {"bb", "lipschitz"}, default="bb"
        ``"lipschitz"``: the constant step 1/L_g of the DC analysis; ``"bb"``: Barzilai–Borwein
        curvature estimates capped by L_g, with a monotone sufficient-decrease test (beyond the
        paper; the same fixed points, many fewer iterations).
    tol : float, default=1e-5
        Stop when dist(0, ∂F) ≤ tol·‖∇f(α⁰, b⁰)‖.
    max_iter : int, default=10000
        Cap on proximal steps.
    tau : float or None, default=None
        τ ≥ 0 of the split K₋ = τI + (negative part); it only enters L_g.  ``None``: IKLR's default
        max(−ν_min, 0) plus a round-off margin.

    Attributes
    ----------
    alpha_, intercept_, classes_
    support_ : ndarray of int
        Indices of the nonzero coefficients (the training points the decision function uses).
    history_ : list of dict
        One row per step (0 = the start): ``objective`` F, ``change`` (F's change in the step,
        summed from per-term changes: negative at every step), ``stationarity`` dist(0, ∂F)
        relative to ‖∇f(α⁰, b⁰)‖, ``nonzeros``, ``step`` (1/L_k), ``matvecs`` (kernel products so
        far), ``elapsed`` seconds.
    n_iter_ : int
    n_matvecs_ : int
    stationarity_ : float
        dist(0, ∂F(α, b)) / ‖∇f(α⁰, b⁰)‖ at the returned point.
    diverged_ : bool
        True when the iterates ran away (see the module docstring).
    lipschitz_ : float
        L_g, the step constant of ``step="lipschitz"`` and the cap of ``step="bb"``.
    tau_ : float
    spectral_path_ : str
        How ν_min and ν_max were obtained (as IKLR's ``spectral_path_``).
    """

    # ν_min and ν_max only: the step constant needs ‖K‖ and ‖K₊‖, never K₋'s eigenvectors.
    needs_spectrum = "lambda_min"

    def __init__(self, *, lam=1e-3, mu=1e-3, step="bb", tol=1e-5, max_iter=10000, tau=None):
        self.lam = lam
        self.mu = mu
        self.step = step
        self.tol = tol
        self.max_iter = max_iter
        self.tau = tau

    def check_params(self) -> None:
        self._validated()

    def _validated(self) -> dict:
        return {
            "lam": check_positive("lam", self.lam),
            "mu": check_positive("mu", self.mu, allow_zero=True),
            "step": check_choice("step", self.step, STEPS),
            "tol": check_positive("tol", self.tol, allow_zero=True),
            "max_iter": check_int("max_iter", self.max_iter, minimum=1),
            "tau": None if self.tau is None else check_positive("tau", self.tau, allow_zero=True),
        }

    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        """Fit on the train kernel ``K`` (n, n) and labels ``y`` (two classes); ``spectrum``: K's
        spectrum if already computed (any kind covering ``"lambda_min"``)."""
        p = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        # IKLR's spectral step for its shift split computes exactly ν_min and ν_max, as cheaply as
        # it can (a Cholesky certificate, else Lanczos, else LAPACK).
        spectral = IKLR._spectral_step(K, "shift", spectrum)
        self.spectral_path_ = spectral.path
        n = y_pm.size
        norm_K = max(abs(spectral.mu_min), abs(spectral.mu_max))
        self.tau_ = max(-spectral.mu_min, 0.0) + n * np.finfo(float).eps * norm_K if p["tau"] is None else p["tau"]
        self.lipschitz_ = (norm_K**2 + n) / (4 * n) + p["lam"] * (max(spectral.mu_max, 0.0) + self.tau_)
        self._solve(K, y_pm, p, norm_K)
        return self

    def _solve(self, K, y, p, norm_K) -> None:
        n, lam, mu, L_g = y.size, p["lam"], p["mu"], self.lipschitz_
        problem = _Problem(K, y, lam, mu, L_g)
        positives = int(np.sum(y > 0))
        alpha, b, Ka = np.zeros(n), float(np.log(positives / (n - positives))), np.zeros(n)
        F = problem.objective(alpha, Ka, b)
        g_alpha, g_b = problem.gradient(alpha, Ka, b)
        g0 = max(float(np.sqrt(g_alpha @ g_alpha + g_b * g_b)), np.finfo(float).tiny)
        stationarity = criticality(alpha, g_alpha, g_b, mu) / g0
        matvecs, L = 1, L_g
        start = last_log = time.perf_counter()
        self.history_ = [{"iteration": 0, "objective": F, "change": 0.0, "stationarity": stationarity,
                          "nonzeros": 0, "step": 1.0 / L, "matvecs": matvecs, "elapsed": 0.0}]
        # Every critical point has ‖Kα‖ ≤ (‖K‖/√n + μ√n)/λ (module docstring).
        runaway_radius = RUNAWAY_FACTOR * (norm_K / np.sqrt(n) + mu * np.sqrt(n)) / lam
        self.diverged_ = False
        k = 0
        while k < p["max_iter"] and stationarity > p["tol"]:
            new_alpha, d_b, Kd, change, L, products = problem.step(alpha, Ka, b, g_alpha, g_b, L)
            matvecs += products
            if not change < 0:  # a fixed point, or no decrease left in floating point
                break
            # Kα by linearity (its round-off grows like √k·eps, far below any tolerance).
            d_alpha, Ka = new_alpha - alpha, Ka + Kd
            new_g_alpha, new_g_b = problem.gradient(new_alpha, Ka, b + d_b)
            matvecs += 1
            accepted = L
            if p["step"] == "bb":
                sr = float(d_alpha @ (new_g_alpha - g_alpha)) + d_b * (new_g_b - g_b)
                # sr ≤ 0 (negative curvature along the step): no estimate, keep the accepted L.
                if sr > 0:
                    L = min(max(sr / (float(d_alpha @ d_alpha) + d_b * d_b), BB_FLOOR * L_g), L_g)
            alpha, b, g_alpha, g_b = new_alpha, b + d_b, new_g_alpha, new_g_b
            k += 1
            F = problem.objective(alpha, Ka, b)
            stationarity = criticality(alpha, g_alpha, g_b, mu) / g0
            nonzeros = int(np.count_nonzero(alpha))
            now = time.perf_counter()
            self.history_.append({"iteration": k, "objective": F, "change": change, "stationarity": stationarity,
                                  "nonzeros": nonzeros, "step": 1.0 / accepted, "matvecs": matvecs,
                                  "elapsed": now - start})
            if now - last_log >= PROGRESS_INTERVAL:
                log.info("SparseIKLR iteration %d: F = %.6g, stationarity %.3g, %d nonzeros, %.1f s",
                         k, F, stationarity, nonzeros, now - start)
                last_log = now
            if float(np.linalg.norm(Ka)) > runaway_radius:
                self.diverged_ = True
                warn_at_caller(
                    f"SparseIKLR iterates ran away at iteration {k}: ||K alpha|| exceeds {RUNAWAY_FACTOR:g} times the "
                    f"bound (||K||/sqrt(n) + mu*sqrt(n))/lam = {runaway_radius / RUNAWAY_FACTOR:.3g} of every critical "
                    f"point, and F = {F:.3g} is falling along a negative eigendirection of K. Try a smaller lam or a "
                    "larger mu.", RunawayWarning)
                break
        self.alpha_, self.intercept_ = alpha, b
        self.support_ = np.flatnonzero(alpha)
        self.n_iter_, self.n_matvecs_, self.stationarity_ = k, matvecs, stationarity
        if not self.diverged_ and stationarity > p["tol"]:
            # Stopped by max_iter, or by a step that no longer decreases F in floating point.
            warn_at_caller(f"SparseIKLR stopped after {k} iterations (max_iter={p['max_iter']}) at relative "
                           f"stationarity {stationarity:.3g} > tol={p['tol']:g}", ConvergenceWarning)


class _Problem:
    """F = f + μ‖α‖₁ on one kernel: its value, ∇f, and the proximal linearized step."""

    def __init__(self, K, y, lam: float, mu: float, lipschitz: float):
        self.K, self.y, self.lam, self.mu, self.lipschitz = K, y, lam, mu, lipschitz
        self.loss = LogisticKernelLoss(K, y)

    def objective(self, alpha, Ka, b) -> float:
        return self.loss.value(Ka, b) + 0.5 * self.lam * float(alpha @ Ka) + self.mu * float(np.abs(alpha).sum())

    def gradient(self, alpha, Ka, b) -> tuple[np.ndarray, float]:
        """∇f = (K(λα − y⊙β/n), −Σ y⊙β/n): one kernel product."""
        w = self.loss.weights(Ka, b)
        return self.K @ (self.lam * alpha - w), -float(w.sum())

    def change(self, alpha, new_alpha, Ka, Kd, b, d_b) -> float:
        """F(α + d_α, b + d_b) − F(α, b) summed from per-term changes: near a critical point the
        decrease, of order ‖d‖², falls below the round-off of F itself, and the difference of two
        values of F would stop the descent there (at relative stationarity ~1e-7 on TL1 kernels)."""
        margins = self.y * (Ka + b)
        loss = float(logistic_loss_change(margins, self.y * (Kd + d_b)).sum()) / self.y.size
        quadratic = self.lam * float((new_alpha - alpha) @ (Ka + 0.5 * Kd))
        return loss + quadratic + self.mu * float(np.sum(np.abs(new_alpha) - np.abs(alpha)))

    def step(self, alpha, Ka, b, g_alpha, g_b, L):
        """The step z⁺ = (S_{μ/L}(α − ∇_α f/L), b − ∇_b f/L), L doubled (up to L_g) until F falls by
        1e-4·(L/2)‖z⁺ − z‖²; returns α⁺, the bias change, K(α⁺ − α), F's change, the accepted L and
        the kernel products made.  L ≥ L_g decreases F by (L_g/2)‖z⁺ − z‖² in exact arithmetic, so
        it is accepted without the test."""
        products = 0
        while True:
            new_alpha = soft_threshold(alpha - g_alpha / L, self.mu / L)
            d_alpha, d_b = new_alpha - alpha, -g_b / L
            Kd = self.K @ d_alpha
            products += 1
            change = self.change(alpha, new_alpha, Ka, Kd, b, d_b)
            if L >= self.lipschitz or change <= -ARMIJO * 0.5 * L * (float(d_alpha @ d_alpha) + d_b * d_b):
                return new_alpha, d_b, Kd, change, L, products
            L = min(2.0 * L, self.lipschitz)


def logistic_loss_change(z: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """ℓ(z + δ) − ℓ(z) of the logistic loss ℓ(z) = log(1 + exp(−z)) per margin, as
    log1p(σ(−z)·expm1(−δ)) where |δ| < 1: without the cancellation of the plain difference, which
    loses every digit of a change below ℓ's round-off."""
    small = np.abs(delta) < 1.0
    exact = np.log1p(margin_weights(z) * np.expm1(-np.where(small, delta, 0.0)))
    return np.where(small, exact, margin_losses(z + delta) - margin_losses(z))
