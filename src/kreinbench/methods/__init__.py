"""Estimators on precomputed kernels, scikit-learn style: ``fit(K, y)``, ``decision_function(K_cross)``.

One subpackage per paper: ``iklr`` (IKLR and its baselines KLR, Flip/Clip/Shift KLR, TDCASVM),
``isvm`` (the indefinite SVM of Ying et al. / Luss and d'Aspremont, and the SVM / KSVM baselines),
``dank`` (DANK and DANK-SVR); ``solvers`` holds what they share (SMO, projections, duality gaps,
the logistic loss and its Newton step), ``base`` the estimator protocol. ``NystromIKLR`` (with
``KreinLogisticRegression``) fits IKLR on Kreĭn Nyström features of the rows, in O(n·m) memory, and
``NystromSpectrumKLR`` / ``NystromKSVM`` its Flip, Clip, Shift and KSVM baselines.
After the papers: ``TrIKSVM`` (the Kreĭn SVM on an LDLᵀ factorization), ``KreinRLS`` (Kreĭn regularized least squares), ``SparseIKLR`` (ℓ1-regularized
IKLR), ``SimilarityFeatures`` (the kernel's rows as features of a linear SVM) and
``RandomFeaturesIKLR`` / ``RandomFeaturesSpectrumKLR`` (IKLR and Flip, Clip, Shift KLR on signed
random features of a difference-of-Gaussians kernel).
Import estimators from here: ``from kreinbench.methods import IKLR``.
"""

import importlib
from collections.abc import Iterator, Mapping

from kreinbench.errors import KreinbenchError
from kreinbench.methods.base import ConvergenceWarning, RunawayWarning

# Each estimator's module.  They are imported on first use, so that a fit job loads only its own
# method and the parts of scipy that method needs (scipy.spatial and scipy.sparse.linalg, which
# only DANK uses, add about 0.13 s to every job's start).
_MODULES = {
    "IKLR": "iklr.estimator",
    "KLR": "iklr.klr",
    "SpectrumKLR": "iklr.klr",
    "SVM": "isvm.svm",
    "KSVM": "isvm.svm",
    "TrIKSVM": "isvm.triksvm",
    "TDCASVM": "iklr.tdcasvm",
    "IndefiniteSVM": "isvm.indefinite_svm",
    "DANK": "dank.estimator",
    "DANKSVR": "dank.svr",
    "KreinLogisticRegression": "iklr.features",
    "NystromIKLR": "iklr.features",
    "NystromSpectrumKLR": "iklr.feature_baselines",
    "NystromKSVM": "iklr.feature_baselines",
    "OnFeatures": "on_features",
    "SimilarityFeatures": "similarity",
    "KreinRLS": "krein.rls",
    "SparseIKLR": "sparse_iklr",
    "RandomFeaturesIKLR": "iklr.random_features",
    "RandomFeaturesSpectrumKLR": "iklr.random_features",
}
# Library estimators the pipeline's fit stage does not take: a regressor, the feature-space IKLR
# for data whose n × n kernel does not fit (fit(X, y) on rows, never a kernel matrix), and any
# estimator on rows with its kernel as a parameter (OnFeatures, for scikit-learn's tools).
_LIBRARY_ONLY = ("DANKSVR", "KreinLogisticRegression", "NystromIKLR", "NystromSpectrumKLR", "NystromKSVM",
                 "OnFeatures")
# Estimators on rows that a config runs on an implicit kernel of their own type (``storage:
# implicit``), from which they take the rows and the kernel's parameters: config estimators, but not
# in ESTIMATORS, whose members take kernel matrices.
ON_IMPLICIT_KERNEL = ("RandomFeaturesIKLR", "RandomFeaturesSpectrumKLR")


def __getattr__(name: str) -> type:
    """``from kreinbench.methods import IKLR`` imports IKLR's module only (PEP 562)."""
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULES[name]}"), name)


class _Classifiers(Mapping):
    """Classifier classes by the name a config's ``estimator:`` key uses, each imported on lookup
    (not the library-only ones)."""

    _names = tuple(name for name in _MODULES if name not in _LIBRARY_ONLY + ON_IMPLICIT_KERNEL)

    def __getitem__(self, name: str) -> type:
        if name not in self._names:
            raise KeyError(name)
        return __getattr__(name)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


ESTIMATORS = _Classifiers()


def estimator_class(name: str, where: str = "estimator") -> type:
    """A config's ``estimator:``: a name of :data:`ESTIMATORS`, or ``"package.module:Class"`` for a
    class of the user's own (importable, e.g. on ``PYTHONPATH``), so that benchmarking a new method
    takes one class and one config entry and no edit of kreinbench."""
    if name in ESTIMATORS:
        return ESTIMATORS[name]
    if name in ON_IMPLICIT_KERNEL:
        return __getattr__(name)
    module, _, attribute = name.partition(":")
    if not module or not attribute:
        raise KreinbenchError(f"{where}: unknown estimator {name!r}; known: {sorted(ESTIMATORS)}, "
                              "or 'package.module:Class'")
    try:
        cls = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as exc:
        raise KreinbenchError(f"{where}: cannot import {name!r}: {exc}") from exc
    missing = [m for m in ("fit", "decision_function", "score", "get_params") if not hasattr(cls, m)]
    if not isinstance(cls, type) or missing:
        raise KreinbenchError(f"{where}: {name!r} is not an estimator class (lacks {', '.join(missing) or 'a class'}; "
                              "derive from kreinbench.methods.base.KernelClassifierMixin)")
    return cls


__all__ = [
    "estimator_class", "ESTIMATORS", "IKLR", "KLR", "SpectrumKLR", "SVM", "KSVM", "TrIKSVM", "TDCASVM", "IndefiniteSVM", "DANK", "DANKSVR",
    "KreinLogisticRegression", "NystromIKLR", "NystromSpectrumKLR", "NystromKSVM", "OnFeatures",
    "SimilarityFeatures",
    "KreinRLS", "SparseIKLR", "RandomFeaturesIKLR", "RandomFeaturesSpectrumKLR",
    "ConvergenceWarning", "RunawayWarning",
]
