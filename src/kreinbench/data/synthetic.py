"""Seeded synthetic datasets, written as delimited text so they go through the same parser.

Each generator returns a table whose last column is the label (+1/-1) or the regression target.
"""

from __future__ import annotations

import numpy as np


def blobs(n_samples: int = 400, seed: int = 0) -> np.ndarray:
    """Two overlapping isotropic Gaussian blobs in 2-D, labels +1/-1 in the last column."""
    rng = np.random.default_rng(seed)
    half = n_samples // 2
    pos = rng.normal(loc=(1.0, 1.0), scale=1.0, size=(half, 2))
    neg = rng.normal(loc=(-1.0, -1.0), scale=1.0, size=(n_samples - half, 2))
    X = np.vstack([pos, neg])
    y = np.concatenate([np.ones(half), -np.ones(n_samples - half)])
    return np.column_stack([X, y])


def clowns(n_samples: int = 400, sigma: float = 1.0, seed: int = 0) -> np.ndarray:
    """The two-class 2-D *clowns* set of DANK's Figures 1-2 (the SVM-KM toolbox's 'Clowns').

    Class +1: a Gaussian 'head' N((0, 6), sigma² I); class -1: a noisy parabola x1 ~ U[-3, 3],
    x2 = x1² + N(0, 1). The toolbox then standardizes each column; that affine map is omitted
    here because the split stage rescales every feature to [0, 1] anyway.
    """
    rng = np.random.default_rng(seed)
    half = n_samples // 2
    head = rng.normal(size=(half, 2)) * sigma + np.array([0.0, 6.0])
    x1 = rng.uniform(-3.0, 3.0, size=n_samples - half)
    parabola = np.column_stack([x1, x1**2 + rng.normal(size=x1.size)])
    y = np.concatenate([np.ones(half), -np.ones(n_samples - half)])
    return np.column_stack([np.vstack([head, parabola]), y])


def step_value(x: np.ndarray, s: float = 3.0, w: float = 2.0, a: float = 0.05) -> np.ndarray:
    """DANK §6.3.1's step function of height s, period w and smoothness a:
    g = s (tanh((x/w - ⌊x/w⌋ - 1/2)/a) / (2 tanh(1/(2a))) + 1/2 + ⌊x/w⌋).

    The paper prints a as a factor, tanh(a x/w - a⌊x/w⌋ - a/2) / (2 tanh(a/2)); with its a = 0.05
    the tanh stays in its linear range and g is the straight line s x/w, no step at all (its
    Fig. 9(a) shows steps). With a as the width of each transition, as here, small a gives sharp
    steps of height s at x = w(k + 1/2) and a → ∞ the same straight line; both readings agree at
    x = w k and x = w(k + 1/2).
    """
    k = np.floor(x / w)
    return s * (np.tanh((x / w - k - 0.5) / a) / (2 * np.tanh(0.5 / a)) + 0.5 + k)


def step_function(n_samples: int = 400, seed: int = 0, s: float = 3.0, w: float = 2.0, a: float = 0.05,
                  low: float = -5.0, high: float = 5.0) -> np.ndarray:
    """``n_samples`` uniform x on [low, high] with the noiseless target g(s, w, a, x)."""
    x = np.random.default_rng(seed).uniform(low, high, size=n_samples)
    return np.column_stack([x, step_value(x, s, w, a)])


def cherkassky_value(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """g(u, v) = 42.659 (0.1 + (u - 0.5)(g1 + 0.05)), g1 = (u-.5)⁴ - 10(u-.5)²(v-.5)² + 5(v-.5)⁴."""
    du, dv = u - 0.5, v - 0.5
    g1 = du**4 - 10 * du**2 * dv**2 + 5 * dv**4
    return 42.659 * (0.1 + du * (g1 + 0.05))


def cherkassky(n_samples: int = 400, seed: int = 0) -> np.ndarray:
    """The 2-D test function of Cherkassky et al. (1996) at ``n_samples`` uniform points.

    The DANK text writes the domain as [-0.5, 0.5]²; with the (u - 0.5), (v - 0.5) terms of the
    formula that is the range of the centred variables, so (u, v) is drawn from [0, 1]² (the
    domain of Cherkassky et al.).
    """
    uv = np.random.default_rng(seed).uniform(0.0, 1.0, size=(n_samples, 2))
    return np.column_stack([uv, cherkassky_value(uv[:, 0], uv[:, 1])])


GENERATORS = {"blobs": blobs, "clowns": clowns, "step_function": step_function, "cherkassky": cherkassky}
