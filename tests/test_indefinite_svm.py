import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.methods.isvm.indefinite_svm import IndefiniteSVM, ProxyObjective
from reference import project_bisection


def ying_problem(n, seed):
    """Ying et al.'s construction: Gaussian kernel minus 0.1 (E + Eᵀ)/2 with E standard normal."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=n) > 0, 1.0, -1.0)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 4.0)
    E = rng.normal(size=(n, n))
    K0 = K - 0.1 * (E + E.T) / 2
    assert np.linalg.eigvalsh(K0)[0] < 0
    return K0, y


def f_by_definition(K0, y, rho, alpha):
    """f(α) = L(α, K(α)) with K(α) = (K₀ + Yααᵀ Y/(4ρ))₊ formed explicitly (Ying eqs. (3), (4))."""
    v = y * alpha
    mu, U = np.linalg.eigh(K0 + np.outer(v, v) / (4 * rho))
    Kp = (U * np.maximum(mu, 0)) @ U.T
    return alpha.sum() - 0.5 * v @ Kp @ v + rho * np.sum((Kp - K0) ** 2), 1 - y * (Kp @ v)


def reference_maximum(K0, y, C, rho, iters=4000):
    """FISTA with adaptive restart on −f, using f_by_definition; returns max f."""
    n = y.size
    L = max(np.linalg.eigvalsh(K0)[-1], 0) + n * C * C / rho
    x = z = np.zeros(n)
    t, best = 1.0, -np.inf
    f_prev = -np.inf
    for _ in range(iters):
        _, g = f_by_definition(K0, y, rho, z)
        x_new = project_bisection(z + g / L, y, C)
        f_new, _ = f_by_definition(K0, y, rho, x_new)
        best = max(best, f_new)
        if f_new < f_prev:  # restart the momentum
            t, z = 1.0, x
            continue
        t_new = (1 + np.sqrt(1 + 4 * t * t)) / 2
        z = x_new + (t - 1) / t_new * (x_new - x)
        x, t, f_prev = x_new, t_new, f_new
    return best


def test_objective_and_gradient_match_the_definition_and_finite_differences():
    K0, y = ying_problem(30, seed=1)
    rho = 0.7
    obj = ProxyObjective(K0, y, rho)
    alpha = project_bisection(np.random.default_rng(2).uniform(0, 1.5, 30), y, 1.5)
    f, g = obj.value_and_gradient(alpha)
    f_ref, g_ref = f_by_definition(K0, y, rho, alpha)
    assert f == pytest.approx(f_ref, rel=1e-11)
    np.testing.assert_allclose(g, g_ref, atol=1e-10)
    d = np.random.default_rng(3).normal(size=30)
    h = 1e-5
    fd = (obj.value_and_gradient(alpha + h * d)[0] - obj.value_and_gradient(alpha - h * d)[0]) / (2 * h)
    assert fd == pytest.approx(g @ d, rel=1e-6)


def test_spgm_and_smm_reach_the_independent_maximum():
    K0, y = ying_problem(40, seed=0)
    C, rho = 1.0, 1.0
    smm = IndefiniteSVM(solver="smm", C=C, rho=rho, tol=1e-12, max_iter=20000).fit(K0, y)
    spgm = IndefiniteSVM(solver="spgm", C=C, rho=rho, tol=1e-12, max_iter=20000).fit(K0, y)
    f_ref = reference_maximum(K0, y, C, rho)
    assert abs(smm.objective_ - spgm.objective_) <= 1e-6 * abs(f_ref)
    assert abs(smm.objective_ - f_ref) <= 1e-6 * abs(f_ref)
    assert smm.objective_ == pytest.approx(f_by_definition(K0, y, rho, smm.alpha_)[0], rel=1e-12)
    for est in (smm, spgm):
        assert abs(y @ est.alpha_) <= 1e-10
        assert est.alpha_.min() >= -1e-10 and est.alpha_.max() <= C + 1e-10
        assert est.stationarity_ < 1e-3
    # SMM needs fewer iterations than SPGM (Ying Fig. 1), and SPGM's f never decreases (Theorem 3).
    assert smm.n_iter_ < spgm.n_iter_
    f_spgm = np.array([row["objective"] for row in spgm.history_])
    assert np.all(np.diff(f_spgm) >= -1e-12 * np.abs(f_spgm[1:]))


def test_proxy_test_kernel_reproduces_the_proxy_svm_on_training_points():
    K0, y = ying_problem(40, seed=4)
    rho = 0.5
    est = IndefiniteSVM(C=1.0, rho=rho, test_kernel="proxy").fit(K0, y)
    v = y * est.alpha_
    mu, U = np.linalg.eigh(K0 + np.outer(v, v) / (4 * rho))
    Kp = (U * np.maximum(mu, 0)) @ U.T
    np.testing.assert_allclose(est.decision_function(K0), Kp @ v + est.intercept_, atol=1e-8)
    original = IndefiniteSVM(C=1.0, rho=rho).fit(K0, y)
    np.testing.assert_allclose(original.decision_function(K0), K0 @ v + est.intercept_, atol=1e-12)


def test_parameters_are_validated():
    K0, y = ying_problem(20, seed=5)
    with pytest.raises(KreinbenchError, match="parameter rho"):
        IndefiniteSVM(rho=0.0).fit(K0, y)
    with pytest.raises(KreinbenchError, match="parameter solver"):
        IndefiniteSVM(solver="accpm").fit(K0, y)
    with pytest.raises(KreinbenchError, match="parameter test_kernel"):
        IndefiniteSVM(test_kernel="luss").fit(K0, y)


def test_rank_one_update_matches_a_dense_eigendecomposition():
    from kreinbench.linalg.spectrum import eigendecompose
    from kreinbench.methods.isvm.indefinite_svm import RankOneProxyProducts
    K0, y = ying_problem(60, seed=6)
    spectrum = eigendecompose(K0)
    update = RankOneProxyProducts(spectrum)
    rng = np.random.default_rng(7)
    # A generic v, a v with components deflated (an eigenvector of K₀), and v = 0.
    for v in (rng.normal(scale=3.0, size=60), spectrum.eigenvectors[:, 5] + spectrum.eigenvectors[:, -1], np.zeros(60)):
        M = K0 + 0.3 * np.outer(v, v)
        mu, U = np.linalg.eigh(M)
        neg = mu < 0
        Mpos_v, vK0v, sum_sq = update(v, 0.3)
        scale = np.abs(M).max() * max(np.linalg.norm(v), 1.0)
        np.testing.assert_allclose(Mpos_v, U[:, ~neg] @ (mu[~neg] * (U[:, ~neg].T @ v)), atol=1e-11 * scale)
        assert vK0v == pytest.approx(v @ K0 @ v, rel=1e-12, abs=1e-12 * scale * max(np.linalg.norm(v), 1.0))
        assert sum_sq == pytest.approx(np.sum(mu[neg] ** 2), rel=1e-12)


def tied_kernel(kind: str):
    """An indefinite kernel with a repeated eigenvalue: two equal negative ones, or the zero
    eigenvalue of a low-rank kernel (28 of 40, as a linear kernel of 12 features has) beside
    negative ones."""
    K0, y = ying_problem(40, seed=8)
    mu, U = np.linalg.eigh(K0)
    if kind == "negative":
        mu[3] = mu[2]
    else:
        mu[4:32] = 0.0
    K = (U * mu) @ U.T
    return (K + K.T) / 2, y


@pytest.mark.parametrize("kind", ["negative", "low-rank"])
def test_rank_one_merges_tied_eigenvalues_exactly_and_needs_no_dense_fallback(kind):
    from kreinbench.linalg.spectrum import eigendecompose
    from kreinbench.methods.isvm.indefinite_svm import RankOneProxyProducts
    K_tied, y = tied_kernel(kind)
    update = RankOneProxyProducts(eigendecompose(K_tied))
    v = np.random.default_rng(9).normal(size=40)
    for c in (0.05, 3.0):
        M = K_tied + c * np.outer(v, v)
        mu, U = np.linalg.eigh(M)
        neg = mu < 0
        Mpos_v, _, sum_sq = update(v, c)
        scale = np.abs(M).max() * np.linalg.norm(v)
        np.testing.assert_allclose(Mpos_v, U[:, ~neg] @ (mu[~neg] * (U[:, ~neg].T @ v)), atol=1e-11 * scale)
        assert sum_sq == pytest.approx(np.sum(mu[neg] ** 2), rel=1e-10)
    fast = IndefiniteSVM(C=1.0, rho=0.5, tol=1e-9, eigensolver="rank-one").fit(K_tied, y)
    dense = IndefiniteSVM(C=1.0, rho=0.5, tol=1e-9, eigensolver="eigh").fit(K_tied, y)
    # before the merge, every iteration on a low-rank kernel fell back to a dense eigh
    assert fast.n_eigh_fallbacks_ == 0
    assert fast.objective_ == pytest.approx(dense.objective_, rel=1e-10)
    np.testing.assert_allclose(fast.alpha_, dense.alpha_, atol=1e-8)


def test_gap_at_zero_is_the_linear_max_over_q1_by_linprog():
    """APG's certificate at α = 0 is max gᵀβ over Q₁: ties (rounded g) and all-negative g included."""
    from scipy.optimize import linprog

    from kreinbench.methods.solvers.dual_gap import wolfe_gap
    rng = np.random.default_rng(11)
    for n, C in ((7, 1.0), (30, 2.5), (31, 100.0)):
        y = np.where(rng.random(n) < 0.3, 1.0, -1.0)
        y[:2] = (1.0, -1.0)
        for g in (rng.normal(size=n), np.round(rng.normal(size=n)), -np.abs(rng.normal(size=n))):
            ref = linprog(-g, A_eq=y[None], b_eq=[0.0], bounds=[(0, C)] * n, method="highs")
            assert wolfe_gap(g, np.zeros(n), y, C) == pytest.approx(-ref.fun, rel=1e-9, abs=1e-9)


def test_apg_reaches_the_independent_maximum_in_few_iterations():
    K0, y = ying_problem(40, seed=0)
    # C = 10, ρ = 0.1: L = λ_max + nC²/ρ is 4·10⁴ times the local curvature.
    for C, rho in ((10.0, 0.1),):
        apg = IndefiniteSVM(solver="apg", C=C, rho=rho, tol=1e-9).fit(K0, y)
        f_ref = reference_maximum(K0, y, C, rho)
        assert apg.objective_ == pytest.approx(f_ref, rel=1e-8)
        assert apg.objective_ == pytest.approx(f_by_definition(K0, y, rho, apg.alpha_)[0], rel=1e-12)
        assert abs(y @ apg.alpha_) <= 1e-10 and apg.alpha_.min() >= 0 and apg.alpha_.max() <= C
        # The Frank–Wolfe gap bounds the suboptimality from above.
        assert f_ref - apg.objective_ <= apg.gap_ + 1e-9 * abs(f_ref)
        spgm = IndefiniteSVM(solver="spgm", C=C, rho=rho, max_iter=200).fit(K0, y)
        assert apg.n_iter_ < 200 and apg.objective_ > spgm.objective_


@pytest.fixture(scope="module")
def sonar_noisy_rbf(load_split):
    """Ying §5's noisy Gaussian kernel (σ = 1) on the training half of UCI Sonar (offline mirror)."""
    from kreinbench.linalg.kernels import kernel_matrices, resolve_params
    split = load_split("sonar-uci")
    params = resolve_params({"type": "noisy-rbf", "sigma": 1.0, "noise": 0.1}, split.X_train.shape[1], split_seed=7)
    K, K_test = kernel_matrices(params, split.X_train, split.X_test)
    assert np.linalg.eigvalsh(K)[0] < 0
    return K, split.y_train


@pytest.mark.parametrize("C, rho", [(1.0, 1.0), (10.0, 10.0), (0.1, 0.1)])
def test_apg_at_its_default_tolerance_reaches_the_papers_smm_optimum_on_sonar(sonar_noisy_rbf, C, rho):
    K, y = sonar_noisy_rbf
    smm = IndefiniteSVM(solver="smm", C=C, rho=rho, tol=1e-15, max_iter=60000).fit(K, y)
    apg = IndefiniteSVM(solver="apg", C=C, rho=rho).fit(K, y)
    # SMM run far past the paper's tolerance: its f is the maximum to well below 1e-6.
    assert smm.stationarity_ < 1e-4
    assert apg.objective_ == pytest.approx(smm.objective_, rel=1e-6)
    assert apg.n_iter_ < smm.n_iter_


def test_grid_path_scores_are_those_of_cold_separate_fits(sonar_noisy_rbf):
    from kreinbench.methods.selection import cross_validate
    K, y = sonar_noisy_rbf
    grid = {"C": [0.1, 1, 10, 100], "rho": [0.1, 10]}
    path = cross_validate(lambda p: IndefiniteSVM(solver="smm", cv_solver="apg", **p), {"k": K}, y, grid,
                          n_folds=3, seed=1)
    separate = cross_validate(lambda p: IndefiniteSVM(solver="apg", **p), {"k": K}, y, grid,
                              n_folds=3, seed=1, paths=False)
    for a, b in zip(path.scores, separate.scores):
        assert (a["C"], a["rho"]) == (b["C"], b["rho"])
        assert a["cv_accuracy"] == pytest.approx(b["cv_accuracy"], abs=1e-12)
    assert path.best_params == separate.best_params
    # The paper's solvers alone still fit separately (no path for them).
    assert not IndefiniteSVM(solver="smm").supports_grid_path(grid)
    assert IndefiniteSVM(solver="spgm", cv_solver="apg").supports_grid_path(grid)
    assert not IndefiniteSVM(solver="apg").supports_grid_path({"C": [1], "tol": [1e-6]})
