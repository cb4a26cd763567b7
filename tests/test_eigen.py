"""kreinbench.linalg.eigen against numpy's dense eigensolver, on indefinite and definite matrices."""

import numpy as np
import pytest

from kreinbench.linalg import eigen


def symmetric(n: int, seed: int, shift: float = 0.0) -> np.ndarray:
    A = np.random.default_rng(seed).normal(size=(n, n))
    return (A + A.T) / 2 + shift * np.eye(n)


@pytest.mark.parametrize("n", [20, 200])
def test_extreme_eigenvalues_by_every_route_are_numpys(n):
    K = symmetric(n, n)
    mu = np.linalg.eigvalsh(K)
    assert eigen.smallest_eigenvalue(K) == pytest.approx(mu[0], rel=1e-12)
    assert eigen.largest_eigenvalue(K, exact=True) == pytest.approx(mu[-1], rel=1e-12)
    assert eigen.largest_eigenvalue(K, seed=3) == pytest.approx(mu[-1], rel=1e-10)
    ends = eigen.lanczos_extremes(K, seed=3)
    if ends.converged:
        assert ends.mu_min - ends.mu_min_residual <= mu[0] + 1e-12 and ends.mu_max == pytest.approx(mu[-1], rel=1e-8)


def test_the_lanczos_estimate_is_reproducible_from_its_seed():
    K = symmetric(150, 1)
    assert eigen.largest_eigenvalue(K, seed=7) == eigen.largest_eigenvalue(K, seed=7)
    np.testing.assert_array_equal(eigen.start_vector(150, 7), eigen.start_vector(150, 7))


def test_negative_eigenpairs_are_those_below_the_threshold_or_the_smallest_pair():
    K = symmetric(60, 2)
    mu, V = np.linalg.eigh(K)
    neg, W = eigen.negative_eigenpairs(K, 1e-8)
    np.testing.assert_allclose(neg, mu[mu < -1e-8], rtol=1e-12)
    np.testing.assert_allclose(K @ W, W * neg, atol=1e-10)
    definite = K + (1.0 - mu[0]) * np.eye(60)
    only, W1 = eigen.negative_eigenpairs(definite, 1e-8)
    assert only.shape == (1,) and only[0] == pytest.approx(1.0, rel=1e-12) and W1.shape == (60, 1)


def test_the_cholesky_certificate_says_definite_only_when_it_is():
    K = symmetric(80, 4)
    mu_min = np.linalg.eigvalsh(K)[0]
    assert not eigen.positive_definite(K)
    assert eigen.positive_definite(K + (1e-6 - mu_min) * np.eye(80))
    # the jitter is relative to the largest diagonal entry: it certifies a K whose μ_min is above −jitter·max|Kᵢᵢ|
    near = K - mu_min * np.eye(80) - 1e-9 * np.eye(80)
    assert not eigen.positive_definite(near)
    assert eigen.positive_definite(near, jitter=1e-6)


def test_a_nan_never_certifies():
    K = symmetric(30, 5, shift=40.0)
    assert eigen.positive_definite(K)
    K[3, 3] = np.nan
    assert not eigen.positive_definite(K)
