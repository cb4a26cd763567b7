"""Shared plumbing of the estimators on precomputed kernels: validation and label handling."""

from __future__ import annotations

import functools
import inspect
import numbers
import sys
import warnings
from pathlib import Path

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.implicit_kernel import is_implicit


class ConvergenceWarning(UserWarning):
    """A solver stopped at its iteration limit far from a stationary point."""


class RunawayWarning(ConvergenceWarning):
    """Iterates left every region where a stationary point can lie (objective unbounded below)."""


# Every module of the package lies under this directory (with the separator: not a sibling's prefix).
_PACKAGE_DIR = str(Path(__file__).resolve().parents[1]) + "/"


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the first frame outside kreinbench: the warning names the
    user's file and line (their ``fit``, ``cross_val_score`` or pipeline call), not the library's
    internals, however deep the path that issued it (a fit, a CV's λ path, a lock step).  A fixed
    ``stacklevel`` cannot: those paths differ in depth.  (Python 3.12's ``skip_file_prefixes`` does
    this; the package supports 3.11.)"""
    frame, level = sys._getframe(1), 2  # level 2: this function's caller
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


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


def check_train_kernel(K, y, *, implicit: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a square train kernel and binary labels; return K, y in {-1,+1}, and classes.

    ``implicit=True``: an estimator that takes the parts it needs of an
    :class:`~kreinbench.implicit_kernel.ImplicitKernel` gets it back as it is (its entries are
    computed from finite features); any other estimator's ``np.asarray`` of one is an error that
    says how large the matrix would be.
    """
    K = _kernel(K, implicit)
    y = np.asarray(y)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise KreinbenchError(f"K must be a square (n, n) kernel matrix, got shape {K.shape}")
    if y.ndim != 1 or y.shape[0] != K.shape[0]:
        raise KreinbenchError(f"y must have shape ({K.shape[0]},) to match K, got {y.shape}")
    _check_finite(K, "K")
    classes = np.unique(y)
    if classes.size != 2:
        raise KreinbenchError(f"this estimator is binary: y must have exactly 2 classes, got {classes.size} ({classes[:5]})")
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    return K, y_pm, classes


def check_cross_kernel(K_cross, n_train: int, *, implicit: bool = False) -> np.ndarray:
    """Validate a test cross-kernel of shape (n_test, n_train) (``implicit``: as for
    :func:`check_train_kernel`)."""
    K_cross = _kernel(K_cross, implicit)
    if K_cross.ndim != 2 or K_cross.shape[1] != n_train:
        raise KreinbenchError(
            f"K_cross must have shape (n_test, {n_train}) (rows: test points, columns: training points), "
            f"got {K_cross.shape}"
        )
    _check_finite(K_cross, "K_cross")
    return K_cross


def _kernel(K, implicit: bool):
    """An implicit kernel as it is where the estimator takes one, else a float array (an implicit
    kernel's ``np.asarray`` raises, saying how large the matrix would be)."""
    return K if implicit and is_implicit(K) else np.asarray(K, dtype=float)


def _check_finite(K, name: str) -> None:
    # An implicit kernel's entries are computed from finite features.
    if not is_implicit(K) and not np.all(np.isfinite(K)):
        raise KreinbenchError(f"{name} contains NaN or infinite entries")


class Estimator:
    """``get_params``, ``set_params`` and the repr from the keyword-only ``__init__``, as in
    scikit-learn's ``BaseEstimator``, so that ``clone``, ``GridSearchCV`` and the other
    meta-estimators take these estimators.

    Not derived from ``BaseEstimator``: importing scikit-learn (it imports scipy.stats and pandas)
    took 1.5 s of each fit job's start-up, more than most fits of the quick config.
    ``__sklearn_tags__`` is ``BaseEstimator``'s (imported only when scikit-learn asks for it) with
    the ``pairwise`` input tag: ``fit`` takes a square kernel, which meta-estimators then slice as
    ``K[train][:, train]`` and ``K[test][:, train]``.
    """

    @classmethod
    def _parameters(cls) -> dict[str, inspect.Parameter]:
        signature = inspect.signature(cls.__init__)
        return {name: p for name, p in sorted(signature.parameters.items())
                if name != "self" and p.kind is not p.VAR_KEYWORD}

    def get_params(self, deep: bool = True) -> dict:
        """The ``__init__`` parameters; with ``deep``, also ``<name>__<param>`` of estimator-valued ones."""
        params = {}
        for name in self._parameters():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                params.update((f"{name}__{key}", v) for key, v in value.get_params().items())
            params[name] = value
        return params

    def set_params(self, **params):
        """Set ``__init__`` parameters (``<name>__<param>`` for a nested estimator's); returns self."""
        valid = self.get_params(deep=True)
        nested: dict[str, dict] = {}
        for key, value in params.items():
            name, nest, sub = key.partition("__")
            if name not in valid:
                raise KreinbenchError(f"{type(self).__name__} has no parameter {name!r}; "
                                      f"its parameters are {sorted(self._parameters())}")
            if nest:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def check_params(self) -> None:
        """Raise :class:`~kreinbench.errors.KreinbenchError`, naming the parameter, when a parameter
        value is one ``fit`` would reject; needs no data (the pipeline checks every value of a
        config's grids this way before its first job).  This default checks nothing."""

    def __repr__(self) -> str:
        changed = [f"{name}={getattr(self, name)!r}" for name, p in self._parameters().items()
                   if not _same(getattr(self, name), p.default)]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        from sklearn.base import BaseEstimator  # noqa: PLC0415 (only scikit-learn calls this)

        tags = BaseEstimator.__sklearn_tags__(self)
        tags.input_tags.pairwise = True
        return tags


def _same(value, default) -> bool:
    """Whether a parameter still has its default (the repr shows only the others)."""
    if value is default:
        return True
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):  # e.g. arrays, whose == is elementwise
        return False


def _fitted_only(method):
    """``method`` raising scikit-learn's ``NotFittedError`` (a ``ValueError`` and an
    ``AttributeError``) on an estimator that has not been fitted, instead of an ``AttributeError``
    on whichever fitted attribute it reads first."""
    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        if not hasattr(self, "classes_"):
            from sklearn.exceptions import NotFittedError  # noqa: PLC0415 (only on this error)

            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit(K, y) before "
                                 f"{method.__name__}")
        return method(self, *args, **kwargs)

    return checked


def _recording_width(fit):
    """``fit`` that records ``n_features_in_``, the training kernel's width, as scikit-learn's
    ``SVC(kernel="precomputed")`` does."""
    @functools.wraps(fit)
    def recorded(self, K, *args, **kwargs):
        fitted = fit(self, K, *args, **kwargs)
        self.n_features_in_ = int(K.shape[1])
        return fitted

    return recorded


class KernelClassifierMixin(Estimator):
    """predict / score from ``decision_function``; ``classes_`` maps the sign to a label.

    :class:`Estimator` gives ``get_params``/``set_params``, ``clone`` and the usual repr from the
    keyword-only ``__init__``.

    The estimator protocol the pipeline relies on (every method in ``ESTIMATORS`` follows it):

    - keyword-only ``__init__`` that only stores parameters, and ``check_params()`` raising on a
      value ``fit`` would reject (:meth:`Estimator.check_params`);
    - class attributes ``needs_spectrum`` and ``needs_features``.  ``needs_spectrum`` names the
      :class:`~kreinbench.spectrum.Spectrum` kind ``fit`` accepts as ``spectrum=`` (None/False:
      none; ``"lambda_min"``, ``"negative"``, ``"eigenvalues"``, ``"full"``; True means ``"full"``;
      or a callable ``params -> kind``), see :func:`kreinbench.plan.spectrum_kind`.
      ``needs_features``: ``fit(K, y, X)`` and ``decision_function(K_cross, X_test)`` also take
      the feature matrices;
    - fitted ``history_`` (list of dicts, one per iteration, with at least ``iteration`` and
      ``objective``), and where meaningful ``n_iter_``, ``stationarity_`` and ``diverged_``;
    - ``takes_implicit_kernel(kernel_type)``: True when ``fit`` and ``decision_function`` take an
      :class:`~kreinbench.implicit_kernel.ImplicitKernel` of that kernel type (default: never).
    """

    needs_spectrum = False
    needs_features = False
    # scikit-learn's estimator type (its tags say so too): cross_val_score and GridSearchCV then
    # use stratified folds, as for any classifier.
    _estimator_type = "classifier"

    def __init_subclass__(cls, **kwargs):
        # Every subclass's own fit and decision_function keep scikit-learn's contract, including
        # a user's class that follows this protocol (tests/user_methods).
        super().__init_subclass__(**kwargs)
        if "fit" in vars(cls):
            cls.fit = _recording_width(cls.fit)
        if "decision_function" in vars(cls):
            cls.decision_function = _fitted_only(cls.decision_function)

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags  # noqa: PLC0415 (only scikit-learn calls this)

        # ClassifierMixin's tags (not inherited: see Estimator), binary: the pipeline's multi-class
        # data go through kreinbench.methods.multiclass.OneVsRest.
        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags(multi_class=False)
        tags.target_tags.required = True
        return tags

    def takes_implicit_kernel(self, kernel_type: str) -> bool:
        return False

    def predict(self, K_cross, *args):
        scores = self.decision_function(K_cross, *args)
        return np.where(scores >= 0, self.classes_[1], self.classes_[0])

    def score(self, K_cross, y, *args) -> float:
        """Accuracy on a test set; ``args`` is ``(X_test,)`` for estimators that need features."""
        return float(np.mean(self.predict(K_cross, *args) == np.asarray(y)))
