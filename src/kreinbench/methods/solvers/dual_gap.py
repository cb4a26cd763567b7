"""A computable bound on the distance to the optimum of an SVM-type dual, max_{x ∈ A} h(x).

Shared by DANK's solvers (h of problem (5), A its dual set) and IndefiniteSVM's APG (Ying's f
over Q₁, the same set).  For concave h (for DANK: K PSD, Theorems 4 and 11) and any x,
h(x*) ≤ h(x) + ∇h(x)ᵀ(x* − x), so

    h* − h(x) ≤ G(x) = max_{u ∈ A} ∇h(x)ᵀ(u − x),

the Frank–Wolfe (Wolfe) gap.  G ≥ 0 on A and G = 0 exactly at the KKT points; it costs no
evaluation of h, only a linear maximization over A = {zᵀu = 0, 0 ≤ u ≤ C}, z ∈ {±1}ⁿ.  By LP
duality with the multiplier b of zᵀu = 0,

    max_{u ∈ A} gᵀu = min_b φ(b),  φ(b) = C Σᵢ max(gᵢ − b zᵢ, 0),

a convex piecewise-linear φ whose minimum sits at a breakpoint b = zᵢgᵢ (O(n log n) with one sort).
With s = g − b*z, G = Σᵢ [C max(sᵢ, 0) − sᵢxᵢ] − b*zᵀx: every term of the sum is ≥ 0 for x in the box,
so G is a sum of nonnegative terms (no cancellation of the two ~ nC‖g‖∞ sized terms φ(b*), gᵀx).
This is the SVM's duality gap at the bias b*: zero iff x satisfies the KKT conditions with that b.

G is linear in ‖x − x*‖ while h* − h(x) is quadratic near a smooth optimum, so G over-estimates the
gap: a stop on G ≤ tol·|h| is a certificate, paid for with a few more iterations.  For an
indefinite K, h need not be concave and G is only a stationarity measure (0 at KKT points).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _min_hinge_sum(r: np.ndarray, plus: np.ndarray) -> float:
    """argmin_b of Σ_{plus} max(rᵢ − b, 0) + Σ_{minus} max(b − rᵢ, 0) over the breakpoints b ∈ r."""
    p = np.sort(r[plus])
    m = np.sort(r[~plus])
    b = np.unique(r)
    # Σ_{p > b} (p − b) from suffix sums, Σ_{m < b} (b − m) from prefix sums
    p_suffix = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])
    m_prefix = np.concatenate([[0.0], np.cumsum(m)])
    k_p = np.searchsorted(p, b, side="right")
    k_m = np.searchsorted(m, b, side="left")
    value = (p_suffix[k_p] - b * (p.size - k_p)) + (b * k_m - m_prefix[k_m])
    return float(b[np.argmin(value)])


def wolfe_gap(grad: np.ndarray, x: np.ndarray, z: np.ndarray | None, C: float) -> float:
    """G(x) = max_{u ∈ A} ∇h(x)ᵀ(u − x), A = {zᵀu = 0, 0 ≤ u ≤ C} (``z=None``: the box alone).

    Parameters
    ----------
    grad : ndarray of shape (n,)
        ∇h(x).
    x : ndarray of shape (n,)
        The point (in A, or near it for the paper's alternating projection).
    z : ndarray of shape (n,) with entries ±1, or None
        Normal of the hyperplane (labels y for DANK, [1; −1] for DANK-SVR).
    C : float
        Box bound.

    Returns
    -------
    float
        An upper bound on h* − h(x) when h is concave (module docstring).
    """
    if z is None:
        return float(np.sum(C * np.maximum(grad, 0.0) - grad * x))
    b = _min_hinge_sum(z * grad, z > 0)
    s = grad - b * z
    return float(np.sum(C * np.maximum(s, 0.0) - s * x) - b * float(z @ x))


def make_gap(z: np.ndarray | None, C: float) -> Callable[[np.ndarray, np.ndarray], float]:
    """(x, ∇h(x)) ↦ G(x) for the feasible set of one solve (see :func:`wolfe_gap`)."""
    return lambda x, grad: wolfe_gap(grad, x, z, C)
