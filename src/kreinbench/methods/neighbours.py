"""Out-of-sample extension of a learned training matrix F to test points (DANK §2, eq. (12); §6.2.4).

Each test point x'_j borrows the column F_{j*} of a training point chosen in input space:

- ``"reciprocal"`` (the paper's scheme): with r = the rank of x'_j among the test points as seen
  from x_i and s = the rank of x_i among the training points as seen from x'_j (1 = nearest),
  M_ij = 1/(rs) and j* = argmax_i M_ij.  Ties go to the training point nearer to x'_j.  Taken
  literally, eq. (12) gives every pair a rank, so every test point has a j*.  With
  ``max_rank=k`` only mutual k-nearest pairs (r ≤ k and s ≤ k) count; a test point without such a
  pair falls back to its nearest training point (the 1-NN rule).
- ``"knn"`` (the k-NN baselines of Fig. 7): F'_j is the mean of the columns of F of the
  ``n_neighbors`` training points nearest to x'_j (k = 1 is the plain nearest-neighbour rule).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from kreinbench.errors import KreinbenchError

EXTENSIONS = {"reciprocal", "knn"}


def _ranks(order: np.ndarray, axis: int) -> np.ndarray:
    """1-based ranks from an argsort along ``axis``."""
    ranks = np.empty_like(order)
    idx = np.arange(1, order.shape[axis] + 1, dtype=order.dtype)
    np.put_along_axis(ranks, order, np.expand_dims(idx, 1 - axis), axis=axis)
    return ranks


def reciprocal_neighbours(X_train: np.ndarray, X_test: np.ndarray, *, max_rank: int | None = None) -> np.ndarray:
    """j* of eq. (12) for each test point: an index array of shape (n_test,)."""
    D = cdist(X_train, X_test)  # (n, m)
    # Stable sorts: equal distances are ranked by index, so the result is deterministic.
    r = _ranks(np.argsort(D, axis=1, kind="stable").astype(np.int64), axis=1)
    s = _ranks(np.argsort(D, axis=0, kind="stable").astype(np.int64), axis=0)
    score = r * s  # M = 1/score
    nearest = np.argmin(s, axis=0)  # s = 1
    if max_rank is not None:
        score = np.where((r <= max_rank) & (s <= max_rank), score, np.iinfo(np.int64).max)
    # argmax M = argmin rs; ties broken by the smaller s, i.e. the training point nearer to x'_j.
    key = score * (D.shape[0] + 1) + s
    best = np.argmin(key, axis=0)
    if max_rank is not None:
        unpaired = score[best, np.arange(D.shape[1])] == np.iinfo(np.int64).max
        best = np.where(unpaired, nearest, best)
    return best


def nearest_neighbours(X_train: np.ndarray, X_test: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k training points nearest to each test point, shape (n_test, k)."""
    D = cdist(X_test, X_train)
    return np.argsort(D, axis=1, kind="stable")[:, :k]


def extension_indices(X_train, X_test, *, method: str, n_neighbors: int = 1,
                      max_rank: int | None = None) -> np.ndarray:
    """Training indices whose F columns each test point borrows, shape (n_test, k)."""
    X_train = np.asarray(X_train, dtype=float)
    X_test = np.asarray(X_test, dtype=float)
    if X_train.ndim != 2 or X_test.ndim != 2 or X_train.shape[1] != X_test.shape[1]:
        raise KreinbenchError(
            f"X and X_test must be 2-D with the same number of features, got {X_train.shape} and {X_test.shape}")
    if method == "reciprocal":
        return reciprocal_neighbours(X_train, X_test, max_rank=max_rank)[:, None]
    if method == "knn":
        return nearest_neighbours(X_train, X_test, min(n_neighbors, X_train.shape[0]))
    raise KreinbenchError(f"parameter extension={method!r} is not one of {sorted(EXTENSIONS)}")
