import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.kernels import kernel_matrices, rbf, resolve_params, tl1


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
