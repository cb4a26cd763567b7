"""Kernels never held whole: k(X_rows, X_cols) computed in blocks where a method uses them.

A config kernel with ``storage: implicit`` is not written as a matrix (ijcnn1's 49 990 training
and 91 701 test points would make a 20 GB train and a 37 GB test kernel in float64); its cache
file keeps the resolved parameters only, and the fit stage hands the estimator an
:class:`ImplicitKernel` on the split's features.  An estimator that accepts one takes the parts it
needs: libsvm computes the kernel itself from the features, with its own cache (SVM, and the SVM
of DANK's η); partitioned DANK takes its clusters' diagonal blocks; products run over row blocks.
Anything that asks for the whole matrix (``np.asarray``) gets an error that says how large it
would be.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from array_api_compat import device

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.arrays import is_array_api, namespace
from kreinbench.linalg.kernels import RBF_CONVENTIONS, block_rows, kernel_function

# Kernel types libsvm computes itself, from the features (the others have no libsvm twin).
LIBSVM_TYPES = ("rbf", "sigmoid")


class ImplicitKernel:
    """The kernel matrix k(X_rows[i], X_cols[j]) described by resolved kernel ``params``.

    ``X_cols=None`` means the train kernel (columns = rows).  Indexing with index arrays or
    slices (``K[np.ix_(rows, cols)]``, ``K[rows]``) and products (``K @ v``) compute entries from
    the features; products skip the columns where ``v`` is zero (an SVM's non-support vectors).
    """

    ndim = 2
    dtype = np.dtype(np.float64)

    def __init__(self, params: dict[str, Any], X_rows: np.ndarray, X_cols: np.ndarray | None = None, *,
                 name: str = "kernel"):
        if params["type"] == "noisy-rbf":
            # Its noise matrix E is n x n: there is nothing to compute it from in blocks.
            raise KreinbenchError(f"{name}: a noisy-rbf kernel cannot be implicit (its noise is an n x n matrix)")
        self.params = params
        self.X_rows = np.asarray(X_rows, dtype=np.float64)
        self.X_cols = self.X_rows if X_cols is None else np.asarray(X_cols, dtype=np.float64)
        self.name = name
        self._fn = kernel_function({**params, "dtype": "float64"})

    @property
    def shape(self) -> tuple[int, int]:
        return (self.X_rows.shape[0], self.X_cols.shape[0])

    def __array__(self, dtype=None, copy=None):
        gib = self.shape[0] * self.shape[1] * 8 / 2**30  # the whole matrix in float64
        raise KreinbenchError(
            f"{self.name} ({self.shape[0]} x {self.shape[1]}) is implicit (kernel storage: implicit) and would "
            f"take {gib:.1f} GiB as a matrix; this method needs the matrix whole. Use a method that "
            "takes an implicit kernel (SVM, DANK with n_clusters) or drop storage: implicit from the kernel"
        )

    def __getitem__(self, key) -> np.ndarray:
        rows, cols = key if isinstance(key, tuple) else (key, slice(None))
        return self._fn(self.X_rows[_flat(rows)], self.X_cols[_flat(cols)])

    def __matmul__(self, v) -> np.ndarray:
        v = np.asarray(v, dtype=np.float64)
        if v.shape[0] != self.shape[1]:
            raise KreinbenchError(f"{self.name} has {self.shape[1]} columns, the vector {v.shape[0]} rows")
        used = np.flatnonzero(np.any(v.reshape(v.shape[0], -1) != 0.0, axis=1))
        out = np.zeros((self.shape[0], *v.shape[1:]))
        X_used, v_used = self.X_cols[used], v[used]
        rows = block_rows(max(used.size, 1))
        for start in range(0, self.shape[0], rows):
            stop = min(start + rows, self.shape[0])
            out[start:stop] = self._fn(self.X_rows[start:stop], X_used) @ v_used
        return out

    def restrict(self, rows, cols) -> ImplicitKernel:
        """The kernel between ``rows`` of this one's rows and ``cols`` of its columns (index arrays),
        still implicit: a CV's fold kernels, computed where the fold's fits use them."""
        rows, cols = np.asarray(rows), np.asarray(cols)
        train = self.X_cols is self.X_rows and rows is cols
        return ImplicitKernel(self.params, self.X_rows[rows], None if train else self.X_cols[cols],
                              name=f"{self.name} (restricted)")

    def libsvm_params(self) -> dict[str, Any]:
        """The ``kernel``, ``gamma`` (and ``coef0``) of scikit-learn's ``SVC`` computing this kernel."""
        kind = self.params["type"]
        if kind == "rbf":
            return {"kernel": "rbf", "gamma": 1.0 / (RBF_CONVENTIONS[self.params["convention"]] * self.params["sigma"] ** 2)}
        if kind == "sigmoid":
            return {"kernel": "sigmoid", "gamma": self.params["gamma"], "coef0": self.params["coef0"]}
        raise KreinbenchError(f"{self.name}: libsvm computes only {', '.join(LIBSVM_TYPES)} kernels itself, not "
                              f"{kind!r}; an SVM on it needs the matrix (drop storage: implicit)")


def _flat(index):
    """An index of one axis, from ``np.ix_``'s broadcastable arrays, plain arrays or slices."""
    if isinstance(index, slice):
        return index
    return np.asarray(index).reshape(-1)


def is_implicit(K) -> bool:
    return isinstance(K, ImplicitKernel)


def fold_kernels(K, train, validation):
    """A CV fold's train kernel and validation cross-kernel: slices of a matrix (of any array API
    namespace), or implicit kernels on the fold's rows (an implicit kernel's slice would compute
    and hold the whole block)."""
    if is_implicit(K):
        return K.restrict(train, train), K.restrict(validation, train)
    return submatrix(K, train, train), submatrix(K, validation, train)


def submatrix(K, rows, columns):
    """``K[np.ix_(rows, columns)]`` of a NumPy matrix, or of an array API array (a GPU's) by the
    standard's ``take``, with the indices on its device."""
    if is_array_api(K):
        xp, on = namespace(K), device(K)
        picked = xp.take(K, xp.asarray(rows, device=on), axis=0)
        return xp.take(picked, xp.asarray(columns, device=on), axis=1)
    return K[np.ix_(rows, columns)]
