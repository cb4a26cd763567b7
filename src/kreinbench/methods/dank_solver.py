"""First-order solvers of DANK's dual max_{x ∈ A} h(x): Nesterov's smooth method and projected gradient.

h is concave with an L-Lipschitz gradient on A (DANK Theorems 4 and 11).  Both solvers only need
an oracle x ↦ (h(x), ∇h(x), state) and the Euclidean projection onto A.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from kreinbench.methods.projection import project_box_hyperplane

log = logging.getLogger(__name__)

# Seconds between progress lines of a long fit.
PROGRESS_INTERVAL = 5.0
# Rounds of clip-then-hyperplane of the paper's alternating projection (§3.2).
ALTERNATING_ROUNDS = 10
# Factor applied to the backtracked L after every step (:func:`backtracking_ascent`): small
# enough to follow a falling curvature, large enough that a doubling (one extra evaluation) is
# needed only every ~7 steps.
L_SHRINK = 0.9


@dataclass
class Evaluation:
    value: float
    grad: np.ndarray
    state: object = None


@dataclass
class AscentResult:
    x: np.ndarray
    evaluation: Evaluation
    history: list = field(default_factory=list)
    n_iter: int = 0
    converged: bool = False


def project_alternating(v: np.ndarray, z: np.ndarray, C: float) -> np.ndarray:
    """The paper's projection onto {zᵀα = 0, 0 ≤ α ≤ C}: 10 × (clip to [0, C], then α − (zᵀα/n) z).

    It ends on the hyperplane, so box bounds can be violated by the last shift; and that shift
    moves every coordinate, so α has no exact zeros (no sparsity for :class:`AdaptiveMatrix`).
    """
    a = v
    n = z.size
    for _ in range(ALTERNATING_ROUNDS):
        a = np.clip(a, 0.0, C)
        a = a - (z @ a / n) * z
    return a


def make_projection(kind: str, z: np.ndarray | None, C: float) -> Callable[[np.ndarray], np.ndarray]:
    """Projection onto A; ``z=None`` means the box {0 ≤ α ≤ C} alone (no bias, problem (18))."""
    if z is None:
        return lambda v: np.clip(v, 0.0, C)
    if kind == "exact":
        return lambda v: project_box_hyperplane(v, z, C)
    return lambda v: project_alternating(v, z, C)


def _step_rule(step: float, previous: float, tol: float) -> bool:
    """The paper's stopping rule ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖ ≤ tol, tested only once steps stop growing.

    The first steps are of size ~ t‖∇h‖/L: with the paper's large L (η small, ‖K‖_F large) the
    very first step is already below 1e-4 although α⁽¹⁾ ≈ 0 is far from the optimum.  Requiring
    the step to be no larger than the previous one skips that growth phase; afterwards the rule
    is the paper's.
    """
    return step <= tol and step <= previous


class _Iterations:
    """History of an ascent (objective, step norm, elapsed time per iteration), a progress line in
    the log every :data:`PROGRESS_INTERVAL` seconds, and the stopping rule on the step norms."""

    def __init__(self, name: str, tol: float, value: float):
        self.name, self.tol = name, tol
        self.start = self.last = time.perf_counter()
        self.history = [{"iteration": 0, "objective": value, "step_norm": float("nan"), "elapsed": 0.0}]
        self.previous = float("-inf")  # no rule before the second step

    def record(self, t: int, value: float, step: float) -> bool:
        """Record iteration ``t``; True when the step rule says stop."""
        now = time.perf_counter()
        self.history.append({"iteration": t, "objective": value, "step_norm": step, "elapsed": now - self.start})
        if now - self.last >= PROGRESS_INTERVAL:
            log.info("%s iteration %d: objective = %.10g, %.1f s", self.name, t, value, now - self.start)
            self.last = now
        stop = _step_rule(step, self.previous, self.tol)
        self.previous = step
        return stop


def nesterov_ascent(evaluate, project, x0, *, lipschitz, max_iter, tol, monotone=False,
                    to_alpha=lambda x: x, name="DANK") -> AscentResult:
    """Algorithm 1 (lines 4–8) of DANK; Algorithm 2 is the same with ``lipschitz`` = 2L.

    θ⁽ᵗ⁾ = P(α⁽ᵗ⁾ + ∇h(α⁽ᵗ⁾)/L), β⁽ᵗ⁾ = P(α⁽⁰⁾ + (1/2L) Σ_{i≤t} (i+1)∇h(α⁽ⁱ⁾)),
    α⁽ᵗ⁺¹⁾ = (t+1)/(t+3) θ⁽ᵗ⁾ + 2/(t+3) β⁽ᵗ⁾, until ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖ ≤ tol or t = max_iter
    (the step rule as :func:`_step_rule` guards it).

    Line 7 of Algorithms 1 and 2 prints α⁽⁰⁾ − (1/2L)Σ…: that is Nesterov's step for a
    *minimization*; h is maximized, so the mathematics (the argmin of (15) applied to −h) gives
    the + sign implemented here.  ``monotone`` replaces θ⁽ᵗ⁾ by the best of
    {θ⁽ᵗ⁻¹⁾, θ̃⁽ᵗ⁾, α⁽ᵗ⁾} (the variant after Algorithm 1).  Returns θ of the last iteration:
    the sequence Nesterov's convergence bound is about, and a projection (exactly feasible).
    """
    x = np.array(x0, dtype=float)
    ev = evaluate(x)
    iterations = _Iterations(name, tol, ev.value)
    grad_sum = np.zeros_like(x)
    best = None  # (θ, evaluation of θ) of the previous iteration, monotone variant only
    converged = False
    t = 0
    while t < max_iter:
        grad_sum += (t + 1) * ev.grad
        theta = project(x + ev.grad / lipschitz)
        ev_theta = None
        if monotone:
            ev_theta = evaluate(theta)
            candidates = [(theta, ev_theta), (x, ev)] + ([best] if best is not None else [])
            theta, ev_theta = max(candidates, key=lambda c: c[1].value)
            best = (theta, ev_theta)
        beta = project(x0 + grad_sum / (2.0 * lipschitz))
        x_new = ((t + 1) * theta + 2.0 * beta) / (t + 3)
        ev = evaluate(x_new)
        step = float(np.linalg.norm(to_alpha(x_new) - to_alpha(x)))
        x = x_new
        t += 1
        if iterations.record(t, ev.value, step):
            converged = True
            break
    if ev_theta is None:
        ev_theta = evaluate(theta)
    return AscentResult(theta, ev_theta, iterations.history, t, converged)


def projected_gradient_ascent(evaluate, project, x0, *, lipschitz, max_iter, tol,
                              to_alpha=lambda x: x, name="DANK-PG") -> AscentResult:
    """The standard projected gradient method (eq. (16)): α⁽ᵗ⁺¹⁾ = P(α⁽ᵗ⁾ + ∇h(α⁽ᵗ⁾)/L)."""
    x = np.array(x0, dtype=float)
    ev = evaluate(x)
    iterations = _Iterations(name, tol, ev.value)
    converged = False
    t = 0
    while t < max_iter:
        x_new = project(x + ev.grad / lipschitz)
        ev = evaluate(x_new)
        step = float(np.linalg.norm(to_alpha(x_new) - to_alpha(x)))
        x = x_new
        t += 1
        if iterations.record(t, ev.value, step):
            converged = True
            break
    return AscentResult(x, ev, iterations.history, t, converged)


def backtracking_ascent(evaluate, project, x0, *, lipschitz, max_iter, tol, to_alpha=lambda x: x,
                        name="DANK-FISTA") -> AscentResult:
    """Accelerated projected gradient with a backtracked L (FISTA, Beck and Teboulle 2009).

    Not in the DANK paper.  Theorem 4's L = n + 3nC²‖K‖²_F/(4η) is a worst case over A; near
    the iterates the curvature of h is about λ_max(Y(F ⊙ K)Y), orders of magnitude smaller for
    a local kernel, so Algorithm 1's steps of size 1/L barely move α within t_max iterations.
    Here L starts at a secant estimate (:func:`_secant_curvature`) and each step
    p = P(y + ∇h(y)/L) is accepted when the quadratic lower model holds,
    h(p) ≥ h(y) + ∇h(y)ᵀ(p − y) − (L/2)‖p − y‖², else L doubles (the test holds for every L at
    least the true constant, so ``lipschitz``, Theorem 4's bound, caps it); after each step L
    shrinks by :data:`L_SHRINK` to follow the curvature down.  When the extrapolated step lowers
    h, the momentum restarts (O'Donoghue and Candès 2015) and the step is redone from α⁽ᵗ⁾ as a
    plain projected-gradient step, which the model test makes an ascent step: h(α⁽ᵗ⁾) never
    decreases.  The stopping rule is the paper's, on ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖ (:func:`_step_rule`).
    """
    x = np.array(x0, dtype=float)
    ev_x = evaluate(x)
    iterations = _Iterations(name, tol, ev_x.value)
    L = _secant_curvature(evaluate, project, x, ev_x, lipschitz)
    y, ev_y, momentum = x, ev_x, 1.0
    converged = False
    t = 0
    while t < max_iter:
        p, ev_p, L = _model_step(evaluate, project, y, ev_y, L, lipschitz)
        if ev_p.value < ev_x.value and momentum > 1.0:
            momentum = 1.0
            p, ev_p, L = _model_step(evaluate, project, x, ev_x, L, lipschitz)
        next_momentum = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * momentum**2))
        y = p + ((momentum - 1.0) / next_momentum) * (p - x)
        ev_y = ev_p if momentum == 1.0 else evaluate(y)
        momentum = next_momentum
        step = float(np.linalg.norm(to_alpha(p) - to_alpha(x)))
        x, ev_x = p, ev_p
        L *= L_SHRINK
        t += 1
        if iterations.record(t, ev_x.value, step):
            converged = True
            break
    return AscentResult(x, ev_x, iterations.history, t, converged)


def _model_step(evaluate, project, y, ev_y, L, lipschitz):
    """The projected step from y with the smallest L·2ᵏ (≤ ``lipschitz``) whose quadratic model holds."""
    while True:
        p = project(y + ev_y.grad / L)
        d = p - y
        ev_p = evaluate(p)
        model = ev_y.value + float(ev_y.grad @ d) - 0.5 * L * float(d @ d)
        # slack of a few ulps of |h|: near the optimum both sides agree to round-off
        if ev_p.value >= model - 1e-12 * max(abs(ev_p.value), 1.0) or L >= lipschitz:
            return p, ev_p, L
        L = min(2.0 * L, lipschitz)


def _secant_curvature(evaluate, project, x, ev_x, lipschitz) -> float:
    """‖∇h(z) − ∇h(x)‖/‖z − x‖ along the projected gradient, z = P(x + ∇h(x)/lipschitz) (one evaluation)."""
    z = project(x + ev_x.grad / lipschitz)
    dz = float(np.linalg.norm(z - x))
    if dz == 0.0:
        return lipschitz
    secant = float(np.linalg.norm(evaluate(z).grad - ev_x.grad)) / dz
    return min(max(secant, lipschitz * 1e-12), lipschitz)


def kkt_intercept(grad: np.ndarray, z: np.ndarray, x: np.ndarray, C: float) -> float:
    """The multiplier b of zᵀx = 0 from the KKT conditions of max h on {zᵀx = 0, 0 ≤ x ≤ C}.

    Stationarity: ∇h_i = b z_i where 0 < x_i < C, ∇h_i ≤ b z_i where x_i = 0, ∇h_i ≥ b z_i where
    x_i = C.  b is the mean of z_i∇h_i over the free coordinates (SVM: b = y_i − Σ_j α_j y_j
    F_ij K_ij on free support vectors); without free ones, the midpoint of the interval the bound
    coordinates allow (as LIBSVM does).
    """
    r = z * grad
    bound_tol = 1e-8 * C
    at_zero = x <= bound_tol
    at_C = x >= C - bound_tol
    free = ~(at_zero | at_C)
    if np.any(free):
        return float(np.mean(r[free]))
    lower_mask = (at_zero & (z > 0)) | (at_C & (z < 0))
    upper_mask = (at_zero & (z < 0)) | (at_C & (z > 0))
    lower = np.max(r[lower_mask]) if np.any(lower_mask) else None
    upper = np.min(r[upper_mask]) if np.any(upper_mask) else None
    if lower is None:
        return float(upper)
    if upper is None:
        return float(lower)
    return 0.5 * float(lower + upper)
