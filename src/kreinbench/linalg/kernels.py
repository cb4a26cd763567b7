"""Kernel functions on feature matrices, computed in row blocks with numpy/scipy (no loop over pairs).

Every kernel takes ``X`` (n x m) and ``Y`` (p x m) and returns the n x p matrix
``K[i, j] = k(X[i], Y[j])``.  :func:`kernel_matrices` builds the train kernel (only its upper
triangle is computed, then mirrored, so it is exactly symmetric) and the test cross-kernel of shape
(n_test, n_train).  Blocks are computed in float64; the output is float64 unless ``dtype=float32``
is asked for.

Kernels (``type`` of a config kernel):

- ``tl1``: max(τ − ‖x − y‖₁, 0), τ = ``tau`` or ``tau_factor``·m (IKLR §V: τ = 0.7m);
- ``rbf``: exp(−‖x − y‖²/σ²) (``convention: iklr``) or exp(−‖x − y‖²/(2σ²)) (``convention: dank``);
- ``sigmoid``: tanh(γ⟨x, y⟩ + c₀) (indefinite for most γ, c₀; Lin & Lin 2003), γ default 1/m;
- ``noisy-rbf``: Ying et al.'s indefinite kernel (NIPS'09 §5) K₀ = K − ε(E + Eᵀ)/2 on the train
  kernel of an RBF K, E standard normal, seeded; the test cross-kernel is the clean RBF;
- ``dog``: the difference of Gaussians a₁ exp(−‖x − y‖²/(2σ₁²)) − a₂ exp(−‖x − y‖²/(2σ₂²)), indefinite
  for most parameters (:mod:`kreinbench.linalg.random_features`, which samples its signed spectral
  measure); σⱼ = ``sigmaj`` or ``sigmaj_factor``·√m (a scale of the distances between rows of
  [0, 1]^m, as TL1's τ is of their ℓ1 distances);
- ``log-euclidean`` / ``affine-invariant``: Gaussian kernels on region covariance descriptors of
  images (rows of X are images flattened row-major), see :mod:`kreinbench.linalg.spd`.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.linalg import spd

# Elements of one float64 temporary block (32 MB): bounds the working memory beyond the output.
BLOCK_ELEMENTS = 1 << 22
# Row blocks of a symmetric kernel stay this small so that the skipped lower triangle is most of
# the work saved and the fix-up of each diagonal block is cheap (measured best of 128/256/512).
SYMMETRIC_BLOCK_ROWS = 256

KERNEL_TYPES = ("tl1", "rbf", "sigmoid", "noisy-rbf", "dog", "log-euclidean", "affine-invariant")
RBF_CONVENTIONS = {"iklr": 1.0, "dank": 2.0}

BlockFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def block_rows(columns: int, elements_per_pair: int = 1) -> int:
    """Rows of a block whose temporaries stay within ``BLOCK_ELEMENTS`` float64 values."""
    return max(1, BLOCK_ELEMENTS // max(columns * elements_per_pair, 1))


def pairwise(block: BlockFn, X, Y, *, dtype=np.float64, symmetric: bool = False, elements_per_pair: int = 1):
    """Apply ``block(X_rows, Y)`` (a float64 block of kernel values) over row blocks of X.

    With ``symmetric=True`` (``Y is X``) only blocks on and right of the diagonal are computed and
    the rest mirrored, so the result is exactly symmetric and costs half the work.
    ``elements_per_pair`` is the size of the temporaries per pair (it shrinks the blocks).
    """
    n, p = len(X), len(Y)
    out = np.empty((n, p), dtype=dtype)
    rows = block_rows(p, elements_per_pair)
    if symmetric:
        rows = min(rows, SYMMETRIC_BLOCK_ROWS)
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        if not symmetric:
            out[start:stop] = block(X[start:stop], Y)
            continue
        out[start:stop, start:] = block(X[start:stop], Y[start:])
        diag = out[start:stop, start:stop]
        # Rounding can differ between k(x_i, x_j) and k(x_j, x_i) inside the diagonal block.
        lower = np.tril_indices(stop - start, -1)
        diag[lower] = diag.T[lower]
        out[stop:, start:stop] = out[start:stop, stop:].T
    return out


def _cdist(a, b, metric):
    # Imported here: scipy.spatial adds about 0.1 s to every job's start, and most jobs (fits on
    # cached kernels) never compute a distance.
    from scipy.spatial.distance import cdist  # noqa: PLC0415
    return cdist(a, b, metric)


def _tl1_block(tau: float) -> BlockFn:
    def block(a, b):
        d = _cdist(a, b, "cityblock")
        np.subtract(tau, d, out=d)
        return np.maximum(d, 0.0, out=d)
    return block


def _gaussian_block(scale: float, metric: str = "sqeuclidean") -> BlockFn:
    def block(a, b):
        d = _cdist(a, b, metric)
        d *= -1.0 / scale
        return np.exp(d, out=d)
    return block


def _sigmoid_block(gamma: float, coef0: float) -> BlockFn:
    def block(a, b):
        g = a @ b.T
        g *= gamma
        g += coef0
        return np.tanh(g, out=g)
    return block


def _dog_block(a1: float, sigma1: float, a2: float, sigma2: float) -> BlockFn:
    def block(a, b):
        d = _cdist(a, b, "sqeuclidean")
        return a1 * np.exp(d / (-2.0 * sigma1**2)) - a2 * np.exp(d / (-2.0 * sigma2**2))
    return block


def _as_features(X, what: str) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise KreinbenchError(f"{what} must be a 2-d (samples x features) array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise KreinbenchError(f"{what} contains NaN or infinite values")
    return X


def _pair(X, Y):
    X = _as_features(X, "X")
    symmetric = Y is None or Y is X
    Y = X if symmetric else _as_features(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise KreinbenchError(f"X and Y have different feature counts ({X.shape[1]} vs {Y.shape[1]})")
    return X, Y, symmetric


def tl1(X, Y=None, *, tau: float, dtype=np.float64) -> np.ndarray:
    """Truncated l1-distance kernel max(τ − ‖x − y‖₁, 0) (Huang et al.; IKLR §V); ``Y=None``: Y = X."""
    X, Y, symmetric = _pair(X, Y)
    return pairwise(_tl1_block(float(tau)), X, Y, dtype=dtype, symmetric=symmetric)


def rbf(X, Y=None, *, sigma: float, convention: str = "iklr", dtype=np.float64) -> np.ndarray:
    """Gaussian kernel; ``convention="iklr"``: exp(−d²/σ²), ``"dank"``: exp(−d²/(2σ²))."""
    X, Y, symmetric = _pair(X, Y)
    scale = RBF_CONVENTIONS[convention] * sigma**2
    return pairwise(_gaussian_block(scale), X, Y, dtype=dtype, symmetric=symmetric)


def sigmoid(X, Y=None, *, gamma: float, coef0: float, dtype=np.float64) -> np.ndarray:
    """Sigmoid (hyperbolic tangent) kernel tanh(γ⟨x, y⟩ + c₀)."""
    X, Y, symmetric = _pair(X, Y)
    return pairwise(_sigmoid_block(float(gamma), float(coef0)), X, Y, dtype=dtype, symmetric=symmetric)


def dog(X, Y=None, *, a1: float, sigma1: float, a2: float, sigma2: float, dtype=np.float64) -> np.ndarray:
    """Difference of Gaussians a₁ exp(−‖x−y‖²/(2σ₁²)) − a₂ exp(−‖x−y‖²/(2σ₂²)); ``Y=None``: Y = X."""
    X, Y, symmetric = _pair(X, Y)
    return pairwise(_dog_block(float(a1), float(sigma1), float(a2), float(sigma2)), X, Y, dtype=dtype,
                    symmetric=symmetric, elements_per_pair=2)


def _affine_invariant_block(scale: float) -> BlockFn:
    def block(A_inv_sqrt, S):
        d = spd.affine_invariant_sqdist(A_inv_sqrt, S)
        d *= -1.0 / scale
        return np.exp(d, out=d)
    return block


def spd_kernel(kind: str, X, Y=None, *, sigma: float, shape=None, ridge: float = spd.DEFAULT_RIDGE,
               dtype=np.float64) -> np.ndarray:
    """Log-Euclidean or Affine-Invariant Gaussian kernel exp(−d²/σ²) between the region covariance
    descriptors of images (rows of X, Y: images flattened row-major, ``shape`` = (h, w))."""
    X, Y, symmetric = _pair(X, Y)
    h, w = spd.image_shape(shape, X.shape[1])
    S_X = spd.region_covariances(X.reshape(-1, h, w), ridge=ridge)
    S_Y = S_X if symmetric else spd.region_covariances(Y.reshape(-1, h, w), ridge=ridge)
    scale = float(sigma) ** 2
    if kind == "log-euclidean":
        # ‖log S₁ − log S₂‖_F is the Euclidean distance of the flattened matrix logarithms.
        L_X = spd.spd_log(S_X).reshape(len(S_X), -1)
        L_Y = L_X if symmetric else spd.spd_log(S_Y).reshape(len(S_Y), -1)
        return pairwise(_gaussian_block(scale), L_X, L_Y, dtype=dtype, symmetric=symmetric)
    if kind == "affine-invariant":
        d = spd.N_DESCRIPTOR_FEATURES
        # Temporaries per pair: the d x d product, its eigen-workspace and eigenvalues.
        return pairwise(_affine_invariant_block(scale), spd.spd_inv_sqrt(S_X), S_Y, dtype=dtype,
                        symmetric=symmetric, elements_per_pair=4 * d * d)
    raise KreinbenchError(f"unknown SPD kernel {kind!r} (known: {', '.join(spd.SPD_KERNELS)})")


def add_symmetric_noise(K: np.ndarray, *, level: float, seed) -> np.ndarray:
    """K − level·(E + Eᵀ)/2 in place, E an n x n standard normal matrix drawn from ``seed``.

    E is drawn in row blocks (the stream is the same as one ``standard_normal((n, n))`` call), and
    each block E_I is subtracted from rows I and, transposed, from columns I, so E is never held
    whole.  Returns ``K`` (exactly symmetric).
    """
    n = K.shape[0]
    rng = np.random.default_rng(seed)
    half = 0.5 * level
    rows = block_rows(n)
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        E = rng.standard_normal((stop - start, n))
        E *= half
        K[start:stop] -= E
        K[:, start:stop] -= E.T
        # Inside the diagonal block the two subtractions happen in opposite orders for (i, j) and
        # (j, i); copy the upper triangle so the result stays exactly symmetric.
        diag = K[start:stop, start:stop]
        lower = np.tril_indices(stop - start, -1)
        diag[lower] = diag.T[lower]
    return K


def available_memory() -> int:
    """Bytes of memory available to a new allocation (Linux ``MemAvailable``, else free pages)."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def check_memory(n_bytes: int, what: str) -> None:
    """Raise before any work when ``what`` would need more than the available memory."""
    available = available_memory()
    if n_bytes > available:
        raise KreinbenchError(
            f"{what} needs {n_bytes / 2**30:.2f} GiB but only {available / 2**30:.2f} GiB of memory is available; "
            "use fewer training points or dtype float32"
        )


def resolve_params(spec: dict[str, Any], n_features: int, *, split_seed: int | None = None) -> dict[str, Any]:
    """Concrete kernel parameters for data with ``n_features`` columns.

    TL1's ``tau_factor`` is resolved to ``tau = tau_factor * m`` (the IKLR paper's τ = 0.7m); the
    sigmoid's default γ is 1/m; the noise seed of ``noisy-rbf`` is ``[seed, split_seed]`` so every
    repetition draws its own E.
    """
    kind = spec["type"]
    dtype = spec.get("dtype", "float64")
    if dtype not in ("float64", "float32"):
        raise KreinbenchError(f"kernel parameter dtype={dtype!r} is not one of ['float32', 'float64']")
    if kind == "tl1":
        tau = spec.get("tau")
        if tau is None:
            tau = float(spec.get("tau_factor", 0.7)) * n_features
        params = {"type": "tl1", "tau": float(tau)}
    elif kind in ("rbf", "noisy-rbf"):
        convention = spec.get("convention", "iklr")
        if convention not in RBF_CONVENTIONS:
            raise KreinbenchError(f"kernel parameter convention={convention!r} is not one of {sorted(RBF_CONVENTIONS)}")
        params = {"type": kind, "sigma": float(spec["sigma"]), "convention": convention}
        if kind == "noisy-rbf":
            seed = int(spec.get("seed", 0))
            params["noise"] = float(spec.get("noise", 0.1))
            params["seed"] = [seed] if split_seed is None else [seed, int(split_seed)]
    elif kind == "dog":
        if "a2" not in spec:
            raise KreinbenchError("kernel type 'dog' needs parameter a2 (the subtracted Gaussian's weight)")
        params = {"type": "dog", "a1": float(spec.get("a1", 1.0)), "a2": float(spec["a2"])}
        for width in ("sigma1", "sigma2"):
            given = [key for key in (width, f"{width}_factor") if spec.get(key) is not None]
            if len(given) != 1:
                raise KreinbenchError(f"kernel type 'dog' needs exactly one of {width}, {width}_factor (got {given})")
            value = spec.get(width)
            params[width] = float(value if value is not None else spec[f"{width}_factor"] * np.sqrt(n_features))
    elif kind == "sigmoid":
        params = {"type": "sigmoid", "gamma": float(spec.get("gamma", 1.0 / n_features)),
                  "coef0": float(spec.get("coef0", 1.0))}
    elif kind in spd.SPD_KERNELS:
        shape = spd.image_shape(spec.get("image_shape"), n_features)
        params = {"type": kind, "sigma": float(spec["sigma"]), "image_shape": list(shape),
                  "ridge": float(spec.get("ridge", spd.DEFAULT_RIDGE))}
    else:
        raise KreinbenchError(f"unknown kernel type {kind!r} (known: {', '.join(KERNEL_TYPES)})")
    params["dtype"] = dtype
    return params


def kernel_function(params: dict[str, Any]) -> Callable[..., np.ndarray]:
    """``f(X, Y=None)`` computing the (noise-free) kernel described by resolved ``params``."""
    kind = params["type"]
    dtype = np.dtype(params.get("dtype", "float64"))
    if kind == "tl1":
        return lambda X, Y=None: tl1(X, Y, tau=params["tau"], dtype=dtype)
    if kind in ("rbf", "noisy-rbf"):
        return lambda X, Y=None: rbf(X, Y, sigma=params["sigma"], convention=params["convention"], dtype=dtype)
    if kind == "dog":
        return lambda X, Y=None: dog(X, Y, a1=params["a1"], sigma1=params["sigma1"], a2=params["a2"],
                                     sigma2=params["sigma2"], dtype=dtype)
    if kind == "sigmoid":
        return lambda X, Y=None: sigmoid(X, Y, gamma=params["gamma"], coef0=params["coef0"], dtype=dtype)
    if kind in spd.SPD_KERNELS:
        return lambda X, Y=None: spd_kernel(kind, X, Y, sigma=params["sigma"], shape=params["image_shape"],
                                             ridge=params["ridge"], dtype=dtype)
    raise KreinbenchError(f"unknown kernel type {kind!r} (known: {', '.join(KERNEL_TYPES)})")


def kernel_matrices(params: dict[str, Any], X_train, X_test) -> tuple[np.ndarray, np.ndarray]:
    """Train kernel (n x n, exactly symmetric) and test cross-kernel (n_test x n_train).

    Bad input (non-finite values, mismatched feature counts) and a kernel pair that would not fit
    in memory are errors before any kernel entry is computed.
    """
    X_train = _as_features(X_train, "X_train")
    X_test = _as_features(X_test, "X_test")
    if X_train.shape[1] != X_test.shape[1]:
        raise KreinbenchError(
            f"train and test have different feature counts ({X_train.shape[1]} vs {X_test.shape[1]})"
        )
    n, m = X_train.shape[0], X_test.shape[0]
    itemsize = np.dtype(params.get("dtype", "float64")).itemsize
    check_memory((n * n + m * n) * itemsize + 2 * BLOCK_ELEMENTS * 8,
                 f"the {params['type']} kernel for {n} training and {m} test points")
    fn = kernel_function(params)
    K_train = fn(X_train)
    if params["type"] == "noisy-rbf":
        add_symmetric_noise(K_train, level=params["noise"], seed=params["seed"])
    return K_train, fn(X_test, X_train)

