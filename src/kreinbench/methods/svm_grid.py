"""The SVM / SVR of DANK's figures and Table 4: the paper's Gaussian kernel and the (σ, C) grid
search of its protocol (§6.1.1), as scikit-learn's ``GridSearchCV`` makes it."""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC, SVR

from kreinbench.linalg.kernels import rbf
from kreinbench.methods.selection import shuffled_folds, stratified_folds


def gaussian(X, Y=None, *, sigma: float) -> np.ndarray:
    """The paper's Gaussian kernel exp(−‖x − x'‖²/(2σ²))."""
    return rbf(X, Y, sigma=sigma, convention="dank")


def grid_search(X, y, *, sigma_grid, C_grid, folds: int, seed: int, regression: bool, epsilon: float = 0.1):
    """(σ, C) of the SVM (SVR with ``regression``) with the best ``folds``-fold CV score on the grid.

    scikit-learn's ``GridSearchCV`` over (γ, C) as the paper's protocol has it: the same folds
    (``KFold`` / ``StratifiedKFold``, shuffled by ``seed``: the package's one fold generator,
    :mod:`kreinbench.methods.selection`, makes them index for index), mean accuracy or mean squared error over
    them, the first best in its order (C, then σ).  Each σ's kernel is computed once and sliced
    per fold (``kernel="precomputed"``) instead of libsvm recomputing it in each of the
    len(C_grid) × folds fits: one Table 4 search on cpusmall (2000 points, 11 × 11 × 5 fits),
    68 s → 37 s of CPU, the same choice.
    """
    splits = shuffled_folds(y.size, folds, seed) if regression else stratified_folds(y, folds, seed)
    sigma_grid, C_grid = [float(s) for s in sigma_grid], [float(c) for c in C_grid]
    scores = np.empty((len(C_grid), len(sigma_grid)))
    for b, sigma in enumerate(sigma_grid):
        K = gaussian(X, sigma=sigma)
        for a, C in enumerate(C_grid):
            fold_scores = []
            for tr, va in splits:
                model = SVR(C=C, epsilon=epsilon, kernel="precomputed") if regression else SVC(C=C, kernel="precomputed")
                predicted = model.fit(K[np.ix_(tr, tr)], y[tr]).predict(K[np.ix_(va, tr)])
                fold_scores.append(-np.mean((predicted - y[va]) ** 2) if regression else np.mean(predicted == y[va]))
            scores[a, b] = np.mean(fold_scores)
    a, b = np.unravel_index(np.argmax(scores), scores.shape)  # row-major: C outer, σ inner
    return sigma_grid[b], C_grid[a]
