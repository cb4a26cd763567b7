"""TrIK-SVM (kreinbench.methods.isvm.triksvm) against the SVM and KSVM where they must agree, apart from
KSVM where they must not, and against an unpivoted LDLᵀ written out here (the author's construction)."""

import numpy as np
import pytest
import scipy.linalg

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import kernel_function, resolve_params
from kreinbench.methods import KSVM, SVM, TrIKSVM


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


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_on_an_indefinite_kernel_it_trains_the_svm_on_the_flipped_factorization(monk2_tl1, C):
    """K indefinite and singular (MONK-2's duplicated rows): the training scores K c̃ + b are those of an
    SVM on K̃ = lu|D|luᵀ, |D| by a full eigendecomposition of D here; D has K's inertia (Sylvester)."""
    split, tl1 = monk2_tl1
    X, y = split.X_train, split.y_train
    K = tl1(X, X)
    mu = np.linalg.eigvalsh(K)
    tolerance = 1e-10 * np.abs(mu).max()
    assert np.sum(mu < -tolerance) > 50 and np.sum(np.abs(mu) <= tolerance) > 0  # indefinite, singular
    ours = TrIKSVM(C=C, tol=1e-8).fit(K, y)
    assert ours.n_negative_ == np.sum(mu < -tolerance)
    lu, D, _ = scipy.linalg.ldl(K, lower=True)
    assert np.abs(lu).max() < 10  # singular, yet the multipliers stay bounded (see MAX_GROWTH)
    mu_D, V = np.linalg.eigh(D)
    flipped = lu @ ((V * np.abs(mu_D)) @ V.T) @ lu.T
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
    noise = rng.normal(scale=0.3, size=(n, n))
    K = np.diag(rng.choice([-1.0, 1.0], n) * rng.uniform(n / 4, n / 2, n)) + (noise + noise.T) / 2
    y = rng.integers(0, 2, n)
    K_test = rng.normal(size=(20, n))
    lu, D, perm = scipy.linalg.ldl(K, lower=True)
    assert np.array_equal(perm, np.arange(n)) and np.count_nonzero(np.diag(D, 1)) == 0  # no pivot, no 2 × 2 block
    L, d = unpivoted_ldl(K)
    flipped = (L * np.abs(d)) @ L.T
    reference = SVM(C=1.0, tol=1e-8).fit((flipped + flipped.T) / 2, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    coef = np.linalg.solve(L.T, np.sign(d) * (L.T @ (y_pm * reference.alpha_)))
    expected = K_test @ coef + reference.intercept_
    ours = TrIKSVM(C=1.0, tol=1e-8).fit(K, y)
    assert ours.n_negative_ == np.sum(d < 0)
    np.testing.assert_allclose(ours.decision_function(K_test), expected, atol=1e-6 * np.abs(expected).max())


def test_an_unstable_factorization_is_refused_by_name(load_split):
    """Transfusion's TL1 kernel is numerically singular (duplicated rows, rows at L1 distance ≥ τ from
    all others): Bunch–Kaufman pivots on round-off there and its multipliers reach 1e19; the fit says
    so rather than train an SVM on a K̃ that no longer comes from K."""
    split = load_split("transfusion")
    tl1 = kernel_function(resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1]))
    K = tl1(split.X_train, split.X_train)
    assert np.abs(scipy.linalg.ldl(K, lower=True)[0]).max() > 1e6
    with pytest.raises(KreinbenchError, match="TrIKSVM: the LDLᵀ factorization of K is unstable"):
        TrIKSVM().fit(K, split.y_train)
