"""ℓ1-norm regularized indefinite kernel logistic regression (RIKLR; Wang & Yao, arXiv 2510.26043, 2025)
by the proximal linearized algorithm for its DC decomposition, and by a primal-dual Newton path on a
smoothing of the ℓ1 term that reaches the same critical points in a few dozen Newton systems.

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

Why the prox-linear steps are slow.  They are first-order in α, where ∇²f = KDK + λK (D =
diag(β(1 − β))/n, at most I/(4n)): its spread is that of K's spectrum squared.  On the TL1 kernels of
the benchmark's small smoke run (τ = 0.7·m, 80 to 130 rows per fold; heart, sonar, pima, australian)
19 of the 20 fold kernels were positive definite (the other's ν_min was −0.005), so the problems were
convex, with K's eigenvalues from about 0.02 (sonar 1.7) to 400–2300: at λ = 1e-4, ∇²f spans some eight
orders.  At small λ and μ its flat directions are decided by the ℓ1 term alone, a basis-pursuit-like
choice of the support that gradient steps make a few coordinates at a time.  Heart's first fold at
λ = μ = 1e-4: BB had 77 nonzeros after 10⁴ steps and 55 after 10⁵, F still 0.02 and 1e-4 above the
critical point's (53 nonzeros).  No saddle, runaway or tight tol: of the 75 fits of a 5-fold CV over
λ ∈ {1e-4, …, 1} × μ ∈ {1e-4, 1e-3, 1e-2}, 20 to 31 per dataset stopped at max_iter = 10⁴, at relative
stationarity 1e-5 to 2e-2.  (An accelerated method would still need of the order of √(10⁸) = 10⁴
steps.)

``solver="newton"`` (the default) smooths the ℓ1 term, F_ε = f + μΣ(√(α_i² + ε²) − ε) with F − μnε ≤
F_ε ≤ F, and follows its minimizers down ε_j = 0.01/(nλ)·0.01^j (1/(nλ) bounds |α_i| at the critical
points of μ = 0 on a positive definite K, so the first stage is nearly a ridge problem).  Each stage
takes damped Newton steps (Armijo on F_ε) until the Newton decrement is below με, the smoothing's own
error.  The steps are primal-dual, as in interior-point methods: a dual s ∈ [−1, 1]ⁿ (μs = −∇_α f at a
critical point) carried through the linearized s_i√(α_i² + ε²) = α_i gives the matrix
∇²f + μ·diag((1 − s_iα_i/r_i)/r_i), r_i = √(α_i² + ε²), with right-hand side −∇F_ε, so that the
direction is one of descent for F_ε; the primal matrix (s = α/r, i.e. με²/r³) vanishes where |α_i| ≫ ε and lets one step
carry a coordinate far through 0 (the primal steps took 1.3 times the Newton systems on the smoke
folds).  At a centre a coordinate at a kink of the limit has |α_i| ≈ ε|∇_i f|/√(μ² − ∇_i f²), which
shrinks with ε, while one of the support settles at its nonzero limit: from the second stage on, the
coordinates that kept more than √0.01 of their previous stage's value are read as the support, and the
point is polished by Newton steps on F restricted to that support and its signs (smooth there:
f + μσᵀα), a coordinate that a step takes through 0 leaving the support.  A polished point, with exact
zeros, that meets the stopping rule above (and lowers F) is returned: critical in the same sense,
whichever solver found it.  A Newton system costs a symmetric rank-n update for KDK (n³ flops) and a
Cholesky (n³/3), some 40 ms at n = 800 on one core against 0.15 ms for a kernel product.  Measured on
a 5-fold CV over λ ∈ {1e-4, 1e-3, 1e-2, 0.1, 1} × μ ∈ {1e-4, 1e-3, 1e-2} (one core, TL1, τ = 0.7·m):
at 100–160 training rows (heart, sonar, pima, australian) 120–176 CPU seconds became 0.55–1.2, every
fit critical (against 44–55 of 75), 10–15 Newton systems per fit on average, the same (λ, μ) chosen
but on sonar, where the old choice rested on fits stopped at max_iter; at 575 rows (diabetic) 415 s
became 19; at 1000 (EEG, indefinite folds) 688 s became 275, of which 230 at μ = 1e-4, where 19 of
25 paths handed over and the prox-linear steps, as before, stopped at max_iter.

Where that matrix is not positive definite (a negative eigenvalue of K), its α-block gets λτ more
(the Hessian of the convex part g of the split; 2λτ, positive definite by λτ, let no more fits
finish on the path over the grid below on two EEG folds of 800 rows, in twice the Newton systems)
and a round-off ridge.  A
path that does not finish leaves no trace: if a matrix cannot be factored even so, if the path's
point leaves the runaway ball below, or if the path ends (ε below 1e-14 of its start) short of tol,
the prox-linear steps (``step``) run from the start, the iterates of ``solver="prox-linear"``, and
decide.  A runaway of the path is no verdict: a large ε smooths away the kinks that hold a critical
point of F (|∇_i f| ≤ μ at α_i = 0) where F_ε has none, and a Newton step with a shifted matrix
can leave a basin that the prox-linear steps stay in; on scikit-learn's centred iris kernel
(eigenvalues −1.5e3 to 2.1e3, the estimator checks) at the defaults the path runs away and BB
converges.  Where both solvers converged (tests/test_sparse_iklr.py; TL1 and RBF kernels of 100–300
points, λ ∈ [1e-4, 1], μ ∈ [1e-4, 1e-2]) the path returned BB's support and signs with F within
2e-10 relative.  F falls monotonically in the history under both solvers: the path adds one row,
its critical point, and its inner points (which decrease F_ε, not F) are not iterates.  ``max_iter``
caps Newton systems and prox-linear steps together.

With a negative eigenvalue, F is unbounded below like IKLR's f (the quadratic −(λ/2)|ν|t² beats the
linear μ‖tv‖₁ along an eigenvector v), so the fit returns a critical point and the iterates can run
away.  At μ = 0 they run away where IKLR's do (TL1 kernels at moderate λ); the ℓ1 term, which
holds each coordinate at 0 while |∇_i f| ≤ μ, keeps critical points reachable where μ = 0 has none
(tests/test_sparse_iklr.py: a TL1 kernel at λ = 0.01).  At every
critical point λKα = K(y⊙β/n) − μs with ‖s‖_∞ ≤ 1, so ‖Kα‖ ≤ (‖K‖/√n + μ√n)/λ.  And every critical
point has F ≥ 0: with αᵀs = ‖α‖₁ and Σ y⊙β = 0 (∇_b f = 0), αᵀ∇_α F = 0 reads
λαᵀKα = Σ_i m_iβ_i/n − μ‖α‖₁ (m_i = y_i((Kα)_i + b) the margins), so F = (1/n)Σ_i φ(m_i) + μ‖α‖₁/2
with φ(m) = log(1 + e^{−m}) + mσ(−m)/2 > 0 (for m < 0 it is at least −m/2).  A monotone descent whose
F has fallen below 0 never reaches a critical point.  Once the prox-linear iterates have F < 0 or
‖Kα‖ beyond 10 times the bound, the fit stops, sets ``diverged_`` and warns with
:class:`RunawayWarning` (the path's, as said, hands over to them).
"""

from __future__ import annotations

import logging
import time

import numpy as np
import scipy.linalg
import scipy.linalg.blas

from kreinbench.linalg.blas import serial_syrk
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

SOLVERS = ("newton", "prox-linear")
STEPS = ("bb", "lipschitz")
# The smallest BB curvature estimate, relative to L_g: bounds the longest trial step (each
# rejected trial costs a kernel product, and 27 doublings reach L_g from here).
BB_FLOOR = 1e-8
# solver="newton" (module docstring): the smoothing path ε_j = SMOOTHING_START/(nλ)·SMOOTHING_FACTOR^j,
# ended below SMOOTHING_FLOOR times its start.  A stage takes at most STAGE_STEPS Newton steps, fewer
# once the decrement is below CENTERING·με (the smoothing's own error) or DECREMENT_FLOOR (round-off
# of F, for μ = 0).  Between stages a coordinate that keeps more than SUPPORT_RATIO = √SMOOTHING_FACTOR
# of its value is read as in the support; POLISH_STEPS Newton steps on that support follow.  The
# start, factor and centring were chosen on the smoke datasets' folds (4 UCI sets, 2 folds, 15 (λ, μ)
# each): Newton systems per fit 38 on average at (1, 0.1, 0.01) primal, 28 primal-dual, 14 at these.
SMOOTHING_START = 0.01
SMOOTHING_FACTOR = 0.01
SMOOTHING_FLOOR = 1e-14
STAGE_STEPS = 20
CENTERING = 1.0
DECREMENT_FLOOR = 1e-14
SUPPORT_RATIO = 0.1
POLISH_STEPS = 5
MAX_BACKTRACKS = 50
# The ridge, relative to the largest diagonal entry, that makes a numerically singular Newton
# matrix factorable (a singular K: its null space is held by the smoothing alone).
RIDGE = 1e-12


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
    indefinite K (see the module docstring): by Newton steps along a smoothing path of the ℓ1 term,
    each stage's point polished on its support, or by the proximal linearized DC algorithm (each step a
    gradient step on the smooth part and a soft-thresholding); both return exact zeros.

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
    solver : {"newton", "prox-linear"}, default="newton"
        ``"prox-linear"``: the paper's proximal linearized steps (with ``step``); ``"newton"``: the
        primal-dual Newton path (beyond the paper; the same critical points in tens of Newton
        systems where the steps take 10⁴–10⁵), handing over to the prox-linear steps where it
        cannot finish.
    step : {"bb", "lipschitz"}, default="bb"
        The prox-linear step rule.  ``"lipschitz"``: the constant step 1/L_g of the DC analysis;
        ``"bb"``: Barzilai–Borwein curvature estimates capped by L_g, with a monotone
        sufficient-decrease test (beyond the paper; the same fixed points, many fewer iterations).
    tol : float, default=1e-5
        Stop when dist(0, ∂F) ≤ tol·‖∇f(α⁰, b⁰)‖.
    max_iter : int, default=10000
        Cap on iterations: Newton systems and proximal steps together.
    tau : float or None, default=None
        τ ≥ 0 of the split K₋ = τI + (negative part); it enters L_g and the Newton path's shift λτ
        where ∇²f is not positive definite.  ``None``: IKLR's default max(−ν_min, 0) plus a round-off
        margin.

    Attributes
    ----------
    alpha_, intercept_, classes_
    support_ : ndarray of int
        Indices of the nonzero coefficients (the training points the decision function uses).
    history_ : list of dict
        One row per iterate (0 = the start; then each prox-linear step, or the path's critical point):
        ``iteration`` (iterations spent when it was reached), ``objective`` F, ``change`` (F's
        change from the previous row, summed from per-term changes: negative in every row),
        ``stationarity`` dist(0, ∂F) relative to ‖∇f(α⁰, b⁰)‖, ``nonzeros``, ``step`` (1/L_k of a
        prox-linear step, 0 for a point of the path), ``smoothing`` (the path stage's ε, 0 for a
        prox-linear step), ``newton`` (Newton systems so far), ``matvecs`` (kernel products so far,
        a Hessian counting as its columns), ``elapsed`` seconds.
    n_iter_ : int
        Iterations: Newton systems and prox-linear steps.
    n_newton_ : int
        Newton systems solved (each O(n³)).
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

    def __init__(self, *, lam=1e-3, mu=1e-3, solver="newton", step="bb", tol=1e-5, max_iter=10000, tau=None):
        self.lam = lam
        self.mu = mu
        self.solver = solver
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
            "solver": check_choice("solver", self.solver, SOLVERS),
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
        n, lam, mu = y.size, p["lam"], p["mu"]
        problem = _Problem(K, y, lam, mu, self.lipschitz_)
        positives = int(np.sum(y > 0))
        # Every critical point has ‖Kα‖ ≤ (‖K‖/√n + μ√n)/λ (module docstring).
        runaway_radius = RUNAWAY_FACTOR * (norm_K / np.sqrt(n) + mu * np.sqrt(n)) / lam
        run = _Run(problem, float(np.log(positives / (n - positives))), p["tol"], p["max_iter"], runaway_radius)
        if p["solver"] == "newton":
            _smoothing_path(run, self.tau_)
        # The prox-linear steps: the solver, or what finishes a path that did not reach tol.
        _prox_linear(run, p["step"])
        self.history_ = run.history
        self.alpha_, self.intercept_ = run.alpha, run.b
        self.support_ = np.flatnonzero(run.alpha)
        self.n_iter_, self.n_newton_, self.n_matvecs_ = run.k, run.newton, run.matvecs
        self.stationarity_, self.diverged_ = run.stationarity, run.diverged
        if self.diverged_:
            warn_at_caller(
                f"SparseIKLR iterates ran away at iteration {run.k}: ||K alpha|| exceeds {RUNAWAY_FACTOR:g} times the "
                f"bound (||K||/sqrt(n) + mu*sqrt(n))/lam = {runaway_radius / RUNAWAY_FACTOR:.3g} of every critical "
                f"point, and F = {run.F:.3g} is falling along a negative eigendirection of K. Try a smaller lam or a "
                "larger mu.", RunawayWarning)
        elif self.stationarity_ > p["tol"]:
            # Stopped by max_iter, or by a step that no longer decreases F in floating point.
            warn_at_caller(f"SparseIKLR stopped after {run.k} iterations (max_iter={p['max_iter']}) at relative "
                           f"stationarity {self.stationarity_:.3g} > tol={p['tol']:g}", ConvergenceWarning)


class _Run:
    """One fit's iterate (α, Kα, b) with its gradient and criticality, its counters and history.

    Only :meth:`move` changes the iterate, and every solver calls it with a decrease of F: the
    history's F falls monotonically whichever solver proposed the point."""

    def __init__(self, problem: _Problem, b: float, tol: float, max_iter: int, runaway_radius: float):
        n = problem.y.size
        self.problem, self.tol, self.max_iter, self.runaway_radius = problem, tol, max_iter, runaway_radius
        self.alpha, self.Ka, self.b = np.zeros(n), np.zeros(n), b
        self.F = problem.objective(self.alpha, self.Ka, b)
        self.g_alpha, self.g_b = problem.gradient(self.alpha, self.Ka, b)
        self.g0 = max(float(np.sqrt(self.g_alpha @ self.g_alpha + self.g_b * self.g_b)), np.finfo(float).tiny)
        self.stationarity = criticality(self.alpha, self.g_alpha, self.g_b, problem.mu) / self.g0
        self.k, self.newton, self.matvecs, self.diverged = 0, 0, 1, False
        self.start = self.last_log = time.perf_counter()
        self.history = [{"iteration": 0, "objective": self.F, "change": 0.0, "stationarity": self.stationarity,
                         "nonzeros": 0, "step": 1.0 / problem.lipschitz, "smoothing": 0.0, "newton": 0,
                         "matvecs": 1, "elapsed": 0.0}]

    def finished(self) -> bool:
        return self.diverged or self.stationarity <= self.tol or self.k >= self.max_iter

    def ran_away(self, Ka) -> bool:
        """Whether the iterate is past every critical point (then ``diverged``): F < 0, below the F
        of all of them, which a monotone descent never climbs back to, or ‖Kα‖ outside the ball
        that holds them all (module docstring)."""
        self.diverged = self.diverged or self.F < 0 or float(np.linalg.norm(Ka)) > self.runaway_radius
        return self.diverged

    def move(self, alpha, Ka, b, change, g_alpha, g_b, *, step=0.0, smoothing=0.0) -> None:
        """Make (α, Kα, b), F's change ``change`` < 0 away, with gradient (g_α, g_b), the iterate."""
        self.alpha, self.Ka, self.b, self.g_alpha, self.g_b = alpha, Ka, b, g_alpha, g_b
        self.F = self.problem.objective(alpha, Ka, b)
        self.stationarity = criticality(alpha, g_alpha, g_b, self.problem.mu) / self.g0
        nonzeros = int(np.count_nonzero(alpha))
        now = time.perf_counter()
        self.history.append({"iteration": self.k, "objective": self.F, "change": change,
                             "stationarity": self.stationarity, "nonzeros": nonzeros, "step": step,
                             "smoothing": smoothing, "newton": self.newton, "matvecs": self.matvecs,
                             "elapsed": now - self.start})
        if now - self.last_log >= PROGRESS_INTERVAL:
            log.info("SparseIKLR iteration %d (%d Newton): F = %.6g, stationarity %.3g, %d nonzeros, %.1f s",
                     self.k, self.newton, self.F, self.stationarity, nonzeros, now - self.start)
            self.last_log = now
        self.ran_away(Ka)


def _prox_linear(run: _Run, step_rule: str) -> None:
    """Proximal linearized steps from the run's iterate (module docstring) until it is critical,
    runs away, max_iter is spent, or a step no longer decreases F in floating point."""
    problem = run.problem
    L_g = L = problem.lipschitz
    while not run.finished():
        alpha, b, g_alpha, g_b = run.alpha, run.b, run.g_alpha, run.g_b
        new_alpha, d_b, Kd, change, L, products = problem.step(alpha, run.Ka, b, g_alpha, g_b, L)
        run.matvecs += products
        if not change < 0:  # a fixed point, or no decrease left in floating point
            break
        # Kα by linearity (its round-off grows like √k·eps, far below any tolerance).
        d_alpha, Ka = new_alpha - alpha, run.Ka + Kd
        new_g_alpha, new_g_b = problem.gradient(new_alpha, Ka, b + d_b)
        run.matvecs += 1
        accepted = L
        if step_rule == "bb":
            sr = float(d_alpha @ (new_g_alpha - g_alpha)) + d_b * (new_g_b - g_b)
            # sr ≤ 0 (negative curvature along the step): no estimate, keep the accepted L.
            if sr > 0:
                L = min(max(sr / (float(d_alpha @ d_alpha) + d_b * d_b), BB_FLOOR * L_g), L_g)
        run.k += 1
        run.move(new_alpha, Ka, b + d_b, change, new_g_alpha, new_g_b, step=1.0 / accepted)


def _smoothing_path(run: _Run, tau: float) -> None:
    """``solver="newton"`` (module docstring): primal-dual Newton steps on F_ε along ε_j =
    SMOOTHING_START/(nλ)·SMOOTHING_FACTOR^j; from the second stage on, each stage's point is read as
    a support and polished (:func:`_polish`).  Returns when a polished point has finished the run,
    or without moving it when the path is spent, runs away or has no positive definite model."""
    problem, mu = run.problem, run.problem.mu
    n = problem.y.size
    alpha, Ka, b = run.alpha.copy(), run.Ka.copy(), run.b
    s = np.zeros(n)  # the dual variable: s_i ∈ [−1, 1], μs = −∇_α f at a critical point
    eps = SMOOTHING_START / (n * problem.lam)
    last = eps * SMOOTHING_FLOOR
    previous = None
    while not run.finished() and eps >= last:
        for _ in range(STAGE_STEPS):
            step = problem.smoothed_newton(alpha, Ka, b, s, eps, tau)
            run.newton += 1
            run.k += 1
            run.matvecs += n + 2
            if step is None:
                return
            d, decrement = step
            # Centred enough: below με, the smoothing's own error per coordinate, or F's round-off.
            if decrement <= CENTERING * mu * eps + DECREMENT_FLOOR:
                break
            moved = problem.smoothed_line_search(alpha, Ka, b, d, decrement, eps)
            run.matvecs += 1
            if moved is None:
                break
            # s follows the linearized s_i·√(α_i² + ε²) = α_i through the step taken, kept in [−1, 1].
            r = np.hypot(alpha, eps)
            s = np.clip(s + (alpha - s * r + (1.0 - s * alpha / r) * (moved[0] - alpha)) / r, -1.0, 1.0)
            alpha, Ka, b = moved
            if float(np.linalg.norm(Ka)) > run.runaway_radius:
                # No verdict: F_ε may lack the kinks that hold a critical point of F (|∇_i f| ≤ μ at
                # α_i = 0), and a shifted Newton step can leave a basin.  The prox-linear steps decide.
                return
            if run.k >= run.max_iter:
                return
        if mu == 0:  # F_ε = F: the stage's point is the candidate
            _polish(run, alpha, Ka, b, alpha != 0, eps)
        elif previous is not None:
            # Between two stages a coordinate at a kink of the limit follows ε down (|α_i| ≈
            # ε|∇_i f|/√(μ² − ∇_i f²) at a centre) while one of the support settles at its limit.
            _polish(run, alpha, Ka, b, np.abs(alpha) > SUPPORT_RATIO * np.abs(previous), eps)
        previous = alpha
        eps *= SMOOTHING_FACTOR


def _polish(run: _Run, alpha, Ka, b, support, eps) -> None:
    """Newton steps on F restricted to ``support`` with the signs of ``alpha`` (there F is smooth:
    f plus μ sign(α)ᵀα), from ``alpha`` with its other coordinates set to 0; a coordinate that a step
    takes through 0 leaves the support.  The point reached becomes the iterate if it meets the
    stopping rule and lowers F."""
    problem = run.problem
    K = problem.K
    S = np.flatnonzero(support)
    dropped = np.flatnonzero(~support & (alpha != 0))
    x = np.where(support, alpha, 0.0)
    Kx = Ka - K[:, dropped] @ alpha[dropped]
    sigma = np.sign(x[S])
    g_alpha, g_b = problem.gradient(x, Kx, b)
    run.matvecs += 2
    for _ in range(POLISH_STEPS):
        if criticality(x, g_alpha, g_b, problem.mu) <= run.tol * run.g0 or run.k >= run.max_iter:
            break
        d = problem.solve(problem.hessian(Kx, b, S), -np.append(g_alpha[S] + problem.mu * sigma, g_b))
        run.newton += 1
        run.k += 1
        run.matvecs += S.size + 1
        if d is None:
            break
        new_x = x.copy()
        new_x[S] += d[:-1]
        flipped = np.sign(new_x[S]) != sigma
        if flipped.any():
            # The Newton point of this sign pattern lies across 0 in these coordinates: read them
            # as kinks of the critical point, and solve again without them.
            drop = S[flipped]
            Kx = Kx - K[:, drop] @ x[drop]
            x[drop] = 0.0
            S, sigma = S[~flipped], sigma[~flipped]
        else:
            Kd = K[:, S] @ d[:-1]
            if not problem.change(x, new_x, Kx, Kd, b, d[-1]) < 0:
                break
            x, Kx, b = new_x, Kx + Kd, b + d[-1]
        g_alpha, g_b = problem.gradient(x, Kx, b)
        run.matvecs += 2
    if criticality(x, g_alpha, g_b, problem.mu) <= run.tol * run.g0:
        change = problem.change(run.alpha, x, run.Ka, Kx - run.Ka, run.b, b - run.b)
        if change < 0:
            run.move(x, Kx, b, change, g_alpha, g_b, smoothing=eps)


class _Problem:
    """F = f + μ‖α‖₁ on one kernel: its value, changes, ∇f and ∇²f, the proximal linearized step
    and the Newton steps of the smoothing path."""

    def __init__(self, K, y, lam: float, mu: float, lipschitz: float):
        self.K, self.y, self.lam, self.mu, self.lipschitz = K, y, lam, mu, lipschitz
        self.loss = LogisticKernelLoss(K, y)

    def objective(self, alpha, Ka, b) -> float:
        return self.loss.value(Ka, b) + 0.5 * self.lam * float(alpha @ Ka) + self.mu * float(np.abs(alpha).sum())

    def gradient(self, alpha, Ka, b) -> tuple[np.ndarray, float]:
        """∇f = (K(λα − y⊙β/n), −Σ y⊙β/n): one kernel product."""
        w = self.loss.weights(Ka, b)
        return self.K @ (self.lam * alpha - w), -float(w.sum())

    def hessian(self, Ka, b, S=None) -> np.ndarray:
        """∇²f in (α_S, b), S all coordinates where None: [K_SᵀDK_S + λK_SS, K_SᵀD1; 1ᵀDK_S, 1ᵀD1],
        D = diag(β(1 − β))/n the logistic curvatures at the margins.  K_SᵀDK_S = BᵀB with B = D^½K_S,
        by BLAS's symmetric rank-k update (half a matrix product's work)."""
        beta = margin_weights(self.y * (Ka + b))
        curvature = beta * (1.0 - beta) / self.y.size
        KS = self.K if S is None else self.K[:, S]
        m = KS.shape[1]
        H = np.empty((m + 1, m + 1))
        if m:
            # syrk(Bᵀ) computes BᵀB from the Fortran-ordered view Bᵀ of the C-ordered B, no copy.
            with serial_syrk(m):
                upper = scipy.linalg.blas.dsyrk(1.0, (KS * np.sqrt(curvature)[:, None]).T)
            H[:m, :m] = np.triu(upper) + np.triu(upper, 1).T
            H[:m, :m] += self.lam * (self.K if S is None else self.K[np.ix_(S, S)])
        H[:m, m] = H[m, :m] = curvature @ KS
        H[m, m] = curvature.sum()
        return H

    def solve(self, H, rhs, tau=0.0):
        """H⁻¹rhs by Cholesky.  Where H is not positive definite (a negative eigenvalue of K, or a
        numerically singular H), H plus λτ on the α-block (making it the Hessian of the convex part
        g of a DC split where H is ∇²f) and a round-off ridge; None where that fails too."""
        for attempt in range(2):
            if attempt:
                H = H.copy()
                m = H.shape[0] - 1
                H[np.arange(m), np.arange(m)] += self.lam * tau
                H[np.arange(m + 1), np.arange(m + 1)] += RIDGE * float(np.abs(H.diagonal()).max())
            try:
                with serial_syrk(H.shape[0]):
                    factor = scipy.linalg.cho_factor(H, check_finite=False)
            except np.linalg.LinAlgError:
                continue
            return scipy.linalg.cho_solve(factor, rhs, check_finite=False)
        return None

    def smoothed_newton(self, alpha, Ka, b, s, eps, tau):
        """The primal-dual Newton direction d of F_ε at (α, b) with dual s, and −∇F_εᵀd (None: no
        positive definite model).  Eliminating ds from the linearized s_i√(α_i² + ε²) = α_i gives
        (∇²f + μ diag((1 − s_iα_i/r_i)/r_i)) d = −∇F_ε, r_i = √(α_i² + ε²): a descent direction of
        F_ε, whose primal Newton matrix has s = α/r instead."""
        g_alpha, g_b = self.gradient(alpha, Ka, b)
        r = np.hypot(alpha, eps)
        H = self.hessian(Ka, b)
        n = alpha.size
        H[np.arange(n), np.arange(n)] += self.mu * (1.0 - s * alpha / r) / r
        grad = np.append(g_alpha + self.mu * alpha / r, g_b)
        d = self.solve(H, -grad, tau)
        return None if d is None else (d, -float(grad @ d))

    def smoothed_line_search(self, alpha, Ka, b, d, decrement, eps):
        """Halving from the full Newton step to Armijo's decrease of F_ε; the new (α, Kα, b), or
        None if none is found."""
        n = alpha.size
        Kd = self.K @ d[:n]
        t = 1.0
        for _ in range(MAX_BACKTRACKS):
            new_alpha = alpha + t * d[:n]
            # √(a'² + ε²) − √(a² + ε²) without cancellation, as F's own per-term change.
            smoothed = (new_alpha - alpha) * (new_alpha + alpha) / (np.hypot(new_alpha, eps) + np.hypot(alpha, eps))
            change = self.change(alpha, new_alpha, Ka, t * Kd, b, t * d[n], l1=self.mu * float(smoothed.sum()))
            if change <= -ARMIJO * t * decrement:
                return new_alpha, Ka + t * Kd, b + t * d[n]
            t *= 0.5
        return None

    def change(self, alpha, new_alpha, Ka, Kd, b, d_b, l1=None) -> float:
        """F(α + d_α, b + d_b) − F(α, b) summed from per-term changes: near a critical point the
        decrease, of order ‖d‖², falls below the round-off of F itself, and the difference of two
        values of F would stop the descent there (at relative stationarity ~1e-7 on TL1 kernels).
        ``l1``: the change of the ℓ1 term where it is not μ(‖α + d_α‖₁ − ‖α‖₁) (F_ε's)."""
        margins = self.y * (Ka + b)
        loss = float(logistic_loss_change(margins, self.y * (Kd + d_b)).sum()) / self.y.size
        quadratic = self.lam * float((new_alpha - alpha) @ (Ka + 0.5 * Kd))
        if l1 is None:
            l1 = self.mu * float(np.sum(np.abs(new_alpha) - np.abs(alpha)))
        return loss + quadratic + l1

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
