"""IKLR's CCCP fits on one kernel in lock step: many fits (CV folds, λ, variants) step together.

Column i of the n × m arrays is one fit, on the rows where ``Y[:, i]`` is nonzero (±1 there): on
all of K (a λ grid), or on a principal submatrix of it (a CV fold's train kernel, embedded: its α
is zero off those rows, so K's products restricted to them are the fold kernel's).  Each column
follows the iterates of its separate fit (:mod:`kreinbench.methods.iklr_inner` in
:class:`kreinbench.methods.iklr.IKLR`'s outer loop) up to round-off.  Only the kernel products
are shared: the columns needing one at a step go into a single matrix product, which reads K once
for all of them (on 2000 rows 0.87 ms per column at 35 columns, against about 3 ms for one
matrix-vector product), and the Python work of a step is done once for all columns.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit



def columns_objective(c, weight, Y, A, B, KA, KmA, lams, linear, const) -> np.ndarray:
    """F_k of the lock-step columns ``c`` (as :meth:`Subproblem.objective` of each column's fit):
    the loss as LogisticKernelLoss.value (mean over the column's rows by ``weight``) plus the
    majorizer's quadratic and linear terms."""
    value = np.einsum("ij,ij->j", weight[:, c], np.logaddexp(0.0, -Y[:, c] * (KA[:, c] + B[c])))
    return (value + 0.5 * lams[c] * np.einsum("ij,ij->j", A[:, c], KA[:, c] + KmA[:, c])
            - np.einsum("ij,ij->j", linear[:, c], A[:, c]) + const[c])


def ccicp_gd_lockstep(K, Y, kminus, lams, step_caps, *, A0, radius, eta, rho, eps, max_outer, max_inner):
    """CCICP-GD (:func:`gd_printed` in TNNLS Algorithm 1) for several fits on one kernel, in lock step.

    Column i is a fit with λ = ``lams[i]``, step cap ``step_caps[i]``, initial step ``eta[i]``,
    decay ``rho[i]`` and inner tolerance ``eps[i]`` (arrays: each on its fit's objective scale;
    the columns may be fits of different methods, e.g. Fig. 2's values of ε) on the rows where
    ``Y[:, i]`` (n × m) is nonzero, ±1 there: on all of K (a λ grid), or on a principal
    submatrix of it (a CV fold's train kernel, embedded: its α is zero off those rows, so K's
    products restricted to them are the fold kernel's).  ``A0`` (n × m) holds the starting α,
    zero off each column's rows; ``kminus(V, cols)`` applies the K₋ of the fit of column
    ``cols[j]`` to ``V[:, j]``, zero off its rows.  Column i follows the iterates of its separate
    fit up to round-off (tests/test_iklr.py holds them to 1e-9): the same outer and inner loops,
    steps and stops, and it freezes where that fit stops (‖α‖ exceeds ``radius[i]``: a runaway).
    Only the kernel products are shared: the columns needing one at a step go into a single
    matrix product, which reads K once for all of them, and the Python work of a step is done
    once for all columns.  Returns α (n × m), b, outer iterations, runaway flags, ``matvecs``
    (per column, the kernel products its separate fit counts) and ``stationarity``,
    ‖∇f‖ / ‖∇f(α⁰, b⁰)‖ per column at its last point.
    """
    n, m = Y.shape
    rows = Y != 0
    restricted = not rows.all()
    weight = rows / rows.sum(axis=0)  # the mean over each column's rows
    A = A0.copy()
    B = np.zeros(m)
    started = A.any(axis=0)
    matvecs = started.astype(int)
    KA = np.zeros((n, m))
    if started.any():
        KA[:, started] = K @ A[:, started]
    KmA = kminus(A, np.arange(m))

    def loss_gradient(cols):
        W = weight[:, cols] * Y[:, cols] * expit(-Y[:, cols] * (KA[:, cols] + B[cols]))
        matvecs[cols] += 1
        LG[:, cols], GB[cols] = -(K @ W), -W.sum(axis=0)

    def on_rows(V, cols):  # zero off each column's rows (K's products have garbage there)
        return V * rows[:, cols] if restricted else V

    LG, GB = np.empty((n, m)), np.empty(m)
    loss_gradient(np.arange(m))

    def grad_norm():  # ‖∇f(α, b)‖ per column, from the cached loss gradients (no kernel product)
        G = on_rows(LG + lams * KA, np.arange(m))
        return np.sqrt(np.einsum("ij,ij->j", G, G) + GB * GB)

    g0 = np.maximum(grad_norm(), np.finfo(float).tiny)
    live = np.ones(m, dtype=bool)
    diverged = np.zeros(m, dtype=bool)
    n_iter = np.zeros(m, dtype=int)
    for _ in range(max_outer):
        cols = np.flatnonzero(live)
        if cols.size == 0:
            break
        linear, const = lams * KmA, 0.5 * lams * np.einsum("ij,ij->j", A, KmA)

        def objective(c):
            return columns_objective(c, weight, Y, A, B, KA, KmA, lams, linear, const)

        F = np.full(m, np.nan)
        F[cols] = objective(cols)
        t = np.zeros(m, dtype=int)
        active = live.copy()
        while True:
            active &= t < max_inner
            c = np.flatnonzero(active)
            if c.size == 0:
                break
            stale = c[t[c] > 0]  # moved since their loss gradient was taken
            if stale.size:
                loss_gradient(stale)
            G = on_rows(LG[:, c] + lams[c] * (KA[:, c] + KmA[:, c]) - linear[:, c], c)
            gb = GB[c]
            moving = G.any(axis=0) | (gb != 0.0)
            active[c[~moving]] = False
            c, G, gb = c[moving], G[:, moving], gb[moving]
            if c.size == 0:
                break
            s = np.minimum(eta[c] * rho[c] ** t[c], step_caps[c])
            KG = K @ G
            matvecs[c] += 1
            A[:, c] -= s * G
            B[c] -= s * gb
            KA[:, c] -= s * KG
            KmA[:, c] -= s * kminus(G, c)
            t[c] += 1
            F_prev, F[c] = F[c], objective(c)
            active[c[np.abs(F_prev - F[c]) <= eps[c]]] = False
        n_iter[cols] += 1
        moved = cols[t[cols] > 0]
        if moved.size:
            loss_gradient(moved)
        ran_away = cols[np.linalg.norm(A[:, cols], axis=0) > radius[cols]]
        diverged[ran_away] = True
        live[ran_away] = False
    return {"alpha": A, "b": B, "n_iter": n_iter, "diverged": diverged, "matvecs": matvecs,
            "stationarity": grad_norm() / g0}


def ccicp_sgd_lockstep(K, Y, kminus, lams, step_caps, *, A0, radius, eta, rho, eps, max_outer, max_inner, rngs):
    """CCICP-SGD (:func:`sgd`) for several fits on one kernel, in lock step (as :func:`ccicp_gd_lockstep`).

    Column i is a separate fit of :func:`sgd`'s outer loop with λ = ``lams[i]``, step cap
    ``step_caps[i]``, initial step ``eta[i]``, decay ``rho[i]``, inner tolerance ``eps[i]`` and its own random
    stream ``rngs[i]`` (a fit's generator after its α⁽⁰⁾ was drawn), on the rows where ``Y[:, i]``
    is nonzero.  Each separate step costs a matrix-vector product K·α, which reads the whole
    kernel for one column; here the columns stepping together share one matrix product, which
    reads K once for all of them (about 4× cheaper per column on 2000 rows and 35 columns).
    Same arguments and returns as :func:`ccicp_gd_lockstep`.
    """
    n, m = Y.shape
    rows = Y != 0
    restricted = not rows.all()
    sizes = rows.sum(axis=0)
    weight = rows / sizes
    row_table = np.zeros((m, int(sizes.max())), dtype=int)  # column c's j-th row of K
    for c in range(m):
        row_table[c, : sizes[c]] = np.flatnonzero(rows[:, c])
    A = A0.copy()
    B = np.zeros(m)
    started = A.any(axis=0)
    matvecs = started.astype(int)
    KA = np.zeros((n, m))
    if started.any():
        KA[:, started] = K @ A[:, started]
    KmA = kminus(A, np.arange(m))

    def on_rows(V, cols):
        return V * rows[:, cols] if restricted else V

    def loss_gradient(cols):  # −K(y ⊙ β)/n, −Σ y ⊙ β/n per column, one matrix product
        W = weight[:, cols] * Y[:, cols] * expit(-Y[:, cols] * (KA[:, cols] + B[cols]))
        matvecs[cols] += 1
        return -(K @ W), -W.sum(axis=0)

    def grad_norm(cols):
        LG, GB = loss_gradient(cols)
        G = on_rows(LG + lams[cols] * KA[:, cols], cols)
        return np.sqrt(np.einsum("ij,ij->j", G, G) + GB * GB)

    all_cols = np.arange(m)
    g0 = np.maximum(grad_norm(all_cols), np.finfo(float).tiny)
    live = np.ones(m, dtype=bool)
    diverged = np.zeros(m, dtype=bool)
    n_iter = np.zeros(m, dtype=int)
    for _ in range(max_outer):
        cols = np.flatnonzero(live)
        if cols.size == 0:
            break
        linear, const = lams * KmA, 0.5 * lams * np.einsum("ij,ij->j", A, KmA)

        def objective(c):
            return columns_objective(c, weight, Y, A, B, KA, KmA, lams, linear, const)

        F = np.full(m, np.nan)
        F[cols] = objective(cols)
        t = np.zeros(m, dtype=int)
        active = live.copy()
        while True:
            active &= t < max_inner
            c = np.flatnonzero(active)
            if c.size == 0:
                break
            # each column's sample from its own stream, as its separate fit draws it
            r = row_table[c, [int(rngs[i].integers(sizes[i])) for i in c]]
            y_r = Y[r, c]
            w = y_r * expit(-y_r * (KA[r, c] + B[c]))
            G = on_rows(-w * K[:, r] + lams[c] * (KA[:, c] + KmA[:, c]) - linear[:, c], c)
            s = np.minimum(eta[c] * rho[c] ** t[c], step_caps[c])
            A[:, c] -= s * G
            B[c] += s * w
            KA[:, c] = K @ A[:, c]
            matvecs[c] += 1
            KmA[:, c] = kminus(A[:, c], c)
            t[c] += 1
            F_prev, F[c] = F[c], objective(c)
            active[c[np.abs(F[c] - F_prev) <= eps[c]]] = False
        n_iter[cols] += 1
        matvecs[cols] += 1  # the separate fit's loss gradient at the new point (for ∇f and the residual)
        ran_away = cols[np.linalg.norm(A[:, cols], axis=0) > radius[cols]]
        diverged[ran_away] = True
        live[ran_away] = False
    stationarity = grad_norm(all_cols) / g0
    matvecs -= 1  # the final gradient norm is the separate fit's last loss gradient, counted above
    return {"alpha": A, "b": B, "n_iter": n_iter, "diverged": diverged, "matvecs": matvecs,
            "stationarity": stationarity}
