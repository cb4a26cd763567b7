"""Seeded synthetic datasets, written as delimited text so they go through the same parser."""

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


GENERATORS = {"blobs": blobs}
