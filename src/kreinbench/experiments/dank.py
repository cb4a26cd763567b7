"""DANK's analysis experiments (JMLR §3, §6.2.1, §6.2.3, §6.3.1): arrays in, data out.

Figs. 1-2: SVM and DANK on the clowns with σ and C by the SVM's CV; Fig. 4: the convergence
histories of Nesterov's method, projected gradient and FISTA; Fig. 6: Theorems 7 and 8 on k-means
partitions; Fig. 9: SVR-CV against DANK-SVR on the paper's two test functions; Table 4: one
repetition of SVR-CV against DANK-SVR on a regression split. The stages of
:mod:`kreinbench.pipeline.stages.dank_figures` and :mod:`~kreinbench.pipeline.stages.dank_table4` read
the data, call these and draw the figures and tables.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd
from sklearn.svm import SVC, SVR

from kreinbench.data.parse import ParsedData
from kreinbench.data.split import minmax_fit
from kreinbench.data.synthetic import cherkassky_value, step_value
from kreinbench.errors import KreinbenchError
from kreinbench.methods.dank.estimator import DANK, resolve_eta
from kreinbench.methods.dank.partition import partition
from kreinbench.methods.dank.svr import DANKSVR, relative_mse
from kreinbench.methods.dank.theory import PartitionBounds, partition_bounds, solve_whole_problem
from kreinbench.methods.svm_grid import gaussian, grid_search

log = logging.getLogger(__name__)


def minmax_all(X: np.ndarray) -> np.ndarray:
    """Features scaled to [0, 1] over all rows (the figures fit every point; there is no test part)."""
    lo, span = minmax_fit(X)
    return (X - lo) / span


# --- Figures 1 and 2: clowns ---------------------------------------------------------------------

def plane_grid(X: np.ndarray, points: int, margin: float = 0.05):
    """A ``points`` × ``points`` grid over the bounding box of the 2-D ``X``, widened by ``margin``."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = margin * (hi - lo)
    axes = [np.linspace(lo[k] - pad[k], hi[k] + pad[k], points) for k in range(2)]
    xx, yy = np.meshgrid(*axes)
    return xx, yy, np.column_stack([xx.ravel(), yy.ravel()])


def clowns_panel(X, y, *, sigma: float, C: float, tau: float, solver: str, max_iter: int, grid: int) -> dict:
    """SVM and DANK (same K, same C) on all of ``X``: decision values on a grid, F*, rank, accuracy."""
    K = gaussian(X, sigma=sigma)
    svm = SVC(C=C, kernel="precomputed").fit(K, y)
    dank = DANK(C=C, tau=tau, solver=solver, max_iter=max_iter).fit(K, y, X)
    xx, yy, points = plane_grid(X, grid)
    K_grid = gaussian(points, X, sigma=sigma)
    F = dank.F_
    return {
        "sigma": sigma, "C": C, "xx": xx, "yy": yy,
        "svm": svm.decision_function(K_grid).reshape(xx.shape),
        "dank": dank.decision_function(K_grid, points).reshape(xx.shape),
        "F": F, "rank": dank.rank_F_, "F_min": float(F.min()), "F_max": float(F.max()),
        "svm_accuracy": float(np.mean(np.sign(svm.decision_function(K)) == y)),
        "dank_accuracy": float(np.mean(np.sign(dank.decision_function(K, X)) == y)),
        "n_iter": dank.n_iter_, "converged": dank.converged_,
    }


PANELS = ("a", "b")


def clowns_fits(X, y, *, sigma: float, sigma_grid, C_grid, tau: float, solver: str, max_iter: int, grid: int, folds: int,
                seed: int) -> dict[str, dict]:
    """Panel (a): the given σ with C by CV; panel (b): σ and C both by CV of the SVM (as the paper)."""
    _, C_a = grid_search(X, y, sigma_grid=[sigma], C_grid=C_grid, folds=folds, seed=seed, regression=False)
    sigma_b, C_b = grid_search(X, y, sigma_grid=sigma_grid, C_grid=C_grid, folds=folds, seed=seed, regression=False)
    panels = {}
    for name, (s, c) in zip(PANELS, [(sigma, C_a), (sigma_b, C_b)]):
        panels[name] = clowns_panel(X, y, sigma=s, C=c, tau=tau, solver=solver, max_iter=max_iter, grid=grid)
        log.info("clowns panel (%s): sigma=%g C=%g rank(F*)=%d F* in [%.4f, %.4f], %d iterations", name, s, c,
                 panels[name]["rank"], panels[name]["F_min"], panels[name]["F_max"], panels[name]["n_iter"])
    return panels


# --- Figure 4: Nesterov vs projected gradient ----------------------------------------------------

FIGURE4_SOLVERS = ("nesterov", "pg", "fista")


def figure4_data(K, y, X, *, C=1.0, eta="svm", tau=0.01, max_iter=2000, tol=0.0) -> pd.DataFrame:
    """Convergence histories of the solvers of problem (5) on one training set.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Train kernel.
    y : ndarray of shape (n,)
        Labels (two classes).
    X : ndarray of shape (n, d)
        Features (the estimator's out-of-sample extension needs them; unused by the solvers).
    C, eta, tau : float (eta also "svm" or "0.1C2")
        As for :class:`~kreinbench.methods.dank.estimator.DANK`; the paper's defaults τ = 0.01, η = ‖α_SVM‖².
    max_iter : int, default=2000
        Iterations of each solver (Algorithm 1's t_max).
    tol : float, default=0.0
        Tolerance of the paper's rule ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖ ≤ tol (the figure's panel (b)); 0 runs every
        solver for ``max_iter`` iterations, so that the curves cover the same range (a
        ConvergenceWarning then says so).

    Returns
    -------
    pandas.DataFrame
        One row per solver and iteration: ``solver``, ``iteration`` (0 = α⁽⁰⁾ = 0),
        ``objective`` H(α⁽ᵗ⁾, F(α⁽ᵗ⁾)), ``step_norm`` ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂ (NaN at t = 0), ``elapsed`` (s).
    """
    frames = []
    for solver in FIGURE4_SOLVERS:
        est = DANK(C=C, eta=eta, tau=tau, solver=solver, max_iter=max_iter, tol=tol, stopping="step").fit(K, y, X)
        frames.append(pd.DataFrame(est.history_).assign(solver=solver))
    return pd.concat(frames, ignore_index=True)[["solver", "iteration", "objective", "step_norm", "elapsed"]]


# --- Figure 6: Theorems 7 and 8 ------------------------------------------------------------------

def figure6_data(K, y, X, *, C, eta, cluster_counts=(2, 5, 10), random_state=None, kappa=None, max_iter=2000,
                 tol=1e-4) -> list[PartitionBounds]:
    """Fig. 6 of DANK: Theorems 7 and 8 for k-means partitions of ``X`` into each of ``cluster_counts``.

    The paper partitions by kernel k-means; the library's partitioned DANK uses k-means on the
    features (:func:`~kreinbench.methods.dank.partition.partition`), and so does this function,
    so the bounds are measured for the partitions the estimator actually uses.  (17) is solved
    once and shared by every partition.
    """
    y = np.asarray(y, dtype=float)
    exact = solve_whole_problem(np.asarray(K, dtype=float), y, C=C, eta=eta, max_iter=max_iter, tol=tol)
    return [partition_bounds(K, y, partition(X, v, random_state).labels_, C=C, eta=eta, exact=exact, kappa=kappa,
                             max_iter=max_iter, tol=tol)
            for v in cluster_counts]


def subsample(X: np.ndarray, y: np.ndarray, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows drawn uniformly without replacement (the paper's "randomly select 2,000 samples")."""
    if n > y.size:
        raise KreinbenchError(f"papers.dank_figures.fig6.n = {n} exceeds the {y.size} training rows of the dataset")
    idx = np.sort(np.random.default_rng(seed).choice(y.size, n, replace=False))
    return X[idx], y[idx]


def figure6_experiment(X, y, *, gamma: float, C: float, clusters, seed: int, max_iter: int):
    """§6.2.3 on the rows ``X``, ``y`` (labels ±1): the Gaussian kernel exp(−γ‖x − x'‖²) (Table 2 gives
    ijcnn1's 1/(2σ²) = γ = 2 and C = 32), η = ‖α_SVM‖²₂, and Theorems 7 and 8 for k-means partitions
    into each of ``clusters``. Returns (the :class:`PartitionBounds` per v, η)."""
    K = gaussian(X, sigma=math.sqrt(1.0 / (2.0 * gamma)))
    eta = resolve_eta("svm", C, K, y)
    results = figure6_data(K, y, X, C=C, eta=eta, cluster_counts=tuple(clusters), random_state=seed,
                           max_iter=max_iter)
    return results, eta


def fig6_table(results: list[PartitionBounds], eta: float, n: int) -> pd.DataFrame:
    return pd.DataFrame([r.summary() for r in results]).assign(n=n, eta=eta)


# --- Figure 9: SVR-CV vs DANK-SVR on test functions ----------------------------------------------

def regression_pair(X, y, X_eval, *, sigma_grid, C_grid, epsilon: float, tau: float, solver: str, max_iter: int,
                    folds: int, seed: int) -> dict:
    """SVR with (σ, C) by CV and DANK-SVR on the same kernel and C: predictions at ``X_eval``."""
    sigma, C = grid_search(X, y, sigma_grid=sigma_grid, C_grid=C_grid, folds=folds, seed=seed, regression=True,
                           epsilon=epsilon)
    K, K_eval = gaussian(X, sigma=sigma), gaussian(X_eval, X, sigma=sigma)
    svr = SVR(C=C, epsilon=epsilon, kernel="precomputed").fit(K, y)
    dank = DANKSVR(C=C, epsilon=epsilon, tau=tau, solver=solver, max_iter=max_iter).fit(K, y, X)
    return {"sigma": sigma, "C": C, "svr": svr.predict(K_eval), "dank": dank.predict(K_eval, X_eval),
            "svr_train": svr.predict(K), "dank_train": dank.predict(K, X), "dank_iterations": dank.n_iter_,
            "dank_converged": dank.converged_}


# The noiseless functions behind the synthetic regression datasets, for the evaluation grid.
TEST_FUNCTIONS = {
    "step-1d": lambda X: step_value(X[:, 0]),
    "cherkassky-2d": lambda X: cherkassky_value(X[:, 0], X[:, 1]),
}


def evaluation_grid(X: np.ndarray, points: int) -> np.ndarray:
    """``points`` per axis over the sample's bounding box (1-D: a line; 2-D: a ``points``² grid)."""
    axes = [np.linspace(X[:, k].min(), X[:, k].max(), points) for k in range(X.shape[1])]
    return np.column_stack([a.ravel() for a in np.meshgrid(*axes)])


def fig9_results(samples: dict[str, ParsedData], settings: dict, folds: int, seed: int):
    """Per test function: the grid, the true values, both predictions, and the table rows (RMSE on the grid)."""
    curves, rows = {}, []
    for dataset, data in samples.items():
        if dataset not in TEST_FUNCTIONS:
            raise KreinbenchError(f"fig9: no test function for dataset {dataset!r} (known: {', '.join(TEST_FUNCTIONS)})")
        grid = evaluation_grid(data.X, settings["points_1d" if data.X.shape[1] == 1 else "points_2d"])
        truth = TEST_FUNCTIONS[dataset](grid)
        fit = regression_pair(data.X, data.y, grid, sigma_grid=settings["sigma_grid"], C_grid=settings["C_grid"],
                              epsilon=settings["epsilon"], tau=settings["tau"], solver=settings["solver"],
                              max_iter=settings["max_iter"], folds=folds, seed=seed)
        curves[dataset] = {"X": data.X, "y": data.y, "grid": grid, "truth": truth, **fit}
        for method in ("svr", "dank"):
            rows.append({"dataset": dataset, "method": method, "sigma": fit["sigma"], "C": fit["C"],
                         "rmse": relative_mse(truth, fit[method]),
                         "rmse_train": relative_mse(data.y, fit[f"{method}_train"]),
                         "converged": fit["dank_converged"] if method == "dank" else True})
    return curves, pd.DataFrame(rows)


def capped_training(X, y, max_train: int | None, seed: int):
    """At most ``max_train`` training rows, drawn without replacement by ``seed`` (all when None)."""
    if max_train is None or y.size <= max_train:
        return X, y
    idx = np.sort(np.random.default_rng(seed).choice(y.size, max_train, replace=False))
    return X[idx], y[idx]


def svr_repetition(X_train, y_train, X_test, y_test, *, settings: dict, folds: int, seed: int) -> list[dict]:
    """One repetition: SVR with (σ, C) by CV, DANK-SVR with the same kernel and C; relative MSE of each
    on the training and the test part, in the original units of y."""
    X_train, y_train = capped_training(X_train, y_train, settings.get("max_train"), seed)
    centre, scale = float(y_train.mean()), float(y_train.std()) or 1.0
    z = (y_train - centre) / scale
    sigma, C = grid_search(X_train, z, sigma_grid=settings["sigma_grid"], C_grid=settings["C_grid"], folds=folds,
                           seed=seed, regression=True, epsilon=settings["epsilon"])
    K, K_test = gaussian(X_train, sigma=sigma), gaussian(X_test, X_train, sigma=sigma)
    svr = SVR(C=C, epsilon=settings["epsilon"], kernel="precomputed").fit(K, z)
    dank = DANKSVR(C=C, epsilon=settings["epsilon"], tau=settings["tau"], solver=settings["solver"],
                   max_iter=settings["max_iter"]).fit(K, z, X_train)
    predictions = {"svr-cv": (svr.predict(K), svr.predict(K_test)),
                   "dank": (dank.predict(K, X_train), dank.predict(K_test, X_test))}
    return [{"method": method, "sigma": sigma, "C": C, "n_train": int(y_train.size), "n_test": int(y_test.size),
             "rmse_train": relative_mse(y_train, centre + scale * train),
             "rmse_test": relative_mse(y_test, centre + scale * test),
             **({"dank_iterations": dank.n_iter_, "dank_converged": bool(dank.converged_)} if method == "dank" else {})}
            for method, (train, test) in predictions.items()]
