"""DANK classifier: adaptive matrix, solvers, SVM limit, partitioned version, out-of-sample extension."""

import re
import warnings

import numpy as np
import pytest
from sklearn.svm import SVC

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.methods.base import ConvergenceWarning
from kreinbench.methods.dank import adaptive as dank_adaptive
from kreinbench.methods.dank import neighbours
from kreinbench.methods.dank.adaptive import AdaptiveMatrix, kernel_is_psd
from kreinbench.methods.dank.estimator import DANK
from kreinbench.methods.dank.neighbours import extension_indices, reciprocal_neighbours
from kreinbench.methods.dank.problem import dank_evaluate
from kreinbench.methods.dank.solver import Evaluation, _model_step, make_projection
from kreinbench.methods.solvers.dual_gap import wolfe_gap
from reference import project_bisection, reciprocal_by_full_ranks, wolfe_gap_lp


def gaussian(A, B, sigma=1.0):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / (2 * sigma**2))


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(7)
    n, m = 30, 20
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.7 * rng.normal(size=n) > 0, 1, -1)
    X_test = rng.normal(size=(m, 2))
    return X, y, X_test, gaussian(X, X), gaussian(X_test, X)


# -- independent references -------------------------------------------------------------------
def dense_F(K, v, eta, tau):
    lam, V = np.linalg.eigh(np.ones_like(K) + np.outer(v, v) * K / (4 * eta))
    return (V * np.maximum(lam - tau / 2, 0)) @ V.T


def H(alpha, F, K, y, eta, tau):
    """H(α, F) of problem (5), nuclear norm from the singular values."""
    v = y * alpha
    nuc = np.sum(np.linalg.svd(F, compute_uv=False))
    return alpha.sum() - 0.5 * v @ (F * K) @ v + eta * np.sum((F - 1) ** 2) + tau * eta * nuc


def h_and_grad(alpha, K, y, eta, tau):
    F = dense_F(K, y * alpha, eta, tau)
    return H(alpha, F, K, y, eta, tau), 1 - y * ((F * K) @ (y * alpha))


def restarted_fista(K, y, C, eta, tau, L, box_only=False):
    """Accelerated projected gradient ascent on the dense h with step 1/L and gradient restarts
    (independent of the package): yields (x, x_new), the iterate and its step's projected point."""
    x = z = np.zeros(y.size)
    t = 1.0
    while True:
        _, g = h_and_grad(z, K, y, eta, tau)
        x_new = project_bisection(z + g / L, y, C, box_only)
        yield x, x_new
        if g @ (x_new - x) < 0:  # the momentum points downhill: restart
            t, z = 1.0, x
            continue
        t_new = 0.5 * (1 + np.sqrt(1 + 4 * t * t))
        z = x_new + (t - 1) / t_new * (x_new - x)
        x, t = x_new, t_new


def fista_max(K, y, C, eta, tau, box_only=False, iters=5000):
    """The maximum of h by :func:`restarted_fista` at Theorem 4's step, until the steps vanish."""
    L = y.size + 3 * y.size * C**2 * np.sum(K * K) / (4 * eta)
    for _, (x, x_new) in zip(range(iters), restarted_fista(K, y, C, eta, tau, L, box_only)):
        if np.linalg.norm(x_new - x) < 1e-13:
            break
    return h_and_grad(x, K, y, eta, tau)[0], x


# -- the adaptive matrix -----------------------------------------------------------------------
def test_adaptive_matrix_is_the_exact_minimizer_of_H(blobs):
    X, y, _, K, _ = blobs
    rng = np.random.default_rng(0)
    alpha = np.zeros(y.size)
    support = rng.choice(y.size, 8, replace=False)
    alpha[support] = rng.uniform(0.1, 1.0, 8)
    eta, tau = 0.05, 0.5
    F = AdaptiveMatrix(K, y * alpha, eta, tau)
    F_ref = dense_F(K, y * alpha, eta, tau)
    np.testing.assert_allclose(F.dense(), F_ref, atol=1e-12)
    assert F.rank == np.sum(np.linalg.eigvalsh(F_ref) > 1e-9) and F.rank <= 1 + support.size
    np.testing.assert_allclose(F.hadamard_times_v(), (F_ref * K) @ (y * alpha), atol=1e-12)
    value = H(alpha, F_ref, K, y, eta, tau)
    np.testing.assert_allclose(alpha.sum() - 0.5 * (y * alpha) @ F.hadamard_times_v() + F.penalty(eta, tau),
                               value, rtol=1e-12)
    for scale in (1e-1, 1e-3):
        for _ in range(20):
            E = rng.normal(size=K.shape)
            lam, V = np.linalg.eigh(F_ref + scale * (E + E.T))
            F_pert = (V * np.maximum(lam, 0)) @ V.T  # any other point of the PSD cone
            assert H(alpha, F_pert, K, y, eta, tau) >= value - 1e-12


@pytest.mark.parametrize("eta", [10.0, 0.3, 0.1])
@pytest.mark.parametrize("psd", [True, False])
@pytest.mark.parametrize("tau", [0.0, 0.01])
def test_cheap_routes_give_the_eigh_result(eta, psd, tau, monkeypatch):
    """The routes around the full eigh agree with it: τ = 0 with K PSD (F = 11ᵀ + Γ), and for τ > 0
    the rank-one power iteration (η = 10: Γ small, rank F = 1), Lanczos (η = 0.3: rank F of 2 or 3;
    M of size 91 runs it only with EIGH_MAX_SIZE lowered) or, past its rank limit, eigh (η = 0.1:
    rank F > 10)."""
    monkeypatch.setattr(dank_adaptive, "EIGH_MAX_SIZE", 0)
    rng = np.random.default_rng(5)
    n = 120
    X = rng.normal(size=(n, 3))
    K = gaussian(X, X, sigma=0.7)
    if not psd:
        K = K - 0.3 * gaussian(X, X, sigma=0.2)  # a difference of Gaussians: indefinite
    assert kernel_is_psd(K) == psd
    alpha = np.zeros(n)
    support = rng.choice(n, 90, replace=False)
    alpha[support] = rng.uniform(0.0, 0.05, support.size)
    v = np.where(rng.random(n) < 0.5, -1.0, 1.0) * alpha
    fast = AdaptiveMatrix(K, v, eta, tau, psd=psd)
    monkeypatch.setattr(dank_adaptive, "POWER_MIN_SIZE", n + 1)
    slow = AdaptiveMatrix(K, v, eta, tau, psd=False)
    reference = dense_F(K, v, eta, tau)
    scale = np.abs(reference).max()
    for F in (fast, slow):
        np.testing.assert_allclose(F.dense(), reference, atol=1e-12 * scale)
        np.testing.assert_allclose(F.hadamard_times_v(), (reference * K) @ v, atol=1e-11 * scale)
        np.testing.assert_allclose(F.distance_to_ones_sq(), np.sum((reference - 1) ** 2), rtol=1e-9, atol=1e-13)
    assert fast.rank == slow.rank
    if tau > 0:
        assert (fast.rank == 1) == (eta == 10.0)
    np.testing.assert_allclose(fast.penalty(eta, tau), slow.penalty(eta, tau), rtol=1e-9, atol=1e-15)


def test_lanczos_warm_start_from_the_previous_evaluation_gives_the_eigh_result(monkeypatch):
    """Consecutive evaluations on one support: the second Lanczos asks first for rank + 1 pairs,
    started from the previous eigenvectors, and still gives the dense F."""
    monkeypatch.setattr(dank_adaptive, "EIGH_MAX_SIZE", 0)  # M of size 121 would take the eigh
    rng = np.random.default_rng(6)
    n, eta, tau = 120, 0.3, 0.01
    X = rng.normal(size=(n, 3))
    K = gaussian(X, X, sigma=0.7)
    v = np.where(rng.random(n) < 0.5, -1.0, 1.0) * rng.uniform(0.01, 0.05, n)
    asked = []
    eigsh = dank_adaptive.eigsh

    def recording_eigsh(op, k, **kwargs):
        asked.append(k)
        return eigsh(op, k=k, **kwargs)

    monkeypatch.setattr(dank_adaptive, "eigsh", recording_eigsh)
    adaptive_matrix = dank_adaptive.adaptive_matrices(K, eta, tau)
    first = adaptive_matrix(v)
    assert first.rank >= 2 and asked[0] == 2
    asked.clear()
    v_next = v * (1.0 + 0.01 * rng.uniform(size=n))  # same support
    second = adaptive_matrix(v_next)
    assert asked[0] == first.rank + 1
    reference = dense_F(K, v_next, eta, tau)
    np.testing.assert_allclose(second.dense(), reference, atol=1e-12 * np.abs(reference).max())

    def broken_eigsh(op, k, **kwargs):  # ARPACK error 3, seen once from a warm start
        raise dank_adaptive.ArpackError(3)

    monkeypatch.setattr(dank_adaptive, "eigsh", broken_eigsh)
    third = adaptive_matrix(v)  # the dense eigh takes over
    reference = dense_F(K, v, eta, tau)
    np.testing.assert_allclose(third.dense(), reference, atol=1e-12 * np.abs(reference).max())


def test_lanczos_warm_start_carries_over_a_change_of_support(monkeypatch):
    """Along a fit the support changes in most evaluations: the previous eigenvectors, rewritten in
    the new support's basis, still start Lanczos (rank + 1 pairs asked first), and F is the dense one."""
    monkeypatch.setattr(dank_adaptive, "EIGH_MAX_SIZE", 0)
    rng = np.random.default_rng(7)
    n, eta, tau = 120, 0.3, 0.01
    K = gaussian(*(2 * (rng.normal(size=(n, 3)),)), sigma=0.7)
    v = np.where(rng.random(n) < 0.5, -1.0, 1.0) * rng.uniform(0.01, 0.05, n)
    v[:30] = 0.0
    asked = []
    eigsh = dank_adaptive.eigsh
    monkeypatch.setattr(dank_adaptive, "eigsh", lambda op, k, **kwargs: asked.append(k) or eigsh(op, k=k, **kwargs))
    adaptive_matrix = dank_adaptive.adaptive_matrices(K, eta, tau)
    previous = adaptive_matrix(v)
    assert previous.rank >= 2 and asked[0] == 2
    for changed in (np.r_[0:10], np.r_[40:50]):  # support grows, then loses points
        asked.clear()
        v_next = v.copy()
        v_next[changed] = 0.02 if changed[0] == 0 else 0.0
        F = adaptive_matrix(v_next)
        assert asked[0] == previous.rank + 1
        previous = F
        reference = dense_F(K, v_next, eta, tau)
        np.testing.assert_allclose(F.dense(), reference, atol=1e-12 * np.abs(reference).max())


def test_rebased_vectors_are_the_same_vectors_of_r_n():
    """Support S ⊆ S' puts range(Q_S) inside range(Q_S'): the rebased columns are the same unit
    vectors of Rⁿ."""
    rng = np.random.default_rng(3)
    n = 30
    old = np.sort(rng.choice(n, 12, replace=False))
    new = np.union1d(old, rng.choice(np.setdiff1d(np.arange(n), old), 5, replace=False))

    def in_r_n(Z, support):
        U = np.tile(Z[-1] / np.sqrt(n - support.size), (n, 1))
        U[support] = Z[:support.size]
        return U

    Z = rng.normal(size=(old.size + 1, 3))
    U = in_r_n(Z, old)
    W = dank_adaptive.rebased(Z, old, new, n)
    np.testing.assert_allclose(in_r_n(W, new), U / np.linalg.norm(U, axis=0), atol=1e-14)


def near_identity(n, spread, seed=0, n_positive=8):
    """ijcnn1 at σ = 1/32 in miniature (22 features in [0, 1], K nearly the identity): the positives
    lie apart from all points, so their rows of K are those of I, their α are equal and
    M = 11ᵀ + Γ repeats Γ_ii = α_i²/(4η) n_positive − 1 times; the negatives lie in a cube of side
    ``spread``, weakly coupled (distinct α, so Lanczos does not break down on a tiny Krylov space)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 22))
    X[n_positive:] = 0.5 + spread * rng.uniform(size=(n - n_positive, 22))
    y = np.where(np.arange(n) < n_positive, 1, -1)
    return X, y, gaussian(X, X, sigma=1 / 32)


@pytest.mark.parametrize("n", [80, 240])
def test_lanczos_route_finds_a_repeated_eigenvalue(n, monkeypatch):
    """A Krylov space holds one vector of each eigenspace, so Lanczos alone found one copy of the
    eigenvalue Γ_ii of the 8 positives repeated above τ/2 (rank F 2 of 9, F off by 2e-2); its check
    sends such a case to the eigh, cold and warm-started."""
    monkeypatch.setattr(dank_adaptive, "EIGH_MAX_SIZE", 0)
    X, y, K = near_identity(n, spread=1.0)  # K ≈ I: the α below make the repeated eigenvalue
    rng = np.random.default_rng(1)
    alpha = rng.uniform(0.0, 0.3, n)
    alpha[y > 0] = 1.0  # Γ_ii = 0.025 > τ/2 for the positives, < τ/2 for the rest
    eta, tau = 10.0, 0.01
    adaptive_matrix = dank_adaptive.adaptive_matrices(K, eta, tau)
    for step in range(3):  # the first cold, then warm starts on the same support
        v = y * alpha * np.where(y > 0, 1.0, 1.0 + 0.01 * step)
        F, reference = adaptive_matrix(v), dense_F(K, v, eta, tau)
        assert F.rank == np.sum(np.linalg.eigvalsh(reference) > 1e-9) == 9
        np.testing.assert_allclose(F.dense(), reference, atol=1e-12 * np.abs(reference).max())


@pytest.mark.parametrize("lanczos", [False, True])
@pytest.mark.parametrize("spread", [0.035, 0.04])
def test_near_identity_kernel_fits_are_monotone_and_certified(spread, lanczos, monkeypatch):
    """The symptom of ijcnn1 at σ = 1/32 (h of the fista iterates down and up, the Wolfe gap stalled
    for max_iter iterations): Lanczos missed copies of the repeated eigenvalue, so the oracle's h
    exceeded min_F H (there by up to 0.96) by an amount that changed with the copies found.  Here
    h dropped along the iterates, or (spread 0.04) the fits converged to a wrong F of rank 2 of 9.
    Along a warm-started C path as in the CV, with the dense route (M of size 81) and with the
    checked Lanczos route forced."""
    if lanczos:
        monkeypatch.setattr(dank_adaptive, "EIGH_MAX_SIZE", 0)
    X, y, K = near_identity(80, spread)
    y_pm, tau = y.astype(float), 0.01
    previous = None
    for C in (0.25, 0.5, 1.0):
        start = None if previous is None else previous.alpha_ * (C / previous.C)
        est = DANK(C=C, tau=tau).fit(K, y, X, warm_start=start)
        objective = np.array([r["objective"] for r in est.history_])
        assert np.all(np.diff(objective) >= -1e-12 * abs(objective[-1]))
        assert est.converged_ and est.gap_ <= 1e-4
        # h of the oracle is H at the exact minimizer over F
        np.testing.assert_allclose(est.objective_, h_and_grad(est.alpha_, K, y_pm, est.eta_, tau)[0], rtol=1e-10)
        reference = dense_F(K, y_pm * est.alpha_, est.eta_, tau)
        assert est.rank_F_ == np.sum(np.linalg.eigvalsh(reference) > 1e-9)
        previous = est


def test_gradient_of_h_matches_finite_differences(blobs):
    X, y, _, K, _ = blobs
    rng = np.random.default_rng(1)
    alpha = rng.uniform(0.0, 1.0, y.size)
    evaluate = dank_evaluate(K, y.astype(float), 0.05, 0.3)
    grad = evaluate(alpha).grad
    step = 1e-6
    for i in rng.choice(y.size, 6, replace=False):
        e = np.zeros(y.size)
        e[i] = step
        fd = (evaluate(alpha + e).value - evaluate(alpha - e).value) / (2 * step)
        assert abs(fd - grad[i]) <= 1e-6 * max(1.0, abs(grad[i]))


# -- solvers -------------------------------------------------------------------------------------
# C and η where F is far from 11ᵀ (rank > 3) yet the paper's L is small enough for a quick test.
C_TEST, ETA_TEST, TAU_TEST = 0.5, 5.0, 0.01


@pytest.fixture(scope="module")
def h_star(blobs):
    X, y, _, K, _ = blobs
    return fista_max(K, y.astype(float), C_TEST, ETA_TEST, TAU_TEST)[0]


@pytest.mark.parametrize("solver,monotone", [("nesterov", False), ("nesterov", True), ("pg", False),
                                             ("fista", False)])
@pytest.mark.slow
def test_dank_reaches_the_optimum_of_an_independent_accelerated_solver(blobs, h_star, solver, monotone):
    X, y, _, K, _ = blobs
    y_pm = y.astype(float)
    est = DANK(C=C_TEST, eta=ETA_TEST, tau=TAU_TEST, solver=solver, monotone=monotone, max_iter=3000,
               tol=1e-9).fit(K, y, X)
    assert abs(est.objective_ - h_star) <= 1e-6 * abs(h_star)
    # objective_ is h at the returned point, recomputed here with dense linear algebra
    np.testing.assert_allclose(h_and_grad(est.alpha_, K, y_pm, ETA_TEST, TAU_TEST)[0], est.objective_, rtol=1e-10)
    assert abs(y_pm @ est.alpha_) < 1e-10 and est.alpha_.min() >= 0 and est.alpha_.max() <= C_TEST
    # F is far from the SVM's 11ᵀ here: the test is about DANK, not the SVM limit
    assert est.rank_F_ > 3


def test_backtracking_solver_is_monotone_and_needs_far_fewer_iterations(blobs, h_star):
    """The backtracked L follows the local curvature, far below Theorem 4's worst case."""
    X, y, _, K, _ = blobs
    fista = DANK(C=C_TEST, eta=ETA_TEST, tau=TAU_TEST, solver="fista", tol=1e-6).fit(K, y, X)
    paper = DANK(C=C_TEST, eta=ETA_TEST, tau=TAU_TEST, solver="nesterov", tol=1e-6, max_iter=3000).fit(K, y, X)
    objective = np.array([r["objective"] for r in fista.history_])
    assert np.all(np.diff(objective) >= -1e-12 * abs(h_star))
    assert fista.converged_ and fista.n_iter_ * 5 < paper.n_iter_
    assert abs(fista.objective_ - h_star) <= 1e-5 * abs(h_star)


def test_backtracked_step_from_a_kkt_point_does_not_lower_h():
    """A flat secant left L ~ 1e-9 (ijcnn1, σ = 1/32, a warm start), so the step ∇h/L ~ 1e9 reached
    far beyond the feasible set, and projecting it back cost ~1e-7 of round-off: from a KKT point
    with free coordinates, ∇hᵀd < 0 and h fell (by up to 1.3e-8 relative, in 8 of these 20
    cases), yet on a nearly linear h the model test held.  The step must not lower h."""
    n, C, mu, theta = 40, 10.0, 1e-9, 0.7
    z = np.where(np.arange(n) % 3 == 0, 1.0, -1.0)
    project = make_projection("exact", z, C)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        free = rng.random(n) < 0.5
        free[0] = True  # a free coordinate in each class (z_0 = +1, z_1 = −1)
        free[1] = True
        x_star = np.where(free, rng.uniform(0.1, 0.9, n), 0.0)
        x_star[z > 0] *= x_star[z < 0].sum() / x_star[z > 0].sum()  # zᵀx* = 0, inside the box
        grad_star = theta * z - np.where(free, 0.0, 0.5)  # the KKT conditions with multiplier θ

        def evaluate(x):
            d = x - x_star
            return Evaluation(float(10.0 + grad_star @ d - 0.5 * mu * d @ d), grad_star - mu * d)

        start = evaluate(x_star)
        _, ev, _ = _model_step(evaluate, project, x_star, start, 2.0 * mu, 1.0, feasible=True)
        assert ev.value >= start.value - 1e-12 * abs(start.value)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_collatz_wielandt_certificate_bounds_the_second_eigenvalue(sign):
    """λ₂(11ᵀ + Γ) ≤ the certified bound, for a nonnegative and for a sign-changing kernel."""
    rng = np.random.default_rng(11)
    n = 80
    X = rng.normal(size=(n, 2))
    K = gaussian(X, X, sigma=0.5) + (0.0 if sign > 0 else -0.4 * gaussian(X, X, sigma=0.2))
    v = rng.uniform(-1, 1, n)
    eta = 2.0
    lam2 = np.linalg.eigvalsh(np.ones((n, n)) + np.outer(v, v) * K / (4 * eta))[-2]
    F = AdaptiveMatrix(K, v, eta, tau=1.0)
    assert F._second_eigenvalue_below(lam2 * 1.5) or F._second_eigenvalue_below(lam2 * 3)
    assert not F._second_eigenvalue_below(lam2 * 0.999)


def test_defaults_stop_by_the_gap_rule_and_log_history(blobs):
    X, y, X_test, K, K_test = blobs
    est = DANK(C=1.0, eta="svm").fit(K, y, X)
    h = est.history_
    assert [r["iteration"] for r in h] == list(range(est.n_iter_ + 1))
    assert all({"iteration", "objective", "step_norm", "gap", "elapsed"} <= set(r) for r in h)
    assert est.converged_ and h[-1]["gap"] <= 1e-4 < min(r["gap"] for r in h[:-1])
    assert est.gap_ == h[-1]["gap"]  # fista returns its last iterate
    svm = SVC(C=1.0, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(est.eta_, np.sum(svm.dual_coef_**2))
    assert est.score(K_test, np.sign(X_test[:, 0]), X_test) > 0.6


def test_papers_step_rule_stops_on_the_step_norm(blobs):
    X, y, _, K, _ = blobs
    est = DANK(C=1.0, eta="svm", solver="nesterov", stopping="step").fit(K, y, X)
    h = est.history_
    assert est.converged_ == (h[-1]["step_norm"] <= 1e-4)
    assert all(r["step_norm"] > 1e-4 or r["step_norm"] > prev["step_norm"] for prev, r in zip(h[1:-1], h[2:-1]))


# -- the default fit against a certified optimum ------------------------------------------------
def test_wolfe_gap_is_the_linear_program_over_the_feasible_set():
    rng = np.random.default_rng(4)
    for _ in range(30):
        n = int(rng.integers(2, 40))
        z = rng.permutation(np.r_[1.0, -1.0, np.where(rng.random(n - 2) < 0.5, 1.0, -1.0)])
        C = rng.uniform(0.1, 10.0)
        g = rng.normal(size=n) * rng.choice([1e-3, 1.0, 1e3])
        x = project_bisection(rng.normal(size=n), z, C)
        scale = np.abs(g).sum() * C
        assert wolfe_gap(g, x, z, C) == pytest.approx(wolfe_gap_lp(g, x, z, C), abs=1e-10 * scale)
        assert wolfe_gap(g, x, None, C) == pytest.approx(wolfe_gap_lp(g, x, None, C), abs=1e-10 * scale)


def certified_optimum(K, y, C, eta, tau, certify=1e-8, max_iter=3000):
    """(h(x), h(x) + G(x)) ⊇ h*: restarted FISTA on the dense h, its Wolfe gap G by an LP solver.

    The step is 1/L with eq. (16)'s L = n + nC²λ_max(K)/(4η) (much shorter runs than Theorem 4's);
    the LP certificate, valid for concave h, makes the bracket independent of that choice.
    """
    L = y.size + y.size * C**2 * np.linalg.eigvalsh(K)[-1] / (4 * eta)
    for it, (x, _) in zip(range(1, max_iter + 1), restarted_fista(K, y, C, eta, tau, L)):
        if it % 100 == 0:
            h, g = h_and_grad(x, K, y, eta, tau)
            gap = wolfe_gap_lp(g, x, y, C)
            if gap <= certify * abs(h):
                return h, h + gap
    raise AssertionError("the reference did not certify its optimum")


@pytest.fixture(scope="module")
def heart80(load_split):
    """The problem of the report: 80 points of KEEL heart's training half, Gaussian σ = 1."""
    split = load_split("heart")
    idx = np.random.default_rng(0).choice(split.y_train.size, 80, replace=False)
    X, labels = split.X_train[idx], split.y_train[idx]
    K, _ = kernel_matrices(resolve_params({"type": "rbf", "sigma": 1.0}, X.shape[1]), X, X)
    return X, labels, np.where(labels == np.unique(labels)[1], 1.0, -1.0), K


@pytest.mark.slow
@pytest.mark.parametrize("eta", [10.0, "svm"])
def test_default_fit_is_within_1e_4_of_a_certified_optimum(heart80, eta):
    X, labels, y, K = heart80
    C, tau = 1.0, 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = DANK(C=C, eta=eta, tau=tau).fit(K, labels, X)
    h_low, h_up = certified_optimum(K, y, C, est.eta_, tau)
    np.testing.assert_allclose(h_and_grad(est.alpha_, K, y, est.eta_, tau)[0], est.objective_, rtol=1e-10)
    assert est.converged_ and est.gap_ <= 1e-4
    assert (h_up - est.objective_) / h_up <= 1e-4
    # the fit's bound holds: h* − h(α) ≤ gap_·|h(α)|
    assert h_low - est.objective_ <= est.gap_ * est.objective_


@pytest.mark.slow
def test_a_fit_stopped_early_warns_how_far_it_is(heart80):
    X, labels, y, K = heart80
    C, eta, tau = 1.0, 10.0, 0.01
    with pytest.warns(ConvergenceWarning, match=r"max_iter=5 before relative gap bound <= tol=0.0001") as record:
        est = DANK(C=C, eta=eta, tau=tau, max_iter=5).fit(K, labels, X)
    bound = float(re.search(r"\(h\* - h\)/\|h\| <= (\S+),", str(record[0].message)).group(1))
    assert bound == pytest.approx(est.gap_, rel=1e-2) and not est.converged_
    h_low, h_up = certified_optimum(K, y, C, eta, tau)
    assert 1e-4 < (h_low - est.objective_) / est.objective_ <= est.gap_  # far, and the warning's bound is true


def test_infinite_eta_is_the_svm(blobs):
    """η → ∞: F → J_{τ/2}(11ᵀ) = (1 − τ/(2n))11ᵀ, so DANK is the SVM on (1 − τ/(2n))K."""
    X, y, X_test, K, K_test = blobs
    tau, n = 0.01, y.size
    shrink = 1 - tau / (2 * n)
    svc = SVC(C=1.0, kernel="precomputed", tol=1e-12).fit(shrink * K, y)
    # the step rule: with η = 1e12, h ≈ h(0) = τη(n − τ/2) + η(τ/2)² = 3e11 is almost all constant, so a
    # relative gap of 1e-13 is an absolute 0.03 on the SVM's part
    est = DANK(C=1.0, eta=1e12, tau=tau, solver="nesterov", stopping="step", max_iter=50000, tol=1e-13).fit(K, y, X)
    np.testing.assert_allclose(est.decision_function(K_test, X_test), svc.decision_function(shrink * K_test),
                               atol=1e-6)
    np.testing.assert_array_equal(est.predict(K_test, X_test), svc.predict(shrink * K_test))
    assert est.rank_F_ == 1


def test_alternating_projection_is_the_papers_approximation(blobs, h_star):
    X, y, _, K, _ = blobs
    alt = DANK(C=C_TEST, eta=ETA_TEST, tau=TAU_TEST, projection="alternating", solver="nesterov",
               stopping="step").fit(K, y, X)
    assert abs(y @ alt.alpha_) < 1e-10  # each round ends on the hyperplane ...
    assert alt.alpha_.min() > -0.05 * C_TEST and alt.alpha_.max() < 1.05 * C_TEST  # ... near the box
    # ten rounds do not reach the projection, so the ascent stalls below the optimum of (5)
    assert 0.8 * h_star <= alt.objective_ <= h_star + 1e-9


# -- partitioned version -------------------------------------------------------------------------
def test_one_cluster_equals_exact_dank_without_bias_and_nuclear_norm(blobs):
    X, y, X_test, K, K_test = blobs
    h_box, _ = fista_max(K, y.astype(float), C_TEST, ETA_TEST, 0.0, box_only=True)
    part = DANK(C=C_TEST, eta=ETA_TEST, n_clusters=1, max_iter=3000, tol=1e-9, random_state=0).fit(K, y, X)
    exact = DANK(C=C_TEST, eta=ETA_TEST, tau=0.0, fit_intercept=False, max_iter=3000, tol=1e-9).fit(K, y, X)
    assert abs(part.objective_ - h_box) <= 1e-6 * abs(h_box)
    np.testing.assert_allclose(part.alpha_, exact.alpha_, atol=1e-12)
    np.testing.assert_allclose(part.decision_function(K_test, X_test), exact.decision_function(K_test, X_test),
                               atol=1e-12)
    assert part.intercept_ == 0.0 and part.rank_F_ == exact.rank_F_


def test_partition_solves_problem_19_with_the_block_diagonal_kernel(blobs):
    """Lemma 5: the concatenated cluster solutions maximize h̄ for K̄ = K on same-cluster pairs, 0 elsewhere."""
    X, y, _, K, _ = blobs
    part = DANK(C=C_TEST, eta=ETA_TEST, n_clusters=3, max_iter=3000, tol=1e-9, random_state=0).fit(K, y, X)
    same = part.cluster_labels_[:, None] == part.cluster_labels_[None, :]
    K_bar = np.where(same, K, 0.0)
    h_bar, alpha_bar = fista_max(K_bar, y.astype(float), C_TEST, ETA_TEST, 0.0, box_only=True)
    np.testing.assert_allclose(part.alpha_, alpha_bar, atol=1e-4)
    # K PSD: (19)'s minimizer 11ᵀ + Γ̄ has off-block entries 1 and ‖F − 11ᵀ‖² = Σ_c ‖Γ_c‖², so h̄ = Σ_c h_c
    np.testing.assert_allclose(h_bar, part.objective_, rtol=1e-6)
    # F_ is the paper's block-diagonal F̄: cluster blocks J_0(11ᵀ + Γ_c), zeros elsewhere
    F = part.F_
    assert np.all(F[~same] == 0.0)
    y_pm = np.where(y > 0, 1.0, -1.0)
    for c in range(3):
        idx = np.flatnonzero(part.cluster_labels_ == c)
        block = dense_F(K[np.ix_(idx, idx)], y_pm[idx] * part.alpha_[idx], ETA_TEST, 0.0)
        np.testing.assert_allclose(F[np.ix_(idx, idx)], block, atol=1e-10)


# -- out-of-sample extension ---------------------------------------------------------------------
def brute_force_reciprocal(X, X_test):
    n, m = len(X), len(X_test)
    D = np.linalg.norm(X[:, None] - X_test[None], axis=-1)
    best = []
    for j in range(m):
        scores = []
        for i in range(n):
            r = 1 + np.sum(D[i] < D[i, j])   # rank of x'_j among test points seen from x_i
            s = 1 + np.sum(D[:, j] < D[i, j])  # rank of x_i among training points seen from x'_j
            scores.append((1.0 / (r * s), -D[i, j], -i))
        best.append(max(scores)[2] * -1)
    return np.array(best)


def test_reciprocal_neighbours_follow_equation_12():
    rng = np.random.default_rng(3)
    X, X_test = rng.normal(size=(25, 3)), rng.normal(size=(15, 3))
    np.testing.assert_array_equal(reciprocal_neighbours(X, X_test), brute_force_reciprocal(X, X_test))
    # only mutual nearest pairs: a pair exists iff j is i's nearest test point and i is j's nearest
    D = np.linalg.norm(X[:, None] - X_test[None], axis=-1)
    mutual = reciprocal_neighbours(X, X_test, max_rank=1)
    for j, i in enumerate(mutual):
        assert i == np.argmin(D[:, j])  # a mutual pair or the 1-NN fallback: both are the nearest point
    knn = extension_indices(X, X_test, method="knn", n_neighbors=5)
    np.testing.assert_array_equal(knn, np.argsort(D.T, axis=1)[:, :5])


@pytest.mark.parametrize("prefix", [32, 2])
@pytest.mark.parametrize("max_rank", [None, 1, 3])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("rank_matrix", [True, False])
def test_reciprocal_search_equals_the_full_rank_matrices(prefix, max_rank, ties, rank_matrix, monkeypatch):
    """The prefix search gives eq. (12)'s j* as the full rank matrices do, with ties (integer
    features: many equal distances, ranked by index) and mutual-rank limits; a 2-point prefix
    sends most test points to the full order of their column. Each r read from the rank matrix
    or counted from its row of distances (large sets)."""
    monkeypatch.setattr(neighbours, "PREFIX", prefix)
    if not rank_matrix:
        monkeypatch.setattr(neighbours, "RANK_MATRIX_PAIRS", 0)
    monkeypatch.setattr(neighbours, "CHUNK", 7)
    rng = np.random.default_rng(8)
    for n, m in [(40, 31), (31, 40), (1, 5), (60, 60)]:
        X, X_test = rng.normal(size=(n, 3)), rng.normal(size=(m, 3))
        if ties:
            X, X_test = np.round(X), np.round(X_test)
        np.testing.assert_array_equal(reciprocal_neighbours(X, X_test, max_rank=max_rank),
                                      reciprocal_by_full_ranks(X, X_test, max_rank=max_rank))


def test_extension_on_the_training_points_gives_the_training_decision(blobs):
    X, y, _, K, _ = blobs
    est = DANK(C=C_TEST, eta=ETA_TEST).fit(K, y, X)
    v = np.where(y == est.classes_[1], 1.0, -1.0) * est.alpha_
    expected = (est.F_ * K) @ v + est.intercept_
    for kwargs in ({"extension": "reciprocal"}, {"extension": "knn", "n_neighbors": 1}):
        est.extension = kwargs["extension"]
        np.testing.assert_allclose(est.decision_function(K, X), expected, atol=1e-12)


def test_knn_extension_averages_neighbour_columns(blobs):
    X, y, X_test, K, K_test = blobs
    est = DANK(C=C_TEST, eta=ETA_TEST, extension="knn", n_neighbors=5).fit(K, y, X)
    F = est.F_
    nn = np.argsort(np.linalg.norm(X_test[:, None] - X[None], axis=-1), axis=1)[:, :5]
    F_test = F[:, nn].mean(axis=2)  # (n, m)
    v = np.where(y == est.classes_[1], 1.0, -1.0) * est.alpha_
    np.testing.assert_allclose(est.decision_function(K_test, X_test), (F_test.T * K_test) @ v + est.intercept_,
                               atol=1e-12)


# -- validation ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,name", [({"C": -1.0}, "C"), ({"eta": "huge"}, "eta"), ({"tau": -0.1}, "tau"),
                                         ({"solver": "newton"}, "solver"), ({"n_clusters": 0}, "n_clusters"),
                                         ({"projection": "approx"}, "projection"), ({"max_iter": 0}, "max_iter"),
                                         ({"init": "ones"}, "init")])
def test_bad_parameters_are_named(blobs, kwargs, name):
    X, y, _, K, _ = blobs
    with pytest.raises(KreinbenchError, match=name):
        DANK(**kwargs).fit(K, y, X)


def test_features_must_match_the_kernel(blobs):
    X, y, _, K, K_test = blobs
    with pytest.raises(KreinbenchError, match="X must have shape"):
        DANK().fit(K, y, X[:-1])
    est = DANK(C=C_TEST, eta=ETA_TEST).fit(K, y, X)
    with pytest.raises(KreinbenchError, match="X_test"):
        est.decision_function(K_test, X[:3])


def test_iteration_limit_warns(blobs):
    X, y, _, K, _ = blobs
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        est = DANK(eta=1.0, max_iter=3).fit(K, y, X)
    assert not est.converged_ and est.n_iter_ == 3


# -- warm starts along C (cross-validation) --------------------------------------------------------
def test_warm_start_reaches_the_cold_maximum_in_fewer_iterations(heart80):
    X, labels, y, K = heart80
    small = DANK(C=0.5, tau=0.01, tol=1e-9).fit(K, labels, X)
    cold = DANK(C=1.0, tau=0.01, tol=1e-9).fit(K, labels, X)
    warm = DANK(C=1.0, tau=0.01, tol=1e-9).fit(K, labels, X, warm_start=small.alpha_ * 2.0)
    assert cold.converged_ and warm.converged_
    assert warm.objective_ == pytest.approx(cold.objective_, rel=1e-6)
    # h(α) at the start: the scaled α of C = 0.5 already beats α = 0's h = 0 by far
    assert warm.history_[0]["objective"] > 0.5 * cold.objective_
    assert warm.n_iter_ < cold.n_iter_


def test_warm_start_is_projected_and_checked(heart80):
    X, labels, y, K = heart80
    est = DANK(C=1.0, tau=0.01).fit(K, labels, X, warm_start=np.full(y.size, 5.0))  # infeasible: projected
    assert np.all(est.alpha_ <= 1.0 + 1e-12) and abs(est.alpha_ @ y) < 1e-8
    with pytest.raises(KreinbenchError, match=r"warm_start must be dual variables of shape \(80,\)"):
        DANK(C=1.0).fit(K, labels, X, warm_start=np.zeros(3))
    with pytest.raises(KreinbenchError, match="n_clusters=2"):
        DANK(C=1.0, n_clusters=2).fit(K, labels, X, warm_start=np.zeros(80))


@pytest.mark.parametrize("C", [0.5, 4.0])
def test_ascent_from_the_svm_reaches_the_maximum_from_zero(heart80, C):
    """init="svm" starts at the α of the SVM that η = ‖α_SVM‖² fits anyway: the same maximum, and
    at the default tolerance in fewer iterations (here 3 against 22 at C = 0.5, 21 against 43 at
    C = 4; at tol = 1e-9 not always fewer: 173 against 159 at C = 4)."""
    X, labels, y, K = heart80
    cold = DANK(C=C, tau=0.01, tol=1e-9).fit(K, labels, X)
    warm = DANK(C=C, tau=0.01, tol=1e-9, init="svm").fit(K, labels, X)
    assert cold.converged_ and warm.converged_
    assert warm.objective_ == pytest.approx(cold.objective_, rel=1e-9)  # both certified to 1e-9
    svm = SVC(C=C, kernel="precomputed").fit(K, labels)
    start = np.zeros(y.size)
    start[svm.support_] = np.abs(svm.dual_coef_[0])
    assert warm.eta_ == pytest.approx(start @ start, rel=1e-12)
    assert warm.history_[0]["objective"] > cold.history_[1]["objective"]
    assert DANK(C=C, tau=0.01, init="svm").fit(K, labels, X).n_iter_ < DANK(C=C, tau=0.01).fit(K, labels, X).n_iter_


def test_psd_test_is_made_only_when_the_trace_certificate_could_use_it(heart80, monkeypatch):
    """τ > 0: the Cholesky test of K serves only the rank-one route's trace bound, so it is skipped
    while that bound fails (η = ‖α_SVM‖²: tr Γ ≈ 1/4 > τ/2) and made once when it holds (large η)."""
    X, labels, y, K = heart80
    calls = []
    real = dank_adaptive.kernel_is_psd
    monkeypatch.setattr(dank_adaptive, "kernel_is_psd", lambda K_: calls.append(1) or real(K_))
    DANK(C=1.0, tau=0.01, init="svm").fit(K, labels, X)
    assert calls == []
    lazy = DANK(C=1.0, tau=0.01, eta=1e4).fit(K, labels, X)
    assert calls == [1]
    monkeypatch.setattr(dank_adaptive, "kernel_is_psd", lambda K_: False)  # the trace route off
    plain = DANK(C=1.0, tau=0.01, eta=1e4).fit(K, labels, X)
    assert lazy.objective_ == pytest.approx(plain.objective_, rel=1e-12)
    np.testing.assert_allclose(lazy.alpha_, plain.alpha_, rtol=1e-9, atol=1e-12)


def test_cv_along_c_scores_as_cold_separate_fits(heart80):
    from kreinbench.methods.selection import cross_validate
    X, labels, y, K = heart80
    grid = {"C": [0.125, 0.5, 2.0, 8.0]}
    make = lambda p: DANK(tau=0.01, tol=1e-8, **p)  # noqa: E731
    path = cross_validate(make, {"k": K}, labels, grid, n_folds=3, seed=1, X=X)
    separate = cross_validate(make, {"k": K}, labels, grid, n_folds=3, seed=1, X=X, paths=False)
    for a, b in zip(path.scores, separate.scores):
        assert a["C"] == b["C"] and a["cv_accuracy"] == pytest.approx(b["cv_accuracy"], abs=1e-12)
    assert path.best_params == separate.best_params
    assert DANK().supports_grid_path(grid)
    assert not DANK(n_clusters=2).supports_grid_path(grid)
    assert not DANK().supports_grid_path({"C": [1.0], "tau": [0.0, 0.01]})


@pytest.mark.parametrize("rank_matrix", [True, False])
def test_reciprocal_search_on_a_grid_around_the_data(rank_matrix, monkeypatch):
    """Fig. 1's case: test points on a lattice around the training points, most of them far from
    all of them, so their search goes past the prefix into the full order of their column."""
    if not rank_matrix:
        monkeypatch.setattr(neighbours, "RANK_MATRIX_PAIRS", 0)
    rng = np.random.default_rng(9)
    X = rng.normal(size=(120, 2))
    axis = np.linspace(-4, 4, 45)
    X_test = np.column_stack([a.ravel() for a in np.meshgrid(axis, axis)])
    np.testing.assert_array_equal(reciprocal_neighbours(X, X_test), reciprocal_by_full_ranks(X, X_test))
    np.testing.assert_array_equal(reciprocal_neighbours(X, X_test, max_rank=3),
                                  reciprocal_by_full_ranks(X, X_test, max_rank=3))
