"""DANK in the large-scale case (§4): k-means partition, one independent subproblem (18) per cluster.

Subproblem c is DANK on the cluster's kernel block K^(c,c) with no bias and no nuclear norm
(τ = 0), so each is :func:`solve_dank` with ``fit_intercept=False, tau=0``; every cluster shares the
η of the whole problem (Lemma 5: the concatenation then solves problem (19) with the
block-diagonal kernel K̄).  :func:`solve_cluster` is the unit of work of one cluster, so that a
workflow can run one job per cluster.
"""

from __future__ import annotations

import numpy as np

from kreinbench.methods.dank.problem import DankSolution, solve_dank

# k-means restarts (the partition is a heuristic; a few restarts make it reproducible in quality).
KMEANS_N_INIT = 3


def partition(X: np.ndarray, n_clusters: int, random_state):
    """k-means on the input features (a fitted ``KMeans``); ``predict`` assigns test points to their nearest centre."""
    from sklearn.cluster import KMeans  # noqa: PLC0415 (scikit-learn costs 1.5 s of start-up; only this path needs it)

    return KMeans(n_clusters=n_clusters, n_init=KMEANS_N_INIT, random_state=random_state).fit(X)


def solve_cluster(K_block: np.ndarray, y_block: np.ndarray, *, C, eta, solver, monotone, max_iter, tol, stopping,
                  name="DANK cluster") -> DankSolution:
    """Subproblem (18) on one cluster: maximize over 0 ≤ α ≤ C with F = J_0(11ᵀ + Γ(α))."""
    return solve_dank(K_block, y_block, C=C, eta=eta, tau=0.0, fit_intercept=False, solver=solver,
                      monotone=monotone, projection="exact", max_iter=max_iter, tol=tol, stopping=stopping,
                      name=name)


def merged_history(solutions: list[DankSolution]) -> list[dict]:
    """One row per iteration of the concatenated problem: the clusters' iterations side by side.

    objective = Σ_c h_c(α_c⁽ᵗ⁾) (a cluster that stopped keeps its last value), step_norm = the norm
    of the concatenated step, elapsed = the sum of the clusters' times (sequential solves).
    """
    n_rows = max(len(s.result.history) for s in solutions)
    rows = []
    for t in range(n_rows):
        objective, step_sq, elapsed = 0.0, 0.0, 0.0
        for s in solutions:
            h = s.result.history
            row = h[min(t, len(h) - 1)]
            objective += row["objective"]
            elapsed += row["elapsed"]
            if 0 < t < len(h):
                step_sq += row["step_norm"] ** 2
        rows.append({"iteration": t, "objective": objective,
                     "step_norm": float("nan") if t == 0 else float(np.sqrt(step_sq)), "elapsed": elapsed})
    return rows
