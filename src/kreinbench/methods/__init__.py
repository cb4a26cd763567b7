"""Estimators on precomputed kernels, scikit-learn style: ``fit(K, y)``, ``decision_function(K_cross)``."""

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

__all__ = [
    "ESTIMATORS", "IKLR", "KLR", "SpectrumKLR", "SVM", "KSVM", "TDCASVM", "IndefiniteSVM", "DANK", "DANKSVR",
    "ConvergenceWarning", "RunawayWarning",
]
