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


def smo_reference(Q, p, y, C, *, alpha0=None, tol=1e-3, max_iter=1_000_000):
    """The package's SMO (Fan, Chen and Lin 2005, libsvm's update) as NumPy array expressions, as it
    was before it was compiled: (alpha, gradient, iterations, violation), for the compiled loop to
    equal bit for bit."""
    n = y.size
    alpha = np.zeros(n) if alpha0 is None else np.array(alpha0, dtype=float)
    G = Q @ alpha + p
    QD = np.diag(Q).copy()
    it = 0
    violation = np.inf
    while it < max_iter:
        pos = y > 0
        up, low = np.where(pos, alpha < C, alpha > 0), np.where(pos, alpha > 0, alpha < C)
        score = -y * G
        if not up.any() or not low.any():
            violation = 0.0
            break
        masked_up = np.where(up, score, -np.inf)
        i = int(np.argmax(masked_up))
        m = masked_up[i]
        violation = float(m - np.where(low, score, np.inf).min())
        if violation <= tol:
            break
        # Second-order working set selection (WSS2): among t in I_low with −y_t G_t < m,
        # maximize the decrease b²/a of the two-variable subproblem.
        b = m - score
        cand = low & (b > 0)
        a = QD[i] + QD - 2.0 * y[i] * y * Q[i]
        a = np.where(a > 0, a, 1e-12)
        gain = np.where(cand, b * b / a, -np.inf)
        j = int(np.argmax(gain))
        Qi, Qj = Q[i], Q[j]
        ai, aj = alpha[i], alpha[j]
        # libsvm's analytic two-variable update (Solver::Solve), with both bounds equal to C.
        if y[i] != y[j]:
            quad = QD[i] + QD[j] + 2.0 * Qi[j]
            quad = quad if quad > 0 else 1e-12
            delta = (-G[i] - G[j]) / quad
            diff = ai - aj
            new_i, new_j = ai + delta, aj + delta
            if diff > 0:
                if new_j < 0:
                    new_j, new_i = 0.0, diff
            elif new_i < 0:
                new_i, new_j = 0.0, -diff
            if diff > 0:
                if new_i > C:
                    new_i, new_j = C, C - diff
            elif new_j > C:
                new_j, new_i = C, C + diff
        else:
            quad = QD[i] + QD[j] - 2.0 * Qi[j]
            quad = quad if quad > 0 else 1e-12
            delta = (G[i] - G[j]) / quad
            total = ai + aj
            new_i, new_j = ai - delta, aj + delta
            if total > C:
                if new_i > C:
                    new_i, new_j = C, total - C
                if new_j > C:
                    new_j, new_i = C, total - C
            else:
                if new_j < 0:
                    new_j, new_i = 0.0, total
                if new_i < 0:
                    new_i, new_j = 0.0, total
        G += Qi * (new_i - ai) + Qj * (new_j - aj)
        alpha[i], alpha[j] = new_i, new_j
        it += 1
    return alpha, G, it, violation
