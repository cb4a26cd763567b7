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


def test_a_certified_matrix_gets_its_smallest_pair_from_lanczos_on_the_inverse():
    K = symmetric(200, 6)
    mu, V = np.linalg.eigh(K)
    K = K + (0.05 - mu[0]) * np.eye(200)  # positive definite, μ_min = 0.05
    scale = np.abs(mu).max()
    value, W = eigen.negative_eigenpairs(K, 1e-8, cholesky_from=0)
    assert value.shape == (1,) and W.shape == (200, 1)
    assert value[0] == pytest.approx(0.05, abs=1e-10 * scale)
    assert abs(W[:, 0] @ V[:, 0]) == pytest.approx(1.0, abs=1e-8)
    assert eigen.smallest_eigenvalue(K, cholesky_from=0) == pytest.approx(0.05, abs=1e-10 * scale)
    assert eigen.smallest_eigenvalue(K, cholesky_from=0, seed=1) == pytest.approx(0.05, abs=1e-10 * scale)


@pytest.mark.parametrize("negative", [-1.0, -1e-9])
def test_an_indefinite_or_nearly_semidefinite_matrix_fails_over_to_syevr(negative):
    """A Cholesky factorization that fails (an indefinite matrix, or one whose only negative
    eigenvalue is −1e-9 of its norm, as TL1 kernels near the cone have) leaves syevr's answer,
    bit for bit."""
    K = symmetric(120, 7)
    mu, V = np.linalg.eigh(K)
    K = (V * np.where(np.arange(120) == 0, negative, mu - mu[0] + 0.1)) @ V.T
    K = (K + K.T) / 2
    assert eigen.cholesky_factor(K) is None
    certified = eigen.negative_eigenpairs(K, 1e-12, cholesky_from=0)
    plain = eigen.negative_eigenpairs(K, 1e-12, cholesky_from=10**9)
    np.testing.assert_array_equal(certified[0], plain[0])
    np.testing.assert_array_equal(certified[1], plain[1])
    assert certified[0][0] == pytest.approx(negative, abs=1e-12)
    assert eigen.smallest_eigenvalue(K, cholesky_from=0) == eigen.smallest_eigenvalue(K, cholesky_from=10**9)


def test_below_the_threshold_size_the_spectrum_is_syevrs_whatever_the_matrix():
    K = symmetric(100, 8, shift=30.0)  # positive definite
    assert eigen.cholesky_factor(K) is not None and 100 < eigen.CHOLESKY_FIRST_FROM
    exact = np.linalg.eigvalsh(K)[0]
    # syevr's value (the records' μ_min at the papers' sizes), not a Lanczos estimate of it
    assert eigen.smallest_eigenvalue(K) == pytest.approx(exact, rel=1e-13)
