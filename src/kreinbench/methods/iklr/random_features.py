"""IKLR and the spectrum baselines on signed random Fourier features of the difference-of-Gaussians kernel.

:class:`~kreinbench.linalg.random_features.SignedRandomFeatures` gives features Φ (n × p, p = 2D) and a
signature S with k(X, X) ≈ K̃ = Φ S Φᵀ, unbiased (Liu et al., AISTATS 2021).  The model is IKLR on K̃:

    f(α, b) = (1/n) Σ log(1 + exp(−y_i((K̃α)_i + b))) + (λ/2) αᵀK̃α,

fitted by :class:`KreinLogisticRegression` on K̃'s eigenbasis (:func:`krein_eigenbasis`): features
Ψ = V|μ|^(1/2) with the eigenvalues μ of K̃ on the training rows, the case in which that class makes
exact IKLR's CCCP iterates (all points as Nyström landmarks, see its module).  Why not the raw Φ with
``eigenvalues`` of the signature's signs: in u = SΦᵀα the raw problem (λ/2)uᵀSu + L(Φu + b) is
unbounded below along null(Φ) wherever uᵀSu < 0 (the loss does not see those directions), and null(Φ)
is 2D − n dimensional when 2D > n; its split, λ([s_j > 0] + c_j) against λ([s_j < 0] + c_j), multiplies
a negative feature's null-space component by (1 + c_j)/c_j > 1 every outer iteration.  On 100 points
of two moons (kernel 1, 0.7, 0.2, 2; λ = 0.01, where exact IKLR converges in one step) every raw fit
with 2D > n ran away (the null-space part of u grew to 400–560), whether the magnitudes were 1 or the
columns' squared norms, while the eigenbasis fits converged from D = 256 on (tests/test_random_features.py).
At small D, K̃'s own spurious negative eigenvalues (Monte Carlo error: K itself is positive
semi-definite on those points) can still carry a fit away, as can any negative eigenvalue the loss
does not hold (``RunawayWarning``; two of three seeds at D = 64 in that example).  Exact IKLR on the
DoG kernel itself ran away on every clearly indefinite kernel matrix of those points tried, at every
λ from 1e-5 to 0.1: with σ₂ > σ₁ the one negative eigenvector is nearly constant (cosine 0.93 with
the ones vector), a direction the intercept absorbs so that the loss cannot hold it; with σ₂ < σ₁
there are tens of small negative eigenvalues.
Where 2D ≤ n and Φ has full rank the two have the same stationary points and, by Sylvester's law of
inertia, the same signature (2D₊ positive, 2D₋ negative eigenvalues); the eigenbasis also gives
IKLR's split (K̃₋ = τI + V₋|μ₋|V₋ᵀ, τ = max(−μ_min, 0)) rather than a diagonal stand-in for it.

Cost: O(n·p·min(n, p) + min(n, p)³) for the eigenbasis (the smaller of the n × n kernel K̃ and the p × p
Gram matrix ΦᵀΦ is decomposed), then O(n·r) per function evaluation, r ≤ min(n, p).

:class:`RandomFeaturesSpectrumKLR` is Flip, Clip or Shift KLR on the same K̃, the model of
:class:`~kreinbench.methods.NystromSpectrumKLR` on these features (its module: logistic regression on
K̃'s corrected eigenbasis, a test row mapped through the same change of spectrum): a convex fit,
so on a kernel whose negative part carries IKLR away it still learns, and the pair separates the
random features' approximation from IKLR's own behaviour on the kernel.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.implicit_kernel import is_implicit
from kreinbench.methods.base import fitted_only
from kreinbench.methods.iklr.feature_baselines import spectrum_klr_params, spectrum_logistic_regression
from kreinbench.methods.iklr.features import KreinLogisticRegression, NystromModel


def krein_eigenbasis(Phi: np.ndarray, signature: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P (p × r) and μ (r,) with Ψ = ΦP = V|μ|^(1/2), K̃ = Φ S Φᵀ = V diag(μ) Vᵀ on these rows.

    P = SΦᵀV diag(sign μ/√|μ|), so that ΦP = K̃V diag(sign μ/√|μ|) = V|μ|^(1/2), and a row x scores
    Φ(x)Pu = K̃(x, X)α with α = V diag(sign μ/√|μ|)u, the dual coefficients behind u: IKLR's prediction
    on K̃ for any row, not only the training rows.  V comes from the smaller side: K̃ itself when
    n ≤ p, else ΦᵀΦ = QΛQᵀ (Φ = UΛ^(1/2)Qᵀ, so K̃ = UMUᵀ with M = (QΛ^(1/2))ᵀS(QΛ^(1/2)) = W diag(μ) Wᵀ,
    V = UW and ΦᵀV = QΛ^(1/2)W).  Eigenvalues at round-off (|μ| ≤ r·ε·max|μ|) are dropped, as
    KreinNystrom drops them.
    """
    n, p = Phi.shape
    if n <= p:
        mu, V = scipy.linalg.eigh((Phi * signature) @ Phi.T)
        PhiT_V = Phi.T @ V
    else:
        gram, Q = scipy.linalg.eigh(Phi.T @ Phi)
        kept = gram > p * np.finfo(float).eps * gram.max()  # Φ's rank (round-off below)
        root = Q[:, kept] * np.sqrt(gram[kept])  # QΛ^(1/2)
        mu, W = scipy.linalg.eigh((root.T * signature) @ root)
        PhiT_V = root @ W
    kept = np.abs(mu) > mu.size * np.finfo(float).eps * np.abs(mu).max()
    mu = mu[kept]
    return signature[:, None] * PhiT_V[:, kept] * (np.sign(mu) / np.sqrt(np.abs(mu))), mu


DOG_PARAMETERS = ("a1", "sigma1", "a2", "sigma2")


class SignedFeaturesModel(NystromModel):
    """A model linear in signed random features of the DoG kernel, on rows or on an implicit ``dog``
    kernel (the pipeline's input): the kernel's parameters, the features and the scores in row
    blocks; a subclass's ``fit`` calls :meth:`_signed_features` and sets ``coef_`` and ``intercept_``."""

    # The pipeline's protocol (kreinbench.methods.base.KernelModel): no spectrum, and the rows come in
    # the implicit kernel rather than as a separate argument.
    needs_spectrum = False
    needs_features = False

    def takes_implicit_kernel(self, kernel_type: str) -> bool:
        """An implicit kernel of type ``dog`` gives the rows and the kernel (the pipeline's input)."""
        return kernel_type == "dog"

    def _kernel_and_rows(self, X) -> tuple[dict, object]:
        """The DoG parameters and the rows: from an implicit ``dog`` kernel, or this model's with rows."""
        given = {name: getattr(self, name) for name in DOG_PARAMETERS}
        if not is_implicit(X):
            missing = [name for name, value in given.items() if value is None]
            if missing:
                raise KreinbenchError(f"{type(self).__name__} on feature rows needs the kernel's parameters "
                                      f"{', '.join(missing)} (or an implicit dog kernel as input)")
            return given, X
        if X.params["type"] != "dog":
            raise KreinbenchError(f"{type(self).__name__} samples the DoG kernel's spectral measure; "
                                  f"{X.name} is of type {X.params['type']!r}")
        kernel = {name: X.params[name] for name in DOG_PARAMETERS}
        differ = {name: value for name, value in given.items() if value is not None and value != kernel[name]}
        if differ:
            raise KreinbenchError(f"{type(self).__name__}: parameters {differ} differ from those of {X.name} "
                                  f"({kernel}); leave them None to take the kernel's")
        return kernel, X.X_rows

    def _signed_features(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """The training rows' features Φ (setting ``kernel_params_`` and ``features_``) and the labels as ±1."""
        from kreinbench.linalg.random_features import SignedRandomFeatures  # noqa: PLC0415 (as NystromModel's)

        self.kernel_params_, X = self._kernel_and_rows(X)
        X, y_pm = self._rows_and_labels(X, y)
        self.features_ = SignedRandomFeatures(**self.kernel_params_, n_components=self.n_components,
                                              decomposition=self.decomposition, sampling=self.sampling,
                                              random_state=self.random_state)
        return self.features_.fit_transform(X), y_pm

    def decision_function(self, X):
        """Scores of the rows ``X`` (or of an implicit test kernel's rows), in row blocks (no n_test × 2D
        feature matrix)."""
        return self._row_scores(X.X_rows if is_implicit(X) else X)

    def _row_scores(self, X):
        from sklearn.utils.validation import check_array  # noqa: PLC0415

        return self.features_.linear_scores(check_array(X, dtype=np.float64), self.coef_) + self.intercept_

    _row_scores = fitted_only(_row_scores, "coef_")


class RandomFeaturesIKLR(SignedFeaturesModel):
    """IKLR with the difference-of-Gaussians kernel on signed random features of the raw rows.

    ``fit(X, y)`` and ``decision_function(X_test)`` take feature rows, never a kernel matrix, or an
    implicit ``dog`` kernel (:class:`~kreinbench.linalg.implicit_kernel.ImplicitKernel`), whose rows
    and parameters are then used: a config runs it on a kernel ``{type: dog, storage: implicit}``,
    and its CV hands each fold the fold's rows so (nothing n × n is ever formed).

    Parameters
    ----------
    a1, sigma1, a2, sigma2 : float or None, default=None
        The kernel a₁ exp(−‖x−y‖²/(2σ₁²)) − a₂ exp(−‖x−y‖²/(2σ₂²))
        (:func:`kreinbench.linalg.kernels.dog`); required with feature rows (no width suits every
        scale of the rows: NystromIKLR's ``kernel`` has no default either), taken from an implicit
        kernel (a value given here must then equal the kernel's).
    n_components, decomposition, random_state
        The random features' (:class:`kreinbench.linalg.random_features.SignedRandomFeatures`).
    sampling : {"iid", "orthogonal"}, default="iid"
        The random features' too: "orthogonal" draws each part's frequencies in blocks of d with
        orthonormal directions (orthogonal random features, after arXiv:2104.06204), the same unbiased
        K̃ with a lower variance at short distances (about 4 times lower per entry in d = 5 at distances
        up to 1.3σ₁, 2–4 times in d = 3; about the same from ‖δ‖ ≈ 3σ₁ on, 9 % higher in one case), at
        O(D·d²) for the draw.
    lam, tau, eps, max_outer, max_inner
        The model's (:class:`KreinLogisticRegression`; ``tau`` as IKLR's, on the scale of K̃'s eigenvalues).

    Attributes
    ----------
    features_ : SignedRandomFeatures
    model_ : KreinLogisticRegression
        Fitted on the eigenbasis Ψ = ΦP (see :func:`krein_eigenbasis`).
    eigenvalues_ : ndarray of shape (r,)
        μ, the nonzero eigenvalues of K̃ = Φ S Φᵀ on the training rows.
    kernel_params_ : dict
        The kernel's a1, sigma1, a2, sigma2 used.
    coef_ : ndarray of shape (2D,)
        P @ model_.coef_, the weights on the random features: decision φ(x)ᵀ coef_ + intercept_.
    intercept_ : float
    classes_ : ndarray of shape (2,)
    n_iter_, stationarity_, tau_, diverged_, history_
        ``model_``'s (:class:`KreinLogisticRegression`).
    """

    def __init__(self, *, a1=None, sigma1=None, a2=None, sigma2=None, n_components=500, decomposition="jordan",
                 sampling="iid", random_state=None, lam=1.0, tau=None, eps=1e-4, max_outer=2000, max_inner=10000):
        self.a1 = a1
        self.sigma1 = sigma1
        self.a2 = a2
        self.sigma2 = sigma2
        self.n_components = n_components
        self.decomposition = decomposition
        self.sampling = sampling
        self.random_state = random_state
        self.lam = lam
        self.tau = tau
        self.eps = eps
        self.max_outer = max_outer
        self.max_inner = max_inner

    def fit(self, X, y):
        Phi, _ = self._signed_features(X, y)
        P, self.eigenvalues_ = krein_eigenbasis(Phi, self.features_.signature_)
        self.model_ = KreinLogisticRegression(lam=self.lam, tau=self.tau, eps=self.eps, max_outer=self.max_outer,
                                              max_inner=self.max_inner)
        self.model_.fit(Phi @ P, y, eigenvalues=self.eigenvalues_)
        self.classes_, self.intercept_ = self.model_.classes_, self.model_.intercept_
        # The solver's diagnostics, as the pipeline records every fit's
        for name in ("n_iter_", "stationarity_", "tau_", "diverged_", "history_"):
            setattr(self, name, getattr(self.model_, name))
        self.coef_ = P @ self.model_.coef_
        return self


class RandomFeaturesSpectrumKLR(SignedFeaturesModel):
    """Flip, Clip or Shift KLR with the difference-of-Gaussians kernel on signed random features of the rows.

    The spectrum of K̃ = Φ S Φᵀ on the training rows is changed as :class:`~kreinbench.methods.SpectrumKLR`
    changes K's, and the model is :class:`~kreinbench.methods.NystromSpectrumKLR`'s on these features
    (:func:`~kreinbench.methods.iklr.feature_baselines.spectrum_logistic_regression`): a test row's
    cross-kernel goes through the same change of spectrum (``SpectrumKLR(test_kernel="projected")``).
    Shift moves the eigenvalues of K̃'s numerical range only, as NystromSpectrumKLR's: where K̃ has
    eigenvalues at round-off (a smooth kernel on few rows), it is not Shift of the n × n matrix.
    Input as :class:`RandomFeaturesIKLR`'s: rows with the kernel's parameters, or an implicit ``dog``
    kernel.

    Parameters
    ----------
    a1, sigma1, a2, sigma2 : float or None, default=None
        The kernel's, as :class:`RandomFeaturesIKLR`'s.
    correction, lam, tol, max_iter
        The model's, as :class:`~kreinbench.methods.NystromSpectrumKLR`'s (Flip by default).
    n_components, decomposition, sampling, random_state
        The random features' (:class:`kreinbench.linalg.random_features.SignedRandomFeatures`).

    Attributes
    ----------
    features_ : SignedRandomFeatures
    kernel_params_ : dict
        The kernel's a1, sigma1, a2, sigma2 used.
    coef_ : ndarray of shape (2D,)
        Decision φ(x)ᵀ coef_ + intercept_ on the random features φ.
    intercept_ : float
    classes_ : ndarray of shape (2,)
    history_ : list of dict
        One row: Newton's ``iteration`` count, the ``objective`` (mean loss + (λ/2)‖w‖²), ``elapsed``.
    n_iter_ : int
    diverged_ : bool
        False: the fit is convex.
    """

    def __init__(self, *, a1=None, sigma1=None, a2=None, sigma2=None, correction="flip", n_components=500,
                 decomposition="jordan", sampling="iid", random_state=None, lam=1.0, tol=1e-10, max_iter=100):
        self.a1 = a1
        self.sigma1 = sigma1
        self.a2 = a2
        self.sigma2 = sigma2
        self.correction = correction
        self.n_components = n_components
        self.decomposition = decomposition
        self.sampling = sampling
        self.random_state = random_state
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        params = spectrum_klr_params(self)
        Phi, y_pm = self._signed_features(X, y)
        self.coef_, self.intercept_, self.history_ = spectrum_logistic_regression(Phi, self.features_.signature_, y_pm,
                                                                                  **params)
        self.n_iter_, self.diverged_ = self.history_[-1]["iteration"], False
        return self
