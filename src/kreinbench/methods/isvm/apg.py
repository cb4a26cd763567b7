"""A faster solver for the same proxy-kernel SVM problem: accelerated projected gradient, adaptive step.

Ying et al.'s SPGM and SMM step by 1/L with L = λ_max(K₀) + nC²/ρ (their Theorem 2), a bound
for the worst α in Q₁ (‖α‖² = nC²).  Near the maximum ‖α‖² is far smaller, so the local
curvature of f is far below L and, at C = 10 or 100, the fixed step needs thousands of
iterations.  :func:`apg` maximizes the same f over the same Q₁ by FISTA (Beck & Teboulle 2009)
with

* a backtracking estimate of the local Lipschitz constant, allowed to shrink again every
  iteration (Scheinberg, Goldfarb & Bai 2014 style), so steps follow the local curvature;
* gradient-based adaptive restart of the momentum (O'Donoghue & Candès 2015);
* a stopping rule that does not trust small steps: concavity gives
  f* − f(α) ≤ max_{β∈Q₁} ∇f(α)ᵀ(β − α) (the Frank–Wolfe gap,
  :func:`kreinbench.methods.solvers.dual_gap.wolfe_gap`), and the run stops when that certificate
  falls below tol·|f(α)|.  The certificate scales with the box: at C = 100 with the maximum
  far inside it, gradient entries at round-off level times C keep it above tol·|f| although f
  no longer moves.  So the run
  also stops, as converged, when STALL_STEPS consecutive steps (at the local step size,
  momentum restarted) each gain at most STALL·tol·|f|: a stricter version of the paper's
  relative-change rule, which stops after one small step of size 1/L.
"""

from __future__ import annotations

import numpy as np

from kreinbench.methods.solvers.dual_gap import wolfe_gap
from kreinbench.methods.solvers.projection import project_box_hyperplane

# Backtracking: L grows by GROW until the quadratic upper bound holds, and shrinks by SHRINK
# before each iteration's first trial, so a long run does not keep an early, too large L.
GROW = 2.0
SHRINK = 0.7
# f has stalled when this many consecutive steps each gain at most STALL·tol·|f|.
STALL_STEPS = 5
STALL = 1e-3


def apg(value_and_gradient, y: np.ndarray, C: float, L0: float, tol: float, max_iter: int,
        alpha0: np.ndarray | None = None, record=None):
    """Maximize concave f over Q₁ by FISTA with backtracking and adaptive restart (see module doc).

    Parameters
    ----------
    value_and_gradient : callable
        α ↦ (f(α), ∇f(α)).
    y : ndarray of shape (n,)
        Labels in {−1, +1}.
    C : float
        Box bound.
    L0 : float
        First trial Lipschitz estimate (any positive value; backtracking corrects it).
    tol : float
        Stop when the Frank–Wolfe gap ≤ tol·|f|, or when f has stalled (see the module doc).
    max_iter : int
        Maximum number of iterations (gradient steps tried, accepted or not).
    alpha0 : ndarray, optional
        Feasible start (e.g. the solution at a smaller C: Q₁ grows with C); projected onto Q₁
        for safety.  Default 0.
    record : callable, optional
        ``record(f, step_norm)`` after every accepted iteration (the history rows).

    Returns
    -------
    alpha, f, L, n_evaluations, converged, gap
        The last accepted iterate (f never decreases along them), its f, the last Lipschitz
        estimate (a warm start's L0), the number of f/∇f evaluations, whether a stopping test
        passed, and the gap at the returned α.
    """
    x = np.zeros(y.size) if alpha0 is None else project_box_hyperplane(alpha0, y, C)
    f_x, g_x = value_and_gradient(x)
    n_eval = 1
    if record is not None:
        record(f_x, 0.0)
    gap = wolfe_gap(g_x, x, y, C)
    if gap <= tol * abs(f_x):
        return x, f_x, L0, n_eval, True, gap
    z, f_z, g_z = x, f_x, g_x
    t, L = 1.0, L0
    stalled = 0
    for _ in range(max_iter):
        L *= SHRINK
        while True:
            x_new = project_box_hyperplane(z + g_z / L, y, C)
            d = x_new - z
            f_new, g_new = value_and_gradient(x_new)
            n_eval += 1
            # Quadratic lower model of the concave f at z with curvature L (the descent lemma).
            if f_new >= f_z + float(g_z @ d) - 0.5 * L * float(d @ d) - 1e-15 * abs(f_z):
                break
            L *= GROW
        stalled = stalled + 1 if f_new - f_x <= STALL * tol * abs(f_x) else 0
        if stalled >= STALL_STEPS:
            return x, f_x, L, n_eval, True, wolfe_gap(g_x, x, y, C)
        if f_new < f_x:
            # The momentum overshot: drop it and take a plain projected-gradient step from x,
            # which the backtracking makes an ascent step, so accepted iterates never lose f.
            t = 1.0
            z, f_z, g_z = x, f_x, g_x
            continue
        step = x_new - x
        if record is not None:
            record(f_new, float(np.linalg.norm(step)))
        gap = wolfe_gap(g_new, x_new, y, C)
        if gap <= tol * abs(f_new):
            return x_new, f_new, L, n_eval, True, gap
        # Restart also when the gradient step d points against the momentum (O'Donoghue & Candès).
        if float(d @ step) < 0:
            t, momentum = 1.0, 0.0
        else:
            t_new = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
            momentum, t = (t - 1.0) / t_new, t_new
        x_prev, x, f_x, g_x = x, x_new, f_new, g_new
        if momentum > 0:
            # FISTA's extrapolated point, not projected: f and ∇f are defined on all of Rⁿ.
            z = x + momentum * (x - x_prev)
            f_z, g_z = value_and_gradient(z)
            n_eval += 1
        else:
            z, f_z, g_z = x, f_x, g_x
    return x, f_x, L, n_eval, False, gap
