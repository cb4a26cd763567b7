"""scikit-learn's contract, as its tools rely on it unasked: classifiers are classifiers (so
cross_val_score and GridSearchCV stratify), an unfitted estimator raises NotFittedError, a bad
parameter raises ValueError, and fit records n_features_in_ as SVC(kernel="precomputed") does."""

import numpy as np
import pytest
from sklearn.base import is_classifier
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.svm import SVC

from kreinbench.methods import DANK, ESTIMATORS, IKLR, SVM

CLASSIFIERS = sorted(ESTIMATORS)


def tl1_sorted_by_label():
    """Breast cancer sorted by label (the case where unstratified, unshuffled folds hold one class)
    and its TL1 kernel at τ = 0.2·m, which is indefinite (at 0.7·m it is positive definite here)."""
    X, y = load_breast_cancer(return_X_y=True)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    K = np.maximum(0.2 * X.shape[1] - np.abs(X[:, None, :] - X[None, :, :]).sum(-1), 0.0)
    assert np.linalg.eigvalsh(K)[0] < -1e-8  # genuinely indefinite
    return K, y


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_every_classifier_is_a_classifier_and_raises_not_fitted_before_fit(name):
    est = ESTIMATORS[name]()
    assert is_classifier(est)
    with pytest.raises(NotFittedError, match="not fitted"):
        est.decision_function(np.eye(4))


def test_cross_val_score_stratifies_as_for_svc():
    """On label-sorted data, unstratified folds scored IKLR 0.24 / 0.22 / 0.96 / 1.0 / 0.98."""
    K, y = tl1_sorted_by_label()
    ours = cross_val_score(SVM(), K, y, cv=5)
    # the folds scikit-learn gives its own classifiers, with their scores
    assert np.array_equal(ours, cross_val_score(SVM(), K, y, cv=StratifiedKFold(5)))
    assert np.allclose(ours, cross_val_score(SVC(kernel="precomputed"), K, y, cv=5))
    assert ours.min() > 0.85


def test_grid_search_takes_a_bad_parameter_as_a_value_error_and_the_fit_records_its_width():
    K, y = tl1_sorted_by_label()
    with pytest.raises(ValueError, match="lam"):
        IKLR(lam=-1.0).fit(K, y)
    search = GridSearchCV(SVM(), {"C": [0.1, 1.0]}, cv=3).fit(K, y)
    assert search.best_estimator_.n_features_in_ == K.shape[0]
    assert search.best_score_ > 0.85


def test_a_feature_taking_classifier_keeps_the_contract():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(3, 1, (20, 2))])
    y = np.repeat([0, 1], 20)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    est = DANK()
    with pytest.raises(NotFittedError):
        est.decision_function(K, X)
    assert est.fit(K, y, X).n_features_in_ == 40
