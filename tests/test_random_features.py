"""Signed random features of the difference-of-Gaussians kernel (kreinbench.linalg.random_features), and IKLR
and the spectrum baselines on them (kreinbench.methods.iklr.random_features), each step against an
independent computation."""

import warnings

import numpy as np
import pytest
import scipy.integrate
import scipy.interpolate
import scipy.optimize
import scipy.special
import scipy.stats
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.exceptions import NotFittedError

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.implicit_kernel import ImplicitKernel
from kreinbench.linalg.kernels import dog, resolve_params
from kreinbench.linalg.random_features import (
    DoGSpectrum,
    SignedRandomFeatures,
    orthogonal_directions,
)
from kreinbench.methods import IKLR, SpectrumKLR
from kreinbench.methods.base import RunawayWarning
from kreinbench.methods.iklr.features import KreinLogisticRegression
from kreinbench.methods.iklr.random_features import RandomFeaturesIKLR, RandomFeaturesSpectrumKLR, krein_eigenbasis

# σ₂ > σ₁: negative frequencies in a ball around 0; σ₂ < σ₁: outside a ball; strongly overlapping Gaussians.
WIDER_SECOND = dict(a1=1.0, sigma1=1.0, a2=0.5, sigma2=2.0)
NARROWER_SECOND = dict(a1=1.0, sigma1=2.0, a2=0.5, sigma2=1.0)
OVERLAPPING = dict(a1=1.0, sigma1=1.0, a2=0.8, sigma2=1.2)


def radius_density(r, sigma, d):
    """Density of ‖ω‖ for ω ~ N(0, σ⁻²I_d): σ·χ_d(σr), written out (not scipy's or the module's)."""
    x = sigma * np.asarray(r, dtype=float)
    log_chi = ((d - 1) * np.log(np.maximum(x, 1e-300)) - x**2 / 2
               - (d / 2 - 1) * np.log(2) - scipy.special.gammaln(d / 2))
    return sigma * np.exp(log_chi)


def signed_radius_density(r, kernel, d):
    """The radial density of p = a₁φ₁ − a₂φ₂ (its integral over r ≥ 0 is k(0) = a₁ − a₂)."""
    return (kernel["a1"] * radius_density(r, kernel["sigma1"], d)
            - kernel["a2"] * radius_density(r, kernel["sigma2"], d))


def sign_changes(kernel, d):
    """Where the radial density changes sign, by bracketing on a grid and brentq."""
    grid = np.linspace(1e-6, 20.0, 4001)
    values = signed_radius_density(grid, kernel, d)
    changes = np.flatnonzero(np.sign(values[:-1]) != np.sign(values[1:]))
    return [scipy.optimize.brentq(signed_radius_density, grid[i], grid[i + 1], args=(kernel, d)) for i in changes]


def part_density(kernel, d, sign):
    return lambda r: np.maximum(sign * signed_radius_density(r, kernel, d), 0.0)


def quad_mass(kernel, d, sign):
    """∫ max(±p, 0) by quad in the radius, split where p changes sign."""
    edges = [0.0, *sign_changes(kernel, d), np.inf]
    return sum(scipy.integrate.quad(part_density(kernel, d, sign), lo, hi, limit=200)[0]
               for lo, hi in zip(edges[:-1], edges[1:]))


def radial_cdf(kernel, d, sign, r_max):
    """The CDF of ‖ω‖ under p₊/m₊ or p₋/m₋ on [0, r_max], by quad on a grid and a monotone interpolant."""
    density = part_density(kernel, d, sign)
    grid = np.union1d(np.linspace(0.0, r_max, 300), sign_changes(kernel, d))
    pieces = [scipy.integrate.quad(density, lo, hi)[0] for lo, hi in zip(grid[:-1], grid[1:])]
    cumulative = np.concatenate([[0.0], np.cumsum(pieces)]) / quad_mass(kernel, d, sign)
    return scipy.interpolate.PchipInterpolator(grid, cumulative)


def radial_quadrature(kernel, d, sign, nodes=100):
    """Nodes r and weights w with Σ w f(r) = E f(‖ω‖) under p₊/m₊ or p₋/m₋: Gauss–Legendre on each piece
    between the sign changes, up to 12/min(σ₁, σ₂) (beyond it both Gaussians' radial densities are
    below 1e-25)."""
    edges = [0.0, *sign_changes(kernel, d), 12 / min(kernel["sigma1"], kernel["sigma2"])]
    x, w = np.polynomial.legendre.leggauss(nodes)
    r = np.concatenate([(hi - lo) / 2 * x + (hi + lo) / 2 for lo, hi in zip(edges[:-1], edges[1:])])
    weights = np.concatenate([(hi - lo) / 2 * w for lo, hi in zip(edges[:-1], edges[1:])])
    weights = weights * part_density(kernel, d, sign)(r)
    return r, weights / quad_mass(kernel, d, sign)


def uniform_direction_cf(s, d):
    """E cos(s·u₁) for u uniform on the sphere of R^d: Γ(d/2)(2/s)^(d/2−1) J_(d/2−1)(s) (1 at s = 0)."""
    s = np.asarray(s, dtype=float)
    safe = np.where(s > 0, s, 1.0)
    value = scipy.special.gamma(d / 2) * (2 / safe) ** (d / 2 - 1) * scipy.special.jv(d / 2 - 1, safe)
    return np.where(s > 0, value, 1.0)


def log_gaussian(omega, sigma):
    """log of the N(0, σ⁻²I_d) density at the rows of omega."""
    d = omega.shape[1]
    return d / 2 * np.log(sigma**2 / (2 * np.pi)) - sigma**2 * np.sum(omega**2, axis=1) / 2


# -- the kernel ------------------------------------------------------------------------------------

def test_the_kernel_is_the_difference_of_two_gaussians_and_exactly_symmetric():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    expected = np.exp(-d2 / 2) - 0.5 * np.exp(-d2 / 8)
    np.testing.assert_allclose(dog(X, Y, **WIDER_SECOND), expected, rtol=1e-12, atol=1e-15)
    K = dog(X, **WIDER_SECOND)
    assert np.array_equal(K, K.T) and np.allclose(np.diag(K), 0.5)


@pytest.mark.parametrize("kernel, d, negative_mass, indefinite_sample", [
    (WIDER_SECOND, 1, False, False),  # a₂σ₂^d = 1 ≤ a₁σ₁^d: positive definite on the line
    (WIDER_SECOND, 3, True, True),  # a₂σ₂^d = 4 > 1: indefinite, and the sample shows it
    (NARROWER_SECOND, 2, True, True),  # σ₂ < σ₁: a negative tail at high frequencies, in every d
    (dict(a1=1.0, sigma1=1.0, a2=0.1, sigma2=2.0), 3, False, False),  # a₂σ₂^d = 0.8 ≤ 1
    # a₂σ₂^d = 3.2 > 1: indefinite on R⁵, but its negative mass (0.01) sits at frequencies below what 200
    # standard normal points resolve, and their kernel matrix is positive semi-definite
    (dict(a1=1.0, sigma1=1.0, a2=0.1, sigma2=2.0), 5, True, False),
])
def test_the_spectral_measure_says_where_the_kernel_is_definite(kernel, d, negative_mass, indefinite_sample):
    m_plus, m_minus = DoGSpectrum(dim=d, **kernel).masses()
    assert (m_minus > 0) == negative_mass
    mu = np.linalg.eigvalsh(dog(np.random.default_rng(0).normal(size=(200, d)), **kernel))
    assert (mu[0] < -1e-3 * mu[-1]) == indefinite_sample
    if not negative_mass:
        assert mu[0] > -1e-10 * mu[-1]


# -- 1. the masses ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kernel", [WIDER_SECOND, NARROWER_SECOND, OVERLAPPING])
@pytest.mark.parametrize("d", [1, 3, 5])
def test_the_masses_are_the_jordan_parts_by_quad_and_by_monte_carlo(kernel, d):
    m_plus, m_minus = DoGSpectrum(dim=d, **kernel).masses()
    assert m_plus - m_minus == pytest.approx(kernel["a1"] - kernel["a2"], abs=1e-12)
    assert m_plus == pytest.approx(quad_mass(kernel, d, +1), rel=1e-7)
    assert m_minus == pytest.approx(quad_mass(kernel, d, -1), rel=1e-7, abs=1e-10)
    # m₊ = a₁ E_{φ₁} max(1 − a₂φ₂/(a₁φ₁), 0), with the densities evaluated in d dimensions
    omega = np.random.default_rng(d).normal(size=(200_000, d)) / kernel["sigma1"]
    ratio = kernel["a2"] / kernel["a1"] * np.exp(log_gaussian(omega, kernel["sigma2"])
                                                 - log_gaussian(omega, kernel["sigma1"]))
    draws = kernel["a1"] * np.maximum(1 - ratio, 0)
    assert abs(draws.mean() - m_plus) < 4 * draws.std() / np.sqrt(draws.size)


@pytest.mark.parametrize("kernel, d, masses", [
    (dict(a1=1.5, sigma1=1.0, a2=0.0, sigma2=2.0), 3, (1.5, 0.0)),  # one Gaussian
    (dict(a1=1.0, sigma1=1.0, a2=0.1, sigma2=2.0), 2, (0.9, 0.0)),  # positive definite: p ≥ 0
    (dict(a1=1.0, sigma1=2.0, a2=3.0, sigma2=1.0), 1, (0.0, 2.0)),  # negative definite: p ≤ 0
])
def test_a_definite_combination_has_one_part(kernel, d, masses):
    assert DoGSpectrum(dim=d, **kernel).masses() == pytest.approx(masses, abs=1e-15)
    features = SignedRandomFeatures(**kernel, n_components=10, random_state=0).fit(np.zeros((1, d)))
    assert set(features.signature_) == {1.0 if masses[0] else -1.0}


# -- 2. the samples --------------------------------------------------------------------------------

@pytest.mark.parametrize("kernel", [WIDER_SECOND, NARROWER_SECOND])
@pytest.mark.parametrize("sign", [+1, -1])
def test_accepted_radii_follow_the_part_of_the_measure(kernel, sign):
    """Kolmogorov–Smirnov against the radial CDF of p₊/m₊ or p₋/m₋ by quad; the proposal's own radii
    (φ₁ or φ₂, before rejection) fail the same test, so it has the power to tell."""
    d = 3
    spectrum = DoGSpectrum(dim=d, **kernel)
    radii = spectrum.sample_radii(np.random.default_rng(1), 20_000, sign)
    cdf = radial_cdf(kernel, d, sign, 1.05 * radii.max())
    assert scipy.stats.kstest(radii, cdf).pvalue > 1e-3
    sigma = kernel["sigma1"] if sign > 0 else kernel["sigma2"]
    proposals = np.sqrt(np.random.default_rng(2).chisquare(d, 20_000)) / sigma
    assert scipy.stats.kstest(proposals, cdf).pvalue < 1e-10


def test_frequencies_are_isotropic_with_the_sampled_radii():
    spectrum = DoGSpectrum(dim=3, **WIDER_SECOND)
    omega = spectrum.sample(np.random.default_rng(0), 20_000, +1)
    radii = spectrum.sample_radii(np.random.default_rng(0), 20_000, +1)
    np.testing.assert_allclose(np.linalg.norm(omega, axis=1), radii, rtol=1e-12)  # same stream, same radii
    directions = omega / radii[:, None]
    assert np.abs(directions.mean(0)).max() < 0.03
    np.testing.assert_allclose(directions.T @ directions / len(omega), np.eye(3) / 3, atol=0.015)


# -- 3. unbiasedness and rate ----------------------------------------------------------------------

@pytest.mark.parametrize("decomposition, D, sampling", [
    ("jordan", 16, "iid"), ("naive", 16, "iid"), ("jordan", 1, "iid"),
    ("jordan", 16, "orthogonal"), ("naive", 16, "orthogonal"), ("jordan", 1, "orthogonal"),
])
def test_the_estimate_is_unbiased(decomposition, D, sampling):
    """The mean of Φ S Φᵀ over 3000 seeds against the kernel, entry by entry in standard errors; with two
    or more frequencies the diagonal is exact (m₊ − m₋ = k(0)) in every draw.  D = 1: the one frequency's
    part is drawn, and weighted by the total variation.  Orthogonal blocks (d = 3, each part's last block
    truncated at D = 16) couple the frequencies but leave each one's law, hence the mean, unchanged."""
    X = np.random.default_rng(0).normal(size=(8, 3))
    K = dog(X, **WIDER_SECOND)
    draws = np.array([SignedRandomFeatures(**WIDER_SECOND, n_components=D, decomposition=decomposition,
                                           sampling=sampling, random_state=seed).fit(X).approximate_kernel(X)
                      for seed in range(3000)])
    if D > 1:
        np.testing.assert_allclose(draws[:, np.arange(8), np.arange(8)], 0.5, rtol=1e-12)
    upper = np.triu_indices(8, 1)
    z = (draws.mean(0) - K)[upper] / (draws.std(0)[upper] / np.sqrt(len(draws)))
    assert np.abs(z).max() < 4.5


def test_the_error_falls_as_one_over_the_square_root_of_d():
    X = np.random.default_rng(0).normal(size=(60, 3))
    K = dog(X, **WIDER_SECOND)
    Ds = 2 ** np.arange(6, 13)  # 64 … 4096
    errors = [np.mean([np.linalg.norm(SignedRandomFeatures(**WIDER_SECOND, n_components=int(D), random_state=seed)
                                      .fit(X).approximate_kernel(X) - K) for seed in range(4)]) for D in Ds]
    slope = np.polyfit(np.log(Ds), np.log(errors), 1)[0]
    assert -0.65 <= slope <= -0.35


# -- 4. Jordan against naive -----------------------------------------------------------------------

def test_the_jordan_decomposition_has_less_variance_than_the_naive_split():
    """Two strongly overlapping Gaussians: total variation 0.30 (Jordan) against a₁ + a₂ = 1.8 (naive).
    Both unbiased; Jordan's variance far lower and within the bound (m₊ + m₋)²/D."""
    X = np.array([[0.0, 0.0, 0.0], [0.8, 0.3, -0.4]])
    exact = dog(X, **OVERLAPPING)[0, 1]
    D, seeds = 32, 2000
    estimates = {}
    for decomposition in ("jordan", "naive"):
        values = np.array([SignedRandomFeatures(**OVERLAPPING, n_components=D, decomposition=decomposition,
                                                random_state=seed).fit(X).approximate_kernel(X)[0, 1]
                           for seed in range(seeds)])
        assert abs(values.mean() - exact) < 4 * values.std() / np.sqrt(seeds)
        estimates[decomposition] = values
    total_variation = sum(DoGSpectrum(dim=3, **OVERLAPPING).masses())
    assert total_variation == pytest.approx(0.3008, abs=1e-4)
    assert estimates["jordan"].var() < 0.1 * estimates["naive"].var()
    assert estimates["jordan"].var() <= total_variation**2 / D


# -- 5. orthogonal random features ----------------------------------------------------------------

def test_orthogonal_directions_are_orthonormal_in_blocks_and_each_uniform():
    d = 3
    U = orthogonal_directions(np.random.default_rng(0), 30_000, d)
    blocks = U.reshape(-1, d, d)
    np.testing.assert_allclose(blocks @ blocks.transpose(0, 2, 1), np.broadcast_to(np.eye(d), blocks.shape),
                               atol=1e-12)
    for position in range(d):  # the law of a block's j-th row, each j
        rows = U[position::d]
        assert np.abs(rows.mean(0)).max() < 0.02  # (QR's Q without its sign fix: −0.5 or 0.5 on coordinate j)
        np.testing.assert_allclose(rows.T @ rows / len(rows), np.eye(d) / d, atol=0.015)
        # uniform on the sphere of R³: each coordinate is uniform on [−1, 1] (Archimedes' hat-box theorem)
        assert scipy.stats.kstest(rows[:, position], scipy.stats.uniform(-1, 2).cdf).pvalue > 1e-3
    assert orthogonal_directions(np.random.default_rng(0), 7, d).shape == (7, d)  # last block truncated
    assert orthogonal_directions(np.random.default_rng(0), 0, d).shape == (0, d)


@pytest.mark.parametrize("kernel", [WIDER_SECOND, NARROWER_SECOND])
@pytest.mark.parametrize("sign", [+1, -1])
def test_orthogonal_frequencies_keep_the_radial_law_of_their_part(kernel, sign):
    """Kolmogorov–Smirnov of the radii at each position in the blocks against the CDF of p₊/m₊ or p₋/m₋
    by quad, and of all of them against iid draws."""
    d = 3
    spectrum = DoGSpectrum(dim=d, **kernel)
    radii = np.linalg.norm(spectrum.sample(np.random.default_rng(1), 20_000, sign, orthogonal=True), axis=1)
    cdf = radial_cdf(kernel, d, sign, 1.05 * radii.max())
    for position in range(d):
        assert scipy.stats.kstest(radii[position::d], cdf).pvalue > 1e-3
    iid = np.linalg.norm(spectrum.sample(np.random.default_rng(2), 20_000, sign), axis=1)
    assert scipy.stats.ks_2samp(radii, iid).pvalue > 1e-3


@pytest.mark.parametrize("decomposition", ["jordan", "naive"])
def test_each_part_is_orthogonal_in_blocks_of_d_frequencies(decomposition):
    """Each part's frequencies, in order, in blocks of d with orthonormal directions (the last block
    truncated); blocks independent of each other, parts independent of each other."""
    d, D = 4, 23
    features = SignedRandomFeatures(**WIDER_SECOND, n_components=D, decomposition=decomposition,
                                    sampling="orthogonal", random_state=0).fit(np.zeros((1, d)))
    d_plus = features.n_positive_
    parts = features.frequencies_[:d_plus], features.frequencies_[d_plus:]
    assert min(len(part) for part in parts) > d and any(len(part) % d for part in parts)
    for part in parts:
        U = part / np.linalg.norm(part, axis=1, keepdims=True)
        for start in range(0, len(U), d):
            block = U[start:start + d]
            np.testing.assert_allclose(block @ block.T, np.eye(len(block)), atol=1e-12)
        assert abs(U[0] @ U[d]) > 1e-3  # across blocks: no constraint
    iid = SignedRandomFeatures(**WIDER_SECOND, n_components=D, decomposition=decomposition,
                               random_state=0).fit(np.zeros((1, d))).frequencies_[:d]
    U = iid / np.linalg.norm(iid, axis=1, keepdims=True)
    assert np.abs(U @ U.T - np.eye(d)).max() > 0.1


def test_orthogonal_blocks_lower_the_variance_at_short_distances_as_the_theory_says():
    """Two frequencies of one block, ω₁ ⟂ ω₂ with independent radii R₁, R₂ from their part's law: as
    cos a cos b = ½[cos(a + b) + cos(a − b)] and ω₁ ± ω₂ has norm √(R₁² + R₂²) and a uniform direction,

        C(t) = Cov(cos ω₁ᵀδ, cos ω₂ᵀδ) = E Ω(√(R₁² + R₂²) t) − (E Ω(Rt))²,   t = ‖δ‖,

    with Ω the characteristic function of a uniform direction (iid pairs: C = 0).  A part's estimate then
    has variance (mₛ/Dₛ)²(Dₛ V + Pₛ C), V = Var cos ωᵀδ, Pₛ the ordered pairs sharing a block.  To fourth
    order in t, C = −μ₂²t⁴/(2d²(d + 2)) whatever the radial law (μ₂ = E R²; E R⁴ cancels), so orthogonal
    blocks lower the variance at short distances: the setting here, the kernel (1, 1, 0.5, 2) in d = 5,
    D = 40 (D₊ = 30, D₋ = 10: six and two full blocks), six points at distances 0.56 … 1.29 (σ₁ = 1).
    Over 1500 seeds every off-diagonal entry's variance is below half of iid's (measured 0.23 … 0.29,
    the closed form 0.23 … 0.28), and both samplings' variances match the closed form (by quadrature over
    the radial law) within four standard errors.  The gain is not universal: at ‖δ‖ = 3 in d = 2 the same
    formula gives a ratio of 1.08 for this kernel, measured 1.09 ± 0.03 over 5000 seeds."""
    d, D, seeds = 5, 40, 1500
    X = 0.35 * np.random.default_rng(0).normal(size=(6, d))
    upper = np.triu_indices(6, 1)
    t = np.linalg.norm(X[:, None] - X[None], axis=-1)[upper]
    assert 0.3 < t.min() and t.max() < 1.5
    variances, errors = {}, {}
    for sampling in ("iid", "orthogonal"):
        draws = np.array([SignedRandomFeatures(**WIDER_SECOND, n_components=D, sampling=sampling, random_state=seed)
                          .fit(X).approximate_kernel(X)[upper] for seed in range(seeds)])
        variances[sampling] = draws.var(0, ddof=1)
        # the sample variance's standard error, from the fourth central moment
        errors[sampling] = np.sqrt((np.mean((draws - draws.mean(0)) ** 4, 0) - variances[sampling] ** 2) / seeds)
    assert (variances["orthogonal"] / variances["iid"]).max() < 0.5
    d_plus = SignedRandomFeatures(**WIDER_SECOND, n_components=D, random_state=0).fit(X).n_positive_
    assert (d_plus, D - d_plus) == (30, 10)
    theory = {"iid": 0.0, "orthogonal": 0.0}
    for sign, mass, count in zip((+1, -1), DoGSpectrum(dim=d, **WIDER_SECOND).masses(), (d_plus, D - d_plus)):
        r, w = radial_quadrature(WIDER_SECOND, d, sign)
        mean = uniform_direction_cf(np.outer(t, r), d) @ w
        V = (1 + uniform_direction_cf(np.outer(t, 2 * r), d) @ w) / 2 - mean**2
        pair = uniform_direction_cf(t[:, None, None] * np.hypot(r[:, None], r[None, :]), d)
        C = np.einsum("tij,i,j->t", pair, w, w) - mean**2
        assert (C < 0).all()
        full, rest = divmod(count, d)
        pairs = full * d * (d - 1) + rest * (rest - 1)
        theory["iid"] = theory["iid"] + (mass / count) ** 2 * count * V
        theory["orthogonal"] = theory["orthogonal"] + (mass / count) ** 2 * (count * V + pairs * C)
    for sampling in theory:
        assert (np.abs(variances[sampling] - theory[sampling]) < 4 * errors[sampling]).all()


# -- 6. IKLR on the features -----------------------------------------------------------------------

@pytest.mark.parametrize("n, D", [(40, 64), (300, 64)], ids=["kernel side", "gram side"])
def test_the_eigenbasis_is_the_approximate_kernels(n, D):
    X = np.random.default_rng(0).normal(size=(n, 2))
    features = SignedRandomFeatures(**WIDER_SECOND, n_components=D, random_state=0).fit(X)
    Phi = features.transform(X)
    P, mu = krein_eigenbasis(Phi, features.signature_)
    Psi = Phi @ P
    K_tilde = features.approximate_kernel(X)
    scale = np.abs(mu).max()
    np.testing.assert_allclose((Psi * np.sign(mu)) @ Psi.T, K_tilde, atol=1e-9 * scale)
    np.testing.assert_allclose(Psi.T @ Psi, np.diag(np.abs(mu)), atol=1e-9 * scale)
    eigenvalues = np.linalg.eigvalsh(K_tilde)
    # the same eigenvalues above round-off (both below 1e-9 of the largest are round-off of K̃ or of ΦᵀΦ)
    np.testing.assert_allclose(np.sort(mu[np.abs(mu) > 1e-9 * scale]),
                               eigenvalues[np.abs(eigenvalues) > 1e-9 * scale], atol=1e-9 * scale)


@pytest.fixture(scope="module")
def moons():
    """100 + 100 points of two moons and the DoG kernel (1, 0.7, 0.2, 2): indefinite on R² (m₋ = 0.019),
    positive semi-definite on these points, where exact IKLR converges.  (On these points every DoG
    kernel with a clearly indefinite matrix tried made exact IKLR run away at every λ from 1e-5 to 0.1:
    with σ₂ > σ₁ its one negative eigenvector is nearly constant (cosine 0.93 with 1), a direction the
    intercept absorbs and the loss cannot hold; with σ₂ < σ₁ there are tens of small negative eigenvalues.)"""
    X, y = make_moons(200, noise=0.3, random_state=0)
    X = (X - X.mean(0)) / X.std(0)
    kernel = dict(a1=1.0, sigma1=0.7, a2=0.2, sigma2=2.0)
    assert DoGSpectrum(dim=2, **kernel).masses()[1] > 0.01
    return X[:100], y[:100], X[100:], y[100:], kernel


def test_the_fit_approaches_exact_iklr_on_the_kernel_as_d_grows(moons):
    X, y, X_test, y_test, kernel = moons
    K = dog(X, **kernel)
    assert np.linalg.eigvalsh(K)[0] > -1e-8
    lam = 0.01
    exact = IKLR(solver="cccp-lbfgs", lam=lam, eps=1e-6).fit(K, y)
    scores = exact.decision_function(dog(X_test, X, **kernel))
    errors = {}
    for D in (256, 4096):
        fits = [RandomFeaturesIKLR(**kernel, n_components=D, random_state=seed, lam=lam, eps=1e-6).fit(X, y)
                for seed in range(3)]
        assert not any(fit.model_.diverged_ for fit in fits)
        worst = [np.abs(fit.decision_function(X_test) - scores).max() for fit in fits]
        errors[D] = np.mean(worst) / np.abs(scores).max()
    assert errors[4096] < 0.5 * errors[256] and errors[4096] < 0.1
    assert fits[0].score(X_test, y_test) > max(np.mean(y_test), 1 - np.mean(y_test)) + 0.2  # it learns


def test_raw_features_would_run_away_where_the_eigenbasis_does_not(moons):
    """With 2D > n the raw features' problem is unbounded below along null(Φ) (see the module): the
    reason RandomFeaturesIKLR fits on K̃'s eigenbasis instead."""
    X, y, _, _, kernel = moons
    features = SignedRandomFeatures(**kernel, n_components=256, random_state=0).fit(X)
    with pytest.warns(RunawayWarning):
        raw = KreinLogisticRegression(lam=0.01).fit(features.transform(X), y, eigenvalues=features.signature_)
    assert raw.diverged_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = RandomFeaturesIKLR(**kernel, n_components=256, random_state=0, lam=0.01).fit(X, y)
    assert not model.model_.diverged_ and model.model_.stationarity_ <= 1e-4
    # the same features and the same decision: coef_ is on the random features
    np.testing.assert_allclose(model.decision_function(X), features.transform(X) @ model.coef_ + model.intercept_)


def test_seeded_fits_repeat_and_clone(moons):
    X, y, X_test, _, kernel = moons
    model = RandomFeaturesIKLR(**kernel, n_components=64, random_state=3, lam=0.1)
    first = model.fit(X, y).decision_function(X_test)
    assert np.array_equal(clone(model).fit(X, y).decision_function(X_test), first)
    assert clone(model).get_params() == model.get_params()


def test_orthogonal_sampling_passes_through_and_learns(moons):
    X, y, X_test, y_test, kernel = moons
    model = RandomFeaturesIKLR(**kernel, n_components=256, sampling="orthogonal", random_state=0, lam=0.01).fit(X, y)
    assert model.features_.sampling == "orthogonal" and not model.model_.diverged_
    block = model.features_.frequencies_[:2]  # d = 2: the positive part's first block
    np.testing.assert_allclose(block @ block.T, np.diag(np.sum(block**2, 1)), atol=1e-12)
    assert model.score(X_test, y_test) > max(np.mean(y_test), 1 - np.mean(y_test)) + 0.2


@pytest.mark.parametrize("correction", ["flip", "clip", "shift"])
@pytest.mark.parametrize("lam", [1e-3, 0.1])
def test_the_spectrum_baselines_are_spectrum_klr_on_the_approximated_kernel(moons, correction, lam):
    """On its training rows, K̃ = Φ S Φᵀ formed here (small data only): the same decision as SpectrumKLR
    on K̃ with the test rows mapped through the same change of spectrum, on a K̃ whose negative part
    the corrections act on (σ₂ < σ₁: negative frequencies outside a ball) and of full numerical rank:
    Shift moves the eigenvalues of K̃'s numerical range only (as NystromSpectrumKLR), so on a smoother
    kernel, whose K̃ has eigenvalues at round-off (σ₁ = 0.7 here: 1e-16), it is not SpectrumKLR's Shift."""
    X, y, X_test, _, _ = moons
    kernel = dict(a1=1.0, sigma1=0.15, a2=0.3, sigma2=0.075)
    ours = RandomFeaturesSpectrumKLR(**kernel, correction=correction, n_components=64, random_state=3,
                                     lam=lam).fit(X, y)
    features = ours.features_
    Phi = features.transform(X)
    K_approx = (Phi * features.signature_) @ Phi.T
    mu = np.linalg.eigvalsh(K_approx)
    assert mu[0] < -0.05 * mu[-1]  # clearly indefinite: the corrections change the model
    assert np.abs(mu).min() > 1e-4 * mu[-1]  # full rank: Shift's range is every eigenvalue
    exact = SpectrumKLR(correction=correction, lam=lam, test_kernel="projected", tol=1e-12).fit(K_approx, y)
    for rows in (X, X_test):
        expected = exact.decision_function((features.transform(rows) * features.signature_) @ Phi.T)
        np.testing.assert_allclose(ours.decision_function(rows), expected, atol=1e-5 * np.abs(expected).max())
    # the objective recorded is the one KLR reaches on the corrected K̃ (mean loss + (λ/2)αᵀK'α)
    assert ours.history_[-1]["objective"] == pytest.approx(exact.history_[-1]["objective"], rel=1e-8)


def test_the_spectrum_baselines_learn_where_iklr_on_the_features_runs_away():
    """A clearly indefinite DoG kernel (σ₂ = σ₁/2, a₂ = 0.3, the benchmark's) on 200 rows of breast
    cancer scaled to [0, 1]: IKLR on its random features runs away at every λ (the kernel's negative
    part is not held by the loss, as exact IKLR's on that kernel), Flip KLR on the same features
    learns."""
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).permutation(y.size)
    X, y = X[rows], y[rows]
    X = (X - X[:200].min(0)) / (X[:200].max(0) - X[:200].min(0))
    X_train, y_train, X_test, y_test = X[:200], y[:200], X[200:], y[200:]
    sigma1 = 0.4 * np.sqrt(X.shape[1])  # the benchmark's sigma1_factor, sigma2_factor
    kernel = dict(a1=1.0, sigma1=sigma1, a2=0.3, sigma2=sigma1 / 2)
    majority = max(np.mean(y_test), 1 - np.mean(y_test))
    for lam in (1e-4, 1e-2, 1.0):
        with pytest.warns(RunawayWarning):
            iklr = RandomFeaturesIKLR(**kernel, n_components=500, random_state=0, lam=lam).fit(X_train, y_train)
        assert iklr.diverged_
    flip = RandomFeaturesSpectrumKLR(**kernel, n_components=500, random_state=0, lam=1e-4).fit(X_train, y_train)
    assert flip.score(X_test, y_test) > majority + 0.25


def test_predicting_before_fit_is_not_fitted():
    with pytest.raises(NotFittedError):
        RandomFeaturesIKLR(**WIDER_SECOND).decision_function(np.zeros((2, 2)))
    with pytest.raises(NotFittedError):
        RandomFeaturesIKLR(**WIDER_SECOND).predict(np.zeros((2, 2)))


@pytest.mark.parametrize("params, name", [
    ({"a1": -1.0}, "a1"), ({"a1": 0.0}, "a1"), ({"sigma1": 0.0}, "sigma1"), ({"a2": -0.5}, "a2"),
    ({"sigma2": float("nan")}, "sigma2"), ({"sigma2": 1.0, "sigma1": 1.0}, "sigma2"),
    ({"n_components": 0}, "n_components"),
    ({"n_components": 2.5}, "n_components"), ({"decomposition": "hahn"}, "decomposition"), ({"lam": 0.0}, "lam"),
    ({"sampling": "sobol"}, "sampling"), ({"sampling": None}, "sampling"),
])
def test_bad_parameters_are_named(params, name):
    X, y = np.random.default_rng(0).normal(size=(20, 2)), np.arange(20) % 2
    with pytest.raises(KreinbenchError, match=f"parameter {name}"):
        RandomFeaturesIKLR(**{**WIDER_SECOND, **params}).fit(X, y)


@pytest.mark.parametrize("model", [RandomFeaturesIKLR, RandomFeaturesSpectrumKLR])
def test_an_implicit_dog_kernel_gives_the_rows_and_the_kernel(moons, model):
    """The pipeline's input (``{type: dog, storage: implicit}``): the same fit as on the rows with the
    kernel's parameters; a parameter given that differs, another kernel type, or rows without the
    parameters are refused by name."""
    X, y, X_test, y_test, kernel = moons
    params = resolve_params({"type": "dog", **kernel}, X.shape[1])
    on_rows = model(**kernel, n_components=64, random_state=3, lam=0.01).fit(X, y)
    implicit = model(n_components=64, random_state=3, lam=0.01).fit(ImplicitKernel(params, X), y)
    assert implicit.kernel_params_ == kernel
    np.testing.assert_array_equal(implicit.coef_, on_rows.coef_)
    np.testing.assert_array_equal(implicit.decision_function(ImplicitKernel(params, X_test, X)),
                                  on_rows.decision_function(X_test))
    assert model().takes_implicit_kernel("dog") and not model().takes_implicit_kernel("rbf")
    with pytest.raises(KreinbenchError, match=r"parameters \{'sigma1': 0.5\} differ"):
        model(sigma1=0.5).fit(ImplicitKernel(params, X), y)
    with pytest.raises(KreinbenchError, match="is of type 'rbf'"):
        model().fit(ImplicitKernel(resolve_params({"type": "rbf", "sigma": 1.0}, 2), X), y)
    with pytest.raises(KreinbenchError, match="needs the kernel's parameters a1, sigma1, a2, sigma2"):
        model().fit(X, y)


@pytest.mark.parametrize("model, estimator", [(RandomFeaturesIKLR, "RandomFeaturesIKLR"),
                                              (RandomFeaturesSpectrumKLR, "RandomFeaturesSpectrumKLR")])
def test_a_config_runs_it_with_a_cv_on_an_implicit_dog_kernel(moons, tmp_path, model, estimator):
    """The kernel and fit stages as a config runs them (a λ grid by 3-fold CV): no kernel matrix is
    stored, and the CV's choice and the final fit are those of scikit-learn's GridSearchCV-free
    reference: the same folds fitted on the rows by hand."""
    from kreinbench.data.split import Split, write_split  # noqa: PLC0415
    from kreinbench.methods.selection import stratified_folds  # noqa: PLC0415
    from kreinbench.pipeline import fit_records  # noqa: PLC0415
    from kreinbench.pipeline.stages import fit as fit_stage  # noqa: PLC0415
    from kreinbench.pipeline.stages import kernel as kernel_stage  # noqa: PLC0415

    X, y, X_test, y_test, kernel = moons
    split = tmp_path / "rep1.h5"
    write_split(Split(X_train=X, y_train=y, X_test=X_test, y_test=y_test, train_index=np.arange(100),
                      test_index=np.arange(100, 200), attrs={"seed": 5}), split, provenance={})
    kernel_file = tmp_path / "dog.h5"
    kernel_stage.kernel(split=str(split), specs={"dog": {"type": "dog", **kernel, "storage": "implicit"}},
                        kernels=[str(kernel_file)])
    assert kernel_file.stat().st_size < 20_000
    spec = {"estimator": estimator, "kernel": "dog", "params": {"n_components": 64, "random_state": 3},
            "grid": {"lam": [1e-3, 0.01, 0.1]}}
    record_file = tmp_path / "record.json"
    fit_stage.fit(dataset="moons", method="rf-iklr", rep=1, spec=spec, cv_members={}, cv_folds=3, split=str(split),
                  kernels=[str(kernel_file)], record=str(record_file))
    record = fit_records.read(str(record_file))
    by_hand = {}
    for lam in spec["grid"]["lam"]:
        scores = [model(**kernel, n_components=64, random_state=3, lam=lam).fit(X[tr], y[tr])
                  .score(X[va], y[va]) for tr, va in stratified_folds(y, 3, 5)]
        by_hand[lam] = np.mean(scores)
    best = max(by_hand, key=by_hand.get)  # the first of equal means, as the CV's tie rule
    assert record["params"] == {"lam": best} and record["cv_accuracy"] == pytest.approx(by_hand[best], abs=1e-12)
    final = model(**kernel, n_components=64, random_state=3, lam=best).fit(X, y)
    assert record["accuracy"] == pytest.approx(final.score(X_test, y_test), abs=1e-12) and record["accuracy"] > 0.8


def test_the_plan_refuses_it_on_a_kernel_matrix_or_another_kernel_type():
    from kreinbench.pipeline import plan  # noqa: PLC0415

    def config(kernel):
        return {"datasets": ["heart"], "repetitions": 1, "cv_folds": 3, "kernels": {"k": kernel},
                "methods": {"rf": {"estimator": "RandomFeaturesIKLR", "kernel": "k", "grid": {"lam": [0.1, 1]}}}}

    dog_kernel = {"type": "dog", "a2": 0.5, "sigma1_factor": 0.4, "sigma2_factor": 0.2}
    plan.check_config(config({**dog_kernel, "storage": "implicit"}))
    with pytest.raises(KreinbenchError, match="config methods.rf: RandomFeaturesIKLR fits on rows: .*storage: implicit"):
        plan.check_config(config(dog_kernel))
    with pytest.raises(KreinbenchError, match="config methods.rf: .*needs the kernel matrix"):
        plan.check_config(config({"type": "rbf", "sigma": 1.0, "storage": "implicit"}))
