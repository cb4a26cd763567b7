import numpy as np
import pytest

import kreinbench.linalg.kernels as kernels_module
from kreinbench import methods
from kreinbench.errors import KreinbenchError
from kreinbench.linalg import eigen
from kreinbench.linalg.eigen import lanczos_extremes
from kreinbench.linalg.spectrum import (
    KINDS,
    compute_spectrum,
    covering_kind,
    eigendecompose,
    positive_decomposition,
    transformed_cross_kernel,
    transformed_kernel,
)
from kreinbench.pipeline import plan


def test_transforms_have_the_transformed_spectrum(tl1_monk2):
    K = tl1_monk2[0]
    spec = eigendecompose(K)
    mu = spec.eigenvalues
    assert mu[0] < 0 < mu[-1], "monk-2 TL1 must be indefinite for this test to mean anything"
    expected = {"flip": np.abs(mu), "clip": np.maximum(mu, 0), "shift": mu - mu.min()}
    for name, target in expected.items():
        got = np.linalg.eigvalsh(transformed_kernel(spec, name))
        np.testing.assert_allclose(got, np.sort(target), atol=1e-9 * np.abs(mu).max())


@pytest.mark.parametrize("block", [7, 512])
def test_transformed_kernel_blocks_agree_with_the_dense_product(tl1_monk2, block):
    """Block boundaries (7 does not divide monk-2's n) leave the product unchanged and exactly symmetric."""
    spec = eigendecompose(tl1_monk2[0])
    V, mu = spec.eigenvectors, spec.eigenvalues
    assert spec.dimension % 7, "the block size must not divide n for this test to cross a ragged edge"
    got = transformed_kernel(spec, "flip", block=block)
    np.testing.assert_array_equal(got, got.T)
    np.testing.assert_allclose(got, (V * np.abs(mu)) @ V.T, rtol=0, atol=1e-12 * np.abs(mu).max())


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


# -- partial spectra, transforms, planning -----------------------------------------------------

@pytest.fixture(scope="module")
def monk2_spectra(tl1_monk2):
    K = tl1_monk2[0]
    return K, {kind: compute_spectrum(K, kind, seed=3) for kind in KINDS}


def test_partial_spectra_agree_with_numpy_eigh(monk2_spectra):
    K, spectra = monk2_spectra
    mu, V = np.linalg.eigh(K)  # independent reference (LAPACK syevd via numpy)
    scale = np.abs(mu).max()
    tol = K.shape[0] * np.finfo(float).eps * scale
    np.testing.assert_allclose(spectra["eigenvalues"].eigenvalues, mu, atol=1e-10 * scale)
    assert spectra["eigenvalues"].eigenvectors is None
    neg = spectra["negative"]
    assert neg.dimension == K.shape[0] and 0 < neg.eigenvalues.size < K.shape[0]
    np.testing.assert_allclose(neg.eigenvalues, mu[mu < -tol], atol=1e-10 * scale)
    # Eigenvectors agree up to a basis of each eigenspace: compare the projectors.
    V_ref = V[:, mu < -tol]
    np.testing.assert_allclose(neg.eigenvectors @ neg.eigenvectors.T, V_ref @ V_ref.T, atol=1e-8)
    lam = spectra["lambda_min"]
    assert lam.eigenvalues.size == 1
    assert lam.eigenvalues[0] == pytest.approx(mu[0], rel=1e-9)
    assert lam.mu_max == pytest.approx(mu[-1], rel=1e-9)
    assert lam.eigenvectors is None


def test_partial_spectra_give_the_full_summary(monk2_spectra):
    _, spectra = monk2_spectra
    full = spectra["full"].summary()
    for kind in ("negative", "eigenvalues"):
        got = spectra[kind].summary()
        assert got["n_negative"] == full["n_negative"]
        assert got["negative_mass"] == pytest.approx(full["negative_mass"], rel=1e-9)
    for kind in KINDS:
        assert spectra[kind].summary()["mu_min"] == pytest.approx(full["mu_min"], rel=1e-9)
        assert spectra[kind].summary()["mu_max"] == pytest.approx(full["mu_max"], rel=1e-9)


def test_negative_spectrum_serves_iklr_like_the_full_one(monk2_spectra):
    """IKLR uses negative_part(), negative_tolerance() and eigenvalues[0]; they must not change."""
    K, spectra = monk2_spectra
    full, neg = spectra["full"], spectra["negative"]
    assert neg.negative_tolerance() == pytest.approx(full.negative_tolerance(), rel=1e-9)
    assert neg.eigenvalues[0] == pytest.approx(full.eigenvalues[0], rel=1e-9)
    tau = -float(full.eigenvalues[0]) + 0.1
    _, Km_full = positive_decomposition(K, full, tau)
    _, Km_neg = positive_decomposition(K, neg, tau)
    np.testing.assert_allclose(Km_neg, Km_full, atol=1e-9)
    restricted = full.restrict("negative")
    np.testing.assert_allclose(restricted.eigenvalues, neg.eigenvalues, rtol=1e-9)


def test_positive_decomposition_is_the_papers(monk2_spectra):
    K, spectra = monk2_spectra
    mu, V = np.linalg.eigh(K)
    tau = -mu[0] + 0.5
    K_plus, K_minus = positive_decomposition(K, spectra["full"], tau)
    # The paper's diagonal forms: K+ = V diag(max(mu,0) + tau) V^T, K- = V diag(tau - min(mu,0)) V^T.
    np.testing.assert_allclose(K_plus, (V * (np.maximum(mu, 0) + tau)) @ V.T, atol=1e-9)
    np.testing.assert_allclose(K_minus, (V * (tau - np.minimum(mu, 0))) @ V.T, atol=1e-9)
    assert np.linalg.eigvalsh(K_minus)[0] >= 0.5 - 1e-9 and np.linalg.eigvalsh(K_plus)[0] >= 0.5 - 1e-9
    with pytest.raises(KreinbenchError, match="tau"):
        positive_decomposition(K, spectra["full"], -mu[0] / 2)


def test_psd_kernel_negative_spectrum_holds_only_mu_min(rbf_heart):
    K = rbf_heart[0]
    neg = compute_spectrum(K, "negative")
    mu = np.linalg.eigvalsh(K)
    assert neg.eigenvalues.size == 1 and neg.eigenvalues[0] == pytest.approx(mu[0], abs=1e-10 * mu[-1])
    assert neg.negative_part()[0].size == 0 and neg.summary()["n_negative"] == 0


def test_lanczos_brackets_the_extreme_eigenvalues(tl1_monk2, load_split):
    """On TL1 kernels of monk-2 (indefinite) and sonar (positive definite): μ_max to round-off, and
    μ_min within the residual bound, which the IKLR shift split subtracts to get τ ≥ −μ_min."""
    sonar = load_split("sonar")
    K_sonar = kernels_module.tl1(sonar.X_train, sonar.X_train, tau=0.7 * sonar.X_train.shape[1])
    assert np.linalg.eigvalsh(tl1_monk2[0])[0] < -5
    for K in (tl1_monk2[0], (K_sonar + K_sonar.T) / 2):
        mu = np.linalg.eigvalsh(K)
        ends = lanczos_extremes(K, seed=0)
        assert ends.converged and ends.steps < K.shape[0]
        assert ends.mu_max == pytest.approx(mu[-1], rel=1e-10)
        # A Ritz value lies above μ_min in exact arithmetic; eigvalsh's own μ_min is off by
        # round-off (4e-15 on sonar on one machine), hence the slack on the upper side only.
        round_off = 64 * np.finfo(float).eps * mu[-1]
        assert ends.mu_min - ends.mu_min_residual <= mu[0] <= ends.mu_min + round_off
        assert ends.mu_min_residual <= 1e-8 * mu[-1]


def test_lanczos_reports_no_convergence_within_too_few_steps(rbf_heart):
    ends = lanczos_extremes(rbf_heart[0], seed=0, max_steps=5)
    assert ends.steps == 5 and not ends.converged


@pytest.mark.parametrize("transform", ["flip", "clip", "shift"])
def test_projected_test_kernel_reproduces_the_transformed_train_kernel(monk2_spectra, transform):
    K, spectra = monk2_spectra
    spec = spectra["full"]
    projected = transformed_cross_kernel(spec, K, transform, "projected")
    mu, V = np.linalg.eigh(K)
    rank = np.abs(mu) > spec.negative_tolerance()
    assert not rank.all(), "monk-2 has duplicate points: K is singular, the null space is exercised"
    # Training rows have no null-space component, so the projection reproduces t(K) on range(K):
    # all of it for flip and clip (t(0) = 0), all but |mu_min| on the null space for shift.
    t = {"flip": np.abs, "clip": lambda m: np.maximum(m, 0), "shift": lambda m: m - m.min()}[transform]
    np.testing.assert_allclose(projected, (V[:, rank] * t(mu)[rank]) @ V[:, rank].T, atol=1e-8)
    if transform != "shift":
        np.testing.assert_allclose(projected, transformed_kernel(spec, transform), atol=1e-8)
    K_cross = K[:7]
    assert transformed_cross_kernel(spec, K_cross, transform, "original") is K_cross


def test_transforms_refuse_partial_spectra_and_bad_modes(monk2_spectra):
    K, spectra = monk2_spectra
    with pytest.raises(KreinbenchError, match="kind full"):
        transformed_kernel(spectra["negative"], "flip")
    with pytest.raises(KreinbenchError, match="mode 'both'"):
        transformed_cross_kernel(spectra["full"], K[:3], "flip", "both")
    with pytest.raises(KreinbenchError, match="negative eigenpairs"):
        spectra["eigenvalues"].negative_part()
    with pytest.raises(KreinbenchError, match="cannot serve"):
        spectra["negative"].restrict("eigenvalues")


@pytest.mark.parametrize("kinds,expected", [
    ([None], None), (["lambda_min"], "lambda_min"), (["negative", "lambda_min"], "negative"),
    (["eigenvalues", None], "eigenvalues"), (["negative", "eigenvalues"], "full"), (["full", "lambda_min"], "full"),
])
def test_covering_kind(kinds, expected):
    assert covering_kind(kinds) == expected


def test_spectrum_too_big_for_memory_is_refused(monkeypatch):
    monkeypatch.setattr(kernels_module, "available_memory", lambda: 1000)
    with pytest.raises(KreinbenchError, match="'full' eigendecomposition of a 20 x 20 kernel"):
        compute_spectrum(np.eye(20), "full")


class _NeedsNegative:
    needs_spectrum = "negative"


class _NeedsEigenvalues:
    needs_spectrum = "eigenvalues"


class _DependsOnParams:
    needs_spectrum = staticmethod(lambda params: "lambda_min" if params.get("cheap") else "full")


class _NeedsNothing:
    needs_spectrum = False


def test_planner_requests_the_cheapest_spectrum_covering_each_kernels_methods(monkeypatch):
    monkeypatch.setattr(methods, "ESTIMATORS", {"Neg": _NeedsNegative, "Eig": _NeedsEigenvalues,
                                                "Dep": _DependsOnParams, "None": _NeedsNothing})
    config = {
        "kernels": {"a": {"type": "tl1"}, "b": {"type": "rbf", "sigma": [1.0, 2.0]}, "c": {"type": "tl1"}},
        "methods": {
            "neg-a": {"estimator": "Neg", "kernel": "a"},
            "cheap-a": {"estimator": "Dep", "kernel": "a", "params": {"cheap": True}},
            "neg-b": {"estimator": "Neg", "kernel": "b"},
            "eig-b": {"estimator": "Eig", "kernel": "b"},
            "none-c": {"estimator": "None", "kernel": "c"},
            "full-c": {"estimator": "Dep", "kernel": "c"},
        },
    }
    assert plan.instance_spectrum_kind(config, "a") == "negative"
    assert plan.instance_spectrum_kind(config, "b-sigma=2") == "full"
    assert plan.instance_spectrum_kind(config, "c") == "full"
    assert "spectra" not in plan.fit_inputs(config, "d", "none-c", 1)
    assert plan.fit_inputs(config, "d", "eig-b", 1)["spectra"] == [
        "results/spectra/d/rep1/b-sigma=1.h5", "results/spectra/d/rep1/b-sigma=2.h5"]
    monkeypatch.setattr(_NeedsNothing, "needs_spectrum", "everything")
    with pytest.raises(KreinbenchError, match="unknown kind 'everything'"):
        plan.method_spectrum_kind(config, "none-c")


def test_iklr_declares_and_accepts_the_partial_spectra(tl1_monk2):
    from kreinbench.methods import IKLR

    K, _, y, _ = tl1_monk2
    assert plan.spectrum_kind(IKLR, {}) == "negative"
    assert plan.spectrum_kind(IKLR, {"split": "shift"}) == "lambda_min"
    for split, kind in (("eigen", "negative"), ("shift", "lambda_min")):
        full = IKLR(lam=1.0, solver="ccicp-gd", split=split).fit(K, y, spectrum=eigendecompose(K))
        partial = IKLR(lam=1.0, solver="ccicp-gd", split=split).fit(K, y, spectrum=compute_spectrum(K, kind))
        np.testing.assert_allclose(partial.alpha_, full.alpha_, rtol=1e-6, atol=1e-9)
        assert partial.tau_ == pytest.approx(full.tau_, rel=1e-9)


def test_a_large_certified_kernel_gets_the_negative_spectrum_without_syevr(rbf_heart, monkeypatch):
    """From CHOLESKY_FIRST_FROM rows on (here lowered to every size) a positive definite kernel's
    'negative' spectrum comes from its Cholesky factor and Lanczos on K⁻¹: the same μ_min pair."""
    K = rbf_heart[0] + 1e-3 * np.eye(rbf_heart[0].shape[0])  # RBF kernels are PD but near-singular
    reference = compute_spectrum(K, "negative")
    monkeypatch.setattr(eigen, "CHOLESKY_FIRST_FROM", 0)
    monkeypatch.setattr(eigen.scipy.linalg, "eigh", lambda *a, **k: pytest.fail("syevr called"))
    certified = compute_spectrum(K, "negative")
    mu = reference.eigenvalues[0]
    assert certified.eigenvalues.shape == (1,) and certified.eigenvalues[0] == pytest.approx(mu, abs=1e-12 * reference.mu_max)
    assert abs(certified.eigenvectors[:, 0] @ reference.eigenvectors[:, 0]) == pytest.approx(1.0, abs=1e-8)
    assert certified.negative_part()[0].size == 0 and certified.mu_max == reference.mu_max
