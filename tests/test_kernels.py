import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.metrics.pairwise import sigmoid_kernel

import kreinbench.linalg.kernels as kernels_module
from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import add_symmetric_noise, kernel_matrices, rbf, resolve_params, sigmoid, tl1


@pytest.fixture
def points():
    rng = np.random.default_rng(3)
    return rng.uniform(size=(37, 5)), rng.uniform(size=(11, 5))


def test_tl1_matches_direct_loop(points):
    X, Y = points
    tau = 0.7 * X.shape[1]
    K = tl1(X, Y, tau=tau)
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            assert K[i, j] == pytest.approx(max(tau - np.sum(np.abs(X[i] - Y[j])), 0.0), abs=1e-12)


@pytest.mark.parametrize("convention,factor", [("iklr", 1.0), ("dank", 2.0)])
def test_rbf_matches_direct_loop(points, convention, factor):
    X, Y = points
    K = rbf(X, Y, sigma=0.8, convention=convention)
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            expected = np.exp(-np.sum((X[i] - Y[j]) ** 2) / (factor * 0.8**2))
            assert K[i, j] == pytest.approx(expected, rel=1e-12)


def test_tl1_truncates_far_pairs():
    X = np.array([[0.0, 0.0], [1.0, 1.0]])
    assert tl1(X, X, tau=1.4)[0, 1] == 0.0


def test_train_kernel_exactly_symmetric_and_cross_shape(points):
    X, Y = points
    for spec in ({"type": "tl1", "tau_factor": 0.7}, {"type": "rbf", "sigma": 0.3}):
        K, K_cross = kernel_matrices(resolve_params(spec, X.shape[1]), X, Y)
        assert np.array_equal(K, K.T)
        assert K_cross.shape == (Y.shape[0], X.shape[0])


def test_tau_factor_scales_with_feature_count():
    assert resolve_params({"type": "tl1", "tau_factor": 0.7}, 60)["tau"] == pytest.approx(42.0)


def test_mismatched_feature_counts_are_rejected(points):
    X, _ = points
    with pytest.raises(KreinbenchError, match="different feature counts"):
        kernel_matrices(resolve_params({"type": "tl1"}, 5), X, np.zeros((3, 4)))


# -- blocked computation, more kernels, bad input ------------------------------------------------


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of 3 x 37 entries or fewer, so every kernel below spans many uneven blocks."""
    monkeypatch.setattr(kernels_module, "BLOCK_ELEMENTS", 100)


@pytest.mark.parametrize("spec,reference", [
    ({"type": "tl1", "tau": 2.0}, lambda A, B: np.maximum(2.0 - cdist(A, B, "cityblock"), 0.0)),
    ({"type": "rbf", "sigma": 0.7}, lambda A, B: np.exp(-cdist(A, B, "sqeuclidean") / 0.49)),
    ({"type": "rbf", "sigma": 0.7, "convention": "dank"}, lambda A, B: np.exp(-cdist(A, B, "sqeuclidean") / 0.98)),
])
def test_blocked_kernels_match_one_shot_cdist(points, tiny_blocks, spec, reference):
    X, Y = points
    K, K_cross = kernel_matrices(resolve_params(spec, X.shape[1]), X, Y)
    np.testing.assert_allclose(K, reference(X, X), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(K_cross, reference(Y, X), rtol=1e-13, atol=1e-15)
    assert np.array_equal(K, K.T)


def test_sigmoid_matches_scikit_learn_and_is_indefinite(points, tiny_blocks):
    X, Y = points
    np.testing.assert_allclose(sigmoid(X, Y, gamma=0.4, coef0=-1.0), sigmoid_kernel(X, Y, gamma=0.4, coef0=-1.0),
                               rtol=1e-13)
    params = resolve_params({"type": "sigmoid"}, X.shape[1])
    assert params["gamma"] == pytest.approx(1 / 5) and params["coef0"] == 1.0
    K, _ = kernel_matrices({**params, "coef0": -1.0}, X, Y)
    np.testing.assert_allclose(K, sigmoid_kernel(X, gamma=0.2, coef0=-1.0), rtol=1e-13)
    assert np.linalg.eigvalsh(K)[0] < -1e-3


def test_dog_is_the_difference_of_two_gaussians_and_indefinite(points, tiny_blocks):
    X, Y = points
    params = resolve_params({"type": "dog", "a2": 0.5, "sigma1_factor": 0.2, "sigma2": 1.5}, X.shape[1])
    assert params["a1"] == 1.0 and params["sigma1"] == pytest.approx(0.2 * np.sqrt(5)) and params["sigma2"] == 1.5
    K, K_cross = kernel_matrices(params, X, Y)
    for M, A in ((K, X), (K_cross, Y)):
        d2 = cdist(A, X, "sqeuclidean")
        np.testing.assert_allclose(M, np.exp(-d2 / (2 * 0.2**2 * 5)) - 0.5 * np.exp(-d2 / (2 * 1.5**2)), rtol=0,
                                   atol=1e-15)
    assert np.array_equal(K, K.T) and np.linalg.eigvalsh(K)[0] < -1e-2


@pytest.mark.parametrize("spec, message", [
    ({"type": "dog", "sigma1": 1.0, "sigma2": 2.0}, "needs parameter a2"),
    ({"type": "dog", "a2": 0.5, "sigma2": 2.0}, r"exactly one of sigma1, sigma1_factor \(got \[\]\)"),
    ({"type": "dog", "a2": 0.5, "sigma1": 1.0, "sigma2": 2.0, "sigma2_factor": 1.0}, "exactly one of sigma2"),
])
def test_a_dog_kernel_without_its_parameters_is_refused_by_name(spec, message):
    with pytest.raises(KreinbenchError, match=message):
        resolve_params(spec, 3)


def test_noisy_rbf_is_yings_kernel_and_seeded(points, tiny_blocks):
    X, Y = points
    n = X.shape[0]
    params = resolve_params({"type": "noisy-rbf", "sigma": 1.0, "seed": 4}, X.shape[1], split_seed=11)
    assert params["noise"] == 0.1 and params["seed"] == [4, 11]
    K0, K_cross = kernel_matrices(params, X, Y)
    E = np.random.default_rng([4, 11]).standard_normal((n, n))
    K = np.exp(-cdist(X, X, "sqeuclidean"))
    np.testing.assert_allclose(K0, K - 0.1 * (E + E.T) / 2, rtol=0, atol=1e-15)
    assert np.array_equal(K0, K0.T)
    # The test cross-kernel is the clean RBF; another split seed draws another E.
    np.testing.assert_allclose(K_cross, np.exp(-cdist(Y, X, "sqeuclidean")), rtol=1e-13)
    other, _ = kernel_matrices({**params, "seed": [4, 12]}, X, Y)
    assert np.abs(other - K0).max() > 0.05
    assert np.linalg.eigvalsh(K0)[0] < 0


def test_symmetric_noise_on_float32_stays_symmetric(tiny_blocks):
    K = np.zeros((23, 23), dtype=np.float32)
    add_symmetric_noise(K, level=0.3, seed=1)
    assert K.dtype == np.float32 and np.array_equal(K, K.T) and np.abs(K).max() > 0


def test_float32_on_request(points):
    X, Y = points
    params = resolve_params({"type": "tl1", "dtype": "float32"}, X.shape[1])
    K, K_cross = kernel_matrices(params, X, Y)
    K64, _ = kernel_matrices({**params, "dtype": "float64"}, X, Y)
    assert K.dtype == K_cross.dtype == np.float32
    np.testing.assert_allclose(K, K64, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("bad,message", [
    (lambda X: np.where(X > 0.9, np.nan, X), "NaN or infinite"),
    (lambda X: X[:, :, None], "2-d"),
])
def test_bad_features_are_rejected(points, bad, message):
    X, Y = points
    with pytest.raises(KreinbenchError, match=message):
        kernel_matrices(resolve_params({"type": "tl1"}, 5), bad(X), Y)


def test_kernel_too_big_for_memory_is_refused_before_work(points, monkeypatch):
    X, Y = points
    monkeypatch.setattr(kernels_module, "available_memory", lambda: 10_000)

    def must_not_run(params):
        raise AssertionError("kernel computed although it does not fit")

    monkeypatch.setattr(kernels_module, "kernel_function", must_not_run)
    with pytest.raises(KreinbenchError, match=r"37 training and 11 test points needs .* GiB"):
        kernel_matrices(resolve_params({"type": "tl1"}, 5), X, Y)


@pytest.mark.parametrize("spec,message", [
    ({"type": "polynomial"}, "unknown kernel type 'polynomial'"),
    ({"type": "rbf", "sigma": 1.0, "convention": "gauss"}, "convention='gauss'"),
    ({"type": "tl1", "dtype": "float16"}, "dtype='float16'"),
])
def test_bad_kernel_specs_are_named(spec, message):
    with pytest.raises(KreinbenchError, match=message):
        resolve_params(spec, 5)
