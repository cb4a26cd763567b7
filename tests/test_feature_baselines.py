"""Flip, Clip, Shift KLR and KSVM on Kreĭn Nyström features (kreinbench.methods.iklr.feature_baselines)
against their exact twins on the n × n kernel."""

import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import kernel_function, resolve_params
from kreinbench.methods import KSVM, NystromKSVM, NystromSpectrumKLR, SpectrumKLR


@pytest.fixture(scope="module")
def monk2_tl1(load_split):
    """KEEL MONK-2 (216 distinct training rows) with its TL1 kernel, τ = 0.7 m: 102 negative eigenvalues."""
    split = load_split("monk-2")
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1])
    return split, params, kernel_function(params)


@pytest.mark.parametrize("transform", ["flip", "clip", "shift"])
@pytest.mark.parametrize("lam", [1e-3, 0.1, 1.0])
def test_all_points_as_landmarks_give_the_exact_spectrum_klr(monk2_tl1, transform, lam):
    """m = n landmarks: Φ S Φᵀ = K, so the model is SpectrumKLR's with the test rows mapped through
    the same change of spectrum (test_kernel="projected")."""
    split, params, kernel = monk2_tl1
    X, y, X_test = split.X_train, split.y_train, split.X_test
    K = kernel(X, X)
    assert np.linalg.eigvalsh(K)[0] < -1e-3  # indefinite: the transforms act
    exact = SpectrumKLR(correction=transform, lam=lam, test_kernel="projected").fit(K, y)
    ours = NystromSpectrumKLR(kernel=params, correction=transform, n_components=X.shape[0], lam=lam,
                              random_state=0).fit(X, y)
    for rows in (X, X_test):
        expected = exact.decision_function(kernel(rows, X))
        np.testing.assert_allclose(ours.decision_function(rows), expected, atol=1e-5 * np.abs(expected).max())


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_all_points_as_landmarks_give_the_exact_ksvm(monk2_tl1, C):
    split, params, kernel = monk2_tl1
    X, y, X_test = split.X_train, split.y_train, split.X_test
    exact = KSVM(C=C, tol=1e-8).fit(kernel(X, X), y)
    ours = NystromKSVM(kernel=params, n_components=X.shape[0], C=C, tol=1e-8, random_state=0).fit(X, y)
    for rows in (X, X_test):
        expected = exact.decision_function(kernel(rows, X))
        np.testing.assert_allclose(ours.decision_function(rows), expected, atol=1e-5 * np.abs(expected).max())


@pytest.mark.parametrize("model", [NystromSpectrumKLR, NystromKSVM])
def test_fewer_landmarks_fit_in_features_and_predict_as_the_approximated_kernel_says(monk2_tl1, model):
    """m < n: the fit never forms an n × n matrix, and on the training rows the Flip model's scores
    are those of KLR / KSVM on the flipped approximation K̃ (formed here, small data only)."""
    split, params, _ = monk2_tl1
    X, y = split.X_train, split.y_train
    ours = model(kernel=params, n_components=40, random_state=1).fit(X, y)
    K_approx = ours.nystrom_.approximate_kernel(X)
    mu, V = np.linalg.eigh(K_approx)
    keep = np.abs(mu) > X.shape[0] * np.finfo(float).eps * np.abs(mu).max()
    mu, V = mu[keep], V[:, keep]
    if model is NystromSpectrumKLR:
        from sklearn.linear_model import LogisticRegression

        # KLR on K̃_flip's features V√|μ|: an independent fit of the same model.
        reference = LogisticRegression(C=1.0 / X.shape[0], solver="lbfgs", tol=1e-12, max_iter=10000)
        scores = reference.fit(V * np.sqrt(np.abs(mu)), y).decision_function(V * np.sqrt(np.abs(mu)))
    else:
        reference = KSVM(C=1.0).fit(K_approx, y)  # KSVM flips K̃ itself: the same training scores
        scores = reference.decision_function(K_approx)
    np.testing.assert_allclose(ours.decision_function(X), scores, atol=1e-4 * np.abs(scores).max())
    assert ours.coef_.shape == (ours.nystrom_.projection_.shape[1],)


def test_bad_parameters_are_named(monk2_tl1):
    split, params, _ = monk2_tl1
    with pytest.raises(KreinbenchError, match="correction"):
        NystromSpectrumKLR(kernel=params, correction="square", n_components=20).fit(split.X_train, split.y_train)
    with pytest.raises(KreinbenchError, match="C"):
        NystromKSVM(kernel=params, C=-1.0, n_components=20).fit(split.X_train, split.y_train)
    with pytest.raises(KreinbenchError, match="y has 1 class"):
        NystromKSVM(kernel=params, n_components=20).fit(split.X_train, np.zeros(split.y_train.size))
