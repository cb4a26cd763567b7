"""Any kreinbench estimator on feature rows, with its kernel as a parameter.

The estimators take precomputed kernels (``fit(K, y)``), so scikit-learn's tools cannot tune the
kernel's own parameters (TL1's τ, a Gaussian's σ), and those that also need the rows (DANK's
out-of-sample extension) do not fit ``cross_val_score``'s one-input calls at all.
:class:`OnFeatures` computes the kernel from the rows inside ``fit`` and ``predict``, so
``GridSearchCV(OnFeatures(estimator=IKLR(), kernel={"type": "tl1"}), {"kernel": [...]})`` tunes it.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_array, check_is_fitted

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import add_symmetric_noise, kernel_function, resolve_params
from kreinbench.methods.base import Estimator


def _estimator_has(method: str):
    """The wrapped estimator's method exists (scikit-learn's tools look for it with ``hasattr``)."""
    return lambda self: hasattr(self.estimator, method)


class OnFeatures(Estimator):
    """``estimator`` fitted on ``kernel`` of the rows ``X`` (n_samples, n_features).

    Parameters
    ----------
    estimator : kreinbench estimator
        A classifier or regressor on precomputed kernels (e.g. ``IKLR()``, ``DANK()``,
        ``DANKSVR()``); cloned by scikit-learn's tools, never fitted in place by them.
    kernel : dict
        A config's kernel spec (``{"type": "tl1", "tau_factor": 0.7}``,
        ``{"type": "rbf", "sigma": 1.0}``, …; :func:`kreinbench.linalg.kernels.resolve_params`), resolved
        on the training rows' width.

    Attributes
    ----------
    estimator_ : the fitted estimator
    kernel_params_ : dict
        The resolved kernel parameters (e.g. TL1's τ = tau_factor · n_features).
    X_fit_ : ndarray of shape (n_samples, n_features)
    classes_ : ndarray of shape (2,) (classifiers)
    n_features_in_ : int
    """

    def __init__(self, *, estimator, kernel):
        self.estimator = estimator
        self.kernel = kernel

    @property
    def _estimator_type(self):
        return getattr(self.estimator, "_estimator_type", None)

    def __sklearn_tags__(self):
        tags = self.estimator.__sklearn_tags__()
        tags.input_tags.pairwise = False
        return tags

    def fit(self, X, y):
        if not isinstance(self.kernel, dict) or "type" not in self.kernel:
            raise KreinbenchError(f"parameter kernel must be a kernel spec such as {{'type': 'tl1'}}, got "
                                  f"{self.kernel!r}")
        X = self._rows(X)
        self.kernel_params_ = resolve_params(self.kernel, X.shape[1])
        K = kernel_function(self.kernel_params_)(X)
        if self.kernel_params_["type"] == "noisy-rbf":
            add_symmetric_noise(K, level=self.kernel_params_["noise"], seed=self.kernel_params_["seed"])
        self.estimator_ = clone(self.estimator)
        self.estimator_.fit(K, y, *self._features(X))
        self.X_fit_ = X
        self.n_features_in_ = X.shape[1]
        if hasattr(self.estimator_, "classes_"):
            self.classes_ = self.estimator_.classes_
        return self

    @staticmethod
    def _rows(X) -> np.ndarray:
        return check_array(X, dtype=np.float64)

    def _features(self, X) -> tuple:
        return (X,) if getattr(self.estimator, "needs_features", False) else ()

    def _cross(self, X) -> tuple:
        """The estimator's test inputs for rows X: the cross-kernel to the training rows (and X)."""
        check_is_fitted(self, "estimator_")
        X = self._rows(X)
        if X.shape[1] != self.n_features_in_:
            raise KreinbenchError(f"X has {X.shape[1]} features, but OnFeatures is expecting "
                                  f"{self.n_features_in_} features as input")
        return (kernel_function(self.kernel_params_)(X, self.X_fit_), *self._features(X))

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        inputs = self._cross(X)  # first: it raises NotFittedError before estimator_ is read
        return self.estimator_.decision_function(*inputs)

    def predict(self, X):
        inputs = self._cross(X)
        return self.estimator_.predict(*inputs)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        inputs = self._cross(X)
        return self.estimator_.predict_proba(*inputs)

    def score(self, X, y) -> float:
        K_cross, *features = self._cross(X)
        return self.estimator_.score(K_cross, y, *features)
