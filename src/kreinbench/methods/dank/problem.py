"""DANK-SVM's dual problem (5): its oracle h(α), ∇h(α), its Lipschitz constants, and one solve.

    h(α) = min_{F ⪰ 0} H(α, F),  H = 1ᵀα − ½αᵀY(F ⊙ K)Yα + η‖F − 11ᵀ‖²_F + τη‖F‖_*,

attained at F(α) = J_{τ/2}(11ᵀ + Γ(α)) (:class:`AdaptiveMatrix` with v = y ⊙ α), and by Danskin's
theorem ∇h(α) = 1 − Y(F(α) ⊙ K)Yα (eq. (26)).  The k-means subproblems (18) are the same problem
with τ = 0 and no bias (A is the box alone).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kreinbench.linalg.eigen import largest_eigenvalue
from kreinbench.methods.dank.adaptive import AdaptiveMatrix, adaptive_matrices
from kreinbench.methods.dank.solver import (
    STOPPING_RULES,  # noqa: F401 (re-exported beside SOLVERS and PROJECTIONS for the estimators)
    AscentResult,
    Evaluation,
    backtracking_ascent,
    kkt_intercept,
    make_projection,
    nesterov_ascent,
    projected_gradient_ascent,
)
from kreinbench.methods.solvers.dual_gap import make_gap

SOLVERS = {"nesterov", "pg", "fista"}
PROJECTIONS = {"exact", "alternating"}


def dank_evaluate(K: np.ndarray, y: np.ndarray, eta: float, tau: float):
    """The oracle α ↦ (h(α), ∇h(α), F(α))."""

    adaptive_matrix = adaptive_matrices(K, eta, tau)

    def evaluate(alpha: np.ndarray) -> Evaluation:
        v = y * alpha
        F = adaptive_matrix(v)
        g = F.hadamard_times_v()
        value = float(alpha.sum() - 0.5 * v @ g + F.penalty(eta, tau))
        return Evaluation(value, 1.0 - y * g, F)

    return evaluate


def nesterov_lipschitz(K: np.ndarray, C: float, eta: float) -> float:
    """L = n + 3nC²‖K‖²_F/(4η) of Theorem 4 (Algorithm 1's input)."""
    n = K.shape[0]
    return n + 3.0 * n * C**2 * float(np.sum(K * K)) / (4.0 * eta)


def pg_lipschitz(K: np.ndarray, C: float, eta: float, tau: float) -> float:
    """L = n − τ/2 + nC²λ_max(K)/(4η), the step of the projected gradient baseline (eq. (16))."""
    n = K.shape[0]
    lam_max = largest_eigenvalue(K, seed=0)
    return n - 0.5 * tau + n * C**2 * max(lam_max, 0.0) / (4.0 * eta)


@dataclass
class DankSolution:
    alpha: np.ndarray
    F: AdaptiveMatrix
    intercept: float
    objective: float
    result: AscentResult
    lipschitz: float


def solve_dank(K, y, *, C, eta, tau, fit_intercept, solver, monotone, projection, max_iter, tol, stopping,
               x0=None, name="DANK") -> DankSolution:
    """Maximize h over A = {yᵀα = 0, 0 ≤ α ≤ C} (or over the box when ``fit_intercept`` is False).

    The ascent starts at α⁽⁰⁾ = 0, or at the projection of ``x0`` onto A (a warm start: it changes
    the iterations, not the maximum of the concave h).

    ``stopping`` is the solvers' ``rule`` (:mod:`kreinbench.methods.dank.solver`): "gap" stops on
    the relative Wolfe gap G(α)/|h(α)| ≤ ``tol`` (:mod:`kreinbench.methods.solvers.dual_gap`), "step" on
    the paper's ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂ ≤ ``tol``.
    """
    n = y.size
    z = y if fit_intercept else None
    evaluate = dank_evaluate(K, y, eta, tau)
    project = make_projection(projection, z, C)
    start = np.zeros(n) if x0 is None else project(np.asarray(x0, dtype=float))
    common = dict(max_iter=max_iter, tol=tol, rule=stopping, gap=make_gap(z, C), name=name)
    if solver == "nesterov":
        L = nesterov_lipschitz(K, C, eta)
        res = nesterov_ascent(evaluate, project, start, lipschitz=L, monotone=monotone, **common)
    elif solver == "fista":
        L = nesterov_lipschitz(K, C, eta)  # the cap of the backtracked L
        res = backtracking_ascent(evaluate, project, start, lipschitz=L, **common)
    else:
        L = pg_lipschitz(K, C, eta, tau)
        res = projected_gradient_ascent(evaluate, project, start, lipschitz=L, **common)
    b = kkt_intercept(res.evaluation.grad, y, res.x, C) if fit_intercept else 0.0
    return DankSolution(res.x, res.evaluation.state, b, res.evaluation.value, res, L)
