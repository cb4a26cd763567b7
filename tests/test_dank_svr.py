"""DANK-SVR: corrected gradient (Proposition 10), SVR limit, optimum, relative MSE."""

import re
import warnings

import numpy as np
import pytest
from sklearn.metrics import r2_score
from sklearn.svm import SVR

from kreinbench.errors import KreinbenchError
from kreinbench.methods.base import ConvergenceWarning
from kreinbench.methods.dank.svr import DANKSVR, relative_mse, svr_evaluate
from reference import project_bisection, wolfe_gap_lp


def gaussian(A, B, sigma=1.0):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / (2 * sigma**2))


@pytest.fixture(scope="module")
def wave():
    rng = np.random.default_rng(11)
    X = rng.uniform(-2, 2, size=(25, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=25)
    X_test = rng.uniform(-2, 2, size=(30, 1))
    return X, y, X_test, np.sin(2 * X_test[:, 0]), gaussian(X, X), gaussian(X_test, X)


def h_dense(x, K, y, eps, eta, tau):
    """h(α̂, α̌) of (23) with F from a dense eigendecomposition (independent of the package)."""
    n = y.size
    a = x[:n] - x[n:]
    lam, V = np.linalg.eigh(np.ones_like(K) + np.outer(a, a) * K / (4 * eta))
    F = (V * np.maximum(lam - tau / 2, 0)) @ V.T
    return (-0.5 * a @ (F * K) @ a + a @ y - eps * x.sum() + eta * np.sum((F - 1) ** 2)
            + tau * eta * np.sum(np.linalg.svd(F, compute_uv=False)))


def test_gradient_matches_finite_differences(wave):
    X, y, _, _, K, _ = wave
    n = y.size
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, 2 * n)
    eps, eta, tau = 0.1, 0.05, 0.3
    ev = svr_evaluate(K, y, eps, eta, tau)(x)
    np.testing.assert_allclose(ev.value, h_dense(x, K, y, eps, eta, tau), rtol=1e-12)
    step = 1e-6
    for i in rng.choice(2 * n, 10, replace=False):
        e = np.zeros(2 * n)
        e[i] = step
        fd = (h_dense(x + e, K, y, eps, eta, tau) - h_dense(x - e, K, y, eps, eta, tau)) / (2 * step)
        assert abs(fd - ev.grad[i]) <= 1e-6 * max(1.0, abs(fd))
    # Proposition 10 as printed (−(F⊙K)a − y − ε for ∂h/∂α̌) is not the gradient:
    g = ev.grad[n:] + y + eps  # = (F⊙K)a
    printed = -g - y - eps
    assert np.max(np.abs(printed - ev.grad[n:])) > 0.1


@pytest.mark.parametrize("solver", ["nesterov", "fista"])
def test_infinite_eta_is_scikit_learn_svr(wave, solver):
    """η → ∞ with τ = 0: F = 11ᵀ + Γ → 11ᵀ and DANK-SVR is the ε-SVR (Nesterov converges sublinearly here,
    so 6000 iterations give the SVR dual optimum to ~1e-8 relative and predictions to ~1e-5)."""
    X, y, X_test, _, K, K_test = wave
    ref = SVR(C=1.0, epsilon=0.1, kernel="precomputed", tol=1e-12).fit(K, y)
    a_ref = np.zeros(y.size)
    a_ref[ref.support_] = ref.dual_coef_[0]
    dual_ref = -0.5 * a_ref @ K @ a_ref + a_ref @ y - 0.1 * np.abs(a_ref).sum()
    est = DANKSVR(C=1.0, epsilon=0.1, eta=1e12, tau=0.0, solver=solver, max_iter=6000, tol=1e-12,
                  stopping="step").fit(K, y, X)
    assert abs(est.objective_ - dual_ref) <= 1e-7 * abs(dual_ref)
    np.testing.assert_allclose(est.predict(K_test, X_test), ref.predict(K_test), atol=5e-5)
    assert est.intercept_ == pytest.approx(ref.intercept_[0], abs=5e-5)
    assert np.abs(est.F_ - 1.0).max() < 1e-9


def h_and_grad_dense(x, K, y, eps, eta, tau):
    n = y.size
    a = x[:n] - x[n:]
    lam, V = np.linalg.eigh(np.ones_like(K) + np.outer(a, a) * K / (4 * eta))
    g = ((V * np.maximum(lam - tau / 2, 0)) @ V.T * K) @ a
    return h_dense(x, K, y, eps, eta, tau), np.concatenate([y - g - eps, g - y - eps])


# C and η where F is far from the SVR's 11ᵀ (rank F > 2).
C_TEST, EPS_TEST, ETA_TEST, TAU_TEST = 0.3, 0.1, 5.0, 0.01


@pytest.fixture(scope="module")
def svr_optimum(wave):
    """(h(x), h(x) + G(x)) ⊇ h* by restarted FISTA on the dense h, G the Wolfe gap by an LP solver."""
    X, y, _, _, K, _ = wave
    n = y.size
    C, eps, eta, tau = C_TEST, EPS_TEST, ETA_TEST, TAU_TEST
    z = np.concatenate([np.ones(n), -np.ones(n)])
    L = 2 * (n + 9 * n * C**2 * np.sum(K * K) / (4 * eta))
    x = w = np.zeros(2 * n)
    t = 1.0
    for _ in range(5000):  # FISTA with gradient restarts
        _, g = h_and_grad_dense(w, K, y, eps, eta, tau)
        x_new = project_bisection(w + g / L, z, C)
        if np.linalg.norm(x_new - x) < 1e-13:
            break
        if g @ (x_new - x) < 0:
            t, w = 1.0, x
            continue
        t_new = 0.5 * (1 + np.sqrt(1 + 4 * t * t))
        w = x_new + (t - 1) / t_new * (x_new - x)
        x, t = x_new, t_new
    h, g = h_and_grad_dense(x, K, y, eps, eta, tau)
    gap = wolfe_gap_lp(g, x, z, C)
    assert gap <= 1e-8 * abs(h)  # the reference is at the optimum, certified
    return h, h + gap


@pytest.mark.parametrize("solver", ["nesterov", "fista"])
def test_reaches_the_optimum_of_an_independent_accelerated_solver(wave, svr_optimum, solver):
    X, y, _, _, K, _ = wave
    n = y.size
    h_star = svr_optimum[0]
    z = np.concatenate([np.ones(n), -np.ones(n)])
    est = DANKSVR(C=C_TEST, epsilon=EPS_TEST, eta=ETA_TEST, tau=TAU_TEST, solver=solver, max_iter=3000,
                  tol=1e-10, stopping="step").fit(K, y, X)
    assert est.rank_F_ > 2  # far from the SVR limit
    assert est.converged_ or solver == "nesterov"  # ours stops by the rule; Algorithm 2 may need all 3000
    assert abs(est.objective_ - h_star) <= 1e-6 * abs(h_star)
    x_est = np.concatenate([est.alpha_hat_, est.alpha_check_])
    assert abs(z @ x_est) < 1e-10 and x_est.min() >= 0 and x_est.max() <= C_TEST


def test_default_fit_is_within_1e_4_of_a_certified_optimum(wave, svr_optimum):
    X, y, _, _, K, _ = wave
    h_low, h_up = svr_optimum
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = DANKSVR(C=C_TEST, epsilon=EPS_TEST, eta=ETA_TEST, tau=TAU_TEST).fit(K, y, X)
    x_est = np.concatenate([est.alpha_hat_, est.alpha_check_])
    np.testing.assert_allclose(h_dense(x_est, K, y, EPS_TEST, ETA_TEST, TAU_TEST), est.objective_, rtol=1e-10)
    assert est.converged_ and est.gap_ <= 1e-4
    assert (h_up - est.objective_) / h_up <= 1e-4
    assert h_low - est.objective_ <= est.gap_ * est.objective_  # the fit's own bound holds


def test_a_fit_stopped_early_warns_how_far_it_is(wave, svr_optimum):
    X, y, _, _, K, _ = wave
    h_low, _ = svr_optimum
    with pytest.warns(ConvergenceWarning, match=r"DANK-SVR fista stopped at max_iter=3 before relative gap bound") \
            as record:
        est = DANKSVR(C=C_TEST, epsilon=EPS_TEST, eta=ETA_TEST, tau=TAU_TEST, max_iter=3).fit(K, y, X)
    bound = float(re.search(r"\(h\* - h\)/\|h\| <= (\S+),", str(record[0].message)).group(1))
    assert bound == pytest.approx(est.gap_, rel=1e-2) and not est.converged_
    assert 1e-4 < (h_low - est.objective_) / est.objective_ <= est.gap_


def test_score_is_r2_and_the_relative_mse_one_minus_it(wave):
    X, y, X_test, y_test, K, K_test = wave
    est = DANKSVR(C=1.0, epsilon=0.1, eta="0.1C2").fit(K, y, X)
    pred = est.predict(K_test, X_test)
    # higher is better, as GridSearchCV assumes of every score
    assert est.score(K_test, y_test, X_test) == pytest.approx(r2_score(y_test, pred), rel=1e-12)
    assert relative_mse(y_test, pred) == pytest.approx(1 - r2_score(y_test, pred), rel=1e-12)
    assert relative_mse(y_test, pred) < 0.1  # sin(2x) is learned
    with pytest.raises(KreinbenchError, match="constant"):
        relative_mse(np.ones(3), np.zeros(3))


@pytest.mark.parametrize("kwargs,name", [({"C": 0.0}, "C"), ({"epsilon": -1.0}, "epsilon"),
                                         ({"eta": "svm"}, "eta"), ({"projection": "nope"}, "projection"), ({"solver": "pg"}, "solver")])
def test_bad_parameters_are_named(wave, kwargs, name):
    X, y, _, _, K, _ = wave
    with pytest.raises(KreinbenchError, match=name):
        DANKSVR(**kwargs).fit(K, y, X)
