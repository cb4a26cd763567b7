"""Euclidean projection onto the SVM dual feasible set {α : yᵀα = 0, 0 ≤ α ≤ C}, y ∈ {±1}ⁿ.

The projection of v is α(θ) = clip(v − θy, 0, C) for the θ solving g(θ) = yᵀα(θ) = 0 (KKT
conditions of min ½‖α − v‖²).  With u = y ⊙ v, coordinate i contributes y_i clip(v_i − θy_i, 0, C)
= C[y_i > 0] − clip(θ − a_i, 0, C), a ramp of slope −1 on [a_i, a_i + C] with a_i = u_i − C for
y_i = +1 and a_i = u_i for y_i = −1.  So g(θ) = 0 is h(θ) = Σ_i clip(θ − a_i, 0, C) = C·#{y_i = +1}
for the non-decreasing, piecewise linear h: its values at the 2n sorted breakpoints follow from a
cumulative sum of the slopes, and the root is interpolated on the piece that contains it.  O(n log n)
in a few array operations (one sort), no tolerance, exact to round-off.  (A binary search that
evaluates g at log₂(2n) breakpoints, one O(n) pass each, spent most of IndefiniteSVM's iteration
on small n in Python overhead.)
"""

from __future__ import annotations

import numpy as np

from kreinbench.errors import KreinbenchError


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
    n = v.size
    u = y * v
    ramps = np.where(y > 0, u - C, u)
    points = np.concatenate([ramps, ramps + C])
    order = np.argsort(points, kind="stable")
    points = points[order]
    slope = np.cumsum(np.where(order < n, 1.0, -1.0))  # h's slope right after each breakpoint
    h = np.concatenate([[0.0], np.cumsum(slope[:-1] * np.diff(points))])
    target = C * np.count_nonzero(y > 0)
    # h rises from 0 to C·n > target (both classes present): the first breakpoint where h reaches
    # the target ends the piece of positive slope that contains the root.
    k = int(np.searchsorted(h, target, side="left"))
    theta = points[k - 1] + (target - h[k - 1]) / slope[k - 1]
    return np.clip(v - theta * y, 0.0, C)
