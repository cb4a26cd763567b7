"""Region covariance descriptors and the SPD-manifold kernels, against per-pixel and per-pair loops."""

import numpy as np
import pytest
import scipy.linalg
from sklearn.datasets import load_digits

from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import get_dataset
from kreinbench.data.split import split_dataset
from kreinbench.errors import KreinbenchError
from kreinbench.linalg import spd
from kreinbench.linalg.kernels import kernel_matrices, resolve_params, spd_kernel


@pytest.fixture(scope="module")
def digits():
    """scikit-learn's bundled 8 x 8 digits (offline), a seeded subset, rows = flattened images."""
    X, y = load_digits(return_X_y=True)
    idx = np.random.default_rng(0).choice(len(X), size=300, replace=False)
    return X[idx], y[idx]


def loop_features(image):
    """Per-pixel feature vectors by explicit loops with the filters [-1, 0, 1] and [-1, 2, -1]."""
    h, w = image.shape
    rows = []
    for yy in range(h):
        for xx in range(w):
            at = lambda r, c: image[min(max(r, 0), h - 1), min(max(c, 0), w - 1)]  # noqa: E731 (edge replicate)
            gx = at(yy, xx + 1) - at(yy, xx - 1)
            gy = at(yy + 1, xx) - at(yy - 1, xx)
            gxx = at(yy, xx + 1) - 2 * at(yy, xx) + at(yy, xx - 1)
            gyy = at(yy + 1, xx) - 2 * at(yy, xx) + at(yy - 1, xx)
            angle = np.arctan(abs(gx) / abs(gy)) if gy != 0 else (np.pi / 2 if gx != 0 else 0.0)
            rows.append([xx, yy, image[yy, xx], abs(gx), abs(gy), np.sqrt(gx**2 + gy**2), abs(gxx), abs(gyy), angle])
    return np.array(rows)


def test_descriptors_match_per_pixel_loop_and_numpy_cov():
    # A non-square image with a zero-gradient pixel catches x/y swaps and the arctan edge cases.
    images = np.random.default_rng(1).uniform(size=(3, 5, 7))
    images[0, 2, 3:6] = images[0, 2, 3]
    S = spd.region_covariances(images, ridge=0.0)
    for image, S_i in zip(images, S):
        np.testing.assert_allclose(spd.pixel_features(image[None])[0], loop_features(image), atol=1e-12)
        np.testing.assert_allclose(S_i, np.cov(loop_features(image), rowvar=False), atol=1e-12)


def test_ridge_is_relative_to_the_trace():
    images = np.random.default_rng(2).uniform(size=(2, 6, 6))
    S0 = spd.region_covariances(images, ridge=0.0)
    S1 = spd.region_covariances(images, ridge=0.01)
    for a, b in zip(S0, S1):
        np.testing.assert_allclose(b - a, 0.01 * np.trace(a) / 9 * np.eye(9), atol=1e-12)


def pair_kernel(kind, S1, S2, sigma):
    """k(S1, S2) = exp(-d^2 / sigma^2) with d from scipy's general-purpose logm and sqrtm."""
    if kind == "log-euclidean":
        D = scipy.linalg.logm(S1) - scipy.linalg.logm(S2)
    else:
        A = np.linalg.inv(scipy.linalg.sqrtm(S1))
        D = scipy.linalg.logm(A @ S2 @ A)
    return np.exp(-np.linalg.norm(D, "fro") ** 2 / sigma**2)


def loop_kernel(kind, images, sigma):
    S = spd.region_covariances(images)
    return np.array([[pair_kernel(kind, S_i, S_j, sigma) for S_j in S] for S_i in S])


# scipy's logm reports its (tiny, ~1e-12) error estimate as a warning.
@pytest.mark.filterwarnings("ignore:logm result may be inaccurate:RuntimeWarning")
@pytest.mark.parametrize("kind", spd.SPD_KERNELS)
def test_spd_kernels_match_scipy_logm_per_pair(digits, kind):
    X = digits[0][:12]
    K = spd_kernel(kind, X, sigma=3.0, shape=(8, 8))
    np.testing.assert_allclose(K, loop_kernel(kind, X.reshape(-1, 8, 8), 3.0), rtol=1e-7, atol=1e-12)
    assert np.array_equal(K, K.T)


def test_affine_invariant_distance_identities():
    rng = np.random.default_rng(3)
    B = rng.normal(size=(4, 9, 9))
    S = B @ np.swapaxes(B, 1, 2) + 0.5 * np.eye(9)
    d = spd.affine_invariant_sqdist(spd.spd_inv_sqrt(S), S)
    np.testing.assert_allclose(np.diag(d), 0, atol=1e-10)
    np.testing.assert_allclose(d, d.T, rtol=1e-8)
    # Invariant under any congruence S -> G S G^T ...
    G = rng.normal(size=(9, 9))
    T = G @ S @ G.T
    np.testing.assert_allclose(spd.affine_invariant_sqdist(spd.spd_inv_sqrt(T), T), d, rtol=1e-6, atol=1e-10)
    # ... and equal to the Log-Euclidean distance for commuting (diagonal) matrices.
    D = np.stack([np.diag(v) for v in rng.uniform(0.1, 5, size=(4, 9))])
    L = spd.spd_log(D).reshape(4, -1)
    le = ((L[:, None] - L[None]) ** 2).sum(-1)
    np.testing.assert_allclose(spd.affine_invariant_sqdist(spd.spd_inv_sqrt(D), D), le, rtol=1e-10, atol=1e-12)


def test_on_digits_log_euclidean_is_psd_and_affine_invariant_is_not(digits):
    """TNNLS Table I: the Log-Euclidean Gaussian kernel is PD, the Affine-Invariant one indefinite."""
    X, _ = digits
    le = np.linalg.eigvalsh(spd_kernel("log-euclidean", X, sigma=10.0, shape=(8, 8)))
    ai = np.linalg.eigvalsh(spd_kernel("affine-invariant", X, sigma=10.0, shape=(8, 8)))
    tol = len(X) * np.finfo(float).eps * max(le[-1], ai[-1])
    assert le[0] > -tol
    assert ai[0] < -1e6 * tol


def test_pipeline_params_and_cross_kernel(digits):
    X, _ = digits
    params = resolve_params({"type": "affine-invariant", "sigma": 2.0}, 64)
    assert params["image_shape"] == [8, 8] and params["ridge"] == spd.DEFAULT_RIDGE
    K, K_cross = kernel_matrices(params, X[:40], X[40:50])
    np.testing.assert_allclose(K_cross, spd_kernel("affine-invariant", X[40:50], X[:40], sigma=2.0, shape=(8, 8)))
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-12)


@pytest.mark.parametrize("spec,n_features,message", [
    ({"type": "log-euclidean", "sigma": 1.0}, 60, "image_shape is needed"),
    ({"type": "log-euclidean", "sigma": 1.0, "image_shape": [6, 9]}, 60, "has 54 pixels"),
])
def test_bad_image_shapes_are_named(spec, n_features, message):
    with pytest.raises(KreinbenchError, match=message):
        resolve_params(spec, n_features)


def test_flat_image_without_ridge_is_refused():
    with pytest.raises(KreinbenchError, match="not positive definite.*ridge"):
        spd_kernel("affine-invariant", np.zeros((2, 16)), sigma=1.0, shape=(4, 4), ridge=0.0)


# --- the registry's digits-3v8 through the pipeline's stages ---------------------------------

@pytest.fixture(scope="module")
def digits_3v8_split(tmp_path_factory):
    """fetch -> parse -> split of the registry entry, as the `split` stage runs them (offline)."""
    spec = get_dataset("digits-3v8")
    raw = tmp_path_factory.mktemp("digits-3v8")
    manifest = fetch_dataset(spec, raw / "manifest.json")
    data = parse_dataset(spec, raw, [f["file"] for f in manifest["files"]])
    return split_dataset(data, spec.split, dataset="digits-3v8", rep=1, base_seed=0)


def stage_kernels(split, kind, sigma):
    params = resolve_params({"type": kind, "sigma": sigma, "image_shape": [8, 8]}, split.X_train.shape[1])
    return kernel_matrices(params, split.X_train, split.X_test)


def descriptor(row, ridge=spd.DEFAULT_RIDGE):
    """Region covariance of one flattened 8 x 8 image from the per-pixel loop and np.cov."""
    C = np.cov(loop_features(row.reshape(8, 8)), rowvar=False)
    return C + ridge * np.trace(C) / 9 * np.eye(9)


# sigma = 10: the Affine-Invariant kernel's negative eigenvalues are ~3e-5 of its largest (its
# lambda_min is ~ -5e-3), where the Log-Euclidean one at the same sigma stays positive definite.
SIGMA = 10.0


def test_on_real_digits_log_euclidean_is_psd_and_affine_invariant_indefinite(digits_3v8_split):
    assert digits_3v8_split.attrs["scaling"] == "none" and digits_3v8_split.X_train.max() == 16
    le = np.linalg.eigvalsh(stage_kernels(digits_3v8_split, "log-euclidean", SIGMA)[0])
    ai = np.linalg.eigvalsh(stage_kernels(digits_3v8_split, "affine-invariant", SIGMA)[0])
    assert le[0] >= -1e-8 * le[-1]
    assert ai[0] < -1e-6 * ai[-1]


@pytest.mark.filterwarnings("ignore:logm result may be inaccurate:RuntimeWarning")
@pytest.mark.parametrize("kind", spd.SPD_KERNELS)
def test_stage_kernels_on_digits_match_direct_per_pair_values(digits_3v8_split, kind):
    split = digits_3v8_split
    K, K_test = stage_kernels(split, kind, SIGMA)
    for i, j in [(0, 1), (5, 77), (120, 3), (42, 42)]:
        S_i = descriptor(split.X_train[i])
        assert abs(K[i, j] - pair_kernel(kind, S_i, descriptor(split.X_train[j]), SIGMA)) < 1e-8
        # The cross-kernel's rows are test points, its columns training points.
        assert abs(K_test[j, i] - pair_kernel(kind, descriptor(split.X_test[j]), S_i, SIGMA)) < 1e-8
