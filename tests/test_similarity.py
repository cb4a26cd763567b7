"""SimilarityFeatures: a linear SVM on the kernel's rows, checked against scikit-learn's SVC on the
rows as features and against the primal problem's optimality, on an indefinite TL1 kernel."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import tl1
from kreinbench.methods import SimilarityFeatures


@pytest.fixture(scope="module")
def indefinite():
    """Two overlapping classes in [0, 1]^4 and their TL1 kernel (τ = 1, a quarter of the features'
    range: indefinite)."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 60)
    X = np.clip(0.5 + 0.18 * rng.normal(size=(120, 4)) + 0.25 * y[:, None], 0.0, 1.0)
    K = tl1(X, tau=1.0)
    assert np.linalg.eigvalsh(K)[0] < -1e-3
    return K, y


def test_the_rows_as_features_give_scikit_learns_linear_svm(indefinite):
    """The same problem as SVC(kernel="linear") on the rows of K as feature vectors: the same
    scores on new points (given as their similarities to the training points)."""
    K, y = indefinite
    train, test = np.arange(0, 120, 2), np.arange(1, 120, 2)
    ours = SimilarityFeatures(C=0.5, tol=1e-8).fit(K[np.ix_(train, train)], y[train])
    reference = SVC(kernel="linear", C=0.5, tol=1e-8).fit(K[np.ix_(train, train)], y[train])
    cross = K[np.ix_(test, train)]
    np.testing.assert_allclose(ours.decision_function(cross), reference.decision_function(cross), atol=1e-6)
    np.testing.assert_allclose(ours.coef_, reference.coef_[0], atol=1e-6)


def test_the_fit_is_optimal_for_the_primal_problem(indefinite):
    """Its (w, b) solves min ½‖w‖² + C Σ hinge over the rows: no small move of (w, b) lowers the
    objective, and the objective equals the dual's (zero duality gap to the solver's tolerance)."""
    K, y = indefinite
    C = 2.0
    est = SimilarityFeatures(C=C, tol=1e-10).fit(K, y)
    y_pm = np.where(y == 1, 1.0, -1.0)

    def primal(w, b):
        return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y_pm * (K @ w + b)).sum()

    best = primal(est.coef_, est.intercept_)
    assert est.history_[-1]["objective"] == pytest.approx(best, rel=1e-12)
    v = y_pm * est.alpha_
    dual = est.alpha_.sum() - 0.5 * v @ (K @ (K @ v))
    assert best - dual <= 1e-6 * best
    rng = np.random.default_rng(1)
    for _ in range(50):
        step = 1e-4 * rng.normal(size=K.shape[0] + 1)
        assert primal(est.coef_ + step[:-1], est.intercept_ + step[-1]) >= best - 1e-9


def test_it_learns_on_an_indefinite_kernel_and_takes_scikit_learns_tools(indefinite):
    """Above the majority rate on held-out points, and GridSearchCV tunes C with stratified folds
    (the pairwise tag slices K as K[test][:, train])."""
    K, y = indefinite
    search = GridSearchCV(SimilarityFeatures(), {"C": [0.01, 1.0]}, cv=StratifiedKFold(3, shuffle=True,
                                                                                       random_state=0))
    search.fit(K, y)
    assert search.best_score_ > 0.8  # majority rate 0.5


def test_parameters_and_fitting_are_checked(indefinite):
    K, y = indefinite
    with pytest.raises(NotFittedError):
        SimilarityFeatures().decision_function(K)
    with pytest.raises(KreinbenchError, match="parameter C"):
        SimilarityFeatures(C=0.0).fit(K, y)
    with pytest.raises(KreinbenchError, match="parameter max_iter"):
        SimilarityFeatures(max_iter=-2).fit(K, y)
    est = SimilarityFeatures().fit(K, y)
    with pytest.raises(KreinbenchError, match="expecting 120 features"):
        est.decision_function(K[:, :10])
