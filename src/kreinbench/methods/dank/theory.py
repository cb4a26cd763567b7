"""DANK's partition theory measured: Theorem 7's error bounds and Theorem 8's screening rule (Fig. 6).

The whole problem is (17): DANK without bias and without nuclear norm (τ = 0), α in the box
0 ≤ α ≤ C.  Theorems 6–8 name problem (5) as the whole problem, but their proofs (Appendix B)
work with (17), and only (17) has the same feasible set and the same F-regularizer as the
partitioned problem (19), so (17) is what ‖α* − ᾱ‖ compares against here.  (ᾱ, F̄) is the optimum
of (19): ᾱ concatenates the clusters' subproblem solutions (Lemma 5) and F̄ = J_0(11ᵀ + Γ̄(ᾱ)) is
(19)'s minimizing F for the block-diagonal kernel K̄, the F̄ of the proof of Theorem 7 (its
off-block entries are 1, not the zeros of the block-diagonal matrix printed in §4; with zeros the
"intuitive bound" n·max{√B, B} of the remark after Theorem 7 could not hold).

Theorem 6's constants: B₁ ≤ max{F*_ij, F̄_ij} ≤ B₂ for all i, j, taken as the tightest such
numbers; B = B₂ − B₁; Q(π) = Σ_{i,j: π(x_i) ≠ π(x_j)} |K_ij| (printed with the typo
π(x_i) ≠ π(x_i), which would make Q identically 0); κ bounds |k(x, x')|.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.methods.base import check_positive
from kreinbench.methods.dank.adaptive import AdaptiveMatrix
from kreinbench.methods.dank.partition import solve_cluster
from kreinbench.methods.dank.problem import solve_dank

# α_i ≤ ZERO_TOL·C counts as α_i = 0 (a non-support vector).  The box projection of the solvers
# sets exact zeros; the tolerance only absorbs a solver stopped a hair away from the bound.
ZERO_TOL = 1e-8


@dataclass(frozen=True)
class PartitionBounds:
    """Theorems 7 and 8 on one partition π (one bar group of Fig. 6).

    Attributes
    ----------
    n_clusters : int
    labels : ndarray of shape (n,)
        The partition π(x_i).
    Q, B1, B2, kappa : float
        Q(π), B₁, B₂ and κ of Theorems 6–8.
    alpha_error_sq, alpha_bound, alpha_trivial_bound : float
        ‖α* − ᾱ‖²₂, Theorem 7's bound on it, and the trivial bound nC² (Fig. 6(a)).
    F_error, F_bound, F_trivial_bound : float
        ‖F* − F̄‖_F, Theorem 7's bound, and the "intuitive" bound n·max{√B, B} (Fig. 6(b)).
        Both Theorem 7 bounds are ``inf`` when B₁ ≤ 0 (its hypothesis 0 < B₁ fails).
    gradient : ndarray of shape (n,)
        (∇_α H̄(ᾱ, F̄))_i = 1 − y_i Σ_j F̄_ij K̄_ij y_j ᾱ_j (Fig. 6(c)'s vertical axis).
    threshold : ndarray of shape (n,)
        −(B + B₂)C(‖K̄_i‖₁ + κ), the right side of condition (21).
    alpha_star, alpha_bar : ndarray of shape (n,)
        α* of problem (17) and ᾱ of problem (19).
    C : float
        The box bound 0 ≤ α ≤ C.
    """

    n_clusters: int
    labels: np.ndarray
    Q: float
    B1: float
    B2: float
    kappa: float
    alpha_error_sq: float
    alpha_bound: float
    alpha_trivial_bound: float
    F_error: float
    F_bound: float
    F_trivial_bound: float
    gradient: np.ndarray
    threshold: np.ndarray
    alpha_star: np.ndarray
    alpha_bar: np.ndarray
    C: float

    @property
    def support(self) -> np.ndarray:
        """ᾱ_i > 0: the support vectors of the partitioned problem (19)."""
        return self.alpha_bar > ZERO_TOL * self.C

    @property
    def exact_support(self) -> np.ndarray:
        """α*_i > 0: the support vectors of the whole problem (17), to check the screening against."""
        return self.alpha_star > ZERO_TOL * self.C

    @property
    def screened(self) -> np.ndarray:
        """ᾱ_i = 0 and condition (21) holds: Theorem 8 declares α*_i = 0 without solving (17)."""
        return ~self.support & (self.gradient <= self.threshold)

    @property
    def screened_share(self) -> float:
        """Share of the partitioned problem's non-support vectors that condition (21) screens."""
        n_non = int(np.sum(~self.support))
        return float(np.sum(self.screened)) / n_non if n_non else 0.0

    def summary(self) -> dict:
        """The scalar results as one row (Fig. 6's bars and the counts quoted in §6.2.3)."""
        return {
            "n_clusters": self.n_clusters, "Q": self.Q, "B1": self.B1, "B2": self.B2, "kappa": self.kappa,
            "alpha_error_sq": self.alpha_error_sq, "alpha_bound": self.alpha_bound,
            "alpha_trivial_bound": self.alpha_trivial_bound, "F_error": self.F_error, "F_bound": self.F_bound,
            "F_trivial_bound": self.F_trivial_bound, "n_support": int(np.sum(self.support)),
            "n_nonsupport": int(np.sum(~self.support)), "n_screened": int(np.sum(self.screened)),
            "screened_share": self.screened_share,
            "wrongly_screened": int(np.sum(self.screened & self.exact_support)),
        }


def cross_cluster_mass(K: np.ndarray, labels: np.ndarray) -> float:
    """Q(π) = Σ_{i,j: π(x_i) ≠ π(x_j)} |K_ij|."""
    different = labels[:, None] != labels[None, :]
    return float(np.abs(K)[different].sum())


def theorem7_bounds(*, Q: float, K_fro: float, n: int, B1: float, B2: float, C: float, eta: float):
    """Theorem 7, eq. (20), as printed: (bound on ‖α* − ᾱ‖²₂, bound on ‖F* − F̄‖_F).

    ‖α* − ᾱ‖²₂ ≤ B₂C²Q/(B₁‖K‖_F) + 2BC²/B₁,
    ‖F* − F̄‖_F ≤ (‖K‖_F/(2η))·√(nB₂Q/(B₁‖K‖_F) + 2nB/B₁)·C² + C²Q/(4η).

    The second is (36) + (37) of the proof: ‖K‖_F/(4η)·‖α* + ᾱ‖·‖α* − ᾱ‖ with ‖α* + ᾱ‖ ≤ 2√n C
    and the first bound, plus ‖Γ(ᾱ) − Γ̄(ᾱ)‖_F ≤ C²Q/(4η).  The C² outside the square root is
    C (from ‖α* + ᾱ‖) times C (from the first bound): the printed formula is consistent.
    The first bound's proof (34) divides by B₁‖K‖_F as if (Δα)ᵀY(F* ⊙ K)YΔα ≥ B₁‖K‖_F‖Δα‖²,
    which no assumption of the theorem guarantees; the bounds are a claim to measure, not a
    certainty, which is why :func:`partition_bounds` reports both sides.
    """
    if B1 <= 0.0:
        return np.inf, np.inf
    B = B2 - B1
    alpha_bound = B2 * C**2 * Q / (B1 * K_fro) + 2.0 * B * C**2 / B1
    F_bound = K_fro / (2.0 * eta) * np.sqrt(n * B2 * Q / (B1 * K_fro) + 2.0 * n * B / B1) * C**2 \
        + C**2 * Q / (4.0 * eta)
    return float(alpha_bound), float(F_bound)


def screening_threshold(K_bar: np.ndarray, *, B1: float, B2: float, C: float, kappa: float) -> np.ndarray:
    """Right side of condition (21): −(B + B₂)·C·(‖K̄_i‖₁ + κ), one entry per point i.

    ‖K̄_i‖₁ is the 1-norm of the i-th column of the block-diagonal K̄, as (21) prints it.  (The
    proof in Appendix B.4 bounds sums over the j *outside* i's cluster, where K̄_ij = 0, by it;
    we keep the printed, stated condition.  §6.2.3 prints the condition without its minus sign,
    "≤ (B + B₂)C(‖K̄_i‖₁ + κ) = 442.3": a typo, since non-support vectors have gradient ≤ 0.)

    As printed, (21) can never hold: F̄ is PSD, so |F̄_ij| ≤ √(F̄_ii F̄_jj) ≤ B₂, and with
    0 ≤ ᾱ ≤ C the gradient is (∇H̄)_i = 1 − y_i Σ_j F̄_ij K̄_ij y_j ᾱ_j ≥ 1 − B₂C‖K̄_i‖₁, which
    exceeds −(B + B₂)C(‖K̄_i‖₁ + κ) for every κ > 0.  Theorem 8 is thus vacuously true and
    screens no point; :class:`PartitionBounds` reports the (zero) share it screens.
    """
    B = B2 - B1
    return -(B + B2) * C * (np.abs(K_bar).sum(axis=0) + kappa)


def solve_whole_problem(K, y, *, C, eta, max_iter=2000, tol=1e-4):
    """(α*, F*) of problem (17): exact DANK with τ = 0 and no bias (see the module docstring)."""
    sol = solve_dank(K, y, C=C, eta=eta, tau=0.0, fit_intercept=False, solver="nesterov", monotone=False,
                     projection="exact", max_iter=max_iter, tol=tol, stopping="step", name="DANK (17)")
    return sol.alpha, sol.F.dense()


def partition_bounds(K, y, labels, *, C, eta, exact=None, kappa=None, max_iter=2000, tol=1e-4) -> PartitionBounds:
    """Measure Theorems 7 and 8 for the partition ``labels`` of the training points.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Train kernel.
    y : ndarray of shape (n,)
        Labels in {−1, +1}.
    labels : ndarray of shape (n,)
        Cluster index π(x_i) of every point.
    C, eta : float
        The box bound and η, shared by (17) and every subproblem (18).
    exact : tuple (alpha_star, F_star) or None
        The solution of (17) if already computed (it does not depend on the partition).
    kappa : float or None
        κ of Theorem 8; None takes max |K_ij| (the proof only uses |K_ij| ≤ κ, so the strict
        sup |k| < κ of the statement is immaterial).
    max_iter, tol : int, float
        Stopping rule of every solve (Algorithm 1's t_max and ε).

    Returns
    -------
    PartitionBounds
    """
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    labels = np.asarray(labels)
    n = y.size
    if K.shape != (n, n) or labels.shape != (n,):
        raise KreinbenchError(f"K must be ({n}, {n}) and labels ({n},) to match y, got {K.shape} and {labels.shape}")
    if not np.all(np.abs(y) == 1.0):
        raise KreinbenchError("y must hold labels in {-1, +1}")
    C = check_positive("C", C)
    eta = check_positive("eta", eta)
    kappa = float(np.abs(K).max()) if kappa is None else check_positive("kappa", kappa)
    alpha_star, F_star = solve_whole_problem(K, y, C=C, eta=eta, max_iter=max_iter, tol=tol) if exact is None else exact

    alpha_bar = np.zeros(n)
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        alpha_bar[idx] = solve_cluster(K[np.ix_(idx, idx)], y[idx], C=C, eta=eta, solver="nesterov", monotone=False,
                                       max_iter=max_iter, tol=tol, stopping="step").alpha
    K_bar = np.where(labels[:, None] == labels[None, :], K, 0.0)
    F_bar = AdaptiveMatrix(K_bar, y * alpha_bar, eta, 0.0)
    gradient = 1.0 - y * F_bar.hadamard_times_v()
    F_bar = F_bar.dense()

    upper = np.maximum(F_star, F_bar)
    B1, B2 = float(upper.min()), float(upper.max())
    Q = cross_cluster_mass(K, labels)
    alpha_bound, F_bound = theorem7_bounds(Q=Q, K_fro=float(np.linalg.norm(K)), n=n, B1=B1, B2=B2, C=C, eta=eta)
    B = B2 - B1
    threshold = screening_threshold(K_bar, B1=B1, B2=B2, C=C, kappa=kappa)
    return PartitionBounds(
        n_clusters=int(np.unique(labels).size), labels=labels, Q=Q, B1=B1, B2=B2, kappa=kappa,
        alpha_error_sq=float(np.sum((alpha_star - alpha_bar) ** 2)), alpha_bound=alpha_bound,
        alpha_trivial_bound=n * C**2,
        F_error=float(np.linalg.norm(F_star - F_bar)), F_bound=F_bound, F_trivial_bound=n * max(float(np.sqrt(B)), B),
        gradient=gradient, threshold=threshold, alpha_star=alpha_star, alpha_bar=alpha_bar, C=C,
    )
