"""Kreĭn Nyström (kreinbench.linalg.nystrom): K ≈ Φ S Φᵀ from landmarks, checked against the exact kernel."""

import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.linalg import nystrom
from kreinbench.linalg.kernels import kernel_function, resolve_params
from kreinbench.linalg.nystrom import KreinNystrom, truncation_errors


@pytest.fixture(scope="module")
def monk2(load_split):
    """MONK-2's training half and its TL1 kernel (indefinite: IKLR Table II's μ_min = −2.5)."""
    X = load_split("monk-2").X_train
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, X.shape[1])
    return X, params, kernel_function(params)(X, X)


def inertia(K, tol):
    mu = np.linalg.eigvalsh(K)
    return int((mu > tol).sum()), int((mu < -tol).sum())


def test_all_points_as_landmarks_give_the_kernel_and_its_inertia(monk2):
    """m = n: K_nm W⁺ K_mn = K W⁺ K = K on the range of K, and the signature counts K's positive and
    negative eigenvalues (Sylvester's law of inertia)."""
    X, params, K = monk2
    nys = KreinNystrom(params, n_components=X.shape[0], random_state=0, rcond=1e-12).fit(X)
    approx = nys.approximate_kernel(X)
    assert np.abs(approx - K).max() <= 1e-8 * np.abs(K).max()
    positive, negative = inertia(K, 1e-12 * np.abs(K).max())
    assert negative > 0  # the test is about an indefinite kernel
    assert ((nys.signature_ > 0).sum(), (nys.signature_ < 0).sum()) == (positive, negative)


def test_every_rank_is_kept_when_every_row_is_a_landmark(monk2):
    """rcond="auto" with m = n has no held-out row: all eigenvalues above round-off, Φ S Φᵀ = K."""
    X, params, K = monk2
    nys = KreinNystrom(params, n_components=X.shape[0], random_state=0).fit(X)
    assert nys.heldout_error_ is None
    assert np.abs(nys.approximate_kernel(X) - K).max() <= 1e-8 * np.abs(K).max()


def test_truncation_errors_are_each_truncations_error(monk2):
    """The cumulative-sum errors equal the errors of the r approximations made one by one."""
    _, _, K = monk2
    rows = np.arange(30, 90)  # held out from the landmarks X[:30]
    lam, U = np.linalg.eigh(K[:30, :30])
    order = np.argsort(-np.abs(lam))
    lam, U = lam[order], U[:, order]
    A, C = K[np.ix_(rows, rows)], K[np.ix_(rows, range(30))] @ U
    brute = [np.linalg.norm(A - (C[:, :r] / lam[:r]) @ C[:, :r].T) / np.linalg.norm(A) for r in range(1, 31)]
    np.testing.assert_allclose(truncation_errors(A, C, lam), brute, rtol=1e-7, atol=1e-9)


def test_auto_truncation_avoids_the_indefinite_blow_up(monk2):
    """MONK-2's TL1 kernel, median of three uniform draws: keeping every eigenvalue of an indefinite
    W blows the approximation up at 40 and 80 landmarks (relative error > 1, measured 4.0 and 2.9),
    the fixed cut 1e-3·max|λ| does not; the measured truncation does better than both."""
    X, params, K = monk2

    def median_error(m, rcond):
        return np.median([np.linalg.norm(KreinNystrom(params, n_components=m, random_state=seed, rcond=rcond)
                                         .fit(X).approximate_kernel(X) - K) / np.linalg.norm(K)
                          for seed in range(3)])

    for m in (20, 40, 80):
        auto, fixed, everything = (median_error(m, rcond) for rcond in ("auto", 1e-3, 1e-10))
        assert auto < fixed < everything
        if m > 20:
            assert everything > 1.0


@pytest.mark.parametrize("landmarks", ["uniform", "kmeans"])
def test_the_error_falls_as_landmarks_are_added(monk2, landmarks):
    X, params, K = monk2
    errors = [np.linalg.norm(KreinNystrom(params, n_components=m, landmarks=landmarks, random_state=1)
                             .fit(X).approximate_kernel(X) - K) / np.linalg.norm(K) for m in (10, 40, 80)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.5


def test_a_positive_definite_kernel_has_only_positive_features(monk2):
    X, _, _ = monk2
    rbf = resolve_params({"type": "rbf", "sigma": 1.0, "convention": "iklr"}, X.shape[1])
    nys = KreinNystrom(rbf, n_components=30, random_state=2).fit(X)
    assert (nys.signature_ == 1).all()
    # and the approximation of a PSD kernel is PSD: Φ Φᵀ
    assert np.linalg.eigvalsh(nys.approximate_kernel(X)).min() > -1e-8


def test_cross_kernel_blocks_and_seeds(monk2, monkeypatch):
    X, params, _ = monk2
    first = KreinNystrom(params, n_components=25, random_state=3).fit(X)
    again = KreinNystrom(params, n_components=25, random_state=3).fit(X)
    np.testing.assert_array_equal(first.components_, again.components_)
    whole = first.transform(X)
    import kreinbench.linalg.nystrom as nystrom  # row blocks of 7: several blocks and a partial one
    monkeypatch.setattr(nystrom, "block_rows", lambda columns: 7)
    np.testing.assert_allclose(first.transform(X), whole, rtol=1e-12, atol=1e-12)
    cross = first.approximate_kernel(X[:5], X[5:9])
    np.testing.assert_allclose(cross, first.approximate_kernel(X)[:5, 5:9], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("params,message", [
    ({"n_components": 0}, "n_components=0 must be an integer in"),
    ({"n_components": 10**6}, "n_components=1000000 must be an integer in"),
    ({"n_components": 20, "landmarks": "random"}, "landmarks='random' must be one of"),
    ({"n_components": 20, "rcond": -1.0}, "rcond=-1.0 must be .auto. or a number >= 0"),
    ({"n_components": 20, "rcond": "best"}, "rcond=.best. must be .auto. or a number >= 0"),
])
def test_bad_parameters_are_named(monk2, params, message):
    X, kernel, _ = monk2
    with pytest.raises(KreinbenchError, match=message):
        KreinNystrom(kernel, **params).fit(X)


def test_linear_scores_are_the_features_times_the_coefficients_in_blocks(monkeypatch):
    """linear_scores = transform(X) @ coef, however the rows are blocked (one row a block here)."""
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(60, 4))
    nys = KreinNystrom({"type": "tl1", "tau": 2.8}, n_components=15, random_state=0).fit(X)
    coef = rng.standard_normal(nys.projection_.shape[1])
    expected = nys.transform(X) @ coef
    monkeypatch.setattr(nystrom, "block_rows", lambda columns: 1)
    np.testing.assert_allclose(nys.linear_scores(X, coef), expected, rtol=1e-12, atol=1e-12)
    assert nys.linear_scores(X[:0], coef).shape == (0,)
