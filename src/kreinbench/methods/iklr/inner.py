"""The convex subproblem of each CCCP step of IKLR and the solvers of its inner loop.

F_k(α, b) = L(α, b) + (λ/2)αᵀK₊α − λ(K₋α_k)ᵀα + (λ/2)α_kᵀK₋α_k is the majorizer of f that
touches it at α_k (IKLR TNNLS eqs. (8)–(9)); K₊ = K + K₋ with K₋ given as a cheap operator.

Iterates are :class:`Point` s, which carry their products Kα and K₋α and, once computed, the loss
gradient −K(y ⊙ β)/n: every product with the n×n kernel (a "matvec", the unit of cost) is made
once per point.  A step α − s·d along a direction d updates them by linearity, K(α − s·d) =
Kα − s·Kd, so one product Kd serves every trial step of a line search.  Every solver returns the
new point, F_k there and the number of inner steps taken.

The GD solvers run on any array API namespace (the loss's ``xp``; :mod:`kreinbench.linalg.arrays`)
with the same operations as on NumPy; SGD's one-column steps (latency-bound on a GPU) and L-BFGS
(SciPy) are NumPy's only.
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np

from kreinbench.methods.solvers.logistic import ARMIJO, LogisticKernelLoss, margin_weights

log = logging.getLogger(__name__)

# Seconds between progress lines of gd_exact: one CCCP step of the exact solver can take minutes at
# the papers' sizes (EEG's 7488 rows: its first step ran over 3 minutes between two outer lines).
INNER_PROGRESS_INTERVAL = 5.0


def norm(v) -> float:
    """‖v‖₂ of a vector of any namespace (on NumPy bit for bit ``np.linalg.norm``: √(v·v))."""
    return math.sqrt(float(v @ v))


def any_nonzero(v) -> bool:
    if isinstance(v, np.ndarray):
        return bool(v.any())
    from kreinbench.linalg.arrays import namespace  # noqa: PLC0415 (array_api_compat only off the NumPy route)

    return bool(namespace(v).any(v != 0.0))


class Point:
    """(α, b) with Kα, K₋α and the cached loss gradient (−K(y ⊙ β)/n, −Σ y ⊙ β/n) or None."""

    __slots__ = ("alpha", "b", "Ka", "Kma", "loss_grad")

    def __init__(self, alpha: np.ndarray, b: float, Ka: np.ndarray, Kma: np.ndarray):
        self.alpha, self.b, self.Ka, self.Kma = alpha, b, Ka, Kma
        self.loss_grad = None


class Subproblem:
    """F_k, its gradient, and the stochastic gradient of IKLR eq. (12), around the point ``start``."""

    def __init__(self, loss: LogisticKernelLoss, lam: float, kminus, start: Point):
        self.loss = loss
        self.lam = lam
        self.kminus = kminus
        self.linear = lam * start.Kma
        self.const = 0.5 * lam * float(start.alpha @ start.Kma)
        # Products with the n×n kernel: the unit of cost every solver is compared in.
        self.matvecs = 0

    def product(self, v: np.ndarray) -> np.ndarray:
        """K v, counted."""
        self.matvecs += 1
        return self.loss.K @ v

    def point(self, alpha: np.ndarray, b: float) -> Point:
        """The point (α, b) with its products computed (one matvec)."""
        return Point(alpha, b, self.product(alpha), self.kminus(alpha))

    def moved(self, pt: Point, step: float, d_alpha, d_b: float, Kd, Kmd) -> Point:
        """The point (α − step·d_α, b − step·d_b) from the products Kd, K₋d (no matvec)."""
        return Point(pt.alpha - step * d_alpha, pt.b - step * d_b, pt.Ka - step * Kd, pt.Kma - step * Kmd)

    def objective(self, pt: Point) -> float:
        """F_k at a point (no matvec)."""
        return (self.loss.value(pt.Ka, pt.b) + 0.5 * self.lam * float(pt.alpha @ (pt.Ka + pt.Kma))
                - float(self.linear @ pt.alpha) + self.const)

    def loss_gradient(self, pt: Point) -> tuple[np.ndarray, float]:
        """∇L at a point: one matvec the first time, cached on the point."""
        if pt.loss_grad is None:
            w = self.loss.weights(pt.Ka, pt.b)
            pt.loss_grad = (-self.product(w), -self.loss.total(w))
        return pt.loss_grad

    def gradient(self, pt: Point) -> tuple[np.ndarray, float]:
        g_alpha, g_b = self.loss_gradient(pt)
        return g_alpha + self.lam * (pt.Ka + pt.Kma) - self.linear, g_b

    def stochastic_gradient(self, pt: Point, j: int) -> tuple[np.ndarray, float]:
        """Unbiased one-sample estimate of ∇F_k: the loss term of sample j only.

        IKLR eq. (12) reads α ← α − η(−y_j K_j β_j + λK₊α); it drops the linearized concave
        term −λK₋α_k, without which the step would not descend on F_k (nor on f).  It is kept here.
        """
        y_j = self.loss.y[j]
        weight = y_j * margin_weights(y_j * (pt.Ka[j] + pt.b))
        g_alpha = -weight * self.loss.K[:, j] + self.lam * (pt.Ka + pt.Kma) - self.linear
        return g_alpha, -float(weight)


def gd_printed(sub: Subproblem, pt: Point, *, eta, rho, eps, max_inner, step_cap):
    """TNNLS Algorithm 1's inner loop: GD with the printed step η_t = η ρ^t until |F(α^(t+1)) − F(α^(t))| ≤ ε.

    ``eta`` and ``eps`` are on the scale of ``sub``'s objective (IKLR passes the paper's values
    converted from the summed objective, see :class:`kreinbench.methods.iklr.estimator.IKLR`).  No line
    search: the printed steps may raise F_k for a while (TL1 kernels make the loss's curvature
    ‖K‖²/(4n) huge), and that is what the paper's numbers come from; an Armijo test here kept
    CCICP-GD near α = 0 (docs/solver-fidelity.md).  The one safeguard is ``step_cap`` =
    2/(λ‖K₊‖): a longer step makes GD on the quadratic part expand along K₊'s top eigenvector
    (by |1 − η_t λ‖K₊‖| > 1 per step, without bound), while the loss's gradient is bounded, so
    the cap changes only steps that are unstable and leaves every stable printed step as it is.
    Cost per step: the gradient's matvec (none at the start point when its loss gradient is
    cached) and one for K·∇F.
    """
    F = sub.objective(pt)
    t = 0
    while t < max_inner:
        g_alpha, g_b = sub.gradient(pt)
        if not (g_b or any_nonzero(g_alpha)):
            break
        step = min(eta * rho**t, step_cap)
        pt = sub.moved(pt, step, g_alpha, g_b, sub.product(g_alpha), sub.kminus(g_alpha))
        F_prev, F = F, sub.objective(pt)
        t += 1
        if abs(F_prev - F) <= eps:
            break
    return pt, F, t


def gd_mm17(sub: Subproblem, pt: Point, *, eta, rho, eps, max_inner, step_cap):
    """MM'17 Algorithm 1's inner loop: GD with step η ρ^t until ‖∇F(α^(t))‖ ≤ ε‖α^(t)‖.

    The first step is min(η, ``step_cap``) and every step is safeguarded: one that fails the
    Armijo condition is shrunk by ρ until it passes.  Where η ≤ ``step_cap`` and the Armijo test
    passes, neither device acts and the iterates are the paper's.  Cost per step: the gradient's
    matvec and one for K·∇F, shared by all trial steps.
    """
    F = sub.objective(pt)
    step = min(eta, step_cap)
    t = 0
    while t < max_inner:
        g_alpha, g_b = sub.gradient(pt)
        gg = float(g_alpha @ g_alpha) + g_b * g_b
        if gg == 0.0 or math.sqrt(gg) <= eps * norm(pt.alpha):
            break
        Kg, Kmg = sub.product(g_alpha), sub.kminus(g_alpha)
        while True:
            new = sub.moved(pt, step, g_alpha, g_b, Kg, Kmg)
            F_new = sub.objective(new)
            if F_new <= F - ARMIJO * step * gg or step < 1e-300:
                break
            step *= rho
        if not F_new < F:  # no decrease representable in floating point: converged
            break
        t += 1
        pt, F = new, F_new
        step *= rho
    return pt, F, t


# Past objective values the nonmonotone Armijo test of gd_exact compares with (Raydan 1997: 10).
NONMONOTONE_MEMORY = 10


def gd_exact(sub: Subproblem, pt: Point, *, gtol, max_inner, step0):
    """Gradient descent to ‖∇F_k‖ ≤ gtol: Barzilai–Borwein steps with a nonmonotone Armijo test.

    This is the "exact" CCCP baseline.  The paper's |ΔF| ≤ ε rule stops GD on any flat stretch
    of an ill-conditioned problem, not at the minimizer, so the exact variant tests the gradient.
    The step is BB1, halved until F drops below the largest of the last ``NONMONOTONE_MEMORY``
    values by the Armijo margin (Grippo–Lampariello–Lucidi; Raydan's globalized BB, SIAM J.
    Optim. 7(1), 1997).  BB's steps are what make it fast, and the monotone test rejected about
    half of them: on monk-2's TL1 kernel the nonmonotone one needs 2.1–2.4× fewer kernel products for
    the same tolerance.  Every accepted value is below the subproblem's starting value, so each
    CCCP step still decreases f.  A step costs two products: K·∇F_k, from which every trial point
    of the backtracking follows by linearity (:meth:`Subproblem.moved`), and the loss gradient at
    the accepted point.  (Evaluating each trial by its own product cost 2.9 per step on ijcnn1-tr,
    λ = 10, where nearly every BB step is halved once.)  The linear updates carry Kα's round-off
    along, about √t·ε relative after t steps: 1e-14 after 10⁴, far below any gradient tolerance.
    Returns the last accepted step too, to start the next subproblem with.
    """
    F = sub.objective(pt)
    g_alpha, g_b = sub.gradient(pt)
    step = step0
    recent = [F]
    t = 0
    start = last_log = time.perf_counter()
    while t < max_inner:
        gg = float(g_alpha @ g_alpha) + g_b * g_b
        if math.sqrt(gg) <= gtol:
            break
        now = time.perf_counter()
        if now - last_log >= INNER_PROGRESS_INTERVAL:
            log.info("exact CCCP inner step %d: F_k = %.8g, |grad F_k| = %.3g (tol %.3g), %.1f s",
                     t, float(F), math.sqrt(gg), gtol, now - start)
            last_log = now
        reference = max(recent)
        Kg, Kmg = sub.product(g_alpha), sub.kminus(g_alpha)
        while True:
            new = sub.moved(pt, step, g_alpha, g_b, Kg, Kmg)
            F_new = sub.objective(new)
            if F_new <= reference - ARMIJO * step * gg or step < 1e-300:
                break
            step *= 0.5
        if not F_new < reference:  # no decrease representable in floating point: converged
            break
        new_g_alpha, new_g_b = sub.gradient(new)
        s_a, s_b = new.alpha - pt.alpha, new.b - pt.b
        r_a, r_b = new_g_alpha - g_alpha, new_g_b - g_b
        sr = float(s_a @ r_a) + s_b * r_b
        # BB1 step (s·s / s·r); F_k is strongly convex on the iterates' span, so sr > 0 there.
        step = (float(s_a @ s_a) + s_b * s_b) / sr if sr > 0 else step * 2.0
        pt, F, g_alpha, g_b = new, F_new, new_g_alpha, new_g_b
        recent = (recent + [F])[-NONMONOTONE_MEMORY:]
        t += 1
    return pt, F, t, step


def sgd(sub: Subproblem, pt: Point, *, eta, rho, eps, max_inner, rng, step_cap):
    """CCICP-SGD's inner loop: one random column per step (eq. (12)), step min(η ρ^t, step_cap).

    ``eta`` and ``eps`` are on the scale of ``sub``'s objective (IKLR passes the paper's values
    converted from the summed objective, as for :func:`gd_printed`).

    Stops when |F_k(α^(t+1)) − F_k(α^(t))| ≤ ε.  ``step_cap`` is 1 / (a bound on the Lipschitz
    constant of one sample's gradient): the paper's η = 0.02 is stated for kernels whose scale it
    does not give, and on TL1 kernels (‖K‖ ~ 10³) uncapped steps blow up before ρ^t tames them.
    F_k itself is evaluated exactly (one matvec, shared with the step's K₊α).
    """
    n = pt.alpha.shape[0]
    F = sub.objective(pt)
    t = 0
    while t < max_inner:
        j = int(rng.integers(n))
        g_alpha, g_b = sub.stochastic_gradient(pt, j)
        step = min(eta * rho**t, step_cap)
        pt = sub.point(pt.alpha - step * g_alpha, pt.b - step * g_b)
        F_prev, F = F, sub.objective(pt)
        t += 1
        if abs(F - F_prev) <= eps:
            break
    return pt, F, t


def lbfgs(sub: Subproblem, pt: Point, *, gtol, max_inner, factor=None):
    """Exact inner solve by L-BFGS warm-started at (α_k, b_k) (beyond the paper), in the K₊ metric
    when ``factor`` is the lower Cholesky factor L of K₊ = LLᵀ.

    In the variables z = Lᵀα the subproblem's Hessian is L⁻¹(KDK/n)L⁻ᵀ + λI, which λK₊ ⪯ the
    α-Hessian makes well conditioned where plain L-BFGS (and BB) crawl: the α-Hessian's condition
    number is about (μ_max + τ)/τ at large λ, thousands on the papers' TL1 kernels.  The gradient
    in z is L⁻¹∇_α F, whose 2-norm is ‖∇_α F‖ in the K₊⁻¹ metric, so ``gtol`` is a bound in that
    norm (together with |∂F/∂b|); it bounds ‖α − α*‖ in K₊'s norm by gtol/λ.  Each evaluation
    costs one kernel product and two triangular solves.
    scipy's ``gtol`` bounds the largest gradient entry; gtol/√(n+1) there bounds the 2-norm by gtol.
    """
    n = pt.alpha.shape[0]
    last = {}
    if factor is None:
        to_alpha = from_alpha = to_metric = lambda v: v  # noqa: E731
    else:
        to_alpha = lambda z: scipy.linalg.solve_triangular(factor, z, lower=True, trans="T")  # noqa: E731
        from_alpha = lambda a: factor.T @ a  # noqa: E731
        to_metric = lambda g: scipy.linalg.solve_triangular(factor, g, lower=True)  # noqa: E731

    def fun(w):
        last["pt"] = q = sub.point(to_alpha(w[:n]), float(w[n]))
        g_alpha, g_b = sub.gradient(q)
        return sub.objective(q), np.append(to_metric(g_alpha), g_b)

    # Imported here: scipy.optimize adds about 0.06 s to every fit job's start, and only this
    # solver (cccp-lbfgs) uses it.
    import scipy.optimize  # noqa: PLC0415

    res = scipy.optimize.minimize(fun, np.append(from_alpha(pt.alpha), pt.b), jac=True, method="L-BFGS-B",
                                  options={"maxiter": max_inner, "gtol": gtol / np.sqrt(n + 1), "ftol": 0.0,
                                           "maxcor": 20})
    q = last.get("pt")
    alpha = to_alpha(res.x[:n])
    if q is None or not np.array_equal(q.alpha, alpha) or q.b != res.x[n]:
        q = sub.point(alpha, float(res.x[n]))
    return q, float(res.fun), int(res.nit)

