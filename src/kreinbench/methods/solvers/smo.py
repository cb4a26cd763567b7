"""SMO-type decomposition solver for the convex QP of SVM duals with a linear term.

    min_α  ½ αᵀQα + pᵀα   s.t.  yᵀα = 0,  0 ≤ α ≤ C,   Q = Y K Y ⪰ 0,  y ∈ {±1}ⁿ.

libsvm solves this problem only for p = −e; DC algorithms (TDCASVM) need a general p.  The solver
is that of Fan, Chen and Lin (JMLR 2005, "Working set selection using second order information"):
the maximal-violating index i, the partner j that maximizes the second-order decrease, the
analytic two-variable update clipped to the box, and an O(n) update of the gradient G = Qα + p.
Every step decreases the objective, so a warm start never loses ground.

Optimality (KKT) is measured as in libsvm: with
I_up = {t : y_t = +1, α_t < C  or  y_t = −1, α_t > 0} and I_low the reverse,
m(α) = max_{I_up} −y_t G_t and M(α) = min_{I_low} −y_t G_t, α is optimal iff m(α) ≤ M(α);
the solver stops when m(α) − M(α) ≤ tol.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SMOResult:
    alpha: np.ndarray
    gradient: np.ndarray      # G = Qα + p at alpha
    n_iter: int
    violation: float          # m(α) − M(α) at alpha (≤ tol when converged)
    converged: bool


def _masks(alpha: np.ndarray, y: np.ndarray, C: float) -> tuple[np.ndarray, np.ndarray]:
    pos = y > 0
    below_C = alpha < C
    above_0 = alpha > 0
    up = np.where(pos, below_C, above_0)
    low = np.where(pos, above_0, below_C)
    return up, low


def kkt_violation(G: np.ndarray, alpha: np.ndarray, y: np.ndarray, C: float) -> float:
    """m(α) − M(α): how far α is from satisfying the KKT conditions (≤ 0 at an optimum)."""
    up, low = _masks(alpha, y, C)
    score = -y * G
    if not up.any() or not low.any():
        return 0.0
    return float(score[up].max() - score[low].min())


def intercept(G: np.ndarray, alpha: np.ndarray, y: np.ndarray, C: float) -> float:
    """The bias b of f(x) = Σ y_i α_i k(x, x_i) + b from the gradient of the dual (libsvm's rule).

    For a free α_i (0 < α_i < C) the KKT conditions give b = −y_i G_i exactly; with p = −e this is
    y_i − (K Yα)_i.  libsvm averages over the free variables and, if there are none, takes the
    midpoint of the interval the bounded ones leave for b.
    """
    score = -y * G
    free = (alpha > 0) & (alpha < C)
    if free.any():
        return float(score[free].mean())
    up, low = _masks(alpha, y, C)
    upper = score[low].min() if low.any() else score[up].max()
    lower = score[up].max() if up.any() else score[low].min()
    return float((upper + lower) / 2)


def smo_solve(Q: np.ndarray, p: np.ndarray, y: np.ndarray, C: float, *, alpha0: np.ndarray | None = None,
              tol: float = 1e-3, max_iter: int = 1_000_000) -> SMOResult:
    """Minimize ½αᵀQα + pᵀα over {yᵀα = 0, 0 ≤ α ≤ C} from a feasible ``alpha0`` (default 0).

    ``Q`` must be the full signed matrix Y K Y (positive semi-definite for convergence to the
    minimum; indefinite Q still gives monotone descent to a KKT point). The iterations run compiled
    (:mod:`kreinbench.methods.solvers.smo_loop`, imported here so that only a fit that solves an
    SMO problem pays for numba's import).
    """
    from kreinbench.methods.solvers.smo_loop import smo_iterations  # noqa: PLC0415

    Q = np.ascontiguousarray(Q, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    alpha = np.zeros(y.size) if alpha0 is None else np.array(alpha0, dtype=np.float64)
    G = Q @ alpha + np.asarray(p, dtype=np.float64)
    n_iter, violation = smo_iterations(Q, y, float(C), alpha, G, float(tol), int(max_iter))
    return SMOResult(alpha=alpha, gradient=G, n_iter=n_iter, violation=violation, converged=violation <= tol)
