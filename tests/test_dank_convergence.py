"""DANK Fig. 4 data on KEEL heart: both solvers' histories, checked against the first steps by hand."""

import numpy as np
import pytest
from sklearn.svm import SVC

from kreinbench.experiments.dank import figure4_data
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.methods.base import ConvergenceWarning
from kreinbench.methods.dank.estimator import DANK
from reference import project_bisection

C, TAU, ITERATIONS = 1.0, 0.01, 40


@pytest.fixture(scope="module")
def heart(load_split):
    split = load_split("heart")
    params = resolve_params({"type": "rbf", "sigma": 1.0}, split.X_train.shape[1])
    K, _ = kernel_matrices(params, split.X_train, split.X_test)
    y = np.where(split.y_train == np.unique(split.y_train)[1], 1.0, -1.0)
    with pytest.warns(ConvergenceWarning):  # tol = 0: both run all ITERATIONS
        data = figure4_data(K, split.y_train, split.X_train, C=C, tau=TAU, max_iter=ITERATIONS)
    return K, y, split, data


def test_both_solvers_cover_the_same_iterations(heart):
    _, _, _, data = heart
    for solver in ("nesterov", "pg"):
        rows = data[data.solver == solver]
        assert rows.iteration.tolist() == list(range(ITERATIONS + 1))
        assert np.isnan(rows.step_norm.iloc[0]) and np.all(rows.step_norm.iloc[1:] > 0)


def test_our_solver_ends_at_least_as_high_as_the_papers_two(heart):
    _, _, _, data = heart
    final = data.groupby("solver").objective.last()
    fista = data[data.solver == "fista"]
    assert fista.iteration.tolist() == list(range(ITERATIONS + 1))
    assert np.all(np.diff(fista.objective) >= -1e-9 * abs(fista.objective.iloc[-1]))  # monotone
    assert final["fista"] >= max(final["nesterov"], final["pg"]) - 1e-9 * abs(final["fista"])


def test_first_point_and_first_steps_follow_the_paper(heart):
    """α⁽⁰⁾ = 0: F = J_{τ/2}(11ᵀ), H = η(τ/2)² + τη(n − τ/2), ∇h = 1; then eq. (16) and Algorithm 1."""
    K, y, split, data = heart
    n = y.size
    eta = float(np.sum(SVC(C=C, kernel="precomputed").fit(K, y).dual_coef_ ** 2))
    h0 = eta * (TAU / 2) ** 2 + TAU * eta * (n - TAU / 2)
    np.testing.assert_allclose(data[data.iteration == 0].objective, h0, rtol=1e-12)
    L_nesterov = n + 3 * n * C**2 * np.sum(K * K) / (4 * eta)
    theta = project_bisection(np.ones(n) / L_nesterov, y, C)
    beta = project_bisection(np.ones(n) / (2 * L_nesterov), y, C)
    alpha1 = (theta + 2 * beta) / 3
    L_pg = n - TAU / 2 + n * C**2 * np.linalg.eigvalsh(K)[-1] / (4 * eta)
    pg1 = project_bisection(np.ones(n) / L_pg, y, C)
    first = data[data.iteration == 1].set_index("solver").step_norm
    np.testing.assert_allclose(first["nesterov"], np.linalg.norm(alpha1), rtol=1e-9)
    np.testing.assert_allclose(first["pg"], np.linalg.norm(pg1), rtol=1e-9)


def test_last_point_is_the_fitted_estimator(heart):
    K, _, split, data = heart
    with pytest.warns(ConvergenceWarning):
        pg = DANK(C=C, tau=TAU, solver="pg", max_iter=ITERATIONS, tol=0.0).fit(K, split.y_train, split.X_train)
    np.testing.assert_allclose(data[data.solver == "pg"].objective.iloc[-1], pg.objective_, rtol=1e-12)
