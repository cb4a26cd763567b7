import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.spectrum import eigendecompose, transformed_kernel


def test_transforms_have_the_transformed_spectrum(tl1_monk2):
    K = tl1_monk2[0]
    spec = eigendecompose(K)
    mu = spec.eigenvalues
    assert mu[0] < 0 < mu[-1], "monk-2 TL1 must be indefinite for this test to mean anything"
    expected = {"flip": np.abs(mu), "clip": np.maximum(mu, 0), "shift": mu - mu.min()}
    for name, target in expected.items():
        got = np.linalg.eigvalsh(transformed_kernel(spec, name))
        np.testing.assert_allclose(got, np.sort(target), atol=1e-9 * np.abs(mu).max())


def test_summary_counts_negative_eigenvalues(tl1_monk2):
    spec = eigendecompose(tl1_monk2[0])
    summary = spec.summary()
    assert summary["n_negative"] == int(np.sum(spec.eigenvalues < -spec.negative_tolerance()))
    assert 0 < summary["negative_mass"] < 1
    assert summary["mu_min"] == spec.eigenvalues.min()


@pytest.mark.parametrize("K,message", [
    (np.zeros((3, 4)), "square"),
    (np.array([[1.0, 2.0], [0.0, 1.0]]), "not symmetric"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
])
def test_bad_kernels_are_rejected(K, message):
    with pytest.raises(KreinbenchError, match=message):
        eigendecompose(K)
