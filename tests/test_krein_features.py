"""IKLR on Kreĭn features (kreinbench.methods.iklr.features) against its exact twins."""

import warnings

import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import kernel_function, resolve_params
from kreinbench.methods import IKLR, KLR
from kreinbench.methods.base import ConvergenceWarning, RunawayWarning
from kreinbench.methods.iklr.features import KreinLogisticRegression, NystromIKLR


def objective(K, y, alpha, b, lam, classes):
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    return np.logaddexp(0.0, -y_pm * (K @ alpha + b)).mean() + lam / 2 * alpha @ K @ alpha


@pytest.mark.parametrize("lam", [0.01, 1.0])
def test_all_points_as_landmarks_of_a_positive_definite_kernel_give_klr(load_split, lam):
    """m = n landmarks: Φ S Φᵀ = K, and on a positive definite kernel the problem is convex, so the
    feature model reaches KLR's unique optimum."""
    X, y = load_split("monk-2").X_train, load_split("monk-2").y_train
    params = resolve_params({"type": "rbf", "sigma": 1.0, "convention": "iklr"}, X.shape[1])
    K = kernel_function(params)(X, X)
    ours = NystromIKLR(kernel=params, n_components=X.shape[0], rcond=1e-12, random_state=0, lam=lam, eps=1e-7).fit(X, y)
    klr = KLR(lam=lam).fit(K, y)
    assert ours.model_.objective_ == pytest.approx(objective(K, y, klr.alpha_, klr.intercept_, lam, klr.classes_),
                                                   rel=1e-10)
    np.testing.assert_allclose(ours.decision_function(X), klr.decision_function(K), atol=1e-6)
    assert ours.model_.stationarity_ <= 1e-7


def test_all_points_as_landmarks_of_an_indefinite_kernel_make_exact_iklrs_iterates(load_split):
    """m = n: feature j is K's eigenvector j scaled by √|μ_j|, the split is IKLR's eigen split in
    that basis, so CCCP makes the same iterates; two outer iterations on MONK-2's TL1 kernel (its
    CCCP runs away later, as exact IKLR's does), each subproblem solved tightly by both."""
    X, y = load_split("monk-2").X_train, load_split("monk-2").y_train
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, X.shape[1])
    K = kernel_function(params)(X, X)
    assert np.linalg.eigvalsh(K)[0] < -1
    for outer in (1, 2):
        ours = NystromIKLR(kernel=params, n_components=X.shape[0], rcond=1e-12, random_state=0, lam=0.1, eps=1e-10,
                           max_outer=outer)
        exact = IKLR(solver="cccp-lbfgs", lam=0.1, eps=1e-10, max_outer=outer)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # two outer iterations are far from stationary, for both
            ours.fit(X, y)
            exact.fit(K, y)
        assert ours.model_.tau_ == pytest.approx(exact.tau_, rel=1e-6)
        scores = exact.decision_function(K)
        np.testing.assert_allclose(ours.decision_function(X), scores, atol=1e-6 * np.abs(scores).max())


def krein_model(seed=0, n=120):
    """Features with two negative directions of moderate weight, where IKLR has a local minimum at
    small λ (the loss's curvature beats λ along them)."""
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(n, 6))
    Phi[:, 4:] *= 0.3
    signature = np.array([1, 1, 1, 1, -1, -1.0])
    y = np.sign(Phi[:, 0] + 0.5 * Phi[:, 1] + 0.3 * rng.normal(size=n))
    return Phi, signature, y, (Phi * signature) @ Phi.T


def test_the_feature_model_reaches_exact_iklrs_stationary_point():
    Phi, signature, y, K = krein_model()
    assert np.linalg.eigvalsh(K)[0] < -1  # indefinite
    lam = 1e-3
    with warnings.catch_warnings():
        # F's round-off floor: L-BFGS can decrease it no further at a relative gradient of about 3e-9.
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = KreinLogisticRegression(lam=lam, eps=1e-9).fit(Phi, y, eigenvalues=signature)
    exact = IKLR(solver="cccp-lbfgs", lam=lam, eps=1e-9).fit(K, y)
    assert not ours.diverged_ and not exact.diverged_
    assert ours.stationarity_ <= 1e-8 and exact.stationarity_ <= 1e-9
    assert ours.objective_ == pytest.approx(objective(K, y, exact.alpha_, exact.intercept_, lam, exact.classes_),
                                            rel=1e-10)
    np.testing.assert_allclose(ours.decision_function(Phi), exact.decision_function(K), atol=1e-5)


def test_a_runaway_is_flagged_as_exact_iklrs_is():
    """At λ = 0.1 f is unbounded below along the negative features and has no stationary point
    within reach: both models stop and say so."""
    Phi, signature, y, K = krein_model()
    with pytest.warns(RunawayWarning):
        ours = KreinLogisticRegression(lam=0.1).fit(Phi, y, eigenvalues=signature)
    with pytest.warns(RunawayWarning):
        exact = IKLR(solver="cccp-lbfgs", lam=0.1).fit(K, y)
    assert ours.diverged_ and exact.diverged_


def test_nystrom_iklr_of_an_indefinite_kernel_is_exact_iklr_when_the_landmarks_span_it():
    """The kernel k(x, x') = xᵀSx' of the Kreĭn model (rank 6, indefinite) from 40 landmarks: W's
    six nonzero eigenvalues carry the signature, Φ S Φᵀ = K, and NystromIKLR reaches exact IKLR's
    stationary point, predictions on new points included."""
    Phi, signature, y, K = krein_model()
    X, X_test = Phi[:80], Phi[80:]

    def kernel(A, B):
        return (A * signature) @ B.T

    lam = 1e-3
    ours = NystromIKLR(kernel=kernel, n_components=40, random_state=0, rcond=1e-10, lam=lam, eps=1e-8).fit(X, y[:80])
    assert sorted(ours.nystrom_.signature_) == sorted(signature)
    exact = IKLR(solver="cccp-lbfgs", lam=lam, eps=1e-8).fit(kernel(X, X), y[:80])
    assert not ours.model_.diverged_ and not exact.diverged_
    np.testing.assert_allclose(ours.decision_function(X_test), exact.decision_function(kernel(X_test, X)), atol=1e-5)


def test_bad_eigenvalues_and_labels_are_named():
    Phi, signature, y, _ = krein_model()
    with pytest.raises(KreinbenchError, match="need 6 finite nonzero eigenvalues"):
        KreinLogisticRegression().fit(Phi, y, eigenvalues=signature[:-1])
    with pytest.raises(KreinbenchError, match="need 6 finite nonzero eigenvalues"):
        KreinLogisticRegression().fit(Phi, y, eigenvalues=signature * 0)
    with pytest.raises(KreinbenchError, match="y has 1 class"):
        KreinLogisticRegression().fit(Phi, np.ones_like(y), eigenvalues=signature)
    with pytest.raises(KreinbenchError, match="parameter lam"):
        KreinLogisticRegression(lam=0).fit(Phi, y, eigenvalues=signature)


def test_parameters_as_every_estimator_here():
    from sklearn.base import clone

    est = NystromIKLR(kernel={"type": "tl1", "tau": 3.0}, n_components=50, lam=0.1)
    assert clone(est).get_params() == est.get_params()
    assert est.set_params(lam=1.0).lam == 1.0
    assert repr(est) == "NystromIKLR(kernel={'type': 'tl1', 'tau': 3.0}, n_components=50)"  # lam is back at its default


@pytest.mark.parametrize("dataset", ["breast-cancer", "monk-2"])
def test_all_points_as_landmarks_stop_where_exact_iklr_stops_on_a_papers_kernel(load_split, dataset):
    """A paper's TL1 kernel with eigenvalues near zero (breast-cancer's repeated rows): with every
    row a landmark the features of those eigenvalues are tiny and their g_q huge, yet the feature
    model stops where exact IKLR stops: the same stopping rule, in the dual coefficients."""
    split = load_split(dataset)
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1])
    K = kernel_function(params)(split.X_train, split.X_train)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RunawayWarning)
        ours = NystromIKLR(kernel=params, n_components=split.X_train.shape[0], random_state=0, lam=1e-4)
        ours.fit(split.X_train, split.y_train)
        exact = IKLR(solver="cccp-lbfgs", lam=1e-4).fit(K, split.y_train)
    assert ours.model_.diverged_ == exact.diverged_
    if exact.diverged_:  # MONK-2: both run away (each by its own radius, ‖u‖ or ‖α‖)
        return
    assert ours.model_.n_iter_ == exact.n_iter_ and ours.model_.stationarity_ <= 1e-4
    np.testing.assert_array_equal(ours.predict(split.X_test), exact.predict(kernel_function(params)(split.X_test, split.X_train)))
