import numpy as np
import pytest
from sklearn.svm import SVC

from kreinbench.errors import KreinbenchError
from kreinbench.methods.isvm.svm import KSVM, SVM, dual_objective
from kreinbench.methods.solvers.smo import kkt_violation, smo_solve
from reference import project_bisection, smo_reference


def pm(y, est):
    return np.where(np.asarray(y) == est.classes_[1], 1.0, -1.0)


def flipped(K):
    """|K| by numpy's own eigensolver (independent of kreinbench.linalg.spectrum)."""
    mu, U = np.linalg.eigh(K)
    Kf = (U * np.abs(mu)) @ U.T
    return (Kf + Kf.T) / 2


def test_svm_scores_match_sklearn_with_original_labels(rbf_heart):
    K, K_test, y, _ = rbf_heart
    est = SVM(C=2.0, tol=1e-8).fit(K, y)
    ref = SVC(kernel="precomputed", C=2.0, tol=1e-8).fit(K, y)
    np.testing.assert_allclose(est.decision_function(K_test), ref.decision_function(K_test), atol=1e-10)
    np.testing.assert_array_equal(est.predict(K_test), ref.predict(K_test))
    y_pm = pm(y, est)
    assert abs(y_pm @ est.alpha_) < 1e-8 and est.alpha_.min() >= 0 and est.alpha_.max() <= 2.0 + 1e-12
    assert est.history_[-1]["objective"] == pytest.approx(dual_objective(K, y_pm, est.alpha_))


def test_ksvm_on_psd_kernel_equals_svc(rbf_heart):
    K, K_test, y, _ = rbf_heart
    est = KSVM(C=1.0, tol=1e-10).fit(K, y)
    ref = SVC(kernel="precomputed", C=1.0, tol=1e-10).fit(K, y)
    np.testing.assert_allclose(est.decision_function(K_test), ref.decision_function(K_test), atol=1e-8)
    np.testing.assert_allclose(est.decision_function(K), ref.decision_function(K), atol=1e-8)


def test_ksvm_training_scores_equal_flipped_svm_on_indefinite_kernel(tl1_monk2):
    K, K_test, y, _ = tl1_monk2
    mu = np.linalg.eigvalsh(K)
    assert mu[0] < -1e-3 * mu[-1]  # genuinely indefinite
    est = KSVM(C=0.5, tol=1e-10).fit(K, y)
    Kf = flipped(K)
    ref = SVC(kernel="precomputed", C=0.5, tol=1e-10).fit(Kf, y)
    scale = np.abs(ref.decision_function(Kf)).max()
    np.testing.assert_allclose(est.decision_function(K), ref.decision_function(Kf), atol=1e-8 * max(scale, 1.0))
    # Off the training set KSVM uses the indefinite cross-kernel, not the flipped SVM's coefficients.
    assert not np.allclose(est.dual_coef_, pm(y, est) * est.alpha_)


def test_ksvm_uses_a_given_spectrum(tl1_monk2):
    from kreinbench.linalg.spectrum import eigendecompose
    K, K_test, y, _ = tl1_monk2
    a = KSVM(C=0.5).fit(K, y, spectrum=eigendecompose(K))
    b = KSVM(C=0.5).fit(K, y)
    np.testing.assert_allclose(a.decision_function(K_test), b.decision_function(K_test), atol=1e-9)
    with pytest.raises(KreinbenchError, match="spectrum"):
        KSVM().fit(K[:10, :10], y[:10], spectrum=eigendecompose(K))


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, "1"])
def test_bad_C_is_named(rbf_heart, bad):
    K, _, y, _ = rbf_heart
    with pytest.raises(KreinbenchError, match="parameter C"):
        SVM(C=bad).fit(K, y)


def test_smo_without_linear_term_reaches_libsvm_optimum(rbf_heart):
    K, _, y, _ = rbf_heart
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    Q = y_pm[:, None] * K * y_pm[None, :]
    res = smo_solve(Q, -np.ones(y.size), y_pm, 3.0, tol=1e-10)
    ref = SVC(kernel="precomputed", C=3.0, tol=1e-10).fit(K, y_pm)
    alpha_ref = np.zeros(y.size)
    alpha_ref[ref.support_] = np.abs(ref.dual_coef_[0])
    assert res.converged
    assert dual_objective(K, y_pm, res.alpha) == pytest.approx(dual_objective(K, y_pm, alpha_ref), rel=1e-9)


def _reference_qp(Q, p, y, C, iters=20000):
    """Accelerated projected gradient with its own projection (bisection on the multiplier)."""
    def project(v):
        return project_bisection(v, y, C)

    L = np.linalg.eigvalsh(Q)[-1]
    x = z = np.zeros(y.size)
    t = 1.0
    for _ in range(iters):
        x_new = project(z - (Q @ z + p) / L)
        t_new = (1 + np.sqrt(1 + 4 * t * t)) / 2
        z = x_new + (t - 1) / t_new * (x_new - x)
        x, t = x_new, t_new
    return x


def test_smo_with_linear_term_matches_independent_solver():
    rng = np.random.default_rng(3)
    n, C = 30, 0.8
    A = rng.normal(size=(n, 4))
    Q0 = A @ A.T + 0.5 * np.eye(n)
    y = np.where(rng.uniform(size=n) < 0.5, 1.0, -1.0)
    Q = y[:, None] * Q0 * y[None, :]
    p = rng.normal(scale=2.0, size=n)
    res = smo_solve(Q, p, y, C, tol=1e-12)
    ref = _reference_qp(Q, p, y, C, iters=3000)
    obj = lambda a: 0.5 * a @ Q @ a + p @ a
    assert res.converged and kkt_violation(Q @ res.alpha + p, res.alpha, y, C) <= 1e-12
    assert obj(res.alpha) == pytest.approx(obj(ref), rel=1e-9, abs=1e-10)
    np.testing.assert_allclose(res.alpha, ref, atol=1e-6)
    assert abs(y @ res.alpha) < 1e-12 and res.alpha.min() >= 0 and res.alpha.max() <= C


@pytest.mark.parametrize("indefinite", [False, True])
def test_the_compiled_smo_takes_the_numpy_loops_steps_bit_for_bit(indefinite):
    """smo_loop runs the same floating-point operations in the same order as the NumPy loop it
    replaced (tests/reference.py): the same iterates, gradient and iteration count, warm-started
    and with a linear term (TDCASVM's DC subproblems), also on an indefinite Q."""
    rng = np.random.default_rng(5)
    n, C = 400, 1.5
    X = rng.normal(size=(n, 5))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    D = np.abs(X[:, None, :] - X[None, :, :]).sum(-1)
    K = np.maximum(3.5 - D, 0.0) if indefinite else np.exp(-(D**2) / 20.0)
    Q = y[:, None] * K * y[None, :]
    p = -1.0 - 0.3 * rng.uniform(size=n)
    start = smo_solve(Q, p, y, C, tol=1e-1).alpha  # a feasible warm start
    for alpha0 in (None, start):
        ours = smo_solve(Q, p, y, C, alpha0=alpha0, tol=1e-6, max_iter=20_000)
        alpha, G, n_iter, violation = smo_reference(Q, p, y, C, alpha0=alpha0, tol=1e-6, max_iter=20_000)
        assert ours.n_iter == n_iter > 10 and ours.violation == violation
        np.testing.assert_array_equal(ours.alpha, alpha)
        np.testing.assert_array_equal(ours.gradient, G)
