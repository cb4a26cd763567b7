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
from kreinbench.linalg.implicit_kernel import is_implicit


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
    :class:`~kreinbench.linalg.implicit_kernel.ImplicitKernel` gets it back as it is (its entries are
    computed from finite features); any other estimator's ``np.asarray`` of one is an error that
    says how large the matrix would be.

    The messages contain the phrases scikit-learn's own validation uses ("Only binary
    classification is supported", "Unknown label type: continuous", "Reshape your data", …), so
    that its common checks and users who know them recognise each case.
    """
    K = _train_kernel(K, y, implicit)
    # Labels and finiteness before squareness: their messages say more about a wrong input.
    y_pm, classes = binary_labels(y, K.shape[0])
    _check_finite(K, "K")
    if K.shape[0] != K.shape[1]:
        raise KreinbenchError(f"K must be a square (n, n) kernel matrix, got shape {K.shape}")
    return K, y_pm, classes


def binary_labels(y, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels of two classes for n points as ±1 (+1: the larger class label), and the classes."""
    y = _labels(y, n)
    classes = np.unique(y)
    if classes.size == 1:
        raise KreinbenchError(f"y has 1 class ({classes[0]}): a binary classifier needs both classes in its "
                              "training set")
    if classes.size != 2:
        raise KreinbenchError(f"Only binary classification is supported: y has {classes.size} classes "
                              f"({classes[:5]}); kreinbench.methods.multiclass.OneVsRest fits one per class")
    return np.where(y == classes[1], 1.0, -1.0), classes


def _train_kernel(K, y, implicit: bool):
    """K as :func:`_kernel` gives it, once y is given and K is a non-empty matrix."""
    if y is None:
        raise KreinbenchError("this estimator requires y to be passed, but the target y is None")
    K = _kernel(K, implicit, "K")
    if K.ndim != 2 or 0 in K.shape:
        raise KreinbenchError(f"K must be a square (n, n) kernel matrix with n >= 1, got shape {K.shape}"
                              + _empty_hint(K))
    return K


def _one_dimensional(y, n: int) -> np.ndarray:
    """y as a 1-d array of length n; a column vector is taken with scikit-learn's
    DataConversionWarning, as its estimators do."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning  # noqa: PLC0415 (only on this path)

        warn_at_caller("A column-vector y was passed when a 1d array was expected: pass y of shape "
                       "(n_samples,)", DataConversionWarning)
        y = y.ravel()
    if y.ndim != 1 or y.shape[0] != n:
        raise KreinbenchError(f"y must have shape ({n},) to match K, got {y.shape}")
    return y


def _labels(y, n: int) -> np.ndarray:
    """Class labels as a 1-d array of length n (:func:`_one_dimensional`); continuous targets are
    refused."""
    y = _one_dimensional(y, n)
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise KreinbenchError("y contains NaN or infinite labels")
    if y.dtype.kind in "fc" and np.any(y != np.round(y)):
        raise KreinbenchError("Unknown label type: continuous; a classifier needs class labels "
                              "(regression: kreinbench.methods.DANKSVR)")
    return y


def check_cross_kernel(K_cross, n_train: int, *, implicit: bool = False) -> np.ndarray:
    """Validate a test cross-kernel of shape (n_test, n_train) (``implicit``: as for
    :func:`check_train_kernel`)."""
    K_cross = _kernel(K_cross, implicit, "K_cross")
    if K_cross.ndim != 2:
        raise KreinbenchError(f"Expected a 2-d K_cross of shape (n_test, {n_train}), got {K_cross.ndim}-d of "
                              f"shape {K_cross.shape}: Reshape your data (one row per test point)")
    if K_cross.shape[1] != n_train:
        raise KreinbenchError(_width_message(K_cross.shape, n_train))
    _check_finite(K_cross, "K_cross")
    return K_cross


def _width_message(shape: tuple, n_train: int, owner: str = "the estimator") -> str:
    # The first clause is scikit-learn's wording for a width that differs from the fit's.
    return (f"X has {shape[1]} features, but {owner} is expecting {n_train} features as input: K_cross "
            f"must have shape (n_test, {n_train}) (rows: test points, columns: training points), got {shape}")


def _kernel(K, implicit: bool, name: str):
    """An implicit kernel as it is where the estimator takes one, else a real float array (an
    implicit kernel's ``np.asarray`` raises, saying how large the matrix would be)."""
    if implicit and is_implicit(K):
        return K
    # scipy.sparse is imported if and only if a sparse matrix can exist.
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(K):
        raise KreinbenchError(f"{name} is a sparse matrix: sparse input is not supported (kernel matrices are "
                              "dense); pass K.toarray()")
    K = np.asarray(K)
    if np.iscomplexobj(K):
        raise KreinbenchError(f"{name}: Complex data not supported (a kernel is real)")
    try:
        return K.astype(float, copy=False)
    except TypeError as exc:  # e.g. an object array holding a dict
        raise TypeError(f"{name} must hold real numbers: {exc}") from exc
    except ValueError as exc:
        raise KreinbenchError(f"{name} must hold real numbers: {exc}") from exc


def _empty_hint(K: np.ndarray) -> str:
    # scikit-learn's wording for an empty input
    return (f" (0 feature(s) (shape={K.shape}) while a minimum of 1 is required)"
            if K.ndim == 2 and 0 in K.shape else "")


def _check_finite(K, name: str) -> None:
    # An implicit kernel's entries are computed from finite features.
    if not is_implicit(K) and not np.all(np.isfinite(K)):
        raise KreinbenchError(f"{name} contains NaN or infinite (inf) entries")


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


def fitted_only(method, fitted_attribute: str = "classes_"):
    """``method`` raising scikit-learn's ``NotFittedError`` (a ``ValueError`` and an
    ``AttributeError``) on an estimator that has not been fitted, instead of an ``AttributeError``
    on whichever fitted attribute it reads first, and a ``ValueError`` naming the estimator on a
    test kernel whose width is not the fit's ``n_features_in_``."""
    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        if not hasattr(self, fitted_attribute):
            from sklearn.exceptions import NotFittedError  # noqa: PLC0415 (only on this error)

            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit(K, y) before "
                                 f"{method.__name__}")
        shape = getattr(args[0], "shape", None) if args else None
        if shape is not None and len(shape) == 2 and shape[1] != getattr(self, "n_features_in_", shape[1]):
            _check_finite(args[0], "K_cross")  # a NaN is the first thing to say, as scikit-learn does
            raise KreinbenchError(_width_message(shape, self.n_features_in_, type(self).__name__))
        return method(self, *args, **kwargs)

    return checked


def _recording_width(fit):
    """``fit`` that records ``n_features_in_``, the training kernel's width, as scikit-learn's
    ``SVC(kernel="precomputed")`` does."""
    @functools.wraps(fit)
    def recorded(self, K, *args, **kwargs):
        fitted = fit(self, K, *args, **kwargs)
        # (an array-like without .shape, e.g. a list, is read as an array again: rare, and cheap)
        self.n_features_in_ = int((K.shape if hasattr(K, "shape") else np.asarray(K).shape)[1])
        return fitted

    return recorded


class KernelModel(Estimator):
    """What classifiers and regressors on a precomputed kernel share: every subclass's own ``fit``
    records ``n_features_in_`` and its own ``_checked_method`` raises ``NotFittedError`` before
    ``fit`` (including a user's class that follows the protocol, tests/user_methods)."""

    needs_spectrum = False
    needs_features = False
    _checked_method = "decision_function"
    _fitted_attribute = "classes_"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "fit" in vars(cls):
            cls.fit = _recording_width(cls.fit)
        if cls._checked_method in vars(cls):
            setattr(cls, cls._checked_method, fitted_only(vars(cls)[cls._checked_method], cls._fitted_attribute))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = self._estimator_type
        tags.target_tags.required = True
        return tags

    def takes_implicit_kernel(self, kernel_type: str) -> bool:
        return False

    # The CV contract (kreinbench.methods.selection). A model that scores a λ path or a parameter
    # grid on CV folds faster than separate fits, and as they would score, overrides these; the
    # defaults say "separate fits", as for any estimator outside this base.

    def supports_lambda_path(self) -> bool:
        """Whether :meth:`lambda_path_scores` can serve a CV over a grid of ``lam`` alone."""
        return False

    def lambda_path_scores(self, K, y, folds, lams) -> np.ndarray:
        """Validation scores (len(lams) × len(folds)) with each λ of ``lams`` on each (train,
        validation) index pair of ``folds``, fitted on slices of ``K``: what separate fits score."""
        raise NotImplementedError(f"{type(self).__name__} has no λ path (supports_lambda_path() is False)")

    def lambda_path_takes_array_api(self) -> bool:
        """Whether :meth:`lambda_path_scores` also takes ``K`` as an array of another array API namespace
        than NumPy (a GPU's: ``array_api`` in a config), in that namespace; otherwise such a K's CV
        is fitted separately."""
        return False

    def groups_lambda_paths_with(self, other) -> bool:
        """Whether ``other``'s λ path can run with this one's in one :meth:`grouped_lambda_path_scores`
        call (a config's ``cv_with``)."""
        return False

    @staticmethod
    def grouped_lambda_path_scores(prototypes: list, K, y, folds, lams) -> list:
        """Each of ``prototypes``' :meth:`lambda_path_scores` (models that differ in anything but λ
        and group with the first), computed together."""
        raise NotImplementedError("no grouped λ path (groups_lambda_paths_with() is False)")

    def supports_grid_path(self, grid: dict) -> bool:
        """Whether :meth:`grid_path_scores` can serve a CV over ``grid`` (a dict of parameter lists)."""
        return False

    def grid_path_scores(self, K, y, folds, candidates: list[dict], X=None) -> np.ndarray:
        """Validation scores (len(candidates) × len(folds)) of each parameter dict of ``candidates``
        on each fold of ``folds`` (``X``: the features, for models that take them): what separate fits
        score."""
        raise NotImplementedError(f"{type(self).__name__} has no grid path (supports_grid_path() is False)")


class KernelClassifierMixin(KernelModel):
    """predict / score from ``decision_function``; ``classes_`` maps the sign to a label.

    :class:`Estimator` gives ``get_params``/``set_params``, ``clone`` and the usual repr from the
    keyword-only ``__init__``.

    The estimator protocol the pipeline relies on (every method in ``ESTIMATORS`` follows it):

    - keyword-only ``__init__`` that only stores parameters, and ``check_params()`` raising on a
      value ``fit`` would reject (:meth:`Estimator.check_params`);
    - class attributes ``needs_spectrum`` and ``needs_features``.  ``needs_spectrum`` names the
      :class:`~kreinbench.linalg.spectrum.Spectrum` kind ``fit`` accepts as ``spectrum=`` (None/False:
      none; ``"lambda_min"``, ``"negative"``, ``"eigenvalues"``, ``"full"``; True means ``"full"``;
      or a callable ``params -> kind``), see :func:`kreinbench.pipeline.plan.spectrum_kind`.
      ``needs_features``: ``fit(K, y, X)`` and ``decision_function(K_cross, X_test)`` also take
      the feature matrices;
    - fitted ``history_`` (list of dicts, one per iteration, with at least ``iteration`` and
      ``objective``), and where meaningful ``n_iter_``, ``stationarity_`` and ``diverged_``;
    - ``takes_implicit_kernel(kernel_type)``: True when ``fit`` and ``decision_function`` take an
      :class:`~kreinbench.linalg.implicit_kernel.ImplicitKernel` of that kernel type (default: never).
    """

    # scikit-learn's estimator type (its tags say so too): cross_val_score and GridSearchCV then
    # use stratified folds, as for any classifier.
    _estimator_type = "classifier"

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags  # noqa: PLC0415 (only scikit-learn calls this)

        # ClassifierMixin's tags (not inherited: see Estimator), binary: the pipeline's multi-class
        # data go through kreinbench.methods.multiclass.OneVsRest.
        tags = super().__sklearn_tags__()
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags

    def predict(self, K_cross, *args):
        scores = self.decision_function(K_cross, *args)
        if not isinstance(scores, np.ndarray):  # an array API array (a GPU's): labels are the host's
            from kreinbench.linalg.arrays import to_numpy  # noqa: PLC0415 (array_api_compat only off NumPy)

            scores = to_numpy(scores)
        return np.where(scores >= 0, self.classes_[1], self.classes_[0])

    def score(self, K_cross, y, *args) -> float:
        """Accuracy on a test set; ``args`` is ``(X_test,)`` for estimators that need features."""
        return float(np.mean(self.predict(K_cross, *args) == np.asarray(y)))


def check_regression_kernel(K, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate a square train kernel and real targets; return both as float arrays."""
    K = _train_kernel(K, y, False)
    y = _one_dimensional(y, K.shape[0])
    if K.shape[0] < 2:
        raise KreinbenchError("n_samples=1: a regression needs at least 2 training points")
    y = _kernel(y, False, "y")
    _check_finite(K, "K")
    _check_finite(y, "y")
    if K.shape[0] != K.shape[1]:
        raise KreinbenchError(f"K must be a square (n, n) kernel matrix, got shape {K.shape}")
    return K, y


class KernelRegressorMixin(KernelModel):
    """``score`` (R², as scikit-learn's regressors: higher is better) from ``predict``, and the
    regressor's estimator type and tags, for regressors on a precomputed kernel."""

    _estimator_type = "regressor"
    _checked_method = "predict"
    _fitted_attribute = "alpha_"

    def __sklearn_tags__(self):
        from sklearn.utils import RegressorTags  # noqa: PLC0415 (only scikit-learn calls this)

        tags = super().__sklearn_tags__()
        tags.regressor_tags = RegressorTags()
        return tags

    def score(self, K_cross, y, *args) -> float:
        """R² = 1 − Σ(ŷ − y)²/Σ(y − ȳ)² on a test set; ``args`` is ``(X_test,)`` for estimators
        that need features."""
        y = np.asarray(y, dtype=float)
        residual = np.sum((self.predict(K_cross, *args) - y) ** 2)
        total = np.sum((y - y.mean()) ** 2)
        # scikit-learn's r2_score convention for a constant target
        return float(1.0 - residual / total) if total > 0 else (1.0 if residual == 0 else 0.0)
