import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
import scipy.special

from conftest import klr_objective_and_gradient
from kreinbench.errors import KreinbenchError
from kreinbench.linalg.eigen import positive_definite
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.linalg.spectrum import compute_spectrum, eigendecompose
from kreinbench.methods import IKLR, KLR, ConvergenceWarning, RunawayWarning, SpectrumKLR
from kreinbench.methods.base import check_train_kernel
from kreinbench.methods.iklr import estimator as iklr
from kreinbench.methods.iklr import inner as iklr_inner
from kreinbench.methods.iklr import lockstep as iklr_lockstep
from kreinbench.methods.iklr.estimator import _fit_lockstep, _LockstepFits
from kreinbench.methods.multiclass import OneVsRest
from kreinbench.methods.selection import cross_validate, stratified_folds
from kreinbench.methods.solvers.logistic import LogisticKernelLoss


def reference_klr(K, y_pm, lam):
    """Convex KLR optimum by scipy's L-BFGS, run far past any practical tolerance."""
    n = y_pm.size

    def fun(w):
        f, g_a, g_b = klr_objective_and_gradient(K, y_pm, lam, w[:n], w[n])
        return f, np.append(g_a, g_b)

    res = scipy.optimize.minimize(fun, np.zeros(n + 1), jac=True, method="L-BFGS-B",
                                  options={"maxiter": 100000, "gtol": 1e-13, "ftol": 0.0, "maxcor": 50})
    return res.fun


def pm(y, est):
    return np.where(y == est.classes_[1], 1.0, -1.0)


def objective(est, K, y):
    return klr_objective_and_gradient(K, pm(y, est), est.lam, est.alpha_, est.intercept_)[0]


def indefinite_by_construction(K_psd, magnitude):
    """K_psd with its smallest eigenvalue replaced by -magnitude: exactly one negative direction."""
    mu, V = np.linalg.eigh(K_psd)
    mu[0] = -magnitude
    K = (V * mu) @ V.T
    return (K + K.T) / 2


@pytest.mark.parametrize("lam", [1e-3, 0.1])
def test_psd_kernel_exact_solvers_reach_the_convex_optimum(rbf_heart, lam):
    K, _, y, _ = rbf_heart
    klr = KLR(lam=lam).fit(K, y)
    f_star = reference_klr(K, pm(y, klr), lam)
    assert objective(klr, K, y) == pytest.approx(f_star, rel=1e-6)
    for solver in ("cccp-gd", "cccp-lbfgs"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # eps=1e-7 can stall at round-off
            exact = IKLR(lam=lam, solver=solver, eps=1e-7).fit(K, y)
        assert objective(exact, K, y) == pytest.approx(f_star, rel=1e-6), solver


@pytest.mark.parametrize("solver", ["ccicp-gd", "ccicp-gd-mm17", "ccicp-sgd"])
def test_psd_kernel_inexact_solvers_approach_the_optimum(rbf_heart, solver):
    K, _, y, _ = rbf_heart
    lam = 0.1
    f_star = reference_klr(K, pm(y, KLR(lam=lam).fit(K, y)), lam)
    short = IKLR(lam=lam, solver=solver, random_state=0).fit(K, y)
    with warnings.catch_warnings():
        # GD ends near-stationary, so without a k_max warning; SGD's noise keeps it far.
        warnings.simplefilter("ignore" if solver == "ccicp-sgd" else "error", ConvergenceWarning)
        long = IKLR(lam=lam, solver=solver, random_state=0, max_outer=400, eps=1e-12).fit(K, y)
    gap_short = objective(short, K, y) / f_star - 1
    gap_long = objective(long, K, y) / f_star - 1
    assert 0 <= gap_long < gap_short
    # SGD restarts at one sample's largest stable step every outer iteration: its noise floor.
    assert gap_long < (5e-2 if solver == "ccicp-sgd" else 1e-2)


def test_shift_and_eigen_splits_reach_equally_stationary_points(rbf_heart):
    K_psd, _, y, _ = rbf_heart
    K = indefinite_by_construction(K_psd, magnitude=20.0)
    fits = {}
    for split in ("eigen", "shift"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fits[split] = IKLR(lam=1e-3, solver="cccp-gd", split=split, eps=1e-6).fit(K, y)
        assert not fits[split].diverged_ and fits[split].stationarity_ <= 1e-4, split
    assert objective(fits["shift"], K, y) == pytest.approx(objective(fits["eigen"], K, y), rel=1e-4)


@pytest.mark.slow
def test_preconditioned_exact_cccp_makes_the_gd_iterates_at_convergence(rbf_heart, tl1_monk2):
    """cccp-lbfgs (L-BFGS in the K₊ metric) and cccp-gd (BB in the Euclidean one) solve the same
    strictly convex subproblems, so solved tightly they make the same CCCP iterates: the same
    stationary point on a kernel with one negative direction, and on MONK-2's TL1 kernel, where
    exact CCCP runs away, the same outer step of the runaway at the same objective."""
    K_psd, _, y, _ = rbf_heart
    K = indefinite_by_construction(K_psd, magnitude=20.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # eps=1e-6 can stall at round-off
        fits = [IKLR(lam=1e-3, solver=solver, eps=1e-6, max_inner=200000).fit(K, y)
                for solver in ("cccp-gd", "cccp-lbfgs")]
    assert not any(f.diverged_ for f in fits) and all(f.stationarity_ <= 1e-4 for f in fits)
    assert objective(fits[1], K, y) == pytest.approx(objective(fits[0], K, y), rel=1e-6)
    np.testing.assert_allclose(fits[1].alpha_, fits[0].alpha_, atol=1e-4 * np.abs(fits[0].alpha_).max())
    K, _, y, _ = tl1_monk2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunawayWarning)
        fits = [IKLR(lam=0.01, solver=solver, eps=1e-8, max_inner=200000).fit(K, y) for solver in ("cccp-gd", "cccp-lbfgs")]
    assert all(f.diverged_ for f in fits) and fits[0].n_iter_ == fits[1].n_iter_
    assert fits[1].history_[-1]["objective"] == pytest.approx(fits[0].history_[-1]["objective"], rel=1e-6)
    # The preconditioned solver needs far fewer kernel products for it.
    assert fits[1].n_matvecs_ * 5 < fits[0].n_matvecs_


def test_cv_solver_runs_the_cv_and_solver_the_final_fit(tl1_monk2):
    """cv_solver: the λ path's fits are the cv_solver's (its scores exactly), the final fit the
    solver's (its iterates exactly)."""
    K, _, y, _ = tl1_monk2
    folds = stratified_folds(y, 3, seed=0)
    lams = [0.1, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = IKLR(solver="cccp-gd", cv_solver="cccp-lbfgs")
        np.testing.assert_array_equal(both.lambda_path_scores(K, y, folds, lams),
                                      IKLR(solver="cccp-lbfgs").lambda_path_scores(K, y, folds, lams))
        np.testing.assert_array_equal(both.fit(K, y).alpha_, IKLR(solver="cccp-gd").fit(K, y).alpha_)


def test_preconditioned_cccp_factors_k_plus_once_per_fold(tl1_monk2, monkeypatch):
    """The CV's λ path shares each fold's Cholesky factor of K₊ (τ depends on the fold, not on λ),
    and the factor is K₊'s."""
    K, _, y, _ = tl1_monk2
    factored = []
    cholesky = scipy.linalg.cholesky
    monkeypatch.setattr(scipy.linalg, "cholesky", lambda A, **kw: factored.append(A.shape) or cholesky(A, **kw))
    folds = stratified_folds(y, 3, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        IKLR(solver="cccp-lbfgs").lambda_path_scores(K, y, folds, [0.01, 0.1, 1.0])
    assert factored == [(tr.size, tr.size) for tr, _ in folds]
    est = IKLR(solver="cccp-lbfgs")
    est.tau_ = 7.0
    L = est._kplus_factor(K, np.empty(0), np.empty((K.shape[0], 0)), None)
    np.testing.assert_allclose(L @ L.T, K + 7.0 * np.eye(K.shape[0]), atol=1e-9 * np.abs(K).max())


def test_k_plus_factor_is_the_eigen_splits_k_plus_built_without_an_identity(tl1_monk2):
    """The factor of the default solver's K₊ is TNNLS's eigen-split K₊ (from a full eigh here), and
    building it holds less than two n × n arrays at its peak (K₊, factored in place, and the
    n × #negative factor of K₋'s low-rank part), where applying K₋ to an n × n identity and
    symmetrizing held 3.5."""
    import tracemalloc
    K, _, y, _ = tl1_monk2
    n = K.shape[0]
    spectral = IKLR._spectral_step(K, "eigen", None)
    assert spectral.mu_neg.size > 0
    est = IKLR(lam=0.1, solver="cccp-lbfgs")
    est.tau_ = -spectral.mu_min + 1e-8
    tracemalloc.start()
    try:
        L = est._kplus_factor(K, spectral.mu_neg, spectral.V_neg, None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * n * n * 8
    mu, V = np.linalg.eigh(K)
    plus = np.where(mu >= 0, mu + est.tau_, est.tau_)  # TNNLS, eq. after (6)
    np.testing.assert_allclose(L @ L.T, (V * plus) @ V.T, atol=1e-10 * np.abs(mu).max())


@pytest.mark.parametrize("lam", [1e-4, 0.01, 0.1, 1.0, 10.0])
def test_mm17_defaults_to_the_shift_split_which_ends_where_the_eigen_split_ends(tl1_monk2, lam):
    """MM'17's CCICP by default takes the shift split (no eigenvectors) and ends where the paper's
    eigen split ends on a paper's indefinite TL1 kernel: the same objective, α and test predictions."""
    K, K_test, y, _ = tl1_monk2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # t_max = 15 outer steps, as the paper
        shift = IKLR(lam=lam, solver="ccicp-gd-mm17").fit(K, y)
        eigen = IKLR(lam=lam, solver="ccicp-gd-mm17", split="eigen").fit(K, y)
    assert shift.spectral_path_ == "lanczos" and eigen.spectral_path_ == "negative"
    assert objective(shift, K, y) == pytest.approx(objective(eigen, K, y), rel=1e-5)
    assert np.linalg.norm(shift.alpha_ - eigen.alpha_) <= 1e-3 * np.linalg.norm(eigen.alpha_)
    assert np.array_equal(shift.predict(K_test), eigen.predict(K_test))


@pytest.mark.parametrize("solver,split", [("ccicp-gd", "eigen"), ("ccicp-gd-mm17", "shift"), ("ccicp-sgd", "eigen"),
                                          ("ccicp-sgd-i", "eigen"), ("cccp-gd", "eigen"), ("cccp-lbfgs", "eigen")])
def test_each_solver_has_its_default_split_and_spectrum(solver, split):
    assert IKLR(solver=solver)._validated()["split"] == split
    assert IKLR.needs_spectrum({"solver": solver}) == {"shift": "lambda_min", "eigen": "negative"}[split]
    assert IKLR.needs_spectrum({"solver": solver, "split": "eigen"}) == "negative"


@pytest.mark.parametrize("split", ["eigen", "shift"])
def test_theorem1_bound_matches_the_papers_matrices(tl1_monk2, split):
    K, _, y, _ = tl1_monk2
    est = IKLR(lam=1.0, solver="ccicp-gd", split=split).fit(K, y)
    mu, V = np.linalg.eigh(K)
    tau = est.tau_
    assert tau >= -mu[0]
    if split == "eigen":  # TNNLS, eq. after (6): K+ = V diag(mu_i + tau | tau) V^T, K- = V diag(tau | tau - mu_i) V^T
        plus, minus = np.where(mu >= 0, mu + tau, tau), np.where(mu >= 0, tau, tau - mu)
    else:
        plus, minus = mu + tau, np.full_like(mu, tau)
    K_plus, K_minus = (V * plus) @ V.T, (V * minus) @ V.T
    np.testing.assert_allclose(K_plus - K_minus, K, atol=1e-8 * np.abs(mu).max())
    n = y.size
    bound = est.lam * (np.linalg.norm(K_plus, 2) - np.linalg.norm(K_minus, 2)) - np.linalg.norm(K, 2) ** 2 / (4 * n)
    assert est.theorem1_bound_ == pytest.approx(bound, rel=1e-9)
    residuals = [h["inner_residual"] for h in est.history_[1:] if np.isfinite(h["inner_residual"])]
    assert est.theorem1_satisfied_ == (max(residuals) < bound)


def test_small_lambda_violates_theorem1(tl1_monk2):
    K, _, y, _ = tl1_monk2
    assert IKLR(lam=1e-3, solver="ccicp-gd").fit(K, y).theorem1_bound_ < 0


def test_mm17_variant_stops_by_its_own_rules(tl1_monk2):
    K, _, y, _ = tl1_monk2
    est = IKLR(lam=1.0, solver="ccicp-gd-mm17").fit(K, y)
    assert 1 <= est.n_iter_ <= 15
    f = [h["objective"] for h in est.history_]
    assert f[-1] < f[0]


def test_sgd_is_seeded(tl1_monk2):
    K, _, y, _ = tl1_monk2
    a = IKLR(solver="ccicp-sgd", random_state=1).fit(K, y).alpha_
    b = IKLR(solver="ccicp-sgd", random_state=1).fit(K, y).alpha_
    c = IKLR(solver="ccicp-sgd", random_state=2).fit(K, y).alpha_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_one_vs_rest_on_three_classes(tl1_monk2):
    K, K_test, y, y_test = tl1_monk2
    rng = np.random.default_rng(0)
    # Three classes: monk-2's two plus a third carved out of the positives at random.
    y3 = np.where(y > 0, np.where(rng.uniform(size=y.size) < 0.5, 1, 2), 0)
    ovr = OneVsRest(KLR(lam=0.01)).fit(np.abs(K), y3)
    scores = ovr.decision_function(np.abs(K))
    assert scores.shape == (y.size, 3)
    binary = KLR(lam=0.01).fit(np.abs(K), np.where(y3 == 2, 1, -1)).decision_function(np.abs(K))
    np.testing.assert_allclose(scores[:, 2], binary)
    assert set(ovr.predict(np.abs(K))) <= {0, 1, 2}


def test_exact_cccp_is_stationary_on_an_indefinite_kernel(rbf_heart):
    K_psd, _, y, _ = rbf_heart
    # One negative eigenvalue large enough that the loss curvature dominates along it
    # (λ < |μ|h/n, MM'17 §4.3), so CCCP converges to a stationary point instead of running away.
    K = indefinite_by_construction(K_psd, magnitude=20.0)
    assert np.linalg.eigvalsh(K)[0] < -19.9
    with warnings.catch_warnings():
        # CCCP's outer rate is linear and slow on near-null directions: eps=1e-6 is not reached
        # in max_outer steps, which the estimator reports; the bound below is what must hold.
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = IKLR(lam=1e-3, solver="cccp-gd", eps=1e-6).fit(K, y)
    assert not est.diverged_
    y_pm = pm(y, est)
    _, g_a, g_b = klr_objective_and_gradient(K, y_pm, est.lam, est.alpha_, est.intercept_)
    _, g0_a, g0_b = klr_objective_and_gradient(K, y_pm, est.lam, np.zeros(y.size), 0.0)
    relative = np.sqrt(g_a @ g_a + g_b**2) / np.sqrt(g0_a @ g0_a + g0_b**2)
    assert relative <= 1e-4
    assert est.stationarity_ == pytest.approx(relative, rel=1e-6)


def test_exact_inner_solve_is_nonmonotone_yet_never_above_its_start(tl1_monk2):
    """gd_exact (BB steps, nonmonotone Armijo test): every accepted point lies below the
    subproblem's starting value, though not every step decreases F_k, and it ends at gtol."""
    K, _, y, _ = tl1_monk2
    K, y_pm, _ = check_train_kernel(K, y)
    est = IKLR(lam=1e-3, solver="cccp-gd")
    p = est._validated()
    kminus = est._prepare(K, y_pm.size, IKLR._spectral_step(K, "eigen", None), p)
    loss = LogisticKernelLoss(K, y_pm)
    start = iklr_inner.Point(np.zeros(y_pm.size), 0.0, np.zeros(y_pm.size), np.zeros(y_pm.size))
    sub = iklr_inner.Subproblem(loss, p["lam"], kminus, start)
    F0, gtol = sub.objective(start), 1e-4 * float(np.linalg.norm(sub.gradient(start)[0]))
    values = [iklr_inner.gd_exact(sub, start, gtol=gtol, max_inner=t, step0=1.0)[1] for t in range(1, 40)]
    assert max(values) < F0
    assert np.any(np.diff(values) > 0)  # a nonmonotone step was taken
    end, F, t, _ = iklr_inner.gd_exact(sub, start, gtol=gtol, max_inner=100000, step0=1.0)
    assert t < 100000 and np.linalg.norm(np.append(*sub.gradient(end))) <= gtol and F < F0


def test_exact_cccp_objective_never_increases_on_indefinite_tl1(tl1_monk2):
    """Exact CCCP descends on f at every outer step.  (CCICP-GD's printed steps need not: its inner
    loop may end above F_k's start, as Algorithm 1 allows.)"""
    K, _, y, _ = tl1_monk2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunawayWarning)
        est = IKLR(lam=0.1, solver="cccp-gd", max_outer=20).fit(K, y)
    f = np.array([h["objective"] for h in est.history_])
    assert f.size >= 2
    assert np.all(np.diff(f) <= 1e-12 * np.maximum(1.0, np.abs(f[:-1])))
    assert objective(est, K, y) == pytest.approx(f[-1], rel=1e-10)


def test_runaway_of_exact_cccp_is_detected_and_reported(tl1_monk2):
    K, _, y, _ = tl1_monk2
    with pytest.warns(RunawayWarning, match="ran away"):
        est = IKLR(lam=0.1, solver="cccp-gd").fit(K, y)
    assert est.diverged_
    assert est.history_[-1]["objective"] < 0 < est.history_[0]["objective"]


def test_ccicp_gd_follows_algorithm_1_defaults(tl1_monk2):
    K, K_test, y, y_test = tl1_monk2
    with pytest.warns(ConvergenceWarning, match="reached max_outer=20") as caught:
        est = IKLR(lam=1.0, solver="ccicp-gd").fit(K, y)
    # The warning is issued iff the fit stopped far from stationarity, and says how far.
    assert est.stationarity_ > 1e-2 and f"{est.stationarity_:.3g}" in str(caught[0].message)
    assert est.n_iter_ == 20 and len(est.history_) == 21
    assert est.score(K_test, y_test) > 0.6


@pytest.mark.parametrize("split", ["eigen", "shift"])
def test_cached_spectrum_gives_the_same_fit(tl1_monk2, split):
    K, K_test, y, _ = tl1_monk2
    a = IKLR(lam=1.0, solver="ccicp-gd", split=split).fit(K, y)
    # The kind the pipeline caches for this estimator gives the identical fit (for the shift
    # split, whose τ the estimator alone takes from a Lanczos bound, the same up to that bound) ...
    cached = compute_spectrum(K, IKLR.needs_spectrum({"split": split}))
    b = IKLR(lam=1.0, solver="ccicp-gd", split=split).fit(K, y, spectrum=cached)
    if split == "eigen":
        np.testing.assert_array_equal(a.decision_function(K_test), b.decision_function(K_test))
    else:
        assert a.spectral_path_ == "lanczos" and a.tau_ >= b.tau_ - 1e-12 * abs(b.tau_)
        scores = b.decision_function(K_test)
        np.testing.assert_allclose(a.decision_function(K_test), scores, rtol=1e-9, atol=1e-11 * np.abs(scores).max())
    # ... and a full eigendecomposition the same fit up to round-off (mu_max by eigh, not Lanczos).
    c = IKLR(lam=1.0, solver="ccicp-gd", split=split).fit(K, y, spectrum=eigendecompose(K))
    scores = a.decision_function(K_test)
    np.testing.assert_allclose(c.decision_function(K_test), scores, rtol=1e-10, atol=1e-11 * np.abs(scores).max())


def kernel_case(kernel, tl1_monk2, rbf_heart):
    """(K, y): the indefinite TL1 kernel of monk-2, or heart's RBF kernel made safely positive definite
    ("psd", so that the Cholesky certificate applies) or given one negative eigenvalue ("one_negative")."""
    if kernel == "tl1":
        K, _, y, _ = tl1_monk2
        return K, y
    K, _, y, _ = rbf_heart
    return (K + 1e-3 * np.eye(K.shape[0]) if kernel == "psd" else indefinite_by_construction(K, 20.0)), y


def straightforward_ccicp_gd(K, y_pm, lam, split, max_outer=20, eta=0.02, rho=0.8, eps=1.0, tau=None):
    """TNNLS Algorithm 1 (CCICP-GD) written out on the summed objective n·F_k with explicit n×n
    matrices K₊, K₋ from a full eigh: steps η_t = ηρ^t from each outer iteration's start, clipped
    at 2/(nλ‖K₊‖) (the summed quadratic's curvature), inner stop |n·F_k(α^(t+1)) − n·F_k(α^(t))| ≤ ε.
    Every F and ∇F by explicit matrix products at the point itself: no cached or linearly
    updated Kα.  ``tau`` defaults to −μ_min plus the estimator's round-off margin.
    """
    n = y_pm.size
    mu, V = np.linalg.eigh(K)
    norm_K = np.abs(mu).max()
    if tau is None:
        tau = max(-mu[0], 0.0) + n * np.finfo(float).eps * norm_K
    if split == "eigen":  # TNNLS, eq. after (6)
        plus, minus = np.where(mu >= 0, mu + tau, tau), np.where(mu >= 0, tau, tau - mu)
    else:
        plus, minus = mu + tau, np.full_like(mu, tau)
    K_plus, K_minus = (V * plus) @ V.T, (V * minus) @ V.T
    step_cap = 2.0 / (n * lam * (mu[-1] + tau))
    alpha, b = np.zeros(n), 0.0
    for _ in range(max_outer):
        linear = n * lam * K_minus @ alpha

        def F(a, c):
            return np.sum(np.logaddexp(0.0, -y_pm * (K @ a + c))) + 0.5 * n * lam * a @ K_plus @ a - linear @ a

        def grad(a, c):
            w = y_pm * scipy.special.expit(-y_pm * (K @ a + c))
            return -K @ w + n * lam * K_plus @ a - linear, -w.sum()

        F_a, t = F(alpha, b), 0
        while True:
            g_a, g_b = grad(alpha, b)
            step = min(eta * rho**t, step_cap)
            alpha, b = alpha - step * g_a, b - step * g_b
            F_prev, F_a, t = F_a, F(alpha, b), t + 1
            if abs(F_prev - F_a) <= eps:
                break
    return alpha, b


@pytest.mark.parametrize("kernel", ["tl1", "psd", "one_negative"])
@pytest.mark.parametrize("split", ["eigen", "shift"])
def test_fast_path_gives_the_straightforward_solution(tl1_monk2, rbf_heart, kernel, split):
    """The cheap spectral step and the cached, linearly updated products change no iterate.

    The shift split's τ comes from Lanczos: it must bound −μ_min from above, tightly; given it,
    the iterates are those of the explicit algorithm."""
    K, y = kernel_case(kernel, tl1_monk2, rbf_heart)
    lam = 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunawayWarning)  # one_negative's −20 is a saddle the iterates leave
        est = IKLR(lam=lam, solver="ccicp-gd", split=split).fit(K, y)
    assert est.spectral_path_ == ("cholesky" if kernel == "psd" else {"eigen": "negative", "shift": "lanczos"}[split])
    tau = None
    if est.spectral_path_ == "lanczos":
        mu = np.linalg.eigvalsh(K)
        assert -mu[0] <= est.tau_ <= -mu[0] + 1e-7 * np.abs(mu).max()
        tau = est.tau_
    alpha, b = straightforward_ccicp_gd(K, pm(y, est), lam, split, tau=tau, max_outer=est.n_iter_)
    scale = np.abs(alpha).max()
    np.testing.assert_allclose(est.alpha_, alpha, rtol=1e-9, atol=1e-11 * scale)
    assert est.intercept_ == pytest.approx(b, rel=1e-9, abs=1e-12)
    assert objective(est, K, y) == pytest.approx(est.history_[-1]["objective"], rel=1e-12)


@pytest.mark.parametrize("split", ["eigen", "shift"])
def test_ccicp_gd_costs_two_matvecs_per_inner_step(tl1_monk2, split):
    """One product for the gradient, one for K·∇F shared by all trial steps; no diagnostics products."""
    K, _, y, _ = tl1_monk2
    est = IKLR(lam=1.0, solver="ccicp-gd", split=split).fit(K, y)
    steps = sum(h["inner_steps"] for h in est.history_)
    assert est.n_matvecs_ == 1 + 2 * steps
    assert [h["matvecs"] for h in est.history_] == [1 + 2 * sum(h["inner_steps"] for h in est.history_[:i + 1])
                                                     for i in range(len(est.history_))]


def test_cholesky_certificate_is_refused_on_an_indefinite_kernel(rbf_heart):
    K_psd, _, _, _ = rbf_heart
    K = indefinite_by_construction(K_psd, magnitude=1e-6 * np.linalg.norm(K_psd, 2))
    assert not positive_definite(K)
    assert positive_definite(K_psd + 1e-3 * np.eye(K_psd.shape[0]))


def test_predictions_and_probabilities_are_consistent(tl1_monk2):
    K, K_test, y, _ = tl1_monk2
    est = IKLR(lam=1.0, solver="ccicp-gd").fit(K, y)
    proba = est.predict_proba(K_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    predicted = est.predict(K_test)
    np.testing.assert_array_equal(predicted == est.classes_[1], proba[:, 1] >= 0.5)


def test_uniform_initialization_is_seeded(tl1_monk2):
    K, _, y, _ = tl1_monk2
    a = IKLR(solver="ccicp-gd", init="uniform", random_state=3).fit(K, y).alpha_
    b = IKLR(solver="ccicp-gd", init="uniform", random_state=3).fit(K, y).alpha_
    c = IKLR(solver="ccicp-gd", init="uniform", random_state=4).fit(K, y).alpha_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_flip_on_a_psd_kernel_is_plain_klr(rbf_heart):
    K, K_test, y, _ = rbf_heart
    plain = KLR(lam=0.01).fit(K, y).decision_function(K_test)
    for test_kernel in ("original", "projected"):
        flipped = SpectrumKLR(correction="flip", lam=0.01, test_kernel=test_kernel).fit(K, y)
        np.testing.assert_allclose(flipped.decision_function(K_test), plain, atol=1e-6)


@pytest.mark.parametrize("kwargs,message", [
    ({"lam": 0.0}, "lam must be > 0"),
    ({"lam": -1.0}, "lam must be > 0"),
    ({"eps": -1e-3}, "eps must be >= 0"),
    ({"solver": "newton"}, "solver='newton'"),
    ({"split": "half"}, "split='half'"),
    ({"tau": 0.0}, "tau=0.0 must be >= -mu_min"),
    ({"rho": 1.5}, "rho must be in"),
    ({"init": "ones!"}, "init="),
    ({"solver": "cccp-gd", "cv_solver": "bfgs"}, "cv_solver='bfgs'"),
    ({"solver": "ccicp-gd", "cv_solver": "cccp-lbfgs"}, "cv_solver='cccp-lbfgs' needs an exact CCCP solver"),
])
def test_bad_parameters_are_named(tl1_monk2, kwargs, message):
    K, _, y, _ = tl1_monk2
    with pytest.raises(KreinbenchError, match=message):
        IKLR(**{"solver": "ccicp-gd", **kwargs}).fit(K, y)


def test_bad_shapes_and_labels_are_named(tl1_monk2):
    K, K_test, y, _ = tl1_monk2
    est = IKLR(solver="ccicp-gd").fit(K, y)
    with pytest.raises(KreinbenchError, match=r"K_cross must have shape \(n_test, 216\)"):
        est.decision_function(K_test[:, :-1])
    three = y.copy()
    three[:5] = 7
    with pytest.raises(KreinbenchError, match="Only binary classification is supported"):
        IKLR().fit(K, three)
    with pytest.raises(KreinbenchError, match="square"):
        IKLR().fit(K[:, :-1], y)


def test_extreme_margins_do_not_overflow():
    K = np.array([[1e6, 0.0], [0.0, 1e6]])
    y = np.array([1.0, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow RuntimeWarning would fail the test
        est = KLR(lam=1e-6).fit(K, y)
    assert np.all(np.isfinite(est.alpha_))
    assert est.predict(K).tolist() == [1.0, -1.0]


@pytest.mark.parametrize("kernel,split,solver", [("psd", "eigen", "ccicp-gd"), ("tl1", "eigen", "ccicp-gd"),
                                                 ("tl1", "shift", "ccicp-gd"), ("tl1", "eigen", "ccicp-sgd")])
def test_lambda_cv_with_shared_spectral_step_reproduces_plain_cv(tl1_monk2, rbf_heart, kernel, split, solver):
    K, y = kernel_case(kernel, tl1_monk2, rbf_heart)
    lams = [0.01, 0.1, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunawayWarning)
        runs = {paths: cross_validate(lambda params: IKLR(split=split, solver=solver, random_state=4, **params),
                                      {"k": K}, y, {"lam": lams}, n_folds=3, seed=5, paths=paths)
                for paths in (True, False)}
    np.testing.assert_array_equal(*([row["cv_accuracy"] for row in runs[paths].scores] for paths in (True, False)))
    assert runs[True].best_params == runs[False].best_params


@pytest.mark.parametrize("kernel,init", [("tl1", "zeros"), ("tl1", "ones"), ("one_negative", "zeros"), ("psd", "uniform")])
def test_lockstep_lambda_path_gives_the_separate_fits(tl1_monk2, rbf_heart, kernel, init):
    """The λ grid fitted in lock step: every column the separate fit's solution.

    λ ≥ 0.1 only: below, the printed steps overshoot the TL1 loss's curvature by orders of magnitude
    and the iterates are chaotic: round-off differences of the matrix-matrix and matrix-vector
    products grow about tenfold per outer iteration (docs/solver-fidelity.md)."""
    K, y = kernel_case(kernel, tl1_monk2, rbf_heart)
    lams = [0.1, 1.0, 30.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunawayWarning)
        separate = [IKLR(lam=lam, solver="ccicp-gd", init=init, random_state=0).fit(K, y) for lam in lams]
    ests = [IKLR(lam=lam, solver="ccicp-gd", init=init, random_state=0) for lam in lams]
    K_checked, y_pm, _ = check_train_kernel(K, y)
    _fit_lockstep(K_checked, [_LockstepFits.prepared(ests, K_checked, y_pm, IKLR._spectral_step(K_checked, "eigen", None),
                                                      rows=np.arange(y_pm.size))])
    for one, batched in zip(separate, ests):
        scale = np.abs(one.alpha_).max()
        np.testing.assert_allclose(batched.alpha_, one.alpha_, rtol=1e-9, atol=1e-11 * scale)
        assert batched.intercept_ == pytest.approx(one.intercept_, rel=1e-9, abs=1e-12)
        assert (batched.n_iter_, batched.diverged_, batched.n_matvecs_) == (one.n_iter_, one.diverged_, one.n_matvecs_)


@pytest.mark.parametrize("kernel,split,solver", [("tl1", "eigen", "ccicp-gd"), ("tl1", "shift", "ccicp-gd"),
                                                 ("psd", "eigen", "ccicp-gd"), ("one_negative", "eigen", "ccicp-gd"),
                                                 ("tl1", "eigen", "ccicp-sgd"), ("one_negative", "eigen", "ccicp-sgd-i")])
def test_folds_in_one_lock_step_give_each_folds_separate_fits(tl1_monk2, rbf_heart, kernel, split, solver):
    """Every fold's λ grid embedded in K's rows and fitted in one lock step: each column is the
    separate fit on the fold's kernel slice (its own spectral step, τ, K₋, start and, for SGD,
    random stream)."""
    K, y = kernel_case(kernel, tl1_monk2, rbf_heart)
    lams = [0.1, 1.0]  # not smaller: see test_lockstep_lambda_path_gives_the_separate_fits
    fits, separate = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunawayWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        for tr, _ in stratified_folds(np.asarray(y), 3, 0):
            K_tr, y_pm, _ = check_train_kernel(K[np.ix_(tr, tr)], y[tr])
            ests = [IKLR(lam=lam, split=split, solver=solver, init="uniform", random_state=1) for lam in lams]
            fits.append(_LockstepFits.prepared(ests, K_tr, y_pm, IKLR._spectral_step(K_tr, split, None), rows=tr))
            separate.append([IKLR(lam=lam, split=split, solver=solver, init="uniform", random_state=1).fit(K_tr, y[tr])
                             for lam in lams])
        _fit_lockstep(K, fits)
    assert any(fit.rows.size < K.shape[0] for fit in fits)
    for fit, ones in zip(fits, separate):
        for batched, one in zip(fit.ests, ones):
            scale = np.abs(one.alpha_).max()
            np.testing.assert_allclose(batched.alpha_, one.alpha_, rtol=1e-9, atol=1e-11 * scale)
            assert batched.intercept_ == pytest.approx(one.intercept_, rel=1e-9, abs=1e-12)
            assert (batched.n_iter_, batched.diverged_, batched.n_matvecs_) == (one.n_iter_, one.diverged_, one.n_matvecs_)
            assert batched.stationarity_ == pytest.approx(one.stationarity_, rel=1e-8)


def test_folds_whose_eigenvectors_outgrow_half_the_kernel_run_in_several_lock_steps(rbf_heart, monkeypatch):
    """A kernel with n/2 negative eigenpairs: the folds' K₋ eigenvectors would take more than half
    of K's bytes together, so the folds are fitted a few at a time (here with the floor below which
    they are always held together lowered to zero), with the same scores."""
    K_psd, _, y, _ = rbf_heart
    mu, V = np.linalg.eigh(K_psd)
    mu[: mu.size // 2] = -1e-3 * np.arange(1, mu.size // 2 + 1)
    K = (V * mu) @ V.T
    K = (K + K.T) / 2
    groups = []
    monkeypatch.setattr(iklr, "LOCKSTEP_HELD_FLOOR", 0)
    monkeypatch.setattr(iklr, "_fit_lockstep", lambda K_, fits: groups.append(len(fits)) or real(K_, fits))
    real = _fit_lockstep
    lams = [0.01, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunawayWarning)
        fast = cross_validate(lambda params: IKLR(solver="ccicp-gd", **params), {"k": K}, y, {"lam": lams}, n_folds=5, seed=2)
    plain = cross_validate(lambda params: IKLR(solver="ccicp-gd", **params), {"k": K}, y, {"lam": lams}, n_folds=5, seed=2, paths=False)
    assert sum(groups) == 5 and len(groups) > 1
    np.testing.assert_array_equal(*([row["cv_accuracy"] for row in run.scores] for run in (fast, plain)))


def test_lockstep_freezes_a_runaway_column_where_its_fit_stops(tl1_monk2):
    K, _, y, _ = tl1_monk2
    K, y_pm, _ = check_train_kernel(K, y)
    lams = np.array([1e-2, 1.0])
    ests = [IKLR(lam=lam, solver="ccicp-gd") for lam in lams]
    params = [est._validated() for est in ests]
    kminus = [est._prepare(K, y.size, IKLR._spectral_step(K, "eigen", None), p) for est, p in zip(ests, params)][0]
    caps = np.array([p["gd_step_cap"] for p in params])
    out = iklr_lockstep.ccicp_gd_lockstep(K, np.repeat(y_pm[:, None], 2, axis=1), lambda V, cols: kminus(V), lams, caps,
                                          A0=np.zeros((y.size, 2)), radius=np.array([2.3, np.inf]),
                                          eta=np.full(2, 0.02 * y.size), rho=np.full(2, 0.8), eps=np.full(2, 1.0 / y.size),
                                          max_outer=20, max_inner=10000)
    assert out["diverged"].tolist() == [True, False] and 1 < out["n_iter"][0] < 20 == out["n_iter"][1]
    # The frozen column is the separate fit stopped after as many outer iterations.
    one = IKLR(lam=1e-2, solver="ccicp-gd", max_outer=int(out["n_iter"][0])).fit(K, y)
    assert np.linalg.norm(one.alpha_) > 2.3 >= np.linalg.norm(IKLR(lam=1e-2, solver="ccicp-gd", max_outer=one.n_iter_ - 1).fit(K, y).alpha_)
    np.testing.assert_allclose(out["alpha"][:, 0], one.alpha_, rtol=1e-9, atol=1e-11 * np.abs(one.alpha_).max())


@pytest.fixture(scope="module")
def tl1_downloaded(load_split):
    """Indefinite TL1 kernels (τ = 0.7 m) of 200-point training halves of two paper datasets,
    svmguide1 (one clear negative eigenvalue) and SPECT (binary features, many), with test kernels."""
    cases = {}
    for name in ("svmguide1", "spect"):
        split = load_split(name, max_n=400)
        K, K_test = kernel_matrices(resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1]),
                                    split.X_train, split.X_test)
        assert np.linalg.eigvalsh(K)[0] < -0.1, name
        cases[name] = (K, K_test, split.y_train, split.y_test)
    return cases


def relative_stationarity(est, K, y):
    """‖∇f(α, b)‖ / ‖∇f(0, 0)‖ by the tests' own objective (as the issue states the criterion)."""
    y_pm = pm(y, est)
    _, g_a, g_b = klr_objective_and_gradient(K, y_pm, est.lam, est.alpha_, est.intercept_)
    _, g0_a, g0_b = klr_objective_and_gradient(K, y_pm, est.lam, np.zeros(y.size), 0.0)
    return np.sqrt(g_a @ g_a + g_b**2) / np.sqrt(g0_a @ g0_a + g0_b**2)


@pytest.mark.parametrize("name, lams", [("svmguide1", (1e-5, 1e-4, 1e-2)), ("spect", (1e-5, 1e-2))])
def test_exact_cccp_gd_on_real_tl1_kernels_is_stationary_or_reports_the_runaway(tl1_downloaded, name, lams):
    """Exact CCCP-GD on indefinite TL1 kernels of real data: stationary to 1e-4, or a RunawayWarning.
    Small λ converge (the loss curvature dominates along the negative directions), larger ones run
    away (MM'17 §4.3), and both outcomes occur on each dataset."""
    K, _, y, _ = tl1_downloaded[name]
    outcomes = set()
    for lam in lams:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = IKLR(lam=lam, solver="cccp-gd").fit(K, y)
        runaway = [w for w in caught if issubclass(w.category, RunawayWarning)]
        if est.diverged_:
            assert runaway and "ran away" in str(runaway[0].message), lam
        else:
            assert not runaway and relative_stationarity(est, K, y) <= 1e-4, lam
        outcomes.add(est.diverged_)
    assert outcomes == {False, True}


def test_shift_split_reaches_stationary_points_of_the_eigen_splits_quality(tl1_downloaded):
    """On svmguide1's indefinite TL1 kernel both splits give stationary points (1e-4) of nearly the
    same objective (to 5%: the stationary points differ, and which one is reached shifts with BLAS
    round-off) and the same test accuracy (to two points in a hundred)."""
    K, K_test, y, y_test = tl1_downloaded["svmguide1"]
    fits = {split: IKLR(lam=1e-5, solver="cccp-gd", split=split).fit(K, y) for split in ("eigen", "shift")}
    for split, est in fits.items():
        assert not est.diverged_ and relative_stationarity(est, K, y) <= 1e-4, split
    assert objective(fits["shift"], K, y) == pytest.approx(objective(fits["eigen"], K, y), rel=5e-2)
    assert abs(fits["shift"].score(K_test, y_test) - fits["eigen"].score(K_test, y_test)) <= 0.02


@pytest.mark.parametrize("kernel", ["psd", "indefinite"])
def test_newton_step_through_cholesky_solves_the_bordered_system(rbf_heart, kernel):
    """KLR's Newton step by the Cholesky factor of D½KD½ + λI (with the LU fallback when that is
    not positive definite) satisfies the bordered system it replaces, also where β(1−β) underflows."""
    from kreinbench.methods.solvers import newton
    K = rbf_heart[0]
    n = K.shape[0]
    rng = np.random.default_rng(3)
    if kernel == "indefinite":
        K = K - 2.0 * np.eye(n)  # D½KD½ + λI is then indefinite for these d and λ
    d = rng.uniform(0.0, 0.25, n) / n
    d[:4] = 0.0
    r, c, lam = rng.normal(size=n), 0.7, 1e-4
    d_alpha, d_b = newton.newton_step(K, d, lam, r, c)
    np.testing.assert_allclose(d[:, None] * K @ d_alpha + lam * d_alpha + d * d_b, r, rtol=0, atol=1e-9 * np.abs(r).max())
    assert d_alpha.sum() == pytest.approx(c, rel=1e-10)
    lu_alpha, lu_b = newton._bordered_lu_step(K, d, lam, r, c)
    np.testing.assert_allclose(d_alpha, lu_alpha, rtol=1e-8, atol=1e-10 * np.abs(lu_alpha).max())


@pytest.mark.parametrize("solver,variants", [
    ("ccicp-gd", [{}, {"eps": 0.1}, {"eps": 5.0}, {"init": "ones"}, {"init": "uniform"}]),
    ("ccicp-sgd", [{}, {"init": "minus_ones"}, {"init": "uniform", "random_state": 9}]),
])
@pytest.mark.slow
def test_grouped_cv_gives_each_methods_own_cv(tl1_monk2, solver, variants):
    """Several methods' λ paths (Fig. 2's ε, Table VI's α⁽⁰⁾) in one lock step: each method's
    fold scores are those of its own CV, and each fit its separate fit."""
    from kreinbench.methods.iklr.estimator import grouped_lambda_path_scores
    K, _, y, _ = tl1_monk2
    lams = [0.1, 1.0, 30.0]  # λ ≥ 0.1: see test_lockstep_lambda_path_gives_the_separate_fits
    folds = stratified_folds(np.asarray(y), 3, 2)
    variants = [{"random_state": 4, **v} for v in variants]
    prototypes = [IKLR(solver=solver, **v) for v in variants]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grouped = grouped_lambda_path_scores(prototypes, K, y, folds, lams)
        alone = [proto.lambda_path_scores(K, y, folds, lams) for proto in prototypes]
        plain = [cross_validate(lambda params, v=v: IKLR(solver=solver, **v, **params), {"k": K}, y,
                                {"lam": lams}, n_folds=3, seed=2, paths=False) for v in variants]
    for table, own, separate in zip(grouped, alone, plain):
        np.testing.assert_array_equal(table, own)
        np.testing.assert_array_equal(table.mean(axis=1), [row["cv_accuracy"] for row in separate.scores])
    assert len({tuple(t.ravel()) for t in grouped}) > 1  # the variants differ: not one fit copied


def test_grouped_cv_refuses_methods_that_cannot_share_a_lock_step(tl1_monk2):
    from kreinbench.methods.iklr.estimator import grouped_lambda_path_scores
    K, _, y, _ = tl1_monk2
    folds = stratified_folds(np.asarray(y), 3, 2)
    for other in (IKLR(solver="ccicp-sgd"), IKLR(solver="ccicp-gd", split="shift"), IKLR(solver="cccp-gd"),
                  IKLR(solver="ccicp-gd", max_outer=5)):
        with pytest.raises(KreinbenchError, match="share a CV must share split, inner solver"):
            grouped_lambda_path_scores([IKLR(solver="ccicp-gd"), other], K, y, folds, [1.0])


def test_the_default_is_exact_cccp_by_l_bfgs():
    """benchmarks/results/iklr_default_solver.md: the one candidate that descended to a stationary
    point without a warning wherever the problem has one, and the fastest of them."""
    assert IKLR().solver == "cccp-lbfgs" and IKLR()._validated()["split"] == "eigen"


def sklearn_klr_on_kernel_features(K, y_pm, lam):
    """On K = ΦΦᵀ ≻ 0, f(α, b) is logistic regression on the rows of Φ with w = Φᵀα:
    mean log-loss + (λ/2)‖w‖², scikit-learn's C Σ log-loss + ½‖w‖² with C = 1/(nλ) and an
    unpenalized intercept (lbfgs).  Returns its training decision values Φw + b and objective."""
    from sklearn.linear_model import LogisticRegression
    Phi = np.linalg.cholesky(K)
    ref = LogisticRegression(C=1.0 / (y_pm.size * lam), tol=1e-12, max_iter=100000).fit(Phi, y_pm)
    scores = Phi @ ref.coef_[0] + ref.intercept_[0]
    f = np.mean(np.logaddexp(0.0, -y_pm * scores)) + 0.5 * lam * ref.coef_[0] @ ref.coef_[0]
    return scores, f


@pytest.mark.parametrize("lam", [1e-3, 0.1])
def test_default_on_a_positive_definite_kernel_is_scikit_learns_logistic_regression(rbf_heart, lam):
    """The default fit descends at every outer step to a stationary point, without warnings, and
    there (f convex) it is the logistic regression of scikit-learn on the kernel's features."""
    K, _, y, _ = rbf_heart
    K = K + 1e-3 * np.eye(K.shape[0])  # safely positive definite: Φ by Cholesky
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = IKLR(lam=lam).fit(K, y)
    f = np.array([h["objective"] for h in est.history_])
    assert np.all(np.diff(f) <= 1e-12 * np.abs(f[:-1])) and est.stationarity_ <= 1e-4
    assert relative_stationarity(est, K, y) == pytest.approx(est.stationarity_, rel=1e-6)
    scores, f_ref = sklearn_klr_on_kernel_features(K, pm(y, est), lam)
    assert objective(est, K, y) == pytest.approx(f_ref, rel=1e-7)
    np.testing.assert_allclose(est.decision_function(K), scores, atol=1e-3 * np.abs(scores).max())


def test_default_on_a_mildly_indefinite_kernel_descends_to_a_stationary_point(rbf_heart):
    """One negative eigenvalue (−20) that the loss's curvature holds at a moderate λ (MM'17 §4.3):
    the default fit descends at every outer step, without warnings, to a point whose gradient (by
    the tests' own objective) is 1e-4 of the start's, and which is a local minimum there: no
    perturbation lowers f."""
    K_psd, _, y, _ = rbf_heart
    K = indefinite_by_construction(K_psd, magnitude=20.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = IKLR(lam=1e-3).fit(K, y)
    f = np.array([h["objective"] for h in est.history_])
    assert f.size > 2 and np.all(np.diff(f) <= 1e-12 * np.abs(f[:-1]))
    assert not est.diverged_ and relative_stationarity(est, K, y) <= 1e-4
    y_pm, rng = pm(y, est), np.random.default_rng(0)
    f_star = objective(est, K, y)
    mu, V = np.linalg.eigh(K)
    for direction in [V[:, 0], *rng.normal(size=(5, y.size))]:
        direction = direction / np.linalg.norm(direction)
        for step in (1e-2, -1e-2):
            moved = klr_objective_and_gradient(K, y_pm, est.lam, est.alpha_ + step * direction, est.intercept_)[0]
            assert moved >= f_star - 1e-12


def test_warnings_name_the_users_call(tl1_monk2):
    """ConvergenceWarning and RunawayWarning point at the caller's line (this file), not at the
    estimator's internals, from a fit and from a CV's λ path in lock step alike."""
    K, _, y, _ = tl1_monk2
    with pytest.warns(ConvergenceWarning, match="reached max_outer") as caught:
        IKLR(lam=1.0, solver="ccicp-gd").fit(K, y)
    with pytest.warns(RunawayWarning, match="ran away") as runaway:
        IKLR(lam=0.1, solver="cccp-lbfgs").fit(K, y)
    with pytest.warns(ConvergenceWarning) as path:
        IKLR(solver="ccicp-gd").lambda_path_scores(K, y, stratified_folds(np.asarray(y), 3, 0), [0.1, 1.0])
    for w in [*caught, *runaway, *path]:
        assert w.filename == __file__, (w.category.__name__, w.filename)
