"""The benchmarks' data protocol: a seeded stratified sample of 2n points, split 50/50, min-max
scaled with statistics of the training half (as the pipeline's split stage does)."""

import numpy as np
from sklearn.model_selection import train_test_split


def scaled_half_split(X, y, n: int, seed: int):
    """(X_train, y_train, X_test, y_test) with n points each, scaled to [0, 1] on the training half.

    When the data has fewer than 2n points, the test half is every point not in the training one.
    """
    if 2 * n < y.size:
        idx, _ = train_test_split(np.arange(y.size), train_size=2 * n, stratify=y, random_state=seed)
    else:
        idx = np.random.default_rng(seed).permutation(y.size)
    tr, te = train_test_split(idx, train_size=n, stratify=y[idx], random_state=seed)
    lo, span = X[tr].min(0), np.ptp(X[tr], axis=0)
    span[span == 0] = 1
    return (X[tr] - lo) / span, y[tr], (X[te] - lo) / span, y[te]
