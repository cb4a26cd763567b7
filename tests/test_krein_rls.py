"""KreinRLS (Oglic & Gärtner, ICML 2018): Kreĭn kernel regularized least squares on a hypersphere,
checked against its own optimality conditions computed here with numpy's eigensolver, against
random feasible points and SLSQP from random starts, against scikit-learn's KernelRidge on a
positive definite kernel, in the hard case of the secular equation, and as a classifier."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import is_classifier, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.kernel_ridge import KernelRidge
from threadpoolctl import threadpool_limits

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import rbf, tl1
from kreinbench.linalg.spectrum import compute_spectrum, eigendecompose
from kreinbench.methods import ESTIMATORS, ConvergenceWarning, KreinRLS
from kreinbench.methods.krein.rls import KreinRLSRegressor, minimize_on_sphere


def spectral_parts(K):
    """K's eigenvalues and eigenvectors by numpy (not kreinbench's eigensolver), those at round-off
    level (n·eps·max|d|) dropped as the estimator drops them, and |K|."""
    d, U = np.linalg.eigh(K)
    keep = np.abs(d) > K.shape[0] * np.finfo(float).eps * np.abs(d).max()
    d, U = d[keep], U[:, keep]
    return d, U, (U * np.abs(d)) @ U.T


def risk(K, y, lam, alpha):
    """(1/n)‖Kα − y‖² + λαᵀKα, the problem's objective."""
    return np.mean((K @ alpha - y) ** 2) + lam * alpha @ K @ alpha


def sphere_problem(K, y, lam):
    """H and b of the β coordinates, β = |D|^½Uᵀα: min βᵀHβ − 2bᵀβ on ‖β‖ = r."""
    d, U, _ = spectral_parts(K)
    n = len(y)
    return np.abs(d) / n + lam * np.sign(d), np.sign(d) * np.sqrt(np.abs(d)) * (U.T @ y) / n


def plus_minus(est, y):
    return np.where(np.asarray(y) == est.classes_[1], 1.0, -1.0)


def assert_global_minimum(K, y, lam, r, alpha, *, starts=4, seed=0):
    """No random point of the sphere αᵀ|K|α = r², and no SLSQP solution from random starts
    (scaled back onto the sphere), has a lower objective than ``alpha``; returns SLSQP's best."""
    _, _, K_abs = spectral_parts(K)
    n, ours = len(y), risk(K, y, lam, alpha)
    slack = 1e-10 * max(1.0, abs(ours))
    rng = np.random.default_rng(seed)

    def on_sphere(a):
        return a * (r / np.sqrt(a @ K_abs @ a))

    points = rng.normal(size=(3000, n))
    points *= (r / np.sqrt(np.einsum("ij,jk,ik->i", points, K_abs, points)))[:, None]
    assert np.all(np.mean((points @ K - y) ** 2, axis=1) + lam * np.einsum("ij,jk,ik->i", points, K, points)
                  >= ours - slack)
    best = np.inf
    # SLSQP's hundreds of n × n products: one BLAS thread is faster at this size (and 70 times faster
    # than a thread pool on a machine whose cores are busy)
    with threadpool_limits(limits=1):
        for _ in range(starts):
            result = minimize(lambda a: risk(K, y, lam, a), on_sphere(rng.normal(size=n)), method="SLSQP",
                              jac=lambda a: 2 * K @ (K @ a - y) / n + 2 * lam * K @ a,
                              constraints=[{"type": "eq", "fun": lambda a: a @ K_abs @ a - r * r,
                                            "jac": lambda a: 2 * K_abs @ a}],
                              options={"maxiter": 300, "ftol": 1e-13})
            found = risk(K, y, lam, on_sphere(result.x))
            assert found >= ours - slack
            best = min(best, found)
    return best


def assert_stationary(K, y, lam, r, est):
    """On the sphere, stationary with the fitted multiplier μ: (1/n)K(Kα − y) + λKα = μ|K|α, and μ
    at most h_min = min(|d|/n + λ sign d), the certificate of a global minimum."""
    _, _, K_abs = spectral_parts(K)
    alpha, mu, n = est.alpha_, est.multiplier_, len(y)
    assert np.sqrt(alpha @ K_abs @ alpha) == pytest.approx(r, rel=1e-10)
    residual = K @ (K @ alpha - y) / n + lam * K @ alpha - mu * K_abs @ alpha
    norm_K, norm_alpha = np.linalg.norm(K, 2), np.linalg.norm(alpha)
    scale = norm_K * (norm_K * norm_alpha / n + np.linalg.norm(y) / n + (lam + abs(mu)) * norm_alpha)
    assert np.linalg.norm(residual) <= 1e-10 * scale
    h, _ = sphere_problem(K, y, lam)
    assert mu <= h.min() + 1e-12 * np.abs(h).max()
    assert est.objective_ == pytest.approx(risk(K, y, lam, alpha), rel=1e-10, abs=1e-12)


@pytest.fixture(scope="module")
def indefinite():
    """30 training and 20 test points uniform in [0, 1]³, labels by x₀ + x₁ > 1, TL1 kernel at
    τ = 0.3·m (at 0.7·m these draws give a positive definite kernel): three negative eigenvalues."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(50, 3))
    y = np.where(X[:, 0] + X[:, 1] > 1, 1, 0)
    K = tl1(X, tau=0.9)
    d = np.linalg.eigvalsh(K[:30, :30])
    assert d[0] < -1e-2 * d[-1]  # genuinely indefinite, not round-off
    return K[:30, :30], K[30:, :30], y[:30], y[30:]


CASES = [(0.1, 1.0), (0.01, 0.3), (0.5, 3.0), (1.0, 10.0)]


@pytest.mark.parametrize("lam, r", CASES)
def test_the_solution_is_on_the_sphere_stationary_and_the_secular_root_below_h_min(indefinite, lam, r):
    K, _, y, _ = indefinite
    est = KreinRLS(lam=lam, radius=r).fit(K, y)
    y_pm = plus_minus(est, y)
    assert_stationary(K, y_pm, lam, r, est)
    # μ is the secular equation's root below h_min, and α its closed form
    h, b = sphere_problem(K, y_pm, lam)
    mu = est.multiplier_
    assert mu < h.min() and not est.hard_case_
    assert np.sum(b ** 2 / (h - mu) ** 2) == pytest.approx(r ** 2, rel=1e-10)
    d, U, _ = spectral_parts(K)
    n = len(y)
    np.testing.assert_allclose(est.alpha_, U @ ((U.T @ y_pm) / (d + n * (lam - np.sign(d) * mu))), rtol=1e-9,
                               atol=1e-12 * np.abs(est.alpha_).max())
    # Newton on the secular equation: a handful of iterations to machine precision
    assert est.stationarity_ <= 1e-12 and est.n_iter_ <= 20 and est.history_[-1]["mu"] == mu


@pytest.mark.parametrize("lam, r", CASES)
def test_it_is_the_global_minimum(indefinite, lam, r):
    K, _, y, _ = indefinite
    est = KreinRLS(lam=lam, radius=r).fit(K, y)
    y_pm = plus_minus(est, y)
    best = assert_global_minimum(K, y_pm, lam, r, est.alpha_)
    # and SLSQP finds it from some start: the comparison is not one-sided
    assert best == pytest.approx(risk(K, y_pm, lam, est.alpha_), rel=1e-7)


def test_the_solver_finds_the_minimum_of_a_circle_by_brute_force():
    """min xᵀdiag(h)x − 2bᵀx on ‖x‖ = r in the plane, easy and hard cases, against 400 001 angles."""
    angles = np.linspace(-np.pi, np.pi, 400_001)
    for h, b, r, hard in [([1.0, -1.0], [0.3, 0.2], 1.0, False), ([1.0, -1.0], [0.5, 0.0], 0.2, False),
                          ([1.0, -1.0], [0.5, 0.0], 1.0, True), ([2.0, 2.0], [0.0, 0.0], 0.5, True)]:
        h, b = np.array(h), np.array(b)
        out = minimize_on_sphere(h, b, r, tol=1e-14, max_iter=100)
        x = out["x"]
        circle = r * np.stack([np.cos(angles), np.sin(angles)], axis=1)
        brute = np.min(circle ** 2 @ h - 2 * circle @ b)
        assert out["hard_case"] is hard and np.linalg.norm(x) == pytest.approx(r, rel=1e-12)
        assert x @ (h * x) - 2 * b @ x == pytest.approx(brute, abs=1e-9)
        assert out["history"][-1]["objective"] == pytest.approx(x @ (h * x) - 2 * b @ x, abs=1e-14)


# -- the positive definite case: kernel ridge regression ------------------------------------------

@pytest.fixture(scope="module")
def positive_definite():
    """An RBF kernel of 50 Gaussian points in R³ (positive definite: no eigenvalue at or below the
    round-off level the estimator drops), labels by x₀ > 0, and 20 test points."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(70, 3))
    K = rbf(X, sigma=1.5)
    d = np.linalg.eigvalsh(K[:50, :50])
    assert d[0] > 50 * np.finfo(float).eps * d[-1]
    return K[:50, :50], K[50:, :50], np.where(X[:50, 0] > 0, 1, 0), X[:50]


@pytest.mark.parametrize("alpha", [0.1, 1.0, 10.0])
def test_on_a_positive_definite_kernel_it_is_kernel_ridge_at_the_ridge_of_radius_r(positive_definite, alpha):
    """With K ⪰ 0, λ⟨f, f⟩_K = λr² on the sphere: λ drops out, and the solution is KernelRidge's at
    the ridge a = n(λ − μ) whose solution has RKHS norm r, i.e. KernelRidge(alpha=a) for
    r = ‖(K + aI)⁻¹y‖_K.  (The match is exact only at that r: r and a determine each other.)"""
    K, K_test, y, _ = positive_definite
    n, y_pm = len(y), np.where(y == 1, 1.0, -1.0)
    ridge = KernelRidge(alpha=alpha, kernel="precomputed").fit(K, y_pm)
    c = ridge.dual_coef_
    r = np.sqrt(c @ K @ c)
    expected = ridge.predict(K_test)
    for lam in (1e-3, 1.0):
        est = KreinRLS(lam=lam, radius=r).fit(K, y)
        np.testing.assert_allclose(est.decision_function(K_test), expected, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(est.alpha_, c, rtol=1e-7, atol=1e-9 * np.abs(c).max())
        assert n * (lam - est.multiplier_) == pytest.approx(alpha, rel=1e-8)
        assert_stationary(K, y_pm, lam, r, est)


def test_the_regressor_is_kernel_ridge_on_a_positive_definite_kernel(positive_definite):
    K, K_test, _, X = positive_definite
    target = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1]
    ridge = KernelRidge(alpha=0.5, kernel="precomputed").fit(K, target)
    r = np.sqrt(ridge.dual_coef_ @ K @ ridge.dual_coef_)
    est = KreinRLSRegressor(lam=0.2, radius=r).fit(K, target)
    assert is_regressor(est)
    np.testing.assert_allclose(est.predict(K_test), ridge.predict(K_test), rtol=1e-8, atol=1e-10)


# -- the hard case ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hard():
    """K = Q diag(d) Qᵀ, n = 12, whose eigenvector q₀ of d₀ = −0.2 is orthogonal to the ±1 labels y.
    With λ = 0.1, H = |d|/n + λ sign(d) is smallest at q₀ (0.2/12 − 0.1 = −0.083; the other
    negative eigenvalues −1, −2 give −0.017 and 0.067): b = S|D|^½Qᵀy/n has no component on h_min's
    eigenvector.  Also r₀ = ‖(H − h_min I)⁺b‖, the norm of the solution's rest at μ = h_min."""
    rng = np.random.default_rng(2)
    y = np.tile([1.0, -1.0], 6)
    A = rng.normal(size=(12, 12))
    A[:, 0] -= y * (y @ A[:, 0]) / (y @ y)
    Q, _ = np.linalg.qr(A)
    assert abs(Q[:, 0] @ y) < 1e-14
    d = np.array([-0.2, -1.0, -2.0, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
    K = (Q * d) @ Q.T
    K = (K + K.T) / 2
    lam = 0.1
    h = np.abs(d) / 12 + lam * np.sign(d)
    b = np.sign(d) * np.sqrt(np.abs(d)) * (Q.T @ y) / 12
    r0 = np.linalg.norm(b[1:] / (h[1:] - h[0]))
    return K, y, lam, Q[:, 0], h[0], r0


def test_the_hard_case_puts_the_rest_of_the_norm_on_the_bottom_eigenvector(hard):
    K, y, lam, q0, h_min, r0 = hard
    r = 2 * r0
    est = KreinRLS(lam=lam, radius=r).fit(K, y)
    assert est.hard_case_ and est.multiplier_ == pytest.approx(h_min, rel=1e-12)
    assert_stationary(K, y, lam, r, est)
    # β's component on q₀ (β = |D|^½Uᵀα) carries the norm the rest lacks
    assert abs(np.sqrt(0.2) * (q0 @ est.alpha_)) == pytest.approx(np.sqrt(r ** 2 - r0 ** 2), rel=1e-10)
    assert_global_minimum(K, y, lam, r, est.alpha_)


def test_inside_the_hard_radius_the_root_is_below_h_min(hard):
    K, y, lam, _, h_min, r0 = hard
    est = KreinRLS(lam=lam, radius=r0 / 2).fit(K, y)
    assert not est.hard_case_ and est.multiplier_ < h_min
    assert_stationary(K, y, lam, r0 / 2, est)
    assert_global_minimum(K, y, lam, r0 / 2, est.alpha_)


def test_near_the_hard_case_the_solution_tends_to_the_hard_one(hard):
    """A target with a component 1e-7 on q₀: the easy case, with μ just below h_min, the same
    minimum as the hard case's to that order, and the bottom component's sign that of b's."""
    K, y, lam, q0, h_min, r0 = hard
    r = 2 * r0
    hard_fit = KreinRLSRegressor(lam=lam, radius=r).fit(K, y)
    for sign in (1.0, -1.0):
        target = y + sign * 1e-7 * q0
        est = KreinRLSRegressor(lam=lam, radius=r).fit(K, target)
        assert not est.hard_case_ and 0 < h_min - est.multiplier_ < 1e-6
        assert_stationary(K, target, lam, r, est)
        assert est.objective_ == pytest.approx(hard_fit.objective_, abs=1e-6)
        # b's bottom component is sign(d₀)·√0.2·qᵀy/n < 0 for sign > 0, and β₀ = b₀/(h₀ − μ) follows it
        assert np.sign(q0 @ est.alpha_) == -sign


# -- as a classifier and a regressor ---------------------------------------------------------------

@pytest.fixture(scope="module")
def blobs():
    """Two Gaussian blobs in the plane, labelled "a" and "b", with an indefinite TL1 kernel (τ = 0.6)."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.5, (40, 2)), rng.normal(0, 0.5, (40, 2)) + [2.0, 1.0]])
    y = np.repeat(["a", "b"], 40)
    order = rng.permutation(80)
    X, y = X[order], y[order]
    K = tl1(X, tau=0.6)
    assert np.linalg.eigvalsh(K)[0] < -1e-2
    return K[:50, :50], K[50:, :50], y[:50], y[50:]


def test_it_classifies_separable_blobs_and_labels_are_names(blobs):
    K, K_test, y, y_test = blobs
    est = KreinRLS(lam=1e-2, radius=1.0).fit(K, y)
    assert is_classifier(est) and list(est.classes_) == ["a", "b"]
    majority = max(np.mean(y_test == "a"), np.mean(y_test == "b"))
    assert est.score(K_test, y_test) >= max(0.9, majority + 0.2)
    assert set(est.predict(K_test)) == {"a", "b"}
    # the other class first: the same problem with −y, whose solution is −α (the easy case)
    renamed = KreinRLS(lam=1e-2, radius=1.0).fit(K, np.where(y == "a", "z", "b"))
    np.testing.assert_allclose(renamed.decision_function(K_test), -est.decision_function(K_test), rtol=1e-10)


def test_the_regressor_fits_a_smooth_function_on_an_indefinite_kernel():
    """Centred targets (no intercept) on TL1 at τ = 0.7·m, six negative eigenvalues: R² > 0.95 on
    held-out points (flipped-spectrum kernel ridge reaches 0.99 here)."""
    rng = np.random.default_rng(0)
    X, X_test = rng.uniform(size=(120, 3)), rng.uniform(size=(60, 3))

    def f(X):
        return np.sin(3 * X[:, 0]) + X[:, 1] ** 2 - 1.0

    K, K_test = tl1(X, tau=2.1), tl1(X_test, X, tau=2.1)
    assert np.linalg.eigvalsh(K)[0] < -1e-3 * np.linalg.eigvalsh(K)[-1]
    est = KreinRLSRegressor(lam=1e-5, radius=2.0).fit(K, f(X) + 0.05 * rng.normal(size=120))
    assert est.score(K_test, f(X_test)) > 0.95


def test_a_given_spectrum_is_used_and_a_partial_one_refused(indefinite):
    K, K_test, y, _ = indefinite
    est = KreinRLS(lam=0.1).fit(K, y)
    given = KreinRLS(lam=0.1).fit(K, y, spectrum=eigendecompose(K))
    np.testing.assert_array_equal(given.decision_function(K_test), est.decision_function(K_test))
    assert KreinRLS.needs_spectrum is True and "KreinRLS" in ESTIMATORS
    with pytest.raises(KreinbenchError, match="spectrum must be the full eigendecomposition"):
        KreinRLS().fit(K, y, spectrum=compute_spectrum(K, "negative"))


@pytest.mark.parametrize("params, message", [
    ({"lam": 0}, "parameter lam must be > 0, got 0"),
    ({"lam": -1.0}, "parameter lam must be > 0"),
    ({"radius": 0.0}, "parameter radius must be > 0"),
    ({"radius": np.nan}, "parameter radius must be a finite real number"),
    ({"tol": -1e-3}, "parameter tol must be > 0"),
    ({"max_iter": 0}, "parameter max_iter must be an integer >= 1"),
    ({"max_iter": 2.5}, "parameter max_iter must be an integer >= 1"),
])
def test_bad_parameters_are_named_before_any_fitting(indefinite, params, message):
    K, _, y, _ = indefinite
    for cls in (KreinRLS, KreinRLSRegressor):
        with pytest.raises(KreinbenchError, match=message):
            cls(**params).check_params()
        est = cls(**params)
        with pytest.raises(KreinbenchError, match=message):
            est.fit(K, y)
        assert not [a for a in vars(est) if a.endswith("_")]


def test_not_fitted_a_zero_kernel_and_the_iteration_cap(indefinite):
    K, K_test, y, _ = indefinite
    with pytest.raises(NotFittedError, match="not fitted"):
        KreinRLS().decision_function(K_test)
    with pytest.raises(NotFittedError, match="not fitted"):
        KreinRLSRegressor().predict(K_test)
    with pytest.raises(KreinbenchError, match="K is zero to round-off"):
        KreinRLS().fit(np.zeros_like(K), y)
    with pytest.warns(ConvergenceWarning, match="secular equation stopped after 1 iterations"):
        est = KreinRLS(lam=0.1, max_iter=1).fit(K, y)
    assert est.stationarity_ > est.tol and not est.diverged_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KreinRLS(lam=0.1).fit(K, y)
