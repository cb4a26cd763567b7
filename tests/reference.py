"""Independent reference computations shared by the tests (none of them uses the package)."""

import numpy as np


def project_bisection(v, z, C, box_only=False):
    """Euclidean projection onto {zᵀx = 0, 0 ≤ x ≤ C} by bisection on the multiplier (or onto the box)."""
    if box_only:
        return np.clip(v, 0, C)
    lo, hi = -np.abs(v).max() - C - 1, np.abs(v).max() + C + 1
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if z @ np.clip(v - mid * z, 0, C) > 0:
            lo = mid
        else:
            hi = mid
    return np.clip(v - 0.5 * (lo + hi) * z, 0, C)


def wolfe_gap_lp(g, x, z, C):
    """max_{u ∈ A} gᵀ(u − x), A = {zᵀu = 0, 0 ≤ u ≤ C} (z=None: the box), by scipy's LP solver (HiGHS).

    For a concave h with gradient g at x this bounds h* − h(x) from above (h* ≤ h(x) + gᵀ(x* − x)).
    """
    from scipy.optimize import linprog  # noqa: PLC0415 (only these tests need it)

    eq = {} if z is None else {"A_eq": np.asarray(z, dtype=float)[None], "b_eq": [0.0]}
    res = linprog(-np.asarray(g, dtype=float), bounds=[(0.0, C)] * len(g), method="highs", **eq)
    assert res.status == 0, res.message
    return -res.fun - float(np.dot(g, x))


def reciprocal_by_full_ranks(X_train, X_test, max_rank=None):
    """Eq. (12) by the two full rank matrices (stable argsorts; ties by index), j* = argmin r·s then s."""
    from scipy.spatial.distance import cdist

    D = cdist(X_train, X_test)
    r = np.argsort(np.argsort(D, axis=1, kind="stable"), axis=1, kind="stable") + 1
    s = np.argsort(np.argsort(D, axis=0, kind="stable"), axis=0, kind="stable") + 1
    score = (r * s).astype(float)
    if max_rank is not None:
        score[(r > max_rank) | (s > max_rank)] = np.inf
    best = np.lexsort((s, score), axis=0)[0]
    unpaired = ~np.isfinite(score[best, np.arange(D.shape[1])])
    return np.where(unpaired, np.argmin(s, axis=0), best)
