"""One-vs-rest for multi-class data with any binary estimator on precomputed kernels."""

from __future__ import annotations

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.methods.base import check_cross_kernel


class OneVsRest:
    """Fit one binary estimator per class (class c vs the rest); predict the highest score.

    Parameters
    ----------
    estimator : binary estimator on precomputed kernels (e.g. ``IKLR(lam=0.1)``)
        Cloned per class (its parameters are copied, nothing fitted is shared).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of fitted estimators, one per class
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, K, y, **fit_kwargs):
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise KreinbenchError(f"OneVsRest needs at least 2 classes in y, got {self.classes_.size}")
        # Every binary problem shares K, so a cached spectrum (fit_kwargs) serves them all.  Each
        # gets a fresh estimator with the same parameters (scikit-learn's clone, for these estimators).
        make = type(self.estimator)
        params = self.estimator.get_params(deep=False)
        self.estimators_ = [make(**params).fit(K, np.where(y == c, 1, -1), **fit_kwargs) for c in self.classes_]
        return self

    def decision_function(self, K_cross):
        """Scores of shape (n_test, n_classes), column c = "class c vs rest"."""
        K_cross = check_cross_kernel(K_cross, np.asarray(K_cross).shape[1])
        return np.column_stack([est.decision_function(K_cross) for est in self.estimators_])

    def predict(self, K_cross):
        return self.classes_[np.argmax(self.decision_function(K_cross), axis=1)]

    def score(self, K_cross, y) -> float:
        return float(np.mean(self.predict(K_cross) == np.asarray(y)))
