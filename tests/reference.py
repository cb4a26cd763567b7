"""Independent reference computations shared by the tests (none of them uses the package)."""

import numpy as np


def project_bisection(v, z, C, box_only=False):
    """Euclidean projection onto {zᵀx = 0, 0 ≤ x ≤ C} by bisection on the multiplier (or onto the box)."""
    if box_only:
        return np.clip(v, 0, C)
    lo, hi = -np.abs(v).max() - C - 1, np.abs(v).max() + C + 1
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if z @ np.clip(v - mid * z, 0, C) > 0:
            lo = mid
        else:
            hi = mid
    return np.clip(v - 0.5 * (lo + hi) * z, 0, C)
