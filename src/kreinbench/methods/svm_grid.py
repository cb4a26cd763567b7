"""The SVM / SVR of DANK's figures and Table 4: the paper's Gaussian kernel and the (σ, C) grid
search of its protocol (§6.1.1), as scikit-learn's ``GridSearchCV`` makes it."""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC, SVR

from kreinbench.linalg.kernels import rbf
from kreinbench.methods.selection import Tally, param_grid, shuffled_folds, stratified_folds


def gaussian(X, Y=None, *, sigma: float) -> np.ndarray:
    """The paper's Gaussian kernel exp(−‖x − x'‖²/(2σ²))."""
    return rbf(X, Y, sigma=sigma, convention="dank")


def grid_scores(X, y, *, sigma_grid, C_grid, folds: int, seed: int, regression: bool,
                epsilon: float = 0.1) -> Tally:
    """Every (σ, C)'s fold scores of the SVM (SVR with ``regression``), tallied σ by σ.

    The folds are ``KFold`` / ``StratifiedKFold``'s, shuffled by ``seed`` (the package's one fold
    generator, :mod:`kreinbench.methods.selection`, makes them index for index); a fold's score is
    the accuracy, or minus the mean squared error. Each σ's kernel is computed once and sliced per
    fold (``kernel="precomputed"``) instead of libsvm recomputing it in each of the
    len(C_grid) × folds fits: one Table 4 search on cpusmall (2000 points, 11 × 11 × 5 fits),
    68 s → 37 s of CPU, the same choice.
    """
    splits = shuffled_folds(y.size, folds, seed) if regression else stratified_folds(y, folds, seed)
    candidates = param_grid({"C": [float(c) for c in C_grid]})
    tally = Tally()
    for sigma in sigma_grid:
        K = gaussian(X, sigma=float(sigma))
        fold_scores = []
        for params in candidates:
            scores = []
            for tr, va in splits:
                model = (SVR(C=params["C"], epsilon=epsilon, kernel="precomputed") if regression
                         else SVC(C=params["C"], kernel="precomputed"))
                predicted = model.fit(K[np.ix_(tr, tr)], y[tr]).predict(K[np.ix_(va, tr)])
                scores.append(-np.mean((predicted - y[va]) ** 2) if regression else np.mean(predicted == y[va]))
            fold_scores.append(scores)
        tally.add(float(sigma), candidates, fold_scores, n_warnings=0)
    return tally


def grid_search(X, y, *, sigma_grid, C_grid, folds: int, seed: int, regression: bool, epsilon: float = 0.1):
    """(σ, C) of the SVM (SVR with ``regression``) with the best mean ``folds``-fold CV score on the
    grid (:func:`grid_scores`): scikit-learn's ``GridSearchCV`` over (γ, C) as the paper's protocol
    (§6.1.1) has it, with the package's tie rule (:class:`~kreinbench.methods.selection.Tally`: the
    first σ, then the first C; ``GridSearchCV`` takes the first C, then the first σ, of its
    (C, γ) grid — `benchmarks/svm_grid_ties.py` measures where the two differ).
    """
    best = grid_scores(X, y, sigma_grid=sigma_grid, C_grid=C_grid, folds=folds, seed=seed, regression=regression,
                       epsilon=epsilon).result()
    return best.best_instance, best.best_params["C"]
