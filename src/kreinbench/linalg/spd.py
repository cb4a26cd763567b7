"""Region covariance descriptors of images and Gaussian kernels on the SPD manifold (IKLR TNNLS §V-C).

Each image I (h x w) becomes the 9 x 9 covariance, over its pixels, of the feature vector
[x, y, I, |Gx|, |Gy|, √(Gx² + Gy²), |Gxx|, |Gyy|, arctan(|Gx|/|Gy|)] (Tuzel et al.'s descriptor as
listed in the paper), with the derivative filters of Tuzel et al.: [−1, 0, 1] for Gx, Gy and
[−1, 2, −1] for Gxx, Gyy, edges replicated.  arctan(|Gx|/|Gy|) is computed as arctan2(|Gx|, |Gy|),
which equals it where |Gy| > 0 and gives π/2 for |Gy| = 0 < |Gx| and 0 on flat pixels.  A ridge
``ridge · tr(C)/9 · I`` keeps descriptors of flat images positive definite.

Kernels (Table I of the paper, k = exp(−d²/σ²)):

- Log-Euclidean: d = ‖log S₁ − log S₂‖_F (positive definite: the metric is flat);
- Affine-Invariant: d = ‖log(S₁^{-1/2} S₂ S₁^{-1/2})‖_F = (Σᵢ log² λᵢ)^{1/2}, λᵢ the eigenvalues of
  S₁^{-1/2} S₂ S₁^{-1/2} (indefinite in general).
"""

from __future__ import annotations

import math

import numpy as np

from kreinbench.errors import KreinbenchError

SPD_KERNELS = ("log-euclidean", "affine-invariant")
N_DESCRIPTOR_FEATURES = 9
DEFAULT_RIDGE = 1e-6


def image_shape(shape, n_features: int) -> tuple[int, int]:
    """(h, w) of images stored as rows of ``n_features`` pixels; None means square."""
    if shape is None:
        side = math.isqrt(n_features)
        if side * side != n_features:
            raise KreinbenchError(
                f"kernel parameter image_shape is needed: {n_features} features are not a square image"
            )
        return side, side
    h, w = (int(v) for v in shape)
    if h * w != n_features:
        raise KreinbenchError(f"kernel parameter image_shape={[h, w]} has {h * w} pixels, the data has {n_features} features")
    return h, w


def _first_derivative(I: np.ndarray, axis: int) -> np.ndarray:
    pad = [(0, 0)] * I.ndim
    pad[axis] = (1, 1)
    P = np.pad(I, pad, mode="edge")
    n = I.shape[axis]
    return P.take(range(2, n + 2), axis=axis) - P.take(range(0, n), axis=axis)


def _second_derivative(I: np.ndarray, axis: int) -> np.ndarray:
    pad = [(0, 0)] * I.ndim
    pad[axis] = (1, 1)
    P = np.pad(I, pad, mode="edge")
    n = I.shape[axis]
    return 2.0 * I - P.take(range(2, n + 2), axis=axis) - P.take(range(0, n), axis=axis)


# Float64 elements of one chunk of per-pixel features (64 MB).
CHUNK_ELEMENTS = 1 << 23


def pixel_features(images: np.ndarray) -> np.ndarray:
    """The (N, h·w, 9) per-pixel feature vectors of a stack of images (N, h, w)."""
    images = np.asarray(images, dtype=np.float64)
    N, h, w = images.shape
    # Axis 2 runs along x (columns), axis 1 along y (rows).
    gx, gy = _first_derivative(images, 2), _first_derivative(images, 1)
    gxx, gyy = _second_derivative(images, 2), _second_derivative(images, 1)
    y, x = np.meshgrid(np.arange(h, dtype=float), np.arange(w, dtype=float), indexing="ij")
    ax, ay = np.abs(gx), np.abs(gy)
    features = [np.broadcast_to(x, images.shape), np.broadcast_to(y, images.shape), images, ax, ay,
                np.hypot(gx, gy), np.abs(gxx), np.abs(gyy), np.arctan2(ax, ay)]
    return np.stack(features, axis=-1).reshape(N, h * w, N_DESCRIPTOR_FEATURES)


def region_covariances(images: np.ndarray, *, ridge: float = DEFAULT_RIDGE) -> np.ndarray:
    """The (N, 9, 9) covariance descriptors (unbiased, 1/(h·w − 1)) plus ``ridge · tr(C)/9 · I``."""
    if ridge < 0:
        raise KreinbenchError(f"kernel parameter ridge must be >= 0, got {ridge!r}")
    images = np.asarray(images)
    N, h, w = images.shape
    C = np.empty((N, N_DESCRIPTOR_FEATURES, N_DESCRIPTOR_FEATURES))
    # The per-pixel features take 9·h·w floats per image (2.3 MB for a 192 × 168 face), so large
    # image sets are processed in chunks of bounded memory.
    chunk = max(1, CHUNK_ELEMENTS // (N_DESCRIPTOR_FEATURES * h * w))
    for start in range(0, N, chunk):
        Z = pixel_features(images[start:start + chunk])
        Z -= Z.mean(axis=1, keepdims=True)
        C[start:start + chunk] = np.einsum("npi,npj->nij", Z, Z) / (h * w - 1)
    trace = np.trace(C, axis1=1, axis2=2)
    C += (ridge * trace / N_DESCRIPTOR_FEATURES)[:, None, None] * np.eye(N_DESCRIPTOR_FEATURES)
    return C


def _eig_function(S: np.ndarray, fn) -> np.ndarray:
    """U diag(fn(w)) Uᵀ for a stack of SPD matrices, refusing non-positive-definite ones."""
    w, U = np.linalg.eigh(S)
    if np.any(w <= 0):
        bad = int(np.argmax(np.any(w <= 0, axis=1)))
        raise KreinbenchError(
            f"covariance descriptor {bad} is not positive definite (smallest eigenvalue {w[bad, 0]:.3g}); "
            "increase kernel parameter ridge"
        )
    return (U * fn(w)[:, None, :]) @ np.swapaxes(U, 1, 2)


def spd_log(S: np.ndarray) -> np.ndarray:
    """Matrix logarithm of a stack of SPD matrices."""
    return _eig_function(S, np.log)


def spd_inv_sqrt(S: np.ndarray) -> np.ndarray:
    """S^{-1/2} of a stack of SPD matrices."""
    return _eig_function(S, lambda w: 1.0 / np.sqrt(w))


def affine_invariant_sqdist(A_inv_sqrt: np.ndarray, S: np.ndarray) -> np.ndarray:
    """‖log(Aᵢ Sⱼ Aᵢ)‖²_F for every pair (i, j), Aᵢ = S₁ᵢ^{-1/2}: an (len(A), len(S)) matrix."""
    M = A_inv_sqrt[:, None] @ S[None] @ A_inv_sqrt[:, None]
    lam = np.linalg.eigvalsh(M)
    return np.sum(np.log(lam) ** 2, axis=-1)

