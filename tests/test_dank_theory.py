"""DANK Theorems 7 and 8 (Fig. 6) measured on small data: the bounds hold, condition (21) screens nothing."""

import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.experiments.dank import figure6_data
from kreinbench.methods.dank.theory import cross_cluster_mass, partition_bounds

C, ETA = 1.0, 5.0


@pytest.fixture(scope="module")
def three_blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(15, 2)) + centre for centre in ([0, 0], [4, 0], [0, 4])])
    y = np.where(X[:, 0] + X[:, 1] + rng.normal(size=len(X)) > 2, 1.0, -1.0)
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return X, y, K


@pytest.fixture(scope="module")
def fig6(three_blobs):
    X, y, K = three_blobs
    return figure6_data(K, y, X, C=C, eta=ETA, cluster_counts=(2, 3), random_state=0, max_iter=5000, tol=1e-10)


def test_cross_cluster_mass_sums_pairs_in_different_clusters(three_blobs):
    _, _, K = three_blobs
    labels = np.arange(K.shape[0]) % 3
    expected = sum(abs(K[i, j]) for i in range(K.shape[0]) for j in range(K.shape[0]) if labels[i] != labels[j])
    assert cross_cluster_mass(K, labels) == pytest.approx(expected, rel=1e-12)
    assert cross_cluster_mass(K, np.zeros(K.shape[0], dtype=int)) == 0.0


def test_theorem_7_bounds_hold(fig6):
    for r in fig6:
        # the hypothesis 0 < B1 holds, and the partition does move the solution (else 0 <= bound is empty)
        assert 0 < r.B1 <= 1 <= r.B2 and r.Q > 0
        assert 1e-6 < r.alpha_error_sq <= r.alpha_bound < r.alpha_trivial_bound
        assert 1e-6 < r.F_error <= r.F_bound


def test_gradient_is_the_optimality_certificate_of_problem_19(fig6):
    """KKT conditions of (19) on the box: (∇H̄(ᾱ, F̄))_i ≤ 0 at ᾱ_i = 0, = 0 inside, ≥ 0 at ᾱ_i = C."""
    tol = 1e-4  # first-order solver accuracy
    for r in fig6:
        a, g = r.alpha_bar, r.gradient
        at_zero, at_C = ~r.support, a >= C * (1 - 1e-8)
        free = ~(at_zero | at_C)
        assert free.any() and at_zero.any() and at_C.any()
        assert np.all(g[at_zero] <= tol) and np.all(g[at_C] >= -tol) and np.all(np.abs(g[free]) <= tol)


def test_condition_21_as_printed_screens_no_point(fig6, three_blobs):
    """F̄ ⪰ 0 gives |F̄_ij| ≤ B2, so (∇H̄)_i ≥ 1 − B2·C·‖K̄_i‖₁ > −(B + B2)C(‖K̄_i‖₁ + κ), the threshold."""
    _, _, K = three_blobs
    for r in fig6:
        col_l1 = np.where(r.labels[:, None] == r.labels[None, :], np.abs(K), 0.0).sum(axis=0)
        np.testing.assert_allclose(r.threshold, -(2 * r.B2 - r.B1) * C * (col_l1 + r.kappa), rtol=1e-12)
        assert np.all(r.gradient >= 1 - r.B2 * C * col_l1 - 1e-9)
        assert np.all(r.gradient > r.threshold)
        assert not r.screened.any() and r.summary()["n_screened"] == 0 and r.screened_share == 0.0


def test_bad_inputs_are_named(three_blobs):
    _, y, K = three_blobs
    with pytest.raises(KreinbenchError, match="labels"):
        partition_bounds(K, y, np.zeros(3), C=C, eta=ETA)
    with pytest.raises(KreinbenchError, match="eta"):
        partition_bounds(K, y, np.zeros(y.size), C=C, eta=-1.0)
