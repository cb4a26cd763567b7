"""IKLR's CCICP-GD lock step (:mod:`kreinbench.methods.iklr.lockstep`) on any array API namespace.

A CV's fits on a GPU: the n × m state (K, labels, α, Kα, K₋α, the loss gradients) stays in K's
namespace and on its device, where each step's kernel products are one matrix product, and the
per-column bookkeeping (which columns step, their step sizes, F_k's values, iteration counts) stays
NumPy's on the host, as on the NumPy route (m is at most a few hundred): per step, F_k's values
and the flags of the columns that move come to the host, and the step sizes go to the device.
The standard has no integer-array assignment, so where the NumPy route updates columns in place
(a slice, or an index list once some have stopped), this one takes them and writes them back by
``where`` (:class:`kreinbench.linalg.arrays.Subset`): the same values in every column.  The set
of stepping columns changes only when one stops, so each set's indices go to the device once.
Each column follows the NumPy route's iterates up to round-off (tests/test_array_api.py: 1e-10
on the same spectra).  CCICP-SGD's one-sample steps stay NumPy's (latency-bound on a GPU).
"""

from __future__ import annotations

import numpy as np
from array_api_compat import device

from kreinbench.linalg.arrays import Subset, namespace, to_numpy
from kreinbench.methods.iklr.lockstep import _outer_loop
from kreinbench.methods.solvers.logistic import margin_losses, margin_weights


class XpColumns:
    """The lock-step state of :class:`kreinbench.methods.iklr.lockstep._Columns` on K's namespace
    and device: α (A), b (B), Kα (KA), K₋α (KmA), λ per column (``lams_d``) and each column's rows
    (``rows``, ``weight``) there; ``matvecs`` on the host."""

    def __init__(self, K, Y, kminus, lams, A0):
        self.xp, self.device = namespace(K), device(K)
        xp = self.xp
        self.K = K
        self.Y, self.A = xp.asarray(Y, device=self.device), xp.asarray(A0, device=self.device, copy=True)
        n, m = self.Y.shape
        self.rows = xp.astype(self.Y != 0.0, K.dtype)  # 1 on each column's rows, 0 off them
        self.restricted = not bool(xp.all(self.Y != 0.0))
        self.weight = self.rows / xp.sum(self.rows, axis=0)  # the mean over each column's rows
        self.lams_d = xp.asarray(lams, device=self.device)
        self.B = xp.zeros(m, dtype=K.dtype, device=self.device)
        self._subsets = {}  # per set of columns (its bytes), its Subset
        started = to_numpy(xp.any(self.A != 0.0, axis=0))
        self.matvecs = started.astype(int)
        self.KA = xp.zeros((n, m), dtype=K.dtype, device=self.device)
        if started.any():
            s = self.columns(np.flatnonzero(started))
            self.KA = s.put(self.KA, K @ s.take(self.A))
        self.KmA = kminus(self.A, np.arange(m))

    def columns(self, cols: np.ndarray) -> Subset:
        key = cols.tobytes()
        if key not in self._subsets:
            self._subsets[key] = Subset(self.xp, cols, self.Y.shape[1], self.device)
        return self._subsets[key]

    def on_rows(self, V, s: Subset):
        """V zeroed off each column's rows (K's products have garbage there)."""
        return V * s.take(self.rows) if self.restricted else V

    def loss_gradient(self, s: Subset):
        """−K(y ⊙ β)/n and −Σ y ⊙ β/n for the columns ``s``: one matrix product for all of them."""
        Y = s.take(self.Y)
        W = s.take(self.weight) * Y * margin_weights(Y * (s.take(self.KA) + s.take(self.B)), self.xp)
        self.matvecs[s.host] += 1
        return -(self.K @ W), -self.xp.sum(W, axis=0)

    def grad_norm(self, LG, GB, s: Subset) -> np.ndarray:
        """‖∇f(α, b)‖ per column of ``s`` from its loss gradient (LG, GB), on the host."""
        G = self.on_rows(LG + s.take(self.lams_d) * s.take(self.KA), s)
        return to_numpy(self.xp.sqrt(self.xp.sum(G * G, axis=0) + GB * GB))

    def majorizer(self):
        """F_k's linear term λK₋α_k (n × m) and constant (λ/2)α_kᵀK₋α_k per column, at α_k = α."""
        return self.lams_d * self.KmA, 0.5 * self.lams_d * self.xp.sum(self.A * self.KmA, axis=0)

    def objective(self, c, linear, const) -> np.ndarray:
        """F_k of the columns ``c`` on the host (as :func:`kreinbench.methods.iklr.lockstep.columns_objective`)."""
        xp, s = self.xp, self.columns(c)
        A, KA = s.take(self.A), s.take(self.KA)
        value = xp.sum(s.take(self.weight) * margin_losses(s.take(self.Y) * (KA + s.take(self.B)), xp), axis=0)
        return to_numpy(value + 0.5 * s.take(self.lams_d) * xp.sum(A * (KA + s.take(self.KmA)), axis=0)
                        - xp.sum(s.take(linear) * A, axis=0) + s.take(const))

    def alpha_norms(self, cols) -> np.ndarray:
        return to_numpy(self.xp.linalg.vector_norm(self.columns(cols).take(self.A), axis=0))


def ccicp_gd_lockstep(K, Y, kminus, lams, step_caps, *, A0, radius, eta, rho, eps, max_outer, max_inner):
    """:func:`kreinbench.methods.iklr.lockstep.ccicp_gd_lockstep` with K of any array API namespace.

    The same arguments: ``Y`` and ``A0`` (n × m) as NumPy arrays or K's (moved to its device once),
    ``kminus(V, cols)`` on K's namespace, the per-column parameters as NumPy arrays.  Returns the
    same, α (n × m) in K's namespace and on its device, the rest NumPy arrays.
    """
    xp = namespace(K)
    S = XpColumns(K, Y, kminus, lams, A0)
    m = S.Y.shape[1]
    every = S.columns(np.arange(m))
    LG, GB = S.loss_gradient(every)  # the loss gradient at each column's point
    g0 = np.maximum(S.grad_norm(LG, GB, every), np.finfo(float).tiny)

    def refresh(cols):
        nonlocal LG, GB
        s = S.columns(cols)
        LG_s, GB_s = S.loss_gradient(s)
        LG, GB = s.put(LG, LG_s), s.put(GB, GB_s)

    def inner_step(c, t, linear):
        stale = c[t[c] > 0]  # moved since their loss gradient was taken
        if stale.size:
            refresh(stale)
        s = S.columns(c)
        G = S.on_rows(s.take(LG) + s.take(S.lams_d) * (s.take(S.KA) + s.take(S.KmA)) - s.take(linear), s)
        gb = s.take(GB)
        moving = to_numpy(xp.any(G != 0.0, axis=0) | (gb != 0.0))
        c = c[moving]
        if c.size:
            if c.size < moving.size:
                still = Subset(xp, np.flatnonzero(moving), moving.size, S.device)
                G, gb = still.take(G), still.take(gb)
            step = xp.asarray(np.minimum(eta[c] * rho[c] ** t[c], step_caps[c]), device=S.device)
            KG = K @ G
            S.matvecs[c] += 1
            s = S.columns(c)
            S.A = s.put(S.A, s.take(S.A) - step * G)
            S.B = s.put(S.B, s.take(S.B) - step * gb)
            S.KA = s.put(S.KA, s.take(S.KA) - step * KG)
            S.KmA = s.put(S.KmA, s.take(S.KmA) - step * kminus(G, c))
        return moving

    def after_outer(moved, cols):
        if moved.size:
            refresh(moved)

    n_iter, diverged = _outer_loop(S, inner_step, after_outer, radius=radius, eps=eps, max_outer=max_outer,
                                   max_inner=max_inner)
    return {"alpha": S.A, "b": to_numpy(S.B), "n_iter": n_iter, "diverged": diverged, "matvecs": S.matvecs,
            "stationarity": S.grad_norm(LG, GB, every) / g0}


def kminus_of_columns(K, fits: list):
    """(V, cols) ↦ each column's K₋ applied to V's columns, zero off the column's rows, for the
    :class:`kreinbench.methods.iklr.estimator._LockstepFits` ``fits`` (K₋ of their fold kernels, in
    K's namespace): as the NumPy route's, each fold's block of V taken and put back by
    :class:`kreinbench.linalg.arrays.Subset`."""
    xp, on = namespace(K), device(K)
    counts = [len(fit.ests) for fit in fits]
    fit_of = np.repeat(np.arange(len(fits)), counts)
    tau = np.repeat([fit.ests[0].tau_ for fit in fits], counts)
    if all(fit.tau_only for fit in fits):
        return lambda V, cols: V * xp.asarray(tau[cols], device=on)  # V is zero off each column's rows already
    fold_rows = [Subset(xp, fit.rows, K.shape[0], on, axis="rows") for fit in fits]
    own_columns = {}  # per (set of columns, fold), the fold's columns among them

    def kminus(V, cols):
        out = xp.zeros_like(V)
        which = fit_of[cols]
        for f in np.unique(which):
            key = (cols.tobytes(), f)
            if key not in own_columns:
                own_columns[key] = Subset(xp, np.flatnonzero(which == f), cols.size, on)
            own, rows = own_columns[key], fold_rows[f]
            V_f = own.take(V)
            out = own.put(out, rows.put(xp.zeros_like(V_f), fits[f].kminus(rows.take(V_f))))
        return out

    return kminus


def column_on_rows(A, c: int, rows: np.ndarray):
    """Column ``c`` of the lock step's α (n × m) on a fit's ``rows``: that fit's α."""
    xp = namespace(A)
    return xp.take(A[:, c], xp.asarray(rows, device=device(A)), axis=0)
