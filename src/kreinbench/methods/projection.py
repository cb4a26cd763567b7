"""Euclidean projection onto the SVM dual feasible set {α : yᵀα = 0, 0 ≤ α ≤ C}, y ∈ {±1}ⁿ.

The projection of v is α(θ) = clip(v − θy, 0, C) for the θ solving g(θ) = yᵀα(θ) = 0 (KKT
conditions of min ½‖α − v‖²).  g is continuous, piecewise linear and non-increasing in θ with
breakpoints where some v_i − θy_i hits 0 or C, i.e. θ ∈ {y_i v_i, y_i (v_i − C)}.  A binary search
over the sorted breakpoints finds the linear piece containing the root, which is then solved
exactly: O(n log n), no tolerance, exact to round-off.
"""

from __future__ import annotations

import numpy as np

from kreinbench.errors import KreinbenchError


def _g(theta: float, v: np.ndarray, y: np.ndarray, C: float) -> float:
    return float(y @ np.clip(v - theta * y, 0.0, C))


def project_box_hyperplane(v: np.ndarray, y: np.ndarray, C: float) -> np.ndarray:
    """Project ``v`` onto {α : yᵀα = 0, 0 ≤ α ≤ C} (``y`` must hold both +1 and −1)."""
    v = np.asarray(v, dtype=float)
    y = np.asarray(y, dtype=float)
    if not np.all(np.abs(y) == 1.0):
        raise KreinbenchError("projection needs labels y in {-1, +1}")
    if not (np.any(y > 0) and np.any(y < 0)):
        raise KreinbenchError("projection needs both classes in y (otherwise only alpha = 0 is feasible)")
    if not C > 0:
        raise KreinbenchError(f"parameter C must be > 0, got {C!r}")
    breaks = np.unique(np.concatenate([y * v, y * (v - C)]))
    # g(breaks[0]) >= 0 >= g(breaks[-1]): below every breakpoint each +1 coordinate sits at C and
    # each -1 coordinate at 0, above every breakpoint the reverse.
    lo, hi = 0, breaks.size - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _g(breaks[mid], v, y, C) > 0:
            lo = mid
        else:
            hi = mid
    t0, t1 = breaks[lo], breaks[hi]
    g0, g1 = _g(t0, v, y, C), _g(t1, v, y, C)
    theta = t0 if g0 == g1 else t0 + g0 * (t1 - t0) / (g0 - g1)
    return np.clip(v - theta * y, 0.0, C)
