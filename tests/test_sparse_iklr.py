"""SparseIKLR (RIKLR, Wang & Yao 2025): criticality of the returned point checked against an independent
gradient, the Newton path's critical points against the prox-linear steps' and its Hessian against finite
differences, monotone descent, IKLR's critical value at μ = 0, the sparsity path and its closed-form μ_max,
the convex cases against scipy's L-BFGS(-B), and the estimator protocol."""

import warnings

import numpy as np
import pytest
import scipy.optimize
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError

from conftest import klr_objective_and_gradient
from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import rbf, tl1
from kreinbench.linalg.spectrum import compute_spectrum
from kreinbench.methods import IKLR, ConvergenceWarning, RunawayWarning, sparse_iklr
from kreinbench.methods.sparse_iklr import SparseIKLR, _Problem, mu_max, soft_threshold


def toy(n, seed=0, noise=0.3):
    """Points in [0, 1]^4 labelled by a noisy linear rule (labels 0/1: classes_[1] = 1 is +1)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 4))
    return X, np.where(X[:, 0] + X[:, 1] > 1 + noise * rng.normal(size=n), 1, 0)


@pytest.fixture(scope="module")
def tl1_problem():
    X, y = toy(100)
    K = tl1(X, tau=1.0)
    assert np.linalg.eigvalsh(K)[0] < -0.1  # genuinely indefinite
    return K, y, np.where(y == 1, 1.0, -1.0)


def full_objective(est, K, y_pm):
    f = klr_objective_and_gradient(K, y_pm, est.lam, est.alpha_, est.intercept_)[0]
    return f + est.mu * np.abs(est.alpha_).sum()


@pytest.mark.parametrize(("solver", "step", "mu"), [("newton", "bb", 1e-3), ("newton", "bb", 1e-2),
                                                    ("prox-linear", "bb", 1e-3), ("prox-linear", "lipschitz", 1e-2)])
def test_returned_point_is_critical_on_an_indefinite_kernel(tl1_problem, solver, step, mu):
    K, y, y_pm = tl1_problem
    lam = 1e-3
    est = SparseIKLR(lam=lam, mu=mu, solver=solver, step=step, tol=1e-9, max_iter=200000).fit(K, y)
    assert not est.diverged_ and est.stationarity_ <= 1e-9
    # Sparse, but not trivially: the ℓ1 term acts.
    assert 0 < est.support_.size < 0.6 * y.size
    _, g_alpha, g_b = klr_objective_and_gradient(K, y_pm, lam, est.alpha_, est.intercept_)
    on = est.alpha_ != 0
    scale = 1e-7 * np.linalg.norm(g_alpha)
    # 0 ∈ ∇f + μ∂‖α‖₁: ∇_i f = −μ sign(α_i) on the support, |∇_i f| ≤ μ off it, ∇_b f = 0.
    np.testing.assert_allclose(g_alpha[on], -mu * np.sign(est.alpha_[on]), rtol=0, atol=scale)
    assert np.all(np.abs(g_alpha[~on]) <= mu + scale)
    assert abs(g_b) <= scale
    # Fixed point of the proximal linearized map with the paper's step 1/L_g.
    L = est.lipschitz_
    moved = soft_threshold(est.alpha_ - g_alpha / L, mu / L)
    residual = np.hypot(np.linalg.norm(est.alpha_ - moved), g_b / L)
    assert L * residual <= scale


def test_both_step_rules_and_the_newton_path_reach_the_same_critical_point(tl1_problem):
    K, y, y_pm = tl1_problem
    fits = [SparseIKLR(lam=1e-3, mu=1e-2, solver=solver, step=step, tol=1e-9, max_iter=200000).fit(K, y)
            for solver, step in (("prox-linear", "lipschitz"), ("prox-linear", "bb"), ("newton", "bb"))]
    for fit in fits[1:]:
        np.testing.assert_array_equal(fits[0].support_, fit.support_)
        assert full_objective(fits[0], K, y_pm) == pytest.approx(full_objective(fit, K, y_pm), rel=1e-10)
    # BB's steps are what it is for: far fewer iterations to the same point; the path's Newton
    # systems fewer still, and it needs no prox-linear step to finish.
    assert fits[1].n_iter_ < fits[0].n_iter_ / 5
    assert fits[2].n_iter_ == fits[2].n_newton_ < fits[1].n_iter_ / 5


# (λ, μ) on the indefinite TL1 kernel and on a positive definite RBF kernel (convex: one minimum).
NEWTON_CASES = [("tl1", 1e-4, 1e-3), ("tl1", 1e-3, 1e-3), ("tl1", 1e-2, 1e-2), ("tl1", 1.0, 1e-2),
                ("rbf", 1e-3, 1e-3), ("rbf", 1e-2, 1e-3)]


@pytest.mark.parametrize(("kernel", "lam", "mu"), NEWTON_CASES)
def test_newton_path_returns_the_prox_linear_critical_point(tl1_problem, kernel, lam, mu):
    """Where the paper's steps converge, the path returns their critical point: the same support and
    signs, F within round-off, and a point critical to the same tolerance, with exact zeros."""
    K, y, y_pm = tl1_problem
    if kernel == "rbf":
        X, _ = toy(100)
        K = rbf(X, sigma=0.5)
    reference = SparseIKLR(lam=lam, mu=mu, solver="prox-linear", tol=1e-10, max_iter=400000).fit(K, y)
    assert not reference.diverged_ and reference.stationarity_ <= 1e-10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        newton = SparseIKLR(lam=lam, mu=mu, tol=1e-10).fit(K, y)
    assert newton.stationarity_ <= 1e-10 and newton.n_iter_ == newton.n_newton_ <= 80
    np.testing.assert_array_equal(newton.support_, reference.support_)
    np.testing.assert_array_equal(np.sign(newton.alpha_), np.sign(reference.alpha_))
    assert full_objective(newton, K, y_pm) == pytest.approx(full_objective(reference, K, y_pm), rel=1e-11)
    np.testing.assert_allclose(newton.decision_function(K), reference.decision_function(K), rtol=0, atol=1e-5)


def test_newton_path_converges_where_the_prox_linear_steps_stall():
    """The slowness the path is for: a TL1 kernel of benchmark shape (τ = 0.7·m, 120 points in [0, 1]^4;
    eigenvalues from −0.04 to 180, the smallest |ν| 6e-3, so that ∇²f = KDK + λK spans some eight
    orders at λ = 1e-4) at small λ and μ: after 3000 BB steps relative stationarity is above 1e-3,
    while the path is critical to 1e-8 within 40 Newton systems, at an F lower by more than 0.01."""
    X, y = toy(120, seed=1)
    K = tl1(X, tau=0.7 * X.shape[1])
    with pytest.warns(ConvergenceWarning):
        stalled = SparseIKLR(lam=1e-4, mu=1e-4, solver="prox-linear", max_iter=3000).fit(K, y)
    newton = SparseIKLR(lam=1e-4, mu=1e-4, tol=1e-8).fit(K, y)
    assert stalled.stationarity_ > 1e-3 and newton.stationarity_ <= 1e-8 and newton.n_iter_ <= 40
    assert newton.history_[-1]["objective"] < stalled.history_[-1]["objective"] - 1e-2


def test_hessian_matches_finite_differences_of_the_gradient(tl1_problem):
    """∇²f of the Newton steps, whole and on a support (with the bias row), against central
    differences of the independent gradient."""
    K, _, y_pm = tl1_problem
    rng = np.random.default_rng(1)
    lam, alpha, b = 1e-2, rng.normal(size=y_pm.size) * 0.3, 0.2
    problem = _Problem(K, y_pm, lam, 1e-3, 1.0)
    S = np.flatnonzero(rng.uniform(size=y_pm.size) < 0.3)
    for subset in (None, S):
        H = problem.hessian(K @ alpha, b, subset)
        coords = np.append(np.arange(y_pm.size) if subset is None else subset, -1)  # -1: the bias
        h = 1e-6
        for j, c in enumerate(coords):
            e_alpha, e_b = np.zeros(y_pm.size), 0.0
            if c < 0:
                e_b = h
            else:
                e_alpha[c] = h
            _, ga_p, gb_p = klr_objective_and_gradient(K, y_pm, lam, alpha + e_alpha, b + e_b)
            _, ga_m, gb_m = klr_objective_and_gradient(K, y_pm, lam, alpha - e_alpha, b - e_b)
            column = np.append((ga_p - ga_m)[coords[:-1]], gb_p - gb_m) / (2 * h)
            np.testing.assert_allclose(H[:, j], column, rtol=1e-6, atol=1e-9)
        np.testing.assert_array_equal(H, H.T)


def test_a_path_that_does_not_finish_leaves_no_trace(tl1_problem, monkeypatch):
    """A path too short to polish (one stage, no support to compare with) hands over to the
    prox-linear steps from the start: the fit of ``solver="prox-linear"``, iterate for iterate."""
    K, y, _ = tl1_problem
    monkeypatch.setattr(sparse_iklr, "SMOOTHING_FLOOR", 1.0)
    handed = SparseIKLR(lam=1e-3, mu=1e-2, tol=1e-9, max_iter=200000).fit(K, y)
    alone = SparseIKLR(lam=1e-3, mu=1e-2, solver="prox-linear", tol=1e-9, max_iter=200000).fit(K, y)
    assert 0 < handed.n_newton_ and handed.n_iter_ == handed.n_newton_ + alone.n_iter_
    assert handed.stationarity_ <= 1e-9
    np.testing.assert_array_equal(handed.alpha_, alone.alpha_)
    assert handed.intercept_ == alone.intercept_
    assert [row["objective"] for row in handed.history_] == [row["objective"] for row in alone.history_]


def test_a_path_that_runs_away_is_not_the_verdict():
    """F_ε at a large ε has no kinks to hold a critical point where F has one, and a shifted Newton
    step can leave its basin: on the centred iris kernel of scikit-learn's estimator checks
    (eigenvalues −1.5e3 to 2.1e3) the path runs away, and the prox-linear steps from the start
    reach the critical point they reach alone."""
    X, y = load_iris(return_X_y=True)
    K = X @ X.T
    K -= K.mean()  # what check_positive_only_tag_during_fit passes
    y = y > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        newton = SparseIKLR().fit(K, y)
        alone = SparseIKLR(solver="prox-linear").fit(K, y)
    assert not newton.diverged_ and 0 < newton.n_newton_ < newton.n_iter_ and newton.stationarity_ <= newton.tol
    np.testing.assert_array_equal(newton.alpha_, alone.alpha_)


@pytest.mark.parametrize(("solver", "step"), [("prox-linear", "bb"), ("prox-linear", "lipschitz"), ("newton", "bb")])
def test_objective_decreases_monotonically(tl1_problem, solver, step):
    K, y, y_pm = tl1_problem
    est = SparseIKLR(lam=1e-3, mu=1e-2, solver=solver, step=step, tol=1e-7, max_iter=200000).fit(K, y)
    F = np.array([row["objective"] for row in est.history_])
    change = np.array([row["change"] for row in est.history_[1:]])
    iterations = np.array([row["iteration"] for row in est.history_])
    if solver == "prox-linear":
        assert len(F) == est.n_iter_ + 1 > 10
    else:  # the start and the path's critical point
        assert len(F) == 2 and iterations[-1] == est.n_iter_ == est.n_newton_
    # Every step's change, summed from per-term changes, is a strict decrease; the values of F
    # themselves fall too, up to their round-off once the changes drop below it.
    assert np.all(change < 0)
    assert np.all(np.diff(F) <= 4 * np.finfo(float).eps * np.abs(F[1:]))
    assert np.sum(change) == pytest.approx(F[-1] - F[0], rel=1e-10)
    assert F[-1] == pytest.approx(full_objective(est, K, y_pm), rel=1e-12)
    # The constant step never exceeds 1/L_g; BB's may, but never beyond the floor's 1e8/L_g; the
    # path's row is a Newton point (no prox-linear step) of a stage ε.
    steps = np.array([row["step"] for row in est.history_]) * est.lipschitz_
    assert np.all(steps <= 1e8 * (1 + 1e-12)) and (step == "bb" or np.allclose(steps, 1.0))
    if solver == "newton":
        assert np.all(steps[1:] == 0) and all(row["smoothing"] > 0 for row in est.history_[1:])


def test_mu_zero_reaches_iklrs_critical_value():
    """At μ = 0 the model is IKLR's.  On a kernel with one negative eigenvalue (-3) large enough for
    the loss's curvature to hold a local minimum at this λ (λ < |ν|h/n), exact CCCP and the
    proximal iteration, from the origin and from the intercept-only start, reach the same critical
    value and the same decision function."""
    X, y = toy(60, seed=1)
    nu, V = np.linalg.eigh(rbf(X, sigma=0.5) + np.eye(60))
    nu[0] = -3.0
    K = (V * nu) @ V.T
    K = (K + K.T) / 2
    y_pm, lam = np.where(y == 1, 1.0, -1.0), 1e-3
    ours = SparseIKLR(lam=lam, mu=0.0, tol=1e-8).fit(K, y)
    iklr = IKLR(lam=lam, solver="cccp-lbfgs", eps=1e-7).fit(K, y)
    assert not (ours.diverged_ or iklr.diverged_)
    assert ours.stationarity_ <= 1e-8 and iklr.stationarity_ <= 1e-7
    f_ours = klr_objective_and_gradient(K, y_pm, lam, ours.alpha_, ours.intercept_)[0]
    f_iklr = klr_objective_and_gradient(K, y_pm, lam, iklr.alpha_, iklr.intercept_)[0]
    assert f_ours == pytest.approx(f_iklr, rel=1e-9)
    np.testing.assert_allclose(ours.decision_function(K), iklr.decision_function(K), rtol=1e-5)


def test_without_l1_a_tl1_fit_runs_away_as_iklrs_does_and_l1_holds_it(tl1_problem):
    """The weaker true property on the TL1 kernel: at λ = 0.01 no critical point is reachable by
    descent at μ = 0 (IKLR's exact CCCP runs away too), while μ = 0.01 keeps one."""
    K, y, _ = tl1_problem
    with pytest.warns(RunawayWarning):
        assert SparseIKLR(lam=1e-2, mu=0.0).fit(K, y).diverged_
    with pytest.warns(RunawayWarning):
        assert IKLR(lam=1e-2).fit(K, y).diverged_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        held = SparseIKLR(lam=1e-2, mu=1e-2, tol=1e-8).fit(K, y)
    assert not held.diverged_ and held.stationarity_ <= 1e-8


def test_critical_points_have_a_nonnegative_objective_and_a_negative_one_is_a_runaway(tl1_problem):
    """At a critical point F = (1/n)Σφ(m_i) + μ‖α‖₁/2 with φ(m) = log(1 + e^{−m}) + mσ(−m)/2 > 0 (the
    runaway certificate F < 0 rests on it), checked at converged fits on the indefinite kernel; and a
    descent that runs away (μ = 0, λ = 0.01) is stopped at its first negative F, inside the ball."""
    K, y, y_pm = tl1_problem
    for lam, mu in [(1e-3, 1e-2), (1e-3, 1e-3), (1e-2, 1e-2)]:
        est = SparseIKLR(lam=lam, mu=mu, tol=1e-10).fit(K, y)
        assert est.stationarity_ <= 1e-10
        m = y_pm * (K @ est.alpha_ + est.intercept_)
        phi = np.logaddexp(0.0, -m) + 0.5 * m / (1.0 + np.exp(m))
        identity = phi.mean() + 0.5 * mu * np.abs(est.alpha_).sum()
        assert full_objective(est, K, y_pm) == pytest.approx(identity, rel=1e-8) and identity > 0
    with pytest.warns(RunawayWarning):
        away = SparseIKLR(lam=1e-2, mu=0.0, solver="prox-linear").fit(K, y)
    F = [row["objective"] for row in away.history_]
    assert away.diverged_ and min(F[:-1]) >= 0 and F[-1] < 0


def test_mu_max_closed_form_and_sparsity_path(tl1_problem):
    K, y, y_pm = tl1_problem
    top = mu_max(K, y)
    # Independently: the α-gradient at the intercept-only optimum b* = log(n₊/n₋), where ∂f/∂b = 0.
    b_star = np.log(np.mean(y_pm > 0) / np.mean(y_pm < 0))
    _, g_alpha, g_b = klr_objective_and_gradient(K, y_pm, 1e-3, np.zeros(y.size), b_star)
    assert abs(g_b) < 1e-15 and top == pytest.approx(np.abs(g_alpha).max(), rel=1e-12)
    nonzeros = []
    for fraction in (0.05, 0.1, 0.2, 0.4, 0.8, 0.95):
        est = SparseIKLR(lam=1e-3, mu=fraction * top, tol=1e-8, max_iter=100000).fit(K, y)
        nonzeros.append(est.support_.size)
    assert nonzeros == sorted(nonzeros, reverse=True)
    assert nonzeros[0] > 10 and nonzeros[-1] >= 1  # below μ_max, α = 0 is not critical
    for mu in (top, 2 * top):
        zero = SparseIKLR(lam=1e-3, mu=mu).fit(K, y)
        assert zero.n_iter_ == 0 and not zero.alpha_.any() and zero.support_.size == 0
        assert zero.intercept_ == pytest.approx(b_star, rel=1e-14)


def reference_fit(K, y_pm, lam, mu):
    """min f(α, b) + μ‖α‖₁ on a positive definite kernel (convex) by L-BFGS-B on α = u − v, u, v ≥ 0."""
    n = y_pm.size

    def fun(w):
        u, v, b = w[:n], w[n:2 * n], w[-1]
        f, g_a, g_b = klr_objective_and_gradient(K, y_pm, lam, u - v, b)
        return f + mu * (u.sum() + v.sum()), np.concatenate([g_a + mu, -g_a + mu, [g_b]])

    bounds = [(0, None)] * (2 * n) + [(None, None)]
    res = scipy.optimize.minimize(fun, np.zeros(2 * n + 1), jac=True, method="L-BFGS-B", bounds=bounds,
                                  options={"maxiter": 100000, "gtol": 1e-13, "ftol": 0.0, "maxcor": 50})
    return res.fun, K @ (res.x[:n] - res.x[n:2 * n]) + res.x[-1]


@pytest.mark.parametrize("mu", [0.0, 1e-3])
def test_positive_definite_kernel_agrees_with_a_convex_solver(mu):
    X, y = toy(60, seed=2)
    K = rbf(X, sigma=0.5)
    assert np.linalg.eigvalsh(K)[0] > 0
    y_pm, lam = np.where(y == 1, 1.0, -1.0), 1e-2
    est = SparseIKLR(lam=lam, mu=mu, tol=1e-9, max_iter=100000).fit(K, y)
    assert est.spectral_path_ == "cholesky" and est.stationarity_ <= 1e-9
    f_ref, margins_ref = reference_fit(K, y_pm, lam, mu)
    assert full_objective(est, K, y_pm) == pytest.approx(f_ref, rel=1e-6)
    assert full_objective(est, K, y_pm) <= f_ref + 1e-12  # the global minimum: never above the reference
    np.testing.assert_allclose(est.decision_function(K), margins_ref, atol=1e-4)


def test_learns_a_toy_problem():
    X, y = toy(150, seed=3, noise=0.1)
    train, test = np.arange(100), np.arange(100, 150)
    K = tl1(X, tau=0.7 * X.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the defaults converge, without a warning
        est = SparseIKLR().fit(K[np.ix_(train, train)], y[train])
    majority = max(np.mean(y[test]), 1 - np.mean(y[test]))
    assert est.score(K[np.ix_(test, train)], y[test]) > majority + 0.15
    proba = est.predict_proba(K[np.ix_(test, train)])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert est.support_.size < train.size


def test_given_spectrum_gives_the_same_fit(tl1_problem):
    K, y, y_pm = tl1_problem
    plain = SparseIKLR(lam=1e-3, mu=1e-2, tol=1e-9).fit(K, y)
    given = SparseIKLR(lam=1e-3, mu=1e-2, tol=1e-9).fit(K, y, spectrum=compute_spectrum(K, "lambda_min"))
    assert given.spectral_path_ == "given"
    assert full_objective(given, K, y_pm) == pytest.approx(full_objective(plain, K, y_pm), rel=1e-10)


@pytest.mark.parametrize(("name", "value"), [("lam", 0.0), ("mu", -1.0), ("solver", "cd"), ("step", "newton"),
                                             ("tol", -1e-3), ("max_iter", 0), ("tau", -1.0), ("lam", "1")])
def test_bad_parameters_name_themselves(tl1_problem, name, value):
    K, y, _ = tl1_problem
    est = SparseIKLR(**{name: value})
    with pytest.raises(KreinbenchError, match=name):
        est.check_params()
    with pytest.raises(KreinbenchError, match=name):
        est.fit(K, y)


def test_protocol(tl1_problem):
    K, y, _ = tl1_problem
    est = SparseIKLR(lam=1e-3, mu=1e-2)
    with pytest.raises(NotFittedError):
        est.decision_function(K)
    assert clone(est).get_params() == est.get_params()
    est.fit(K, y)
    assert est.n_features_in_ == y.size and list(est.classes_) == [0, 1]
    assert {"iteration", "objective", "stationarity", "nonzeros"} <= set(est.history_[-1])
    assert est.history_[-1]["iteration"] == est.n_iter_
