"""The array API route on a strict namespace (``array_api_strict``): nothing NumPy-only in it, and
the same numbers as the NumPy route (kernels to round-off, the spectral step's eigenvalues and
negative eigenspace to 1e-10)."""

import array_api_strict as xps
import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.linalg import xp_kernels
from kreinbench.linalg.arrays import cholesky_or_none, namespace, to_numpy
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.linalg.xp_spectrum import spectral_step
from kreinbench.methods.iklr.estimator import IKLR

SPECS = [{"type": "tl1", "tau_factor": 0.7}, {"type": "rbf", "sigma": 0.8},
         {"type": "rbf", "sigma": 0.8, "convention": "dank"}, {"type": "sigmoid"},
         {"type": "dog", "a2": 0.5, "sigma1_factor": 0.3, "sigma2_factor": 0.2}]


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    return rng.uniform(size=(300, 7)), rng.uniform(size=(50, 7))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s["type"] + s.get("convention", ""))
def test_kernels_on_a_strict_namespace_are_the_numpy_kernels(rows, spec):
    X, Y = rows
    params = resolve_params(spec, X.shape[1])
    K, K_cross = kernel_matrices(params, X, Y)
    K_xp = xp_kernels.kernel(params, xps.asarray(X))
    assert namespace(K_xp) is xps
    K_xp, K_cross_xp = to_numpy(K_xp), to_numpy(xp_kernels.kernel(params, xps.asarray(Y), xps.asarray(X)))
    # TL1 and sigmoid take the same operations in the same order; the Gaussians' Gram form rounds
    # differently from cdist's differences (module docstring): about ε·(‖x‖² + ‖y‖²).
    np.testing.assert_allclose(K_xp, K, rtol=0, atol=1e-14)
    np.testing.assert_allclose(K_cross_xp, K_cross, rtol=0, atol=1e-14)
    assert np.array_equal(K_xp, K_xp.T)


def test_the_array_route_refuses_what_it_lacks_by_name(rows):
    X, _ = rows
    with pytest.raises(KreinbenchError, match="'log-euclidean' has no array API route"):
        xp_kernels.kernel({"type": "log-euclidean", "sigma": 1.0}, xps.asarray(X))
    with pytest.raises(KreinbenchError, match="different libraries"):
        xp_kernels.kernel(resolve_params(SPECS[0], 7), xps.asarray(X), X)


def test_a_cholesky_certificate_only_for_a_positive_definite_matrix():
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    L = cholesky_or_none(xps, xps.asarray(A))
    np.testing.assert_allclose(to_numpy(L) @ to_numpy(L).T, A, rtol=1e-15)
    assert cholesky_or_none(xps, xps.asarray([[1.0, 2.0], [2.0, 1.0]])) is None
    assert cholesky_or_none(xps, xps.asarray([[1.0, 0.0], [0.0, float("nan")]])) is None


@pytest.mark.parametrize("split", ["eigen", "shift"])
@pytest.mark.parametrize("spec, definite", [(SPECS[0], False), (SPECS[4], False), (SPECS[1], True)],
                         ids=["tl1", "dog", "rbf"])
def test_the_spectral_step_is_the_numpy_routes(rows, spec, definite, split):
    """μ_min (0 where certified positive definite, on both routes), μ_max and K₋'s negative part
    (the projector onto the negative eigenspace, weighted by |μ|, which is sign- and basis-free)."""
    X, _ = rows
    K, _ = kernel_matrices(resolve_params(spec, X.shape[1]), X, X[:1])
    if definite:
        K = K + 1e-3 * np.eye(K.shape[0])  # a Gaussian kernel's tail is below round-off: make it certifiably PD
    reference = IKLR._spectral_step(K, split, None)
    ours = spectral_step(xps.asarray(K), split)
    assert (ours.path == "cholesky") == definite == (reference.path == "cholesky")
    if split == "shift" and not definite:
        # The NumPy route's Lanczos lowers μ_min by its residual bound (τ ≥ −μ_min stays safe); this
        # route's eigvalsh gives μ_min itself.
        assert reference.path == "lanczos" and reference.mu_min <= ours.mu_min
        assert ours.mu_min == pytest.approx(np.linalg.eigvalsh(K)[0], rel=1e-10)
    else:
        assert ours.mu_min == pytest.approx(reference.mu_min, rel=1e-10, abs=1e-10 * reference.mu_max)
    assert ours.mu_max == pytest.approx(reference.mu_max, rel=1e-10)
    mu_neg, V_neg = to_numpy(ours.mu_neg), to_numpy(ours.V_neg)
    assert mu_neg.shape == reference.mu_neg.shape and V_neg.shape == reference.V_neg.shape
    if split == "eigen" and not definite:
        assert mu_neg.size > 0
        np.testing.assert_allclose(mu_neg, reference.mu_neg, rtol=1e-10, atol=1e-10 * reference.mu_max)
        np.testing.assert_allclose((V_neg * mu_neg) @ V_neg.T, (reference.V_neg * reference.mu_neg) @ reference.V_neg.T,
                                   rtol=0, atol=1e-10 * reference.mu_max)
