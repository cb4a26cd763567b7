"""TrIK-SVM (kreinbench.methods.isvm.triksvm) against the SVM and KSVM where they must agree, apart from
KSVM where they must not, and against an unpivoted LDLᵀ written out here (the author's construction);
its rank-revealing factorization against K's eigenvalues."""

import numpy as np
import pytest
import scipy.linalg

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import kernel_function, resolve_params
from kreinbench.methods import KSVM, SVM, TrIKSVM
from kreinbench.methods.isvm import triksvm
from kreinbench.methods.isvm.triksvm import rank_revealing_ldl, round_off


@pytest.fixture(scope="module")
def monk2_tl1(load_split):
    """KEEL MONK-2 with its TL1 kernel, τ = 0.7 m: 102 negative eigenvalues, and duplicated rows."""
    split = load_split("monk-2")
    kernel = kernel_function(resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1]))
    return split, kernel


def unpivoted_ldl(K):
    """K = L diag(d) Lᵀ by elimination in the rows' order, no pivoting (breaks down at a zero pivot)."""
    n = K.shape[0]
    L, d = np.eye(n), np.zeros(n)
    for j in range(n):
        d[j] = K[j, j] - (L[j, :j] ** 2) @ d[:j]
        L[j + 1:, j] = (K[j + 1:, j] - L[j + 1:, :j] @ (d[:j] * L[j, :j])) / d[j]
    return L, d


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_on_a_positive_definite_kernel_it_is_the_svm_and_ksvm(monk2_tl1, C):
    """K ⪰ 0: D ⪰ 0, K̃ = K and c̃ = y ⊙ α: the SVM's decision, and KSVM's."""
    split, _ = monk2_tl1
    rbf = kernel_function(resolve_params({"type": "rbf", "sigma": 1.0}, split.X_train.shape[1]))
    X, y, X_test = split.X_train, split.y_train, split.X_test
    K, K_test = rbf(X, X), rbf(X_test, X)
    ours = TrIKSVM(C=C, tol=1e-8).fit(K, y)
    assert ours.n_negative_ == 0
    for reference in (SVM(C=C, tol=1e-8).fit(K, y), KSVM(C=C, tol=1e-8).fit(K, y)):
        expected = reference.decision_function(K_test)
        np.testing.assert_allclose(ours.decision_function(K_test), expected, atol=1e-5 * np.abs(expected).max())


def author_construction(K, y, C, K_test):
    """The author's TrIK-SVM (no pivoting) on a K that needs none: its decisions on K_test."""
    L, d = unpivoted_ldl(K)
    flipped = (L * np.abs(d)) @ L.T
    reference = SVM(C=C, tol=1e-8).fit((flipped + flipped.T) / 2, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    coef = np.linalg.solve(L.T, np.sign(d) * (L.T @ (y_pm * reference.alpha_)))
    return K_test @ coef + reference.intercept_


def diagonally_dominant_indefinite(n, seed=0):
    """An indefinite K on which Bunch–Kaufman does not pivot (asserted where it matters)."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(scale=0.3, size=(n, n))
    return np.diag(rng.choice([-1.0, 1.0], n) * rng.uniform(n / 4, n / 2, n)) + (noise + noise.T) / 2


@pytest.mark.parametrize("dataset", ["monk-2", "transfusion"])
def test_the_factorization_reveals_the_rank_and_the_inertia(load_split, dataset):
    """Numerically singular TL1 kernels (duplicated rows; transfusion's Bunch–Kaufman multipliers reach
    1e19): K = L D Lᵀ to round-off with bounded multipliers, L's columns K's numerical rank and D's
    inertia K's, both counted from K's eigenvalues."""
    split = load_split(dataset)
    K = kernel_function(resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1]))(
        split.X_train, split.X_train)
    tolerance = round_off(K)
    L, D, pivots, perm = rank_revealing_ldl(K, tolerance)
    mu, mu_D = np.linalg.eigvalsh(K), np.linalg.eigvalsh(D)
    assert 0 < L.shape[1] == np.sum(np.abs(mu) > tolerance) < K.shape[0]
    assert np.sum(mu_D < -tolerance) == np.sum(mu < -tolerance) > 0 and np.abs(mu_D).min() > tolerance
    np.testing.assert_allclose(L @ D @ L.T, K, atol=1e-12 * np.abs(K).max())
    assert np.abs(L).max() < 20
    triangle = L[pivots][perm]
    np.testing.assert_array_equal(np.diag(triangle), 1.0)
    np.testing.assert_array_equal(np.triu(triangle, 1), 0.0)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_on_an_indefinite_kernel_it_trains_the_svm_on_the_flipped_factorization(monk2_tl1, C):
    """K indefinite and singular (MONK-2's duplicated rows): the training scores K c̃ + b are those of an
    SVM on K̃ = L|D|Lᵀ, |D| by a full eigendecomposition of D here, and D has K's inertia (Sylvester)."""
    split, tl1 = monk2_tl1
    X, y = split.X_train, split.y_train
    K = tl1(X, X)
    ours = TrIKSVM(C=C, tol=1e-8).fit(K, y)
    mu = np.linalg.eigvalsh(K)
    assert ours.n_negative_ == np.sum(mu < -round_off(K)) > 50
    L, D, _, _ = rank_revealing_ldl(K, round_off(K))
    assert ours.rank_ == L.shape[1] < K.shape[0]
    mu_D, V = np.linalg.eigh(D)
    flipped = L @ ((V * np.abs(mu_D)) @ V.T) @ L.T
    flipped = (flipped + flipped.T) / 2
    expected = SVM(C=C, tol=1e-8).fit(flipped, y).decision_function(flipped)
    scores = ours.decision_function(K)
    assert np.isfinite(scores).all()
    np.testing.assert_allclose(scores, expected, atol=1e-5 * np.abs(expected).max())


def test_on_an_indefinite_kernel_it_is_not_ksvm(monk2_tl1):
    """L|D|Lᵀ ≠ U|μ|Uᵀ where K has negative eigenvalues: the two Kreĭn SVMs predict differently."""
    split, tl1 = monk2_tl1
    X, y, X_test = split.X_train, split.y_train, split.X_test
    K, K_test = tl1(X, X), tl1(X_test, X)
    ours = TrIKSVM(C=1.0).fit(K, y).decision_function(K_test)
    ksvm = KSVM(C=1.0).fit(K, y).decision_function(K_test)
    assert np.abs(ours - ksvm).max() > 0.1 * np.abs(ksvm).max()


def test_without_pivots_it_is_the_authors_unpivoted_construction():
    """A strongly diagonally dominant indefinite K, where Bunch–Kaufman does not pivot: K̃ = L|D|Lᵀ and
    c̃ = L⁻ᵀ sign(D) Lᵀ (y ⊙ α) from the unpivoted factorization above give the same decision."""
    rng = np.random.default_rng(0)
    n = 60
    K = diagonally_dominant_indefinite(n)
    y = rng.integers(0, 2, n)
    K_test = rng.normal(size=(20, n))
    lu, D, perm = scipy.linalg.ldl(K, lower=True)
    assert np.array_equal(perm, np.arange(n)) and np.count_nonzero(np.diag(D, 1)) == 0  # no pivot, no 2 × 2 block
    expected = author_construction(K, y, 1.0, K_test)
    ours = TrIKSVM(C=1.0, tol=1e-8).fit(K, y)
    assert ours.n_negative_ == np.sum(np.diag(D) < 0) and ours.rank_ == n
    np.testing.assert_allclose(ours.decision_function(K_test), expected, atol=1e-6 * np.abs(expected).max())


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_duplicated_rows_are_the_authors_construction_on_the_distinct_ones(C):
    """K = E K₀ Eᵀ repeats rows of a K₀ that needs no pivoting (E picks a row of K₀ for each of K's): the
    factorization eliminates K₀'s rows and stops, K̃ = E K̃₀ Eᵀ, and c̃ sums, through E, to K₀'s c̃₀ for
    the summed dual weights Eᵀ(y ⊙ α); so the training scores are the author's construction's on
    E K̃₀ Eᵀ, and the test decisions K₀_test c̃₀ + b."""
    rng = np.random.default_rng(1)
    m, n = 40, 70
    K0 = diagonally_dominant_indefinite(m, seed=1)
    picks = np.concatenate([np.arange(m), rng.integers(0, m, n - m)])  # K₀'s rows first, then repeats
    K = K0[np.ix_(picks, picks)]
    y = rng.integers(0, 2, n)
    K0_test = rng.normal(size=(15, m))
    ours = TrIKSVM(C=C, tol=1e-10).fit(K, y)
    assert ours.rank_ == m and ours.n_negative_ == np.sum(np.linalg.eigvalsh(K0) < 0)
    L, d = unpivoted_ldl(K0)
    flipped = (L[picks] * np.abs(d)) @ L[picks].T  # E K̃₀ Eᵀ
    reference = SVM(C=C, tol=1e-10).fit((flipped + flipped.T) / 2, y)
    scores = reference.decision_function(flipped)
    np.testing.assert_allclose(ours.decision_function(K), scores, atol=1e-6 * np.abs(scores).max())
    summed = np.bincount(picks, weights=np.where(y == 1, 1.0, -1.0) * reference.alpha_, minlength=m)
    expected = K0_test @ np.linalg.solve(L.T, np.sign(d) * (L.T @ summed)) + reference.intercept_
    np.testing.assert_allclose(ours.decision_function(K0_test[:, picks]), expected,
                               atol=1e-6 * np.abs(expected).max())


def test_a_factorization_that_does_not_represent_k_is_refused_by_name(load_split, monkeypatch):
    """The guards on the multipliers and on the last Schur complement raise with the cause in words
    (tightened here to bounds that transfusion's factorization, ≈ 5 and ≈ 1e-15, exceeds)."""
    split = load_split("transfusion")
    tl1 = kernel_function(resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1]))
    K = tl1(split.X_train, split.X_train)
    with monkeypatch.context() as patch:
        patch.setattr(triksvm, "MAX_RESIDUAL", 0.0)
        with pytest.raises(KreinbenchError, match="TrIKSVM: K's rank-revealing LDLᵀ leaves a Schur complement"):
            TrIKSVM().fit(K, split.y_train)
    with monkeypatch.context() as patch:
        patch.setattr(triksvm, "MAX_GROWTH", 1.0)
        with pytest.raises(KreinbenchError, match="TrIKSVM: the LDLᵀ factorization of K is unstable"):
            TrIKSVM().fit(K, split.y_train)


def test_its_decisions_depend_on_the_order_of_the_rows_where_k_is_indefinite(monk2_tl1):
    """K̃ = L|D|Lᵀ depends on the order of elimination, U|μ|Uᵀ does not: permuting MONK-2's training
    rows leaves KSVM's test decisions and, on a positive definite RBF kernel, TrIK-SVM's where they
    were, and moves TrIK-SVM's on the indefinite TL1 kernel (benchmarks/results/trik_row_order.md)."""
    split, tl1 = monk2_tl1
    X, y, X_test = split.X_train, split.y_train, split.X_test
    rbf = kernel_function(resolve_params({"type": "rbf", "sigma": 1.0}, X.shape[1]))
    p = np.random.default_rng(0).permutation(len(y))

    def moved(estimator, kernel):
        K, K_test = kernel(X, X), kernel(X_test, X)
        given = estimator.fit(K, y).decision_function(K_test)
        permuted = estimator.fit(K[np.ix_(p, p)], y[p]).decision_function(K_test[:, p])
        return np.abs(permuted - given).max() / np.abs(given).max()

    assert moved(KSVM(C=1.0, tol=1e-10), tl1) < 1e-5
    assert moved(TrIKSVM(C=1.0, tol=1e-10), rbf) < 1e-5
    assert moved(TrIKSVM(C=1.0, tol=1e-10), tl1) > 0.05
