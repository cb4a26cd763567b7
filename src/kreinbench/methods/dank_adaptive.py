"""DANK's adaptive matrix F(v) = J_{τ/2}(11ᵀ + Γ(v)), Γ(v) = diag(v) K diag(v) / (4η), in low rank.

For the classifier v = y ⊙ α (DANK eq. (8)), for the regressor v = α̂ − α̌ (eq. (24)).
J_{τ/2} is the minimizer of ‖F − M‖²_F + τ‖F‖_* over the PSD cone (eq. (10)): on that cone
‖F‖_* = tr F, so the problem is the projection of M − (τ/2)I onto the cone, i.e. the eigenvalues
of M are shifted down by τ/2 and clipped at 0.

Γ(v) vanishes outside the support S = {i : v_i ≠ 0}, so M = 11ᵀ + Γ lives in the span of
{e_i : i ∈ S} and 1_{S^c}: with the orthonormal basis Q = [E_S, 1_{S^c}/√(n−s)] and
c = Qᵀ1 = [1_s; √(n−s)], M = Q (ccᵀ + blockdiag(Γ_SS, 0)) Qᵀ.  Every eigenvector of M outside
range(Q) has eigenvalue 0 and is removed by the threshold, hence F = Q B Qᵀ with the (s+1)×(s+1)
matrix B = J_{τ/2}(ccᵀ + blockdiag(Γ_SS, 0)) and rank(F) ≤ 1 + s: one small eigh, never an n×n one.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigh


class AdaptiveMatrix:
    """F(v) for a kernel ``K`` (n, n), signed weights ``v`` (n,), and η > 0, τ ≥ 0.

    Attributes
    ----------
    support : ndarray of int
        S, the indices with v_i ≠ 0.
    B : ndarray of shape (s + 1, s + 1) (or (n, n) when S is everything)
        F in the basis Q; entries F_SS = B[:s, :s], F_{S, i∉S} = B[:s, s]/√(n−s),
        F_{i∉S, j∉S} = B[s, s]/(n−s).
    eigenvalues : ndarray
        The nonzero eigenvalues of F (descending), so ``rank = eigenvalues.size``.
    """

    def __init__(self, K: np.ndarray, v: np.ndarray, eta: float, tau: float):
        n = K.shape[0]
        self.n = n
        self.support = np.flatnonzero(v)
        self.v_support = v[self.support]
        s = self.support.size
        self.n_rest = n - s
        size = s + (self.n_rest > 0)
        c = np.ones(size)
        if self.n_rest:
            c[s] = np.sqrt(self.n_rest)
        self._c = c
        K_SS = K[np.ix_(self.support, self.support)]
        M = np.outer(c, c)
        M[:s, :s] += self.v_support[:, None] * K_SS * self.v_support[None, :] / (4.0 * eta)
        lam, Z = eigh(M)
        mu = lam - 0.5 * tau
        # Round-off of the eigh is ~ size·ε·‖M‖; smaller "eigenvalues" are zeros of the threshold.
        keep = mu > size * np.finfo(float).eps * max(abs(lam[-1]), abs(lam[0]), 1.0)
        Zk = Z[:, keep]
        self.eigenvalues = mu[keep][::-1]
        self.B = (Zk * mu[keep]) @ Zk.T
        self._K_SS = K_SS
        mask = np.ones(n, dtype=bool)
        mask[self.support] = False
        self.rest = np.flatnonzero(mask)
        self._K_rest_S = K[np.ix_(self.rest, self.support)] if self.n_rest else None

    @property
    def rank(self) -> int:
        return int(self.eigenvalues.size)

    def hadamard_times_v(self) -> np.ndarray:
        """(F ⊙ K) v as a vector of length n, at cost O(s² + n·s)."""
        s = self.support.size
        out = np.empty(self.n)
        out[self.support] = (self.B[:s, :s] * self._K_SS) @ self.v_support
        if self.n_rest:
            # Rows outside S share one row of F: F_{i,S} = B[s, :s]/√(n−s).
            f = self.B[s, :s] / np.sqrt(self.n_rest)
            out[self.rest] = self._K_rest_S @ (f * self.v_support)
        return out

    def distance_to_ones_sq(self) -> float:
        """‖F − 11ᵀ‖²_F = ‖B − ccᵀ‖²_F (Q has orthonormal columns)."""
        return float(np.sum((self.B - np.outer(self._c, self._c)) ** 2))

    def trace(self) -> float:
        """tr F = ‖F‖_* (F is PSD)."""
        return float(np.sum(self.eigenvalues))

    def penalty(self, eta: float, tau: float) -> float:
        """η‖F − 11ᵀ‖²_F + τη‖F‖_*, the F-only terms of H (eq. (5))."""
        return eta * self.distance_to_ones_sq() + tau * eta * self.trace()

    def columns(self, idx: np.ndarray) -> np.ndarray:
        """F[S, idx], shape (s, len(idx)): the rows the decision function needs."""
        s = self.support.size
        idx = np.asarray(idx)
        pos = np.full(self.n, -1)
        pos[self.support] = np.arange(s)
        p = pos[idx]
        out = np.empty((s, idx.size))
        inside = p >= 0
        out[:, inside] = self.B[:s, p[inside]]
        if np.any(~inside):
            out[:, ~inside] = (self.B[:s, s] / np.sqrt(self.n_rest))[:, None]
        return out

    def dense(self) -> np.ndarray:
        """F as a dense (n, n) array."""
        s = self.support.size
        F = np.empty((self.n, self.n))
        S, R = self.support, self.rest
        F[np.ix_(S, S)] = self.B[:s, :s]
        if self.n_rest:
            cross = self.B[:s, s] / np.sqrt(self.n_rest)
            F[np.ix_(S, R)] = cross[:, None]
            F[np.ix_(R, S)] = cross[None, :]
            F[np.ix_(R, R)] = self.B[s, s] / self.n_rest
        return F
