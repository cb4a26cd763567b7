"""Model selection by stratified k-fold cross-validation on slices of cached train kernels.

Folds index into the cached train kernel (``K[np.ix_(tr, tr)]`` and ``K[np.ix_(va, tr)]``);
a kernel is never recomputed for a fold.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from sklearn.model_selection import StratifiedKFold


@dataclass
class SelectionResult:
    best_instance: str
    best_params: dict[str, Any]
    best_score: float
    scores: list[dict[str, Any]] = field(default_factory=list)
    n_warnings: int = 0


def param_grid(grid: dict[str, list]) -> list[dict[str, Any]]:
    """All combinations of a ``{name: [values]}`` grid, in order (an empty grid is one point)."""
    names = list(grid)
    return [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]


def cross_validate(make_estimator: Callable[[dict], Any], kernels: dict[str, np.ndarray], y: np.ndarray,
                   grid: dict[str, list], *, n_folds: int, seed: int) -> SelectionResult:
    """Pick the kernel instance and estimator parameters with the best mean fold accuracy.

    Ties go to the first candidate in (kernel instance, grid) order, so the choice is
    deterministic.  Warnings raised by fold fits (e.g. non-convergence at extreme parameters)
    are counted, not shown.
    """
    folds = list(StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed % 2**32).split(np.zeros(y.size), y))
    candidates = param_grid(grid)
    scores = []
    best = None
    n_warnings = 0
    for instance, K in kernels.items():
        for params in candidates:
            accs = []
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for tr, va in folds:
                    est = make_estimator(params).fit(K[np.ix_(tr, tr)], y[tr])
                    accs.append(est.score(K[np.ix_(va, tr)], y[va]))
            n_warnings += len(caught)
            mean = float(np.mean(accs))
            scores.append({"kernel": instance, **params, "cv_accuracy": mean, "cv_std": float(np.std(accs))})
            if best is None or mean > best[2]:
                best = (instance, params, mean)
    return SelectionResult(best_instance=best[0], best_params=best[1], best_score=best[2], scores=scores,
                           n_warnings=n_warnings)
