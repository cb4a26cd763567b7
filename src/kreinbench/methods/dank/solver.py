"""First-order solvers of DANK's dual max_{x ∈ A} h(x): Nesterov's smooth method and projected gradient.

h is concave with an L-Lipschitz gradient on A (DANK Theorems 4 and 11).  The solvers only need
an oracle x ↦ (h(x), ∇h(x), state), the Euclidean projection onto A and, for the stopping rule,
the bound G(x) ≥ h* − h(x) of :mod:`kreinbench.methods.solvers.dual_gap`.

Stopping rules (``rule``): "gap" stops once G(x⁽ᵗ⁾) ≤ tol·|h(x⁽ᵗ⁾)|, a certified relative gap to
the optimum; "step" is the paper's ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂ ≤ tol.  The step rule says nothing about
the objective: with Algorithm 1's short steps 1/L, ‖Δα‖ is small long before α is near the
optimum, and with a long step it can stay above 1e-4 after h has converged.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from kreinbench.methods.solvers.projection import project_box_hyperplane

log = logging.getLogger(__name__)

# Seconds between progress lines of a long fit.
PROGRESS_INTERVAL = 5.0
# Rounds of clip-then-hyperplane of the paper's alternating projection (§3.2).
ALTERNATING_ROUNDS = 10
# Factor applied to the backtracked L after every step (:func:`backtracking_ascent`): small
# enough to follow a falling curvature, large enough that a doubling (one extra evaluation) is
# needed only every ~7 steps.
L_SHRINK = 0.9
# Relative slack of the model tests of :func:`_model_step`, a few ulps of |h|: near the optimum
# both sides agree to round-off.
MODEL_SLACK = 1e-12


@dataclass
class Evaluation:
    value: float
    grad: np.ndarray
    state: object = None


# Values of the ``rule`` argument of the solvers (module docstring).
STOPPING_RULES = {"gap", "step"}


@dataclass
class AscentResult:
    """The returned point x, its evaluation, the history, and ``gap`` = G(x)/|h(x)| at x."""

    x: np.ndarray
    evaluation: Evaluation
    history: list = field(default_factory=list)
    n_iter: int = 0
    converged: bool = False
    gap: float = float("nan")


def relative_gap(gap: float, value: float) -> float:
    """G/|h| (0 when G = 0, inf when h = 0 < G)."""
    if gap <= 0.0:
        return max(gap, 0.0)
    return gap / abs(value) if value != 0.0 else float("inf")


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
    """History of an ascent (objective, step norm, relative gap bound, elapsed time per iteration),
    a progress line in the log every :data:`PROGRESS_INTERVAL` seconds, and the stopping rule."""

    def __init__(self, name: str, tol: float, rule: str, gap, x0, ev0):
        self.name, self.tol, self.rule, self.gap = name, tol, rule, gap
        self.start = self.last = time.perf_counter()
        self.history = [{"iteration": 0, "objective": ev0.value, "step_norm": float("nan"),
                         "gap": self._relative_gap(x0, ev0), "elapsed": 0.0}]
        self.previous = float("-inf")  # no step rule before the second step

    def _relative_gap(self, x, ev) -> float:
        return float("nan") if self.gap is None else relative_gap(self.gap(x, ev.grad), ev.value)

    def record(self, t: int, x, ev: Evaluation, step: float) -> bool:
        """Record iteration ``t`` (point ``x``, its evaluation ``ev``); True when the rule says stop."""
        now = time.perf_counter()
        gap = self._relative_gap(x, ev)
        self.history.append({"iteration": t, "objective": ev.value, "step_norm": step, "gap": gap,
                             "elapsed": now - self.start})
        if now - self.last >= PROGRESS_INTERVAL:
            log.info("%s iteration %d: objective = %.10g, relative gap <= %.3g, %.1f s", self.name, t, ev.value,
                     gap, now - self.start)
            self.last = now
        if self.rule == "gap":
            return gap <= self.tol
        stop = _step_rule(step, self.previous, self.tol)
        self.previous = step
        return stop

    def result(self, x, ev: Evaluation, t: int, converged: bool) -> AscentResult:
        return AscentResult(x, ev, self.history, t, converged, self._relative_gap(x, ev))


def _check_rule(rule: str, gap) -> None:
    if rule not in STOPPING_RULES:
        raise ValueError(f"rule must be one of {sorted(STOPPING_RULES)}, got {rule!r}")
    if rule == "gap" and gap is None:
        raise ValueError("rule='gap' needs the gap bound")


def nesterov_ascent(evaluate, project, x0, *, lipschitz, max_iter, tol, monotone=False, rule="step", gap=None,
                    to_alpha=lambda x: x, name="DANK") -> AscentResult:
    """Algorithm 1 (lines 4–8) of DANK; Algorithm 2 is the same with ``lipschitz`` = 2L.

    θ⁽ᵗ⁾ = P(α⁽ᵗ⁾ + ∇h(α⁽ᵗ⁾)/L), β⁽ᵗ⁾ = P(α⁽⁰⁾ + (1/2L) Σ_{i≤t} (i+1)∇h(α⁽ⁱ⁾)),
    α⁽ᵗ⁺¹⁾ = (t+1)/(t+3) θ⁽ᵗ⁾ + 2/(t+3) β⁽ᵗ⁾, until ``rule`` holds at α⁽ᵗ⁾ (the paper's:
    ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖ ≤ tol, as :func:`_step_rule` guards it) or t = max_iter.

    Line 7 of Algorithms 1 and 2 prints α⁽⁰⁾ − (1/2L)Σ…: that is Nesterov's step for a
    *minimization*; h is maximized, so the mathematics (the argmin of (15) applied to −h) gives
    the + sign implemented here.  ``monotone`` replaces θ⁽ᵗ⁾ by the best of
    {θ⁽ᵗ⁻¹⁾, θ̃⁽ᵗ⁾, α⁽ᵗ⁾} (the variant after Algorithm 1).  Returns θ⁽ᵗ⁾ of the last iterate α⁽ᵗ⁾:
    the sequence Nesterov's convergence bound is about, and a projection (exactly feasible); as a
    projected gradient step with a step 1/L below the inverse Lipschitz constant, h(θ⁽ᵗ⁾) ≥ h(α⁽ᵗ⁾),
    so a gap bound certified at α⁽ᵗ⁾ holds for θ⁽ᵗ⁾.
    """
    _check_rule(rule, gap)
    x = np.array(x0, dtype=float)
    ev = evaluate(x)
    iterations = _Iterations(name, tol, rule, gap, x, ev)
    grad_sum = np.zeros_like(x)
    best = None  # (θ, evaluation of θ) of the previous iteration, monotone variant only
    converged = False
    t = 0
    while t < max_iter:
        grad_sum += (t + 1) * ev.grad
        theta = project(x + ev.grad / lipschitz)
        if monotone:
            candidates = [(theta, evaluate(theta)), (x, ev)] + ([best] if best is not None else [])
            best = max(candidates, key=lambda c: c[1].value)
            theta = best[0]
        beta = project(x0 + grad_sum / (2.0 * lipschitz))
        x_new = ((t + 1) * theta + 2.0 * beta) / (t + 3)
        ev = evaluate(x_new)
        step = float(np.linalg.norm(to_alpha(x_new) - to_alpha(x)))
        x = x_new
        t += 1
        if iterations.record(t, x, ev, step):
            converged = True
            break
    # line 5 at the last iterate (one evaluation, as the returned θ always needed)
    theta = project(x + ev.grad / lipschitz)
    candidates = [(theta, evaluate(theta))] + ([(x, ev)] + ([best] if best is not None else []) if monotone else [])
    theta, ev_theta = max(candidates, key=lambda c: c[1].value)
    return iterations.result(theta, ev_theta, t, converged)


def projected_gradient_ascent(evaluate, project, x0, *, lipschitz, max_iter, tol, rule="step", gap=None,
                              to_alpha=lambda x: x, name="DANK-PG") -> AscentResult:
    """The standard projected gradient method (eq. (16)): α⁽ᵗ⁺¹⁾ = P(α⁽ᵗ⁾ + ∇h(α⁽ᵗ⁾)/L)."""
    _check_rule(rule, gap)
    x = np.array(x0, dtype=float)
    ev = evaluate(x)
    iterations = _Iterations(name, tol, rule, gap, x, ev)
    converged = False
    t = 0
    while t < max_iter:
        x_new = project(x + ev.grad / lipschitz)
        ev = evaluate(x_new)
        step = float(np.linalg.norm(to_alpha(x_new) - to_alpha(x)))
        x = x_new
        t += 1
        if iterations.record(t, x, ev, step):
            converged = True
            break
    return iterations.result(x, ev, t, converged)


def backtracking_ascent(evaluate, project, x0, *, lipschitz, max_iter, tol, rule="step", gap=None,
                        to_alpha=lambda x: x, name="DANK-FISTA") -> AscentResult:
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
    decreases.  ``rule`` is tested at α⁽ᵗ⁾, the returned point.
    """
    _check_rule(rule, gap)
    x = np.array(x0, dtype=float)
    ev_x = evaluate(x)
    iterations = _Iterations(name, tol, rule, gap, x, ev_x)
    L = _secant_curvature(evaluate, project, x, ev_x, lipschitz)
    y, ev_y, momentum = x, ev_x, 1.0
    converged = False
    t = 0
    while t < max_iter:
        # momentum 1: y is the iterate x (no extrapolation), a point of A
        p, ev_p, L = _model_step(evaluate, project, y, ev_y, L, lipschitz, feasible=momentum == 1.0)
        if ev_p.value < ev_x.value and momentum > 1.0:
            momentum = 1.0
            p, ev_p, L = _model_step(evaluate, project, x, ev_x, L, lipschitz, feasible=True)
        next_momentum = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * momentum**2))
        y = p + ((momentum - 1.0) / next_momentum) * (p - x)
        ev_y = ev_p if momentum == 1.0 else evaluate(y)
        momentum = next_momentum
        step = float(np.linalg.norm(to_alpha(p) - to_alpha(x)))
        x, ev_x = p, ev_p
        L *= L_SHRINK
        t += 1
        if iterations.record(t, x, ev_x, step):
            converged = True
            break
    return iterations.result(x, ev_x, t, converged)


def _model_step(evaluate, project, y, ev_y, L, lipschitz, feasible):
    """The projected step from y with the smallest L·2ᵏ (≤ ``lipschitz``) whose quadratic model holds.

    For y in A (``feasible``; an extrapolated y need not be) the model's gain over h(y),
    ∇h(y)ᵀd − (L/2)‖d‖², is at least (L/2)‖d‖² ≥ 0 with the exact projection p, so an accepted
    step ascends.  A negative gain there is the projection's round-off on a step ∇h/L far beyond
    A: after a flat secant (:func:`_secant_curvature`) L was 5e-9 on ijcnn1, σ = 1/32, the step
    ~1e8, p off by 2.5e-7 and yᵀp = 9e-7, and h fell by 4e-8 relative.  Such a step is shortened
    (L doubled) before it is evaluated.
    """
    while True:
        p = project(y + ev_y.grad / L)
        d = p - y
        gain = float(ev_y.grad @ d) - 0.5 * L * float(d @ d)
        if feasible and gain < -MODEL_SLACK * max(abs(ev_y.value), 1.0) and L < lipschitz:
            L = min(2.0 * L, lipschitz)
            continue
        ev_p = evaluate(p)
        if ev_p.value >= ev_y.value + gain - MODEL_SLACK * max(abs(ev_p.value), 1.0) or L >= lipschitz:
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
