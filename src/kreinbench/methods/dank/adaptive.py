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

Even the (s+1)×(s+1) eigh is O(s³) per evaluation, while only the eigenvalues of M above τ/2 are
kept.  Cheaper routes give the same F to round-off:

* τ = 0 and K PSD (the partitioned subproblems (18), problem (17)): Γ ⪰ 0, so M ⪰ 0 and
  J_0(M) = M.  F = 11ᵀ + Γ needs no eigendecomposition, and
  (F ⊙ K)v = Kv + v ⊙ (K∘K)(v∘v)/(4η), ‖F − 11ᵀ‖²_F = (v∘v)ᵀ(K∘K)(v∘v)/(16η²): two matvecs.
* Rank one: when λ₂(M) ≤ τ/2, F = (λ₁ − τ/2)uuᵀ.  M = ccᵀ + Γ̃ is a rank-one PSD update of
  Γ̃ = blockdiag(Γ_SS, 0), so by Weyl λ₂(M) ≤ λ₁(Γ̃) ≤ ρ(Γ_SS) ≤ ρ(|Γ_SS|) (Wielandt), and for
  the nonnegative matrix |Γ_SS| = |D| |K_SS| |D|/(4η) every x > 0 gives the Collatz–Wielandt
  bound ρ ≤ maxᵢ (|Γ_SS|x)ᵢ/xᵢ, which power steps on |Γ_SS| tighten towards ρ (for K ≥ 0, e.g.
  Gaussian, |Γ_SS| = Y Γ_SS Y has Γ_SS's spectrum: the bound converges to λ₁(Γ_SS) itself).
  x = 1 is the row-sum bound; one or two steps typically certify λ₂ ≤ τ/2.  For PSD K the
  trace tr Γ_SS ≥ λ₁(Γ_SS) is tried first, in O(s).  The top eigenpair of M ≈ ccᵀ is then found
  by power iteration from c (it converges by the factor λ₂/λ₁ ≈ ‖Γ‖/n per step: two or three
  matvecs).  In DANK's regime (η = ‖α_SVM‖², Γ small) F stays rank one for most evaluations.
* Low rank: otherwise, for M larger than :data:`EIGH_MAX_SIZE`, Lanczos (ARPACK, matvecs with M
  only) for the k largest eigenpairs, k doubling until the k-th falls below τ/2, then checked
  from a random vector for eigenvalues above τ/2 it missed (a Krylov space finds a repeated
  eigenvalue once).  The dense eigh is left for small M, large ranks, and Lanczos runs that fail
  the check or take longer than an eigh would.
"""

from __future__ import annotations

import functools
from functools import cached_property

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh

from kreinbench.linalg.eigen import positive_definite

# Above this size of M, the rank-one route is tried before the full eigh (below it, eigh of M is
# as cheap as the few matvecs and the bound).
POWER_MIN_SIZE = 64
# The Lanczos route gives up for the dense eigh once more than size/LANCZOS_MAX_SHARE eigenpairs
# are needed.
LANCZOS_MAX_SHARE = 8
# Lanczos basis size at least this: ARPACK's default 2k + 1 restarts more often to resolve the
# small eigenvalues near τ/2 to round-off; a wider basis costs a few more vectors and fewer matvecs
# (one DANK fit on EEG, n = 1500: 5363 -> 4677 matvecs; the warm start took it from 7870 to 5363).
LANCZOS_MIN_NCV = 32
# The Lanczos route runs above this size of M; at or below it the dense eigh is cheaper.  One
# fold's C path on ijcnn1 and diabetic (11 fits, CPU s) with every evaluation on one route, eigh vs
# Lanczos, by mean size: 100: 2.3 vs 3.6, 162: 4.3 vs 6.6, 180: 2.5 vs 2.5, 247: 3.1 vs 2.4,
# 359: 23 vs 12, 441: 7.5 vs 2.7.
EIGH_MAX_SIZE = 200
# Matvecs (per unit of size) after which the Lanczos route gives up for the eigh: about the eigh's
# time (it costs 1-2.5·size bare matvecs for sizes 100-1500; Lanczos' carry ARPACK's overhead too).
# Fits on diabetic and ijcnn1 (sizes 250-440) needed at most 0.7·size from a cold start, 0.4·size
# from a warm one, check included.
LANCZOS_MATVECS_PER_SIZE = 1
# The check of the Lanczos route (:meth:`AdaptiveMatrix._none_missed`): the seed of its start
# vector (one fixed vector per size: reproducible fits), the relative accuracy of its Ritz value
# and its Lanczos basis size (it converges within about one basis: 17 matvecs per check on diabetic,
# n = 460, against 74 for the warm-started eigenpairs).
CHECK_SEED = 0
CHECK_TOL = 1e-8
CHECK_NCV = 16
# Power-iteration steps before giving up on the rank-one route (each gains ≥ log10(2n/τ) digits).
POWER_MAX_STEPS = 50
# Collatz–Wielandt steps before the rank-one certificate gives up (the bound converges like the
# power method on |Γ_SS|; beyond a few steps Lanczos decides faster).
COLLATZ_MAX_STEPS = 6
# A kernel counts as PSD when K + δI, δ = PSD_JITTER·max K_ii, has a Cholesky factor: it then has
# λ_min(K) ≥ −δ, and treating it as PSD changes F by at most δ·max v²/(4η) in spectral norm
# (the negative eigenvalues of M that J_0 would clip) -- round-off level for a PSD kernel whose
# tiny negative eigenvalues are rounding noise.
PSD_JITTER = 1e-10


class _OverBudget(Exception):
    """Raised by the Lanczos route's matvec once :data:`LANCZOS_MATVECS_PER_SIZE`·size are spent."""


def kernel_is_psd(K: np.ndarray) -> bool:
    """True when K is PSD up to :data:`PSD_JITTER` (one Cholesky factorization, O(n³/3))."""
    return positive_definite(K, jitter=PSD_JITTER)


def adaptive_matrices(K: np.ndarray, eta: float, tau: float):
    """v ↦ F(v) for one solve: the PSD test of K (and K ∘ K for τ = 0) done once, not per evaluation.

    For τ > 0 the test only serves the trace certificate of the rank-one route, so it is made the
    first time that certificate could apply (:meth:`AdaptiveMatrix._rank_one`): near α_SVM, with
    η = ‖α_SVM‖², tr Γ_SS ≈ 1/4 > τ/2 and it never does, and the Cholesky factorization of a
    10000-point kernel (about 30 s on one core) is not made at all.
    """
    if tau == 0.0:
        psd = kernel_is_psd(K)
    else:
        psd = functools.cache(lambda: kernel_is_psd(K))
    # τ = 0 and PSD: the route without eigendecomposition
    K_sq = K * K if tau == 0.0 and psd else None
    # |K| of the Collatz–Wielandt certificate; a nonnegative kernel (Gaussian, TL1) is its own
    K_abs = None if tau == 0.0 else (K if np.min(K) >= 0.0 else np.abs(K))
    previous = {}

    def adaptive_matrix(v: np.ndarray) -> AdaptiveMatrix:
        support = np.flatnonzero(v)
        # the previous eigenvectors start the power iteration / Lanczos, rewritten in this support's
        # basis when it changed (along a fit it changes in most evaluations: on a diabetic fold 263
        # of 397 started cold before, and Lanczos took 95 matvecs per evaluation instead of 50)
        start = None
        if previous:
            start = previous["Z"] if np.array_equal(previous["support"], support) else \
                rebased(previous["Z"], previous["support"], support, K.shape[0])
        F = AdaptiveMatrix(K, v, eta, tau, psd=psd, K_sq=K_sq, K_abs=K_abs, start=start)
        Z = getattr(F, "eigenvectors", None)
        if Z is not None and Z.shape[1] > 0:
            previous.update(support=support, Z=Z)
        else:
            previous.clear()
        return F

    return adaptive_matrix


def rebased(Z: np.ndarray, old: np.ndarray, new: np.ndarray, n: int) -> np.ndarray | None:
    """Vectors ``Z`` given in the basis Q of support ``old``, written in the basis of support ``new``.

    A column z is the vector u = Qz of Rⁿ (u_i = z_i on the support, z_s/√(n−s) on each of the
    others); its coordinates in the new basis are u on the new support and the sum of u over the
    new complement, over √(that size).  The columns are renormalized: a start needs no more.
    None when every column vanishes there."""
    s = old.size
    U = np.empty((n, Z.shape[1]))
    U[:] = Z[s] / np.sqrt(n - s) if s < n else 0.0
    U[old] = Z[:s]
    rest = np.ones(n, dtype=bool)
    rest[new] = False
    W = U[new]
    if rest.any():
        W = np.vstack([W, U[rest].sum(axis=0) / np.sqrt(np.count_nonzero(rest))])
    norms = np.linalg.norm(W, axis=0)
    kept = norms > 0.0
    return W[:, kept] / norms[kept] if kept.any() else None


class AdaptiveMatrix:
    """F(v) for a kernel ``K`` (n, n), signed weights ``v`` (n,), and η > 0, τ ≥ 0.

    Parameters
    ----------
    K, v, eta, tau
        The kernel, the weights, η and τ.
    psd : bool or callable, default=False
        The caller certifies that K is PSD (:func:`kernel_is_psd`, once per solve), which enables
        the eigendecomposition-free route for τ = 0 and the trace bound of the rank-one route; for
        τ > 0 it may be a function returning that answer, asked only when the trace bound holds.
    K_sq : ndarray of shape (n, n), optional
        K ∘ K, precomputed once per solve for the τ = 0 route (computed here if not given).
    K_abs : ndarray of shape (n, n), optional
        |K| for the rank-one certificate, once per solve (K itself when K ≥ 0); default: |K_SS|
        computed here.
    start : ndarray of shape (s + 1, r), optional
        The previous evaluation's kept eigenvectors in this support's basis (:func:`rebased`),
        unit columns: column 0 starts the power
        iteration, their sum starts Lanczos, which first asks for r + 1 eigenpairs; default c/‖c‖
        and 2.

    Attributes
    ----------
    support : ndarray of int
        S, the indices with v_i ≠ 0.
    B : ndarray of shape (s + 1, s + 1) (or (n, n) when S is everything)
        F in the basis Q; entries F_SS = B[:s, :s], F_{S, i∉S} = B[:s, s]/√(n−s),
        F_{i∉S, j∉S} = B[s, s]/(n−s).  Built on first access on the cheap routes.
    eigenvalues : ndarray
        The nonzero eigenvalues of F (descending), so ``rank = eigenvalues.size``.
    eigenvectors : ndarray of shape (s + 1, rank)
        Their eigenvectors in the basis Q (B = Z diag(eigenvalues) Zᵀ), the next evaluation's
        ``start``; not set on the τ = 0 route for PSD K, which needs no eigendecomposition.
    """

    def __init__(self, K: np.ndarray, v: np.ndarray, eta: float, tau: float, *, psd=False, K_sq=None,
                 K_abs=None, start=None):
        n = K.shape[0]
        self.n, self.eta, self.tau = n, eta, tau
        self._K, self._v = K, v
        self.support = np.flatnonzero(v)
        self.v_support = v[self.support]
        s = self.support.size
        self.n_rest = n - s
        size = s + (self.n_rest > 0)
        c = np.ones(size)
        if self.n_rest:
            c[s] = np.sqrt(self.n_rest)
        self._c = c
        mask = np.ones(n, dtype=bool)
        mask[self.support] = False
        self.rest = np.flatnonzero(mask)
        self._identity = tau == 0.0 and not callable(psd) and bool(psd)
        if self._identity:
            self._K_sq = K * K if K_sq is None else K_sq
            return
        # K_SS without a copy when S is everything (the first iterations of a fit)
        self._K_SS = K if s == n else K[np.ix_(self.support, self.support)]
        self._K_rest_S = K[np.ix_(self.rest, self.support)] if self.n_rest else None
        self._factors = None  # (Z, μ): F = Q Z diag(μ) Zᵀ Qᵀ on the rank-one and Lanczos routes
        self._K_v_Z = None  # K_SS (v_S ∘ Z_S), shared by the rank-one route and hadamard_times_v
        self._K_abs = K_abs
        if size >= POWER_MIN_SIZE and tau > 0.0:
            self._factors = self._rank_one(psd, start)
            if self._factors is None and size > EIGH_MAX_SIZE:
                self._factors = self._lanczos(start)
        if self._factors is None:
            M = np.outer(c, c)
            M[:s, :s] += self.v_support[:, None] * self._K_SS * self.v_support[None, :] / (4.0 * eta)
            # The full eigh, not the eigenvalues above τ/2 alone (subset_by_value): LAPACK's syevr
            # and syevx fail on such M with a repeated eigenvalue ("Internal Error", "failed to
            # converge"; near-identity kernels).
            lam, Z = eigh(M)
            mu = lam - 0.5 * tau
            # Round-off of the eigh is ~ size·ε·‖M‖; smaller "eigenvalues" are zeros of the threshold.
            keep = mu > size * np.finfo(float).eps * max(abs(lam[-1]), abs(lam[0]), 1.0)
            Zk = Z[:, keep]
            self.eigenvalues = mu[keep][::-1]
            self.B = (Zk * mu[keep]) @ Zk.T
            # the next evaluation's warm start too: after a fallback here (repeated or clustered
            # eigenvalues) Lanczos starts from these instead of from c, and with more than
            # size/LANCZOS_MAX_SHARE of them the next evaluation comes straight back here
            self.eigenvectors = Zk[:, ::-1]
        else:
            self.eigenvectors = self._factors[0]

    # -- the rank-one route -----------------------------------------------------------------
    def _M_times(self, x: np.ndarray) -> np.ndarray:
        s = self.support.size
        out = self._c * (self._c @ x)
        out[:s] += self.v_support * (self._K_SS @ (self.v_support * x[:s])) / (4.0 * self.eta)
        return out

    def _rank_one(self, psd, start):
        """(Z, μ) when M has exactly one eigenvalue above τ/2, else None (then Lanczos or eigh decide)."""
        eps = np.finfo(float).eps
        half_tau = 0.5 * self.tau
        s = self.support.size
        vs = self.v_support
        certified = (float(vs**2 @ np.diag(self._K_SS)) / (4.0 * self.eta) <= half_tau
                     and (psd() if callable(psd) else psd))
        if not (certified or self._second_eigenvalue_below(half_tau)):
            return None
        u = self._c / np.linalg.norm(self._c) if start is None else start[:, 0]
        for _ in range(POWER_MAX_STEPS):
            Kvu = self._K_SS @ (vs * u[:s])
            w = self._c * (self._c @ u)
            w[:s] += vs * Kvu / (4.0 * self.eta)
            rho = float(u @ w)
            # residual ≤ a few ulps of ρ: u is an eigenvector to round-off (the gap is ≥ ρ − τ)
            if np.linalg.norm(w - rho * u) <= 8 * eps * rho * np.sqrt(u.size):
                break
            u = w / np.linalg.norm(w)
        else:
            return None
        mu = np.array([rho - half_tau])
        kept = mu > 0.0  # τ/2 ≥ λ₁ would threshold F to 0
        self.eigenvalues = mu[kept]
        # K_SS(v ∘ u_S), the product (F ⊙ K)v needs, is the last matvec of the iteration
        self._K_v_Z = Kvu[:, None][:, kept]
        return u[:, None][:, kept], mu[kept]

    def _second_eigenvalue_below(self, bound: float) -> bool:
        """λ₂(M) ≤ ``bound`` certified by Collatz–Wielandt bounds on ρ(|Γ_SS|) (module docstring)."""
        w = np.abs(self.v_support)
        if self._K_abs is None:
            K_abs = np.abs(self._K_SS)
        elif self._K_abs is self._K:
            K_abs = self._K_SS  # K ≥ 0: no second copy
        else:
            K_abs = self._K_abs if self.support.size == self.n else self._K_abs[np.ix_(self.support, self.support)]
        x = np.ones(w.size)
        for _ in range(COLLATZ_MAX_STEPS):
            Ax = w * (K_abs @ (w * x)) / (4.0 * self.eta)
            # rounding of the products: a relative slack of a few ulps per entry
            if np.max(Ax / x) * (1.0 + 8 * w.size * np.finfo(float).eps) <= bound:
                return True
            if not np.all(Ax > 0.0):  # a zero row: |Γ_SS| is reducible, x must stay positive
                return False
            x = Ax / np.max(Ax)
        return False

    def _lanczos(self, start):
        """(Z, μ) of the eigenvalues of M above τ/2 by Lanczos (ARPACK), or None (then eigh).

        k largest eigenpairs are asked for, k doubling until the k-th is ≤ τ/2; beyond
        size/:data:`LANCZOS_MAX_SHARE` the dense eigh is cheaper.  With the previous evaluation's
        r eigenvectors (``start``), k starts at r + 1 and the Krylov space at their sum:
        consecutive iterates change F little, so that space nearly holds the wanted eigenvectors
        already (fewer restarts, and no k = 2 attempt that must fail).

        A k-th eigenvalue ≤ τ/2 proves nothing about the eigenvalues the Krylov space did not
        see, and a space grown from one vector holds one vector of each eigenspace: an eigenvalue
        of M repeated above τ/2 is found once.  Near-identity kernels make such repeats (Γ_SS ≈
        diag(v_S²)/(4η), v_i² = C² for every α_i at the bound; ijcnn1, σ = 1/32: an eigenvalue
        0.0281 seven times, Lanczos found rank 6-7 of 9 and h came out up to 0.96 above its
        minimum over F, so the iterates' h went up and down and the gap stalled).  A warm start,
        nearly inside the previous eigenspace, can likewise converge past an eigenvalue that has
        just risen above τ/2.  So the pairs found are checked (:meth:`_none_missed`).

        Such clustered spectra also make ARPACK restart for long (ijcnn1, σ = 1/32, size 401:
        3175 matvecs for k = 16, ten times the eigh's time), so the route gives up for the eigh
        after :data:`LANCZOS_MATVECS_PER_SIZE`·size matvecs, check included.
        """
        size = self._c.size
        budget = LANCZOS_MATVECS_PER_SIZE * size

        def matvec(x):
            nonlocal budget
            budget -= 1
            if budget < 0:
                raise _OverBudget
            return self._M_times(x)

        op = LinearOperator((size, size), matvec=matvec, dtype=float)
        k, v0 = (2, self._c) if start is None else (max(2, start.shape[1] + 1), start.sum(axis=1))
        try:
            while k <= size // LANCZOS_MAX_SHARE:
                lam, Z = eigsh(op, k=k, which="LA", v0=v0, ncv=min(size, max(2 * k + 1, LANCZOS_MIN_NCV)))
                if lam.min() <= 0.5 * self.tau:
                    if not self._none_missed(Z, matvec):
                        return None
                    mu = lam - 0.5 * self.tau
                    keep = mu > size * np.finfo(float).eps * max(abs(lam).max(), 1.0)
                    order = np.argsort(mu[keep])[::-1]
                    self.eigenvalues = mu[keep][order]
                    return Z[:, keep][:, order], self.eigenvalues
                k *= 2
        # no convergence, a breakdown (error 3, seen from a warm start), or the budget spent
        except (ArpackError, _OverBudget):
            return None
        return None  # more than size/LANCZOS_MAX_SHARE eigenpairs

    def _none_missed(self, Z: np.ndarray, matvec) -> bool:
        """True when M (``matvec``) has no eigenvalue above τ/2 outside the found eigenvectors ``Z``.

        Lanczos on M restricted to the complement of span(Z), from a random vector there: every
        eigenvector of M outside span(Z) has a component along it (with probability one), so a
        missed eigenvalue above τ/2 shows as a Ritz value above τ/2 (Ritz values lie below the
        largest eigenvalue, so a found one is a certain miss).  Only a missed eigenvalue within
        about :data:`CHECK_TOL`·τ/2 of τ/2 may pass, and it would change F by as little.  On a miss
        the dense eigh decides, not more Lanczos: each further pass would find one more copy only.
        """
        size = Z.shape[0]

        def deflated(x):
            w = matvec(x - Z @ (Z.T @ x))
            return w - Z @ (Z.T @ w)

        op = LinearOperator((size, size), matvec=deflated, dtype=float)
        x0 = np.random.default_rng(CHECK_SEED).standard_normal(size)
        top = eigsh(op, k=1, which="LA", v0=x0 - Z @ (Z.T @ x0), ncv=min(size, CHECK_NCV), tol=CHECK_TOL,
                    return_eigenvectors=False)
        return float(top[0]) <= 0.5 * self.tau

    @cached_property
    def B(self) -> np.ndarray:
        if self._identity:
            s = self.support.size
            M = np.outer(self._c, self._c)
            M[:s, :s] += np.outer(self.v_support, self.v_support) * self._K[np.ix_(self.support, self.support)] \
                / (4.0 * self.eta)
            return M
        Z, mu = self._factors
        return (Z * mu) @ Z.T

    @cached_property
    def _K_sq_w(self) -> np.ndarray:
        """(K ∘ K)(v ∘ v), shared by (F ⊙ K)v and ‖F − 11ᵀ‖²_F on the τ = 0 route."""
        return self._K_sq @ (self._v * self._v)

    @cached_property
    def eigenvalues(self) -> np.ndarray:
        # only the τ = 0 route gets here (the others set them in __init__): F = M ⪰ 0
        lam = np.linalg.eigvalsh(self.B)[::-1]
        return lam[lam > lam.size * np.finfo(float).eps * max(abs(lam[0]), 1.0)]

    @property
    def rank(self) -> int:
        return int(self.eigenvalues.size)

    def hadamard_times_v(self) -> np.ndarray:
        """(F ⊙ K) v as a vector of length n, at cost O(s² + n·s)."""
        if self._identity:
            return self._K @ self._v + self._v * self._K_sq_w / (4.0 * self.eta)
        s = self.support.size
        out = np.empty(self.n)
        if self._factors is not None:
            Z, mu = self._factors
            ZS = Z[:s]
            if self._K_v_Z is None:
                self._K_v_Z = self._K_SS @ (ZS * self.v_support[:, None])
            out[self.support] = (self._K_v_Z * ZS) @ mu
            f = (ZS @ (mu * Z[s])) / np.sqrt(self.n_rest) if self.n_rest else None
        else:
            out[self.support] = (self.B[:s, :s] * self._K_SS) @ self.v_support
            f = self.B[s, :s] / np.sqrt(self.n_rest) if self.n_rest else None
        if self.n_rest:
            # Rows outside S share one row of F: F_{i,S} = B[s, :s]/√(n−s).
            out[self.rest] = self._K_rest_S @ (f * self.v_support)
        return out

    def distance_to_ones_sq(self) -> float:
        """‖F − 11ᵀ‖²_F = ‖B − ccᵀ‖²_F (Q has orthonormal columns)."""
        if self._identity:
            return float((self._v * self._v) @ self._K_sq_w) / (16.0 * self.eta**2)
        if self._factors is not None:
            # c = Za + r with Zᵀr = 0: ‖Z diag(μ) Zᵀ − ccᵀ‖² = ‖diag(μ) − aaᵀ‖² + 2‖a‖²‖r‖² + ‖r‖⁴,
            # free of the cancellation of ‖B‖² − 2cᵀBc + ‖c‖⁴ (each term ~ n²)
            Z, mu = self._factors
            a = Z.T @ self._c
            r2 = float(np.sum((self._c - Z @ a) ** 2))
            a2 = float(a @ a)
            return float(np.sum((np.diag(mu) - np.outer(a, a)) ** 2)) + 2.0 * a2 * r2 + r2 * r2
        return float(np.sum((self.B - np.outer(self._c, self._c)) ** 2))

    def trace(self) -> float:
        """tr F = ‖F‖_* (F is PSD)."""
        return float(np.sum(self.eigenvalues))

    def penalty(self, eta: float, tau: float) -> float:
        """η‖F − 11ᵀ‖²_F + τη‖F‖_*, the F-only terms of H (eq. (5))."""
        nuclear = tau * eta * self.trace() if tau else 0.0  # τ = 0: no eigenvalues needed
        return eta * self.distance_to_ones_sq() + nuclear

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
