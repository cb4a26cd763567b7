"""Estimators on precomputed kernels, scikit-learn style: ``fit(K, y)``, ``decision_function(K_cross)``."""

import importlib

from kreinbench.errors import KreinbenchError
from kreinbench.methods.base import ConvergenceWarning, RunawayWarning
from kreinbench.methods.dank import DANK
from kreinbench.methods.dank_svr import DANKSVR
from kreinbench.methods.iklr import IKLR
from kreinbench.methods.indefinite_svm import IndefiniteSVM
from kreinbench.methods.klr import KLR, SpectrumKLR
from kreinbench.methods.svm import KSVM, SVM
from kreinbench.methods.tdcasvm import TDCASVM

# Classifiers by the name a config's ``estimator:`` key uses.  DANKSVR is a regressor: the
# pipeline's datasets are binary (plan.check_config), so it is a library estimator only.
ESTIMATORS = {
    "IKLR": IKLR,
    "KLR": KLR,
    "SpectrumKLR": SpectrumKLR,
    "SVM": SVM,
    "KSVM": KSVM,
    "TDCASVM": TDCASVM,
    "IndefiniteSVM": IndefiniteSVM,
    "DANK": DANK,
}



def estimator_class(name: str, where: str = "estimator") -> type:
    """A config's ``estimator:``: a name of :data:`ESTIMATORS`, or ``"package.module:Class"`` for a
    class of the user's own (importable, e.g. on ``PYTHONPATH``), so that benchmarking a new method
    takes one class and one config entry and no edit of kreinbench."""
    if name in ESTIMATORS:
        return ESTIMATORS[name]
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
    "estimator_class", "ESTIMATORS", "IKLR", "KLR", "SpectrumKLR", "SVM", "KSVM", "TDCASVM", "IndefiniteSVM", "DANK", "DANKSVR",
    "ConvergenceWarning", "RunawayWarning",
]
