"""Shared plumbing of the estimators on precomputed kernels: validation and label handling."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator

from kreinbench.errors import KreinbenchError


class ConvergenceWarning(UserWarning):
    """A solver stopped at its iteration limit far from a stationary point."""


class RunawayWarning(ConvergenceWarning):
    """Iterates left every region where a stationary point can lie (objective unbounded below)."""


def check_positive(name: str, value, *, allow_zero: bool = False) -> float:
    """Validate a positive real parameter and return it as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise KreinbenchError(f"parameter {name} must be a finite real number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise KreinbenchError(f"parameter {name} must be {bound}, got {value!r}")
    return float(value)


def check_int(name: str, value, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise KreinbenchError(f"parameter {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_choice(name: str, value, choices) -> str:
    if value not in choices:
        raise KreinbenchError(f"parameter {name}={value!r} is not one of {sorted(choices)}")
    return value


def check_train_kernel(K, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a square train kernel and binary labels; return K, y in {-1,+1}, and classes."""
    K = np.asarray(K, dtype=float)
    y = np.asarray(y)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise KreinbenchError(f"K must be a square (n, n) kernel matrix, got shape {K.shape}")
    if y.ndim != 1 or y.shape[0] != K.shape[0]:
        raise KreinbenchError(f"y must have shape ({K.shape[0]},) to match K, got {y.shape}")
    if not np.all(np.isfinite(K)):
        raise KreinbenchError("K contains NaN or infinite entries")
    classes = np.unique(y)
    if classes.size != 2:
        raise KreinbenchError(f"this estimator is binary: y must have exactly 2 classes, got {classes.size} ({classes[:5]})")
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    return K, y_pm, classes


def check_cross_kernel(K_cross, n_train: int) -> np.ndarray:
    """Validate a test cross-kernel of shape (n_test, n_train)."""
    K_cross = np.asarray(K_cross, dtype=float)
    if K_cross.ndim != 2 or K_cross.shape[1] != n_train:
        raise KreinbenchError(
            f"K_cross must have shape (n_test, {n_train}) (rows: test points, columns: training points), "
            f"got {K_cross.shape}"
        )
    if not np.all(np.isfinite(K_cross)):
        raise KreinbenchError("K_cross contains NaN or infinite entries")
    return K_cross


class KernelClassifierMixin(BaseEstimator):
    """predict / score from ``decision_function``; ``classes_`` maps the sign to a label.

    Deriving from scikit-learn's ``BaseEstimator`` gives ``get_params``/``set_params``, ``clone`` and
    the usual repr from the keyword-only ``__init__``.

    The estimator protocol the pipeline relies on (every method in ``ESTIMATORS`` follows it):

    - keyword-only ``__init__`` that only stores parameters;
    - class attributes ``needs_spectrum`` and ``needs_features``.  ``needs_spectrum`` names the
      :class:`~kreinbench.spectrum.Spectrum` kind ``fit`` accepts as ``spectrum=`` (None/False:
      none; ``"lambda_min"``, ``"negative"``, ``"eigenvalues"``, ``"full"``; True means ``"full"``;
      or a callable ``params -> kind``), see :func:`kreinbench.plan.spectrum_kind`.
      ``needs_features``: ``fit(K, y, X)`` and ``decision_function(K_cross, X_test)`` also take
      the feature matrices;
    - fitted ``history_`` (list of dicts, one per iteration, with at least ``iteration`` and
      ``objective``), and where meaningful ``n_iter_``, ``stationarity_`` and ``diverged_``.
    """

    needs_spectrum = False
    needs_features = False

    def predict(self, K_cross, *args):
        scores = self.decision_function(K_cross, *args)
        return np.where(scores >= 0, self.classes_[1], self.classes_[0])

    def score(self, K_cross, y, *args) -> float:
        """Accuracy on a test set; ``args`` is ``(X_test,)`` for estimators that need features."""
        return float(np.mean(self.predict(K_cross, *args) == np.asarray(y)))
