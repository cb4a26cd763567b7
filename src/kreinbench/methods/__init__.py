"""Estimators on precomputed kernels, scikit-learn style: ``fit(K, y)``, ``decision_function(K_cross)``."""

from kreinbench.methods.base import ConvergenceWarning, RunawayWarning
from kreinbench.methods.iklr import IKLR
from kreinbench.methods.klr import KLR, SpectrumKLR

# Estimator classes by the name a config's ``estimator:`` key uses.
ESTIMATORS = {"IKLR": IKLR, "KLR": KLR, "SpectrumKLR": SpectrumKLR}

__all__ = ["ESTIMATORS", "IKLR", "KLR", "SpectrumKLR", "ConvergenceWarning", "RunawayWarning"]
