"""Random features of the indefinite difference-of-Gaussians kernel from its signed spectral measure.

After Liu, Huang, Chen & Suykens, "Fast Learning in Reproducing Kernel Kreĭn Spaces via Signed
Measures" (AISTATS 2021, arXiv:2006.00247): a stationary kernel whose Fourier transform is a finite
*signed* measure μ is the difference of two positive definite kernels, one per part of a
decomposition μ = μ₊ − μ₋, and Monte Carlo draws from the two parts give an unbiased signed feature
map, k(x, y) ≈ z₊(x)ᵀz₊(y) − z₋(x)ᵀz₋(y).  What was checked against the paper: only its abstract
and introduction were readable here (the signed-measure view, positive decomposition, "the first
random features algorithm to obtain an unbiased estimator"); its algorithm box, equation numbers,
kernel parametrization and experiments (data sets, D, errors) were not, so the mathematics below is
derived here and every step is checked numerically in tests/test_random_features.py.

The kernel ("delta-Gaussian", difference of Gaussians, DoG), on R^d:

    k(x, y) = a₁ exp(−‖x−y‖²/(2σ₁²)) − a₂ exp(−‖x−y‖²/(2σ₂²)),   a₁ > 0, a₂ ≥ 0, σ₁ ≠ σ₂.

Spectral measure.  By Bochner, exp(−‖δ‖²/(2σ²)) = E_{ω~N(0, σ⁻²I)} cos(ωᵀδ), so k(δ) = ∫cos(ωᵀδ) p(ω)dω
with the signed density p = a₁φ₁ − a₂φ₂, φⱼ(ω) = (σⱼ²/2π)^(d/2) exp(−σⱼ²‖ω‖²/2).  The ratio

    ρ(r) = a₂φ₂/(a₁φ₁) at ‖ω‖ = r,   log ρ(r) = c − Δr²,   c = log(a₂/a₁) + d·log(σ₂/σ₁),   Δ = (σ₂² − σ₁²)/2,

depends on r only, and p > 0 exactly where ρ < 1, i.e. Δr² > c:

- σ₂ > σ₁ (Δ > 0): p > 0 outside the ball r² ≤ R² = max(c/Δ, 0).  With c ≤ 0, i.e.
  a₂σ₂^d ≤ a₁σ₁^d, p ≥ 0 everywhere and k is positive definite (Bochner's converse); otherwise p < 0
  on the ball and k is indefinite on R^d.
- σ₂ < σ₁ (Δ < 0): p > 0 inside the ball r² < R² = max(c/Δ, 0) and p < 0 outside (φ₂ has the heavier
  tails), so k is never positive definite for a₂ > 0; with c ≥ 0 the ball is empty and −k is
  positive definite.

Definiteness thus depends on the dimension d through c (σ₂ > σ₁: PD iff a₂/a₁ ≤ (σ₁/σ₂)^d, which
fails for every d large enough).  A kernel matrix shows it only where the points resolve the negative
frequencies: on 200 standard normal points, (a₁, σ₁, a₂, σ₂) = (1, 1, 0.5, 2) gives a clearly
indefinite matrix in d = 2, 3, 5 (μ_min/μ_max = −0.28, −1.3, −3.9), and so does (1, 2, 0.5, 1) in
d = 1 … 5 (−0.07 … −0.02), but (1, 1, 0.1, 2) in d = 5, indefinite on R⁵ with m₋ = 0.01 at frequencies
below 0.88, gives a positive semi-definite one (checked in the tests).

Jordan decomposition.  p₊ = max(p, 0), p₋ = max(−p, 0): of all decompositions p = q₊ − q₋ into
nonnegative parts, the one of least total variation m₊ + m₋ (mₛ = ∫pₛ).  An entry's estimate (below)
has variance Σₛ (mₛ²/Dₛ)·Var(cos ωᵀδ) ≤ Σₛ mₛ²/Dₛ, which is (m₊ + m₋)²/D for D₊ : D₋ = m₊ : m₋, so the
naive split q₊ = a₁φ₁, q₋ = a₂φ₂ (total variation a₁ + a₂) is the worse one wherever the two Gaussians
overlap (two that overlap strongly in the tests: total variation 0.30 against 1.8, variance 20 times
lower at D = 32).

Masses in closed form.  For ω ~ φⱼ, σⱼ²‖ω‖² ~ χ²_d, so Pⱼ(r² > R²) = Q(d/2, σⱼ²R²/2), Q the regularized
upper incomplete gamma function (P = 1 − Q for the ball).  Hence, over the region where p > 0,

    m₊ = a₁P₁(region) − a₂P₂(region),   m₋ = m₊ − (a₁ − a₂)     (m₊ − m₋ = ∫p = k(0) = a₁ − a₂).

Sampling.  p₊ ≤ a₁φ₁, so ω ~ φ₁ accepted with probability max(1 − ρ, 0) has density p₊/m₊
(acceptance rate m₊/a₁); likewise ω ~ φ₂ accepted with probability max(1 − 1/ρ, 0) gives p₋/m₋.  The
acceptance depends on ‖ω‖ alone, so only radii are proposed (r = √χ²_d / σⱼ) and accepted radii get
uniform directions: the same distribution as rejecting whole vectors, with d times less work per
proposal.

Features.  With Ωₛ the Dₛ frequencies of part s, zₛ(x) = √(mₛ/Dₛ)·[cos(Ωₛx), sin(Ωₛx)], so
zₛ(x)ᵀzₛ(y) = (mₛ/Dₛ)Σ cos(ωᵀ(x − y)), whose mean is ∫pₛ(ω)cos(ωᵀ(x − y))dω; the difference of the two
parts is unbiased for k(x, y) at every D₊, D₋ ≥ 1, and the diagonal is exact (m₊ − m₋ = k(0)).  With
D = 1 and two parts the one frequency's part is drawn with probability mₛ/(m₊ + m₋) and weighted by
m₊ + m₋, unbiased too (scikit-learn's checks fit with ``n_components=1``).

Orthogonal random features (``sampling="orthogonal"``).  After Luo, Fang, Yang & Huang, "Towards Unbiased
Random Features with Lower Variance for Stationary Indefinite Kernels" (IJCNN 2021, arXiv:2104.06204),
whose "generalized orthogonal random features" carry Yu et al.'s orthogonal random features (NeurIPS
2016) over to the parts of a signed spectral measure.  What was checked against the paper: only its
abstract and introduction were readable here (an unbiased estimator with lower variance for stationary
indefinite kernels); its construction, theorems and experiments were not, so what follows is derived
here and checked in the tests.  The authors' public MATLAB code (github.com/tomqingo/GORF) was readable
and differs: the naive split into the two Gaussians, radii by inverse CDF on a grid, and both parts'
directions from the columns of one Haar matrix of size 2·max(D, d), cut to their first d coordinates and
renormalized (so not exactly orthogonal).

Here each part's Dₛ frequencies come in blocks of d (the last block truncated): a block's directions are
the rows of a Haar-distributed orthogonal matrix (:func:`orthogonal_directions`), its radii independent
draws from the part's radial law as above (naive split: √χ²_d/σⱼ).  A row of a Haar matrix is uniform on
the sphere and independent of the radii, so every frequency keeps the law pₛ/mₛ: the estimate stays
unbiased and the diagonal exact; only frequencies of one block are coupled.

Variance.  In a block ω₁ ⟂ ω₂ with independent radii R₁, R₂; as cos a cos b = ½[cos(a + b) + cos(a − b)]
and ω₁ ± ω₂ has norm √(R₁² + R₂²) and a uniform direction,

    C(δ) = Cov(cos ω₁ᵀδ, cos ω₂ᵀδ) = E Ω_d(√(R₁² + R₂²)‖δ‖) − (E Ω_d(R‖δ‖))²,

Ω_d(s) = E cos(s·u₁) for u uniform on the sphere, and a part's estimate has variance
(mₛ/Dₛ)²(Dₛ·Var cos ωᵀδ + Pₛ·C), Pₛ the ordered pairs sharing a block (iid draws: no C term).  With
Ω_d(s) = 1 − s²/(2d) + s⁴/(8d(d + 2)) − …, C = −μ₂²‖δ‖⁴/(2d²(d + 2)) + O(‖δ‖⁶) for every radial law
(μ₂ = E R²; E R⁴ cancels): at short distances orthogonal blocks lower the variance, whatever the part.
Measured (kernel (1, 1, 0.5, 2), d = 5, D = 40, 1500 seeds): 0.23–0.29 of iid's variance per entry at
distances 0.56–1.29, as the closed form gives (0.23–0.28); in d = 3 (D = 12) at distances up to 1,
0.4–0.5 for that kernel and 0.23–0.32 for (1, 2, 0.5, 1).  At long distances the ratio returns to about
1 and can exceed it: 1.09 ± 0.03 at ‖δ‖ = 3 in d = 2 (D = 8), as the closed form predicts (1.08), so the
gain is not universal.

Why the two parts are not coupled in one orthogonal frame: by the same expansion an orthogonal pair
across the parts has covariance −μ₂₊μ₂₋‖δ‖⁴/(2d²(d + 2)) < 0 at short distances, which the difference
z₊ᵀz₊ − z₋ᵀz₋ turns into added variance; the parts are drawn independently, each in its own blocks.
Cost: a QR factorization of a d × d matrix per block, O(D·d²) for the draw instead of O(D·d); the features
and everything after them cost the same.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.special

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import block_rows

DECOMPOSITIONS = ("jordan", "naive")
SAMPLINGS = ("iid", "orthogonal")
# A part of the Jordan decomposition lighter than this share of a₁ + a₂ is dropped: its
# contribution to any kernel value is at most its mass, and sampling it by rejection would take
# a/m proposals per frequency (a part of mass ~1e-16 is round-off of the closed form, near the
# boundary between definite and indefinite parameters).
NEGLIGIBLE_MASS = 1e-6
# Proposals per rejection round at most (radii only: 8 MB).
MAX_PROPOSALS = 1 << 20


@dataclass(frozen=True)
class DoGSpectrum:
    """The signed spectral density p = a₁φ₁ − a₂φ₂ of the DoG kernel on R^dim (see the module docstring)."""

    a1: float
    sigma1: float
    a2: float
    sigma2: float
    dim: int

    def log_ratio(self, r) -> np.ndarray:
        """log ρ(r) = log(a₂φ₂/(a₁φ₁)) at ‖ω‖ = r: c − Δr² (−∞ for a₂ = 0)."""
        r2 = np.square(np.asarray(r, dtype=float))
        if self.a2 == 0:
            return np.full_like(r2, -np.inf)
        c = np.log(self.a2 / self.a1) + self.dim * np.log(self.sigma2 / self.sigma1)
        return c - 0.5 * (self.sigma2**2 - self.sigma1**2) * r2

    def positive_region(self) -> tuple[float, bool]:
        """(R², outside): p > 0 on r² > R² when ``outside``, else on r² < R² (R² may be 0 or ∞)."""
        delta = 0.5 * (self.sigma2**2 - self.sigma1**2)
        c = float(self.log_ratio(0.0))  # log ρ(0) = c; −∞ for a₂ = 0, where R² = 0 (Δ > 0) or ∞ (Δ < 0)
        return max(c / delta, 0.0), delta > 0

    def masses(self) -> tuple[float, float]:
        """(m₊, m₋) of the Jordan decomposition, in closed form; a part below ``NEGLIGIBLE_MASS``·(a₁ + a₂) is 0."""
        R2, outside = self.positive_region()
        tail = scipy.special.gammaincc if outside else scipy.special.gammainc
        half = self.dim / 2
        m_plus = self.a1 * tail(half, self.sigma1**2 * R2 / 2) - self.a2 * tail(half, self.sigma2**2 * R2 / 2)
        m_plus, total = max(float(m_plus), 0.0), self.a1 + self.a2
        m_minus = m_plus - (self.a1 - self.a2)
        if m_minus < NEGLIGIBLE_MASS * total:
            return max(float(self.a1 - self.a2), 0.0), 0.0
        if m_plus < NEGLIGIBLE_MASS * total:
            return 0.0, float(self.a2 - self.a1)
        return m_plus, m_minus

    def sample_radii(self, rng: np.random.Generator, count: int, sign: int) -> np.ndarray:
        """``count`` radii ‖ω‖ of draws from p₊/m₊ (``sign=+1``) or p₋/m₋ (``sign=-1``), by rejection
        from φ₁ or φ₂ (acceptance rate m₊/a₁ or m₋/a₂)."""
        m_plus, m_minus = self.masses()
        sigma, mass, a = (self.sigma1, m_plus, self.a1) if sign > 0 else (self.sigma2, m_minus, self.a2)
        if count and mass == 0:
            raise KreinbenchError(f"DoGSpectrum: the {'positive' if sign > 0 else 'negative'} part has no mass")
        radii: list[np.ndarray] = []
        found = 0
        while found < count:
            # enough proposals for the rest in one round, on average, and a margin
            proposals = min(int(1.2 * (count - found) * a / mass) + 16, MAX_PROPOSALS)
            r = np.sqrt(rng.chisquare(self.dim, proposals)) / sigma
            # accept with max(1 − ρ, 0) (positive part) or max(1 − 1/ρ, 0) = max(1 − ρ⁻¹, 0) (negative part)
            log_rho = sign * self.log_ratio(r)
            accept = np.where(log_rho < 0, -np.expm1(np.minimum(log_rho, 0.0)), 0.0)
            kept = r[rng.random(proposals) < accept]
            radii.append(kept)
            found += kept.size
        return np.concatenate(radii)[:count] if radii else np.empty(0)

    def sample(self, rng: np.random.Generator, count: int, sign: int, orthogonal: bool = False) -> np.ndarray:
        """``count`` frequencies ω (rows) from p₊/m₊ or p₋/m₋: the radii of :meth:`sample_radii`, uniform
        directions, independent (``orthogonal=False``) or orthonormal in blocks of ``dim`` rows
        (:func:`orthogonal_directions`); each row has the same law either way."""
        radii = self.sample_radii(rng, count, sign)
        if orthogonal:
            return orthogonal_directions(rng, count, self.dim) * radii[:, None]
        directions = rng.standard_normal((count, self.dim))
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
        return directions * radii[:, None]


def orthogonal_directions(rng: np.random.Generator, count: int, dim: int) -> np.ndarray:
    """``count`` unit rows, each uniform on the sphere, the rows of consecutive blocks of ``dim`` orthonormal.

    Block by block the rows of a Haar-distributed orthogonal matrix (the last block its first rows): Q of
    the QR factorization of a standard normal matrix, its columns' signs set so that R has a positive
    diagonal.  Without that fix Q's law follows LAPACK's sign convention and is not Haar (Mezzadri,
    "How to generate random matrices from the classical compact groups", 2007); with it Q is, so each
    row is uniform on the sphere, which is what keeps every frequency's marginal law.
    """
    if count == 0:
        return np.empty((0, dim))
    blocks = -(-count // dim)
    Q, R = np.linalg.qr(rng.standard_normal((blocks, dim, dim)))
    Q = Q * np.sign(np.diagonal(R, axis1=1, axis2=2))[:, None, :]  # column j times sign(R_jj)
    return np.swapaxes(Q, 1, 2).reshape(blocks * dim, dim)[:count]  # Q's columns as rows


class SignedRandomFeatures:
    """Random Fourier features Φ and signature S with k(X, Y) ≈ Φ_X S Φ_Yᵀ for the DoG kernel.

    Parameters
    ----------
    a1, sigma1, a2, sigma2 : float
        The kernel a₁ exp(−‖x−y‖²/(2σ₁²)) − a₂ exp(−‖x−y‖²/(2σ₂²)): a₁, σ₁, σ₂ > 0, a₂ ≥ 0, σ₁ ≠ σ₂.
    n_components : int, default=500
        Number D of frequencies (2D features: a cosine and a sine each), split D₊ : D₋ in proportion to
        the parts' masses, at least one each when both have mass (D = 1: the one frequency's part is
        drawn, with probability in proportion to the masses).
    decomposition : {"jordan", "naive"}, default="jordan"
        The parts the frequencies are drawn from: the Jordan decomposition p₊ = max(p, 0),
        p₋ = max(−p, 0) (least total variation), or the naive a₁φ₁ and a₂φ₂.
    sampling : {"iid", "orthogonal"}, default="iid"
        How each part's frequencies are coupled: independent, or orthogonal random features (blocks of
        d = n_features_in_ frequencies with exactly orthonormal directions and independent radii, the last
        block truncated; after Luo et al., arXiv:2104.06204, see the module).  The same law per frequency,
        so the same mean; a lower variance at short distances (0.23–0.29 of iid's per entry in d = 5 at
        distances up to 1.3σ₁; about 1, at most 1.09 measured, from ‖δ‖ ≈ 3σ₁ on), at O(D·d²) for the QR
        factorizations instead of O(D·d).
    random_state : int or None

    Attributes
    ----------
    frequencies_ : ndarray of shape (D, d)
        Ω: the positive part's D₊ rows first, then the negative part's.
    scales_ : ndarray of shape (D,)
        √(mₛ/Dₛ) of each frequency's part (√(m₊ + m₋) for D = 1 with two parts).
    signature_ : ndarray of shape (2D,)
        ±1 per column of :meth:`transform`'s Φ = [cos(XΩᵀ)·scales, sin(XΩᵀ)·scales].
    masses_ : tuple of float
        (m₊, m₋) of the decomposition used (total variation m₊ + m₋).
    n_positive_ : int
        D₊.
    n_features_in_ : int
    """

    def __init__(self, *, a1, sigma1, a2, sigma2, n_components=500, decomposition="jordan", sampling="iid",
                 random_state=None):
        self.a1 = a1
        self.sigma1 = sigma1
        self.a2 = a2
        self.sigma2 = sigma2
        self.n_components = n_components
        self.decomposition = decomposition
        self.sampling = sampling
        self.random_state = random_state

    def spectrum(self, dim: int) -> DoGSpectrum:
        """The kernel's signed spectral density on R^dim, the parameters checked (errors name them)."""
        for name in ("a1", "sigma1", "a2", "sigma2"):
            value = getattr(self, name)
            # (kreinbench.methods.base has these checks; linalg does not import from methods)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
                    or value < 0 or (value == 0 and name != "a2"):
                bound = ">= 0" if name == "a2" else "> 0"
                raise KreinbenchError(f"SignedRandomFeatures: parameter {name}={value!r} must be a finite number "
                                      f"{bound}")
        if self.sigma1 == self.sigma2:
            raise KreinbenchError(f"SignedRandomFeatures: parameter sigma2={self.sigma2!r} must differ from sigma1: "
                                  "equal widths give (a1 - a2) times one Gaussian kernel")
        return DoGSpectrum(float(self.a1), float(self.sigma1), float(self.a2), float(self.sigma2), dim)

    def fit(self, X) -> SignedRandomFeatures:
        """Draw the frequencies (only X's number of columns is used)."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise KreinbenchError(f"SignedRandomFeatures: X must be a 2-d feature matrix, got shape {X.shape}")
        spectrum = self.spectrum(X.shape[1])
        D = self.n_components
        if isinstance(D, bool) or not isinstance(D, numbers.Integral) or D < 1:
            raise KreinbenchError(f"SignedRandomFeatures: parameter n_components={D!r} must be an integer >= 1")
        if self.decomposition not in DECOMPOSITIONS:
            raise KreinbenchError(f"SignedRandomFeatures: parameter decomposition={self.decomposition!r} must be one "
                                  f"of {DECOMPOSITIONS}")
        if not isinstance(self.sampling, str) or self.sampling not in SAMPLINGS:
            raise KreinbenchError(f"SignedRandomFeatures: parameter sampling={self.sampling!r} must be one of "
                                  f"{SAMPLINGS}")
        rng = np.random.default_rng(self.random_state)
        if self.decomposition == "jordan":
            m_plus, m_minus = spectrum.masses()
        else:
            m_plus, m_minus = spectrum.a1, spectrum.a2
        # Each part's frequencies carry its mass: zₛ is scaled by √(weightₛ/Dₛ).
        weight_plus, weight_minus = m_plus, m_minus
        if m_plus > 0 and m_minus > 0 and D == 1:
            # One frequency cannot serve both parts: its part is drawn with probability mₛ/(m₊ + m₋) and
            # weighted by m₊ + m₋ (a draw from |p|/(m₊ + m₋)), which keeps the estimate unbiased.
            d_plus = int(rng.random() < m_plus / (m_plus + m_minus))
            weight_plus = weight_minus = m_plus + m_minus
        elif m_plus > 0 and m_minus > 0:
            d_plus = min(max(round(D * m_plus / (m_plus + m_minus)), 1), D - 1)
        else:
            d_plus = D if m_plus > 0 else 0
        orthogonal = self.sampling == "orthogonal"
        if self.decomposition == "jordan":
            # the two parts are drawn independently, each in its own orthogonal blocks (see the module)
            parts = [spectrum.sample(rng, d_plus, +1, orthogonal), spectrum.sample(rng, D - d_plus, -1, orthogonal)]
        elif orthogonal:  # N(0, σ⁻²I): radius √χ²_d/σ, uniform direction
            parts = [orthogonal_directions(rng, count, spectrum.dim)
                     * (np.sqrt(rng.chisquare(spectrum.dim, count)) / sigma)[:, None]
                     for count, sigma in ((d_plus, spectrum.sigma1), (D - d_plus, spectrum.sigma2))]
        else:
            parts = [rng.standard_normal((d_plus, X.shape[1])) / spectrum.sigma1,
                     rng.standard_normal((D - d_plus, X.shape[1])) / spectrum.sigma2]
        self.frequencies_ = np.concatenate(parts)
        scale_plus = np.sqrt(weight_plus / d_plus) if d_plus else 0.0
        scale_minus = np.sqrt(weight_minus / (D - d_plus)) if D > d_plus else 0.0
        self.scales_ = np.repeat([scale_plus, scale_minus], [d_plus, D - d_plus])
        sign = np.repeat([1.0, -1.0], [d_plus, D - d_plus])
        self.signature_ = np.concatenate([sign, sign])
        self.masses_ = (float(m_plus), float(m_minus))
        self.n_positive_ = d_plus
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X) -> np.ndarray:
        """Φ = [cos(XΩᵀ)·scales, sin(XΩᵀ)·scales] (n × 2D)."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise KreinbenchError(f"SignedRandomFeatures: expected rows of {self.n_features_in_} features, "
                                  f"got shape {X.shape}")
        Z = X @ self.frequencies_.T
        return np.hstack([np.cos(Z) * self.scales_, np.sin(Z) * self.scales_])

    def fit_transform(self, X) -> np.ndarray:
        return self.fit(X).transform(X)

    def linear_scores(self, X, coef: np.ndarray) -> np.ndarray:
        """Φ(X) @ coef in row blocks (O(block · D) memory whatever the number of rows)."""
        X = np.asarray(X, dtype=float)
        rows = block_rows(2 * self.frequencies_.shape[0], 3)  # XΩᵀ, its cosine and its sine
        return np.concatenate([self.transform(X[start:start + rows]) @ coef
                               for start in range(0, X.shape[0], rows)]) if X.shape[0] else np.empty(0)

    def approximate_kernel(self, X, Y=None) -> np.ndarray:
        """Φ_X S Φ_Yᵀ, the unbiased estimate of k(X, Y) (n × p: for checks on small data)."""
        Phi_X = self.transform(X)
        Phi_Y = Phi_X if Y is None else self.transform(Y)
        return (Phi_X * self.signature_) @ Phi_Y.T
