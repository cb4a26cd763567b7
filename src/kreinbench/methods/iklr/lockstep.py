"""IKLR's CCCP fits on one kernel in lock step: many fits (CV folds, λ, variants) step together.

Column i of the n × m arrays is one fit, on the rows where ``Y[:, i]`` is nonzero (±1 there): on
all of K (a λ grid), or on a principal submatrix of it (a CV fold's train kernel, embedded: its α
is zero off those rows, so K's products restricted to them are the fold kernel's).  Each column
follows the iterates of its separate fit (:mod:`kreinbench.methods.iklr.inner` in
:class:`kreinbench.methods.iklr.estimator.IKLR`'s outer loop) up to round-off.  Only the kernel products
are shared: the columns needing one at a step go into a single matrix product, which reads K once
for all of them (on 2000 rows 0.87 ms per column at 35 columns, against about 3 ms for one
matrix-vector product), and the Python work of a step is done once for all columns.
"""

from __future__ import annotations

import numpy as np

from kreinbench.methods.solvers.logistic import margin_losses, margin_weights


def packed(c: np.ndarray):
    """Columns ``c`` (ascending) as a slice where they are one contiguous run, as they are while no
    column has stopped: an update through a slice is in place on a view, where one through an index
    list gathers and scatters (5.5 ms against 0.8 ms on an n × 350 state); the same values."""
    if c.size and int(c[-1]) - int(c[0]) + 1 == c.size:
        return slice(int(c[0]), int(c[-1]) + 1)
    return c


def columns_objective(c, weight, Y, A, B, KA, KmA, lams, linear, const) -> np.ndarray:
    """F_k of the lock-step columns ``c`` (as :meth:`Subproblem.objective` of each column's fit):
    the loss as LogisticKernelLoss.value (mean over the column's rows by ``weight``) plus the
    majorizer's quadratic and linear terms."""
    value = np.einsum("ij,ij->j", weight[:, c], margin_losses(Y[:, c] * (KA[:, c] + B[c])))
    return (value + 0.5 * lams[c] * np.einsum("ij,ij->j", A[:, c], KA[:, c] + KmA[:, c])
            - np.einsum("ij,ij->j", linear[:, c], A[:, c]) + const[c])


class _Columns:
    """The state of the lock-step columns: α (A), b (B), Kα (KA), K₋α (KmA), per-column kernel
    products (``matvecs``) and each column's rows (``rows``, ``weight`` for the mean over them)."""

    def __init__(self, K, Y, kminus, lams, A0):
        self.K, self.Y, self.kminus, self.lams = K, Y, kminus, lams
        n, m = Y.shape
        self.rows = Y != 0
        self.restricted = not self.rows.all()
        self.sizes = self.rows.sum(axis=0)
        self.weight = self.rows / self.sizes  # the mean over each column's rows
        self.A = A0.copy()
        self.B = np.zeros(m)
        started = self.A.any(axis=0)
        self.matvecs = started.astype(int)
        self.KA = np.zeros((n, m))
        if started.any():
            self.KA[:, started] = K @ self.A[:, started]
        self.KmA = kminus(self.A, np.arange(m))

    def on_rows(self, V, cols):
        """V zeroed off each column's rows (K's products have garbage there)."""
        return V * self.rows[:, packed(cols)] if self.restricted else V

    def loss_gradient(self, cols):
        """−K(y ⊙ β)/n and −Σ y ⊙ β/n per column: one matrix product for all of ``cols``."""
        k = packed(cols)
        Y = self.Y[:, k]
        W = self.weight[:, k] * Y * margin_weights(Y * (self.KA[:, k] + self.B[cols]))
        self.matvecs[cols] += 1
        return -(self.K @ W), -W.sum(axis=0)

    def grad_norm(self, LG, GB, cols):
        """‖∇f(α, b)‖ per column from its loss gradient (LG, GB)."""
        G = self.on_rows(LG + self.lams[cols] * self.KA[:, packed(cols)], cols)
        return np.sqrt(np.einsum("ij,ij->j", G, G) + GB * GB)

    def majorizer(self):
        """F_k's linear term λK₋α_k (n × m) and constant (λ/2)α_kᵀK₋α_k per column, at α_k = α."""
        return self.lams * self.KmA, 0.5 * self.lams * np.einsum("ij,ij->j", self.A, self.KmA)

    def objective(self, c, linear, const) -> np.ndarray:
        return columns_objective(c, self.weight, self.Y, self.A, self.B, self.KA, self.KmA, self.lams, linear, const)

    def alpha_norms(self, cols) -> np.ndarray:
        return np.linalg.norm(self.A[:, cols], axis=0)


def _outer_loop(cols_state, inner_step, after_outer, *, radius, eps, max_outer, max_inner):
    """CCCP's outer loop for all live columns: each inner loop until the column's |ΔF_k| ≤ ε or its
    ``max_inner`` steps (``inner_step(c, t, linear)`` moves columns ``c`` one step), then
    ``after_outer(moved_columns, all_columns)``; a column whose ‖α‖ exceeds its radius is frozen
    as a runaway.  Returns outer iterations and runaway flags per column.  The loop's bookkeeping is
    NumPy's on the host on every route; the state ``cols_state`` (:class:`_Columns`, or
    :class:`kreinbench.methods.iklr.xp_lockstep.XpColumns` on another namespace) gives F_k and ‖α‖
    per column as host arrays."""
    S = cols_state
    m = S.Y.shape[1]
    live = np.ones(m, dtype=bool)
    diverged = np.zeros(m, dtype=bool)
    n_iter = np.zeros(m, dtype=int)
    for _ in range(max_outer):
        cols = np.flatnonzero(live)
        if cols.size == 0:
            break
        linear, const = S.majorizer()
        F = np.full(m, np.nan)
        F[cols] = S.objective(cols, linear, const)
        t = np.zeros(m, dtype=int)
        active = live.copy()
        while True:
            active &= t < max_inner
            c = np.flatnonzero(active)
            if c.size == 0:
                break
            moving = inner_step(c, t, linear)
            active[c[~moving]] = False
            c = c[moving]
            if c.size == 0:
                break
            t[c] += 1
            F_prev, F[c] = F[c], S.objective(c, linear, const)
            active[c[np.abs(F[c] - F_prev) <= eps[c]]] = False
        n_iter[cols] += 1
        after_outer(cols[t[cols] > 0], cols)
        ran_away = cols[S.alpha_norms(cols) > radius[cols]]
        diverged[ran_away] = True
        live[ran_away] = False
    return n_iter, diverged


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
    S = _Columns(K, Y, kminus, lams, A0)
    m = Y.shape[1]
    LG, GB = np.empty((Y.shape[0], m)), np.empty(m)  # the loss gradient at each column's point
    LG[:], GB[:] = S.loss_gradient(np.arange(m))
    g0 = np.maximum(S.grad_norm(LG, GB, np.arange(m)), np.finfo(float).tiny)

    def inner_step(c, t, linear):
        stale = c[t[c] > 0]  # moved since their loss gradient was taken
        if stale.size:
            LG[:, stale], GB[stale] = S.loss_gradient(stale)
        k = packed(c)
        G = S.on_rows(LG[:, k] + lams[c] * (S.KA[:, k] + S.KmA[:, k]) - linear[:, k], c)
        gb = GB[c]
        moving = G.any(axis=0) | (gb != 0.0)
        c, G, gb = c[moving], G[:, moving], gb[moving]
        if c.size:
            s = np.minimum(eta[c] * rho[c] ** t[c], step_caps[c])
            KG = K @ G
            S.matvecs[c] += 1
            k = packed(c)
            S.A[:, k] -= s * G
            S.B[c] -= s * gb
            S.KA[:, k] -= s * KG
            S.KmA[:, k] -= s * kminus(G, c)
        return moving

    def after_outer(moved, cols):
        if moved.size:
            LG[:, moved], GB[moved] = S.loss_gradient(moved)

    n_iter, diverged = _outer_loop(S, inner_step, after_outer, radius=radius, eps=eps, max_outer=max_outer,
                                   max_inner=max_inner)
    return {"alpha": S.A, "b": S.B, "n_iter": n_iter, "diverged": diverged, "matvecs": S.matvecs,
            "stationarity": S.grad_norm(LG, GB, np.arange(m)) / g0}


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
    S = _Columns(K, Y, kminus, lams, A0)
    m = Y.shape[1]
    row_table = np.zeros((m, int(S.sizes.max())), dtype=int)  # column c's j-th row of K
    for c in range(m):
        row_table[c, : S.sizes[c]] = np.flatnonzero(S.rows[:, c])
    all_cols = np.arange(m)
    g0 = np.maximum(S.grad_norm(*S.loss_gradient(all_cols), all_cols), np.finfo(float).tiny)

    def inner_step(c, t, linear):
        # each column's sample from its own stream, as its separate fit draws it
        r = row_table[c, [int(rngs[i].integers(S.sizes[i])) for i in c]]
        y_r = Y[r, c]
        w = y_r * margin_weights(y_r * (S.KA[r, c] + S.B[c]))
        k = packed(c)
        # K's rows r, transposed, are its columns r (K is symmetric): a row gather reads contiguous memory.
        G = S.on_rows(-w * K[r].T + lams[c] * (S.KA[:, k] + S.KmA[:, k]) - linear[:, k], c)
        s = np.minimum(eta[c] * rho[c] ** t[c], step_caps[c])
        S.A[:, k] -= s * G
        S.B[c] += s * w
        S.KA[:, k] = K @ S.A[:, k]
        S.matvecs[c] += 1
        S.KmA[:, k] = kminus(S.A[:, k], c)
        return np.ones(c.size, dtype=bool)

    def after_outer(moved, cols):
        S.matvecs[cols] += 1  # the separate fit's loss gradient at the new point (for ∇f and the residual)

    n_iter, diverged = _outer_loop(S, inner_step, after_outer, radius=radius, eps=eps, max_outer=max_outer,
                                   max_inner=max_inner)
    stationarity = S.grad_norm(*S.loss_gradient(all_cols), all_cols) / g0
    S.matvecs -= 1  # the final gradient norm is the separate fit's last loss gradient, counted above
    return {"alpha": S.A, "b": S.B, "n_iter": n_iter, "diverged": diverged, "matvecs": S.matvecs,
            "stationarity": stationarity}
