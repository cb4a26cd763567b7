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

import logging
import time

import numpy as np
from scipy.special import expit

from kreinbench.methods.iklr_inner import NONMONOTONE_MEMORY
from kreinbench.methods.logistic import ARMIJO

log = logging.getLogger(__name__)

# Seconds between progress lines of a long lock step.
PROGRESS_INTERVAL = 5.0


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


# The phases of a column of :func:`cccp_gd_lockstep`: its next kernel product is a trial point's
# Kα, or the loss gradient's K(y ⊙ β)/n at an accepted point; or it has stopped.
_TRIAL, _GRADIENT, _DONE = 0, 1, 2


def cccp_gd_lockstep(K, Y, kminus, lams, *, A0, radius, eps, max_outer, max_inner):
    """Exact CCCP (:func:`kreinbench.methods.iklr_inner.gd_exact` in IKLR's outer loop) for several
    fits on one kernel, in lock step (module docstring).

    Column i is a fit with λ = ``lams[i]`` and relative tolerance ``eps[i]``: each subproblem
    F_k solved by Barzilai–Borwein gradient descent with the nonmonotone Armijo test to
    ‖∇F_k‖ ≤ ε‖∇f(α⁰, b⁰)‖, its step carried from one subproblem to the next, until
    ‖∇f‖ ≤ ε‖∇f(α⁰, b⁰)‖, an inner solve that cannot move, ``max_outer`` subproblems, or
    ‖α‖ > ``radius[i]`` (a runaway).  ``A0`` (n × m) holds the starting α, zero off each
    column's rows; ``kminus(V, cols)`` applies the K₋ of column ``cols[j]``'s fit to ``V[:, j]``.

    A separate fit alternates two kinds of kernel product: a trial point's Kα (one per
    backtracking halving) and, once a trial is accepted, its loss gradient.  Every column needs
    exactly one product of either kind per round, so a round is one matrix product for all live
    columns, whichever phase each is in: the columns keep their own step sizes, backtracking and
    subproblem count, and drift apart in phase without waiting for each other.

    Returns α (n × m), b, outer iterations, runaway flags, ``matvecs`` (per column, the kernel
    products its separate fit counts) and ``stationarity`` (‖∇f‖ / ‖∇f(α⁰, b⁰)‖ at the last point).
    """
    n, m = Y.shape
    rows = Y != 0
    restricted = not rows.all()
    weight = rows / rows.sum(axis=0)  # the mean over each column's rows
    every = np.arange(m)

    def on_rows(V, cols):  # zero off each column's rows (K's products have garbage there)
        return V * rows[:, cols] if restricted else V

    def colsum_sq(V):
        return np.einsum("ij,ij->j", V, V)

    def loss_weights(cols, KA_c, B_c):  # y ⊙ β / n, whose product with −K is the loss gradient
        return weight[:, cols] * Y[:, cols] * expit(-Y[:, cols] * (KA_c + B_c))

    # The accepted points (A, B, KA, KmA) with their loss gradients (LG, GB).
    A, B = A0.copy(), np.zeros(m)
    started = A.any(axis=0)
    matvecs = started.astype(int)
    KA = np.zeros((n, m))
    if started.any():
        KA[:, started] = K @ A[:, started]
    KmA = kminus(A, every)
    W = loss_weights(every, KA, B)
    LG, GB = -(K @ W), -W.sum(axis=0)
    matvecs += 1

    def f_grad_norm(cols):  # ‖∇f‖ at the accepted points, from the cached loss gradients
        G = on_rows(LG[:, cols] + lams[cols] * KA[:, cols], cols)
        return np.sqrt(colsum_sq(G) + GB[cols] ** 2)

    g0 = np.maximum(f_grad_norm(every), np.finfo(float).tiny)
    gtol = eps * g0
    stationarity = np.ones(m)
    # Each column's subproblem (F_k's linear term and constant), its ∇F_k at the accepted point,
    # F_k there, its last NONMONOTONE_MEMORY values of F_k, its step and inner/outer counts.
    linear, const = np.zeros((n, m)), np.zeros(m)
    G, gb, gg, F = np.zeros((n, m)), np.zeros(m), np.zeros(m), np.zeros(m)
    recent, n_recent = np.full((NONMONOTONE_MEMORY, m), -np.inf), np.zeros(m, dtype=int)
    step = np.ones(m)
    t, k = np.zeros(m, dtype=int), np.zeros(m, dtype=int)
    phase = np.full(m, _TRIAL)
    diverged = np.zeros(m, dtype=bool)
    # the trial points, and for columns in the gradient phase the accepted one awaiting its gradient
    AT, BT, KAT, KmAT, FT = np.zeros((n, m)), np.zeros(m), np.zeros((n, m)), np.zeros((n, m)), np.zeros(m)

    def objective(cols, A_, B_, KA_, KmA_):
        return columns_objective(cols, weight, Y, A_, B_, KA_, KmA_, lams, linear, const)

    def remember(cols):  # F_k of the accepted points into the nonmonotone memory
        recent[n_recent[cols] % NONMONOTONE_MEMORY, cols] = F[cols]
        n_recent[cols] += 1

    def start_subproblems(cols):
        """F_k around the accepted points; columns whose gradient is already below tolerance stop
        (an inner solve of no step, as gd_exact returns t = 0)."""
        linear[:, cols] = lams[cols] * KmA[:, cols]
        const[cols] = 0.5 * lams[cols] * np.einsum("ij,ij->j", A[:, cols], KmA[:, cols])
        F[cols] = objective(cols, A, B, KA, KmA)
        G[:, cols] = on_rows(LG[:, cols] + lams[cols] * (KA[:, cols] + KmA[:, cols]) - linear[:, cols], cols)
        gb[cols] = GB[cols]
        gg[cols] = colsum_sq(G[:, cols]) + gb[cols] ** 2
        recent[:, cols] = -np.inf
        n_recent[cols] = 0
        remember(cols)
        t[cols] = 0
        phase[cols] = _TRIAL
        still = cols[np.sqrt(gg[cols]) <= gtol[cols]]
        k[still] += 1
        phase[still] = _DONE

    def end_subproblems(cols):
        """The outer step after each inner solve: IKLR._solve's stopping tests, or the next F_k."""
        k[cols] += 1
        norm = f_grad_norm(cols)
        stationarity[cols] = norm / g0[cols]
        ran_away = np.linalg.norm(A[:, cols], axis=0) > radius[cols]
        diverged[cols[ran_away]] = True
        stop = ran_away | (norm <= gtol[cols]) | (t[cols] == 0) | (k[cols] >= max_outer)
        phase[cols[stop]] = _DONE
        start_subproblems(cols[~stop])

    start_subproblems(every)
    started_at = last_log = time.perf_counter()
    rounds = 0
    while True:
        trial, grad = np.flatnonzero(phase == _TRIAL), np.flatnonzero(phase == _GRADIENT)
        if trial.size + grad.size == 0:
            break
        AT[:, trial] = A[:, trial] - step[trial] * G[:, trial]
        BT[trial] = B[trial] - step[trial] * gb[trial]
        W = loss_weights(grad, KAT[:, grad], BT[grad])
        P = K @ np.hstack([AT[:, trial], W])
        matvecs[trial] += 1
        matvecs[grad] += 1
        rounds += 1
        # Trial points: the nonmonotone Armijo test against the largest remembered F_k.
        KAT[:, trial] = P[:, : trial.size]
        KmAT[:, trial] = kminus(AT[:, trial], trial)
        FT[trial] = objective(trial, AT, BT, KAT, KmAT)
        reference = recent[:, trial].max(axis=0)
        accepted = (FT[trial] <= reference - ARMIJO * step[trial] * gg[trial]) | (step[trial] < 1e-300)
        step[trial[~accepted]] *= 0.5
        decreased = FT[trial] < reference
        phase[trial[accepted & decreased]] = _GRADIENT
        # no decrease representable in floating point: that inner solve has converged
        flat = trial[accepted & ~decreased]
        # Accepted points: their loss gradients, the BB1 step, and gd_exact's loop test.
        LG[:, grad], GB[grad] = -P[:, trial.size:], -W.sum(axis=0)
        G_new = on_rows(LG[:, grad] + lams[grad] * (KAT[:, grad] + KmAT[:, grad]) - linear[:, grad], grad)
        S, R = AT[:, grad] - A[:, grad], G_new - G[:, grad]
        s_b, r_b = BT[grad] - B[grad], GB[grad] - gb[grad]
        sr = np.einsum("ij,ij->j", S, R) + s_b * r_b
        ss = colsum_sq(S) + s_b**2
        # BB1 (s·s / s·r); F_k is strongly convex on the iterates' span, so sr > 0 there
        step[grad] = np.where(sr > 0, ss / np.where(sr > 0, sr, 1.0), 2.0 * step[grad])
        A[:, grad], B[grad], KA[:, grad], KmA[:, grad], F[grad] = AT[:, grad], BT[grad], KAT[:, grad], KmAT[:, grad], FT[grad]
        G[:, grad], gb[grad] = G_new, GB[grad]
        gg[grad] = colsum_sq(G_new) + gb[grad] ** 2
        remember(grad)
        t[grad] += 1
        phase[grad] = _TRIAL
        solved = grad[(t[grad] >= max_inner) | (np.sqrt(gg[grad]) <= gtol[grad])]
        end_subproblems(np.concatenate([flat, solved]))
        now = time.perf_counter()
        if now - last_log >= PROGRESS_INTERVAL:
            live = np.flatnonzero(phase != _DONE)
            log.info("exact CCCP lock step, round %d: %d of %d fits running, outer iterations up to %d, "
                     "relative |grad f| up to %.3g, %.1f s", rounds, live.size, m, k.max(),
                     stationarity[live].max() if live.size else 0.0, now - started_at)
            last_log = now
    return {"alpha": A, "b": B, "n_iter": k, "diverged": diverged, "matvecs": matvecs, "stationarity": stationarity}
