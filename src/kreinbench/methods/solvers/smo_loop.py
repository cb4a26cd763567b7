"""The iterations of :func:`kreinbench.methods.solvers.smo.smo_solve`, compiled by numba.

Fan, Chen and Lin's SMO (second-order working set selection, libsvm's analytic two-variable
update) does O(n) work per iteration in a loop of thousands: as NumPy array expressions each
iteration cost 110-180 µs at n = 300-1000 (a dozen temporaries); compiled, 3-9 µs, with the same
floating-point operations in the same order, so the iterates are the same to the bit
(tests/test_svm.py holds them against the NumPy loop in tests/reference.py). ``cache=True`` keeps
the machine code beside this file: a process after the first loads it instead of compiling.
"""

from __future__ import annotations

import numba
import numpy as np

# Curvature used when a pair has a_ij ≤ 0 (libsvm's TAU): keeps the two-variable step finite.
TAU = 1e-12


@numba.njit(cache=True)
def smo_iterations(Q, y, C, alpha, G, tol, max_iter):
    """Run SMO on ``alpha`` and its gradient ``G`` = Qα + p in place until the KKT violation
    m(α) − M(α) is at most ``tol`` or ``max_iter`` iterations; returns (iterations, violation)."""
    n = y.size
    QD = np.empty(n)
    for t in range(n):
        QD[t] = Q[t, t]
    it = 0
    violation = np.inf
    while it < max_iter:
        # i: the maximal violator in I_up; M(α): the minimum of −y G over I_low.
        i = -1
        m = -np.inf
        low_min = np.inf
        any_up = False
        any_low = False
        for t in range(n):
            positive = y[t] > 0
            up = alpha[t] < C if positive else alpha[t] > 0
            low = alpha[t] > 0 if positive else alpha[t] < C
            score = -y[t] * G[t]
            if up:
                any_up = True
                if score > m:
                    m = score
                    i = t
            if low:
                any_low = True
                if score < low_min:
                    low_min = score
        if not any_up or not any_low:
            violation = 0.0
            break
        violation = m - low_min
        if violation <= tol:
            break
        # j: second-order working set selection (WSS2) among t in I_low with −y_t G_t < m.
        j = -1
        best = -np.inf
        twice_yi = 2.0 * y[i]
        for t in range(n):
            low = alpha[t] > 0 if y[t] > 0 else alpha[t] < C
            b = m - (-y[t] * G[t])
            if low and b > 0:
                a = QD[i] + QD[t] - twice_yi * y[t] * Q[i, t]
                if not a > 0:
                    a = TAU
                gain = b * b / a
                if gain > best:
                    best = gain
                    j = t
        ai = alpha[i]
        aj = alpha[j]
        # libsvm's analytic two-variable update (Solver::Solve), with both bounds equal to C.
        if y[i] != y[j]:
            quad = QD[i] + QD[j] + 2.0 * Q[i, j]
            if not quad > 0:
                quad = TAU
            delta = (-G[i] - G[j]) / quad
            diff = ai - aj
            new_i = ai + delta
            new_j = aj + delta
            if diff > 0:
                if new_j < 0:
                    new_j = 0.0
                    new_i = diff
            elif new_i < 0:
                new_i = 0.0
                new_j = -diff
            if diff > 0:
                if new_i > C:
                    new_i = C
                    new_j = C - diff
            elif new_j > C:
                new_j = C
                new_i = C + diff
        else:
            quad = QD[i] + QD[j] - 2.0 * Q[i, j]
            if not quad > 0:
                quad = TAU
            delta = (G[i] - G[j]) / quad
            total = ai + aj
            new_i = ai - delta
            new_j = aj + delta
            if total > C:
                if new_i > C:
                    new_i = C
                    new_j = total - C
                if new_j > C:
                    new_j = C
                    new_i = total - C
            else:
                if new_j < 0:
                    new_j = 0.0
                    new_i = total
                if new_i < 0:
                    new_i = 0.0
                    new_j = total
        d_i = new_i - ai
        d_j = new_j - aj
        for t in range(n):
            G[t] += Q[i, t] * d_i + Q[j, t] * d_j
        alpha[i] = new_i
        alpha[j] = new_j
        it += 1
    return it, violation
