"""The IKLR paper's spectrum baselines on the Kreĭn Nyström approximation, in O(n·m) memory.

:class:`kreinbench.linalg.nystrom.KreinNystrom` gives K ≈ K̃ = Φ S Φᵀ (Φ: n × r, S = diag(±1)).  Flip,
Clip, Shift and KSVM change K's spectrum, so here they change K̃'s, which costs O(n·r²) and never
an n × n matrix: with Φ = QR (thin QR) and R S Rᵀ = W diag(σ) Wᵀ (r × r), K̃ = Ψ diag(σ) Ψᵀ with
Ψ = QW orthonormal, the eigendecomposition of K̃ on its range.  A test row enters through its
approximated cross-kernel k̃(x, X) = φ(x) S Φᵀ = z(x) Ψᵀ, z(x) = φ(x) S Rᵀ W, so every model below
is a vector on the Nyström features: decision φ(x)ᵀc + b.

- :class:`NystromSpectrumKLR`: KLR on V t(σ) Vᵀ is logistic regression on the features
  G = Ψ diag(√t(σ)) with the penalty (λ/2)‖w‖² (w = Gᵀα), and a test row, mapped through the
  same change of spectrum (``SpectrumKLR(test_kernel="projected")``), has the features
  g(x) = z(x) diag(√t(σ)/σ); so c = S Rᵀ W diag(√t(σ)/σ) w.  Shift adds |σ_min| to the
  eigenvalues of K̃'s range only: shifting K̃'s n − r zero eigenvalues too would make it full
  rank, with no O(n·m) form; with every row a landmark there are none, and this is Shift.
- :class:`NystromKSVM`: KSVM (Loosli et al.) trains an SVM on the flipped kernel, a linear SVM
  on G = Ψ diag(√|σ|), and predicts with the original kernel and the coefficients
  c̃ = Ψ sign(σ) Ψᵀ (y ⊙ α): k̃(x, X) c̃ = z(x) sign(σ) Ψᵀ(y ⊙ α).

With every row a landmark, K̃ = K and each is its exact twin (``SpectrumKLR(test_kernel=
"projected")``, ``KSVM``) up to round-off: ``tests/test_feature_baselines.py``.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.linalg

from kreinbench.linalg.spectrum import TRANSFORMS
from kreinbench.methods.base import check_choice, check_int, check_positive
from kreinbench.methods.iklr.features import NystromModel
from kreinbench.methods.solvers.logistic import margin_losses


def _approximation_spectrum(Phi: np.ndarray, signature: np.ndarray):
    """(Q, R, σ, W) with Φ = QR and R S Rᵀ = W diag(σ) Wᵀ: K̃ = (QW) diag(σ) (QW)ᵀ; the
    eigenvalues at round-off level (r·ε·max|σ|) are dropped, as the exact spectrum drops them."""
    Q, R = np.linalg.qr(Phi)
    core = (R * signature) @ R.T
    sigma, W = scipy.linalg.eigh((core + core.T) / 2)
    keep = np.abs(sigma) > Phi.shape[1] * np.finfo(float).eps * max(float(np.abs(sigma).max()), np.finfo(float).tiny)
    return Q, R, sigma[keep], W[:, keep]


def spectrum_klr_params(model) -> dict:
    """A spectrum KLR's ``correction``, ``lam``, ``tol`` and ``max_iter``, checked (named in the error)
    before any feature is computed."""
    check_choice("correction", model.correction, set(TRANSFORMS))
    return {"correction": model.correction, "lam": check_positive("lam", model.lam),
            "tol": check_positive("tol", model.tol), "max_iter": check_int("max_iter", model.max_iter, minimum=1)}


def spectrum_logistic_regression(Phi: np.ndarray, signature: np.ndarray, y_pm: np.ndarray, *, correction: str,
                                 lam: float, tol: float, max_iter: int) -> tuple[np.ndarray, float, list[dict]]:
    """KLR on K̃ = Φ S Φᵀ with its spectrum changed by ``correction`` (see the module docstring), as
    (c, b, history) with the decision φ(x)ᵀc + b for a row's features φ(x), Nyström's or signed random
    features' alike; history: one row, Newton's ``iteration`` count and the ``objective`` (mean loss +
    (λ/2)‖w‖²) it reached, ``elapsed`` seconds."""
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 (only these models need it)

    start = time.perf_counter()
    Q, R, sigma, W = _approximation_spectrum(Phi, signature)
    t = TRANSFORMS[correction](sigma)
    kept = t > 0  # Clip's zeros leave the model
    G = Q @ (W[:, kept] * np.sqrt(t[kept]))
    # scikit-learn minimizes C·Σ loss + ½‖w‖², i.e. the mean loss + (λ/2)‖w‖² at C = 1/(nλ); the
    # intercept is not penalized, as KLR's b.
    model = LogisticRegression(C=1.0 / (G.shape[0] * lam), solver="newton-cholesky", tol=tol,
                               max_iter=max_iter).fit(G, y_pm)
    w, intercept = model.coef_.ravel(), float(model.intercept_[0])
    coef = (signature[:, None] * R.T) @ (W[:, kept] @ (np.sqrt(t[kept]) / sigma[kept] * w))
    objective = float(np.mean(margin_losses(y_pm * (G @ w + intercept)))) + lam / 2 * float(w @ w)
    history = [{"iteration": int(model.n_iter_[0]), "objective": objective, "elapsed": time.perf_counter() - start}]
    return coef, intercept, history


class NystromSpectrumKLR(NystromModel):
    """Flip, Clip or Shift KLR on the Kreĭn Nyström approximation (see the module docstring).

    Parameters
    ----------
    kernel, n_components, landmarks, rcond, random_state
        The approximation's (:class:`kreinbench.linalg.nystrom.KreinNystrom`).
    correction : {"flip", "clip", "shift"}, default="flip"
        The spectrum correction (a parameter named ``transform`` would make scikit-learn take the
        model for a transformer).
    lam : float, default=1.0
        λ of KLR's (λ/2)αᵀK'α with the mean loss, as :class:`~kreinbench.methods.SpectrumKLR`.
    tol : float, default=1e-10
        Newton (scikit-learn's ``newton-cholesky``) stops when the gradient's largest entry is below it.
    max_iter : int, default=100

    Attributes
    ----------
    nystrom_ : KreinNystrom
    coef_ : ndarray of shape (r,)
        Decision φ(x)ᵀ coef_ + intercept_ on the Nyström features φ.
    intercept_ : float
    classes_ : ndarray of shape (2,)
    history_ : list of dict
        One row: Newton's ``iteration`` count, the ``objective`` (mean loss + (λ/2)‖w‖²), ``elapsed``.
    n_iter_ : int
    diverged_ : bool
        False: the fit is convex.
    """

    def __init__(self, *, kernel, correction="flip", n_components=500, landmarks="uniform", rcond="auto",
                 random_state=None, lam=1.0, tol=1e-10, max_iter=100):
        self.kernel = kernel
        self.correction = correction
        self.n_components = n_components
        self.landmarks = landmarks
        self.rcond = rcond
        self.random_state = random_state
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        params = spectrum_klr_params(self)
        X, y_pm = self._rows_and_labels(X, y)
        Phi = self._features(X)
        self.coef_, self.intercept_, self.history_ = spectrum_logistic_regression(Phi, self.nystrom_.signature_, y_pm,
                                                                                  **params)
        self.n_iter_, self.diverged_ = self.history_[-1]["iteration"], False
        return self


class NystromKSVM(NystromModel):
    """KSVM (Loosli et al.) on the Kreĭn Nyström approximation (see the module docstring).

    The SVM on the flipped approximation is libsvm's with a linear kernel on r features (its kernel
    columns computed on the fly, O(n·r) memory), as :class:`~kreinbench.methods.KSVM`'s is libsvm's
    on the precomputed flipped kernel.

    Parameters
    ----------
    kernel, n_components, landmarks, rcond, random_state
        The approximation's (:class:`kreinbench.linalg.nystrom.KreinNystrom`).
    C : float, default=1.0
    tol : float, default=1e-3
        libsvm's stopping tolerance.
    max_iter : int, default=-1
        libsvm's iteration cap (−1: none).

    Attributes
    ----------
    nystrom_ : KreinNystrom
    coef_ : ndarray of shape (r,)
        Decision φ(x)ᵀ coef_ + intercept_ on the Nyström features φ.
    intercept_ : float
    classes_ : ndarray of shape (2,)
    support_ : ndarray
        Indices of the support vectors.
    n_iter_ : int
        libsvm's iterations.
    """

    def __init__(self, *, kernel, n_components=500, landmarks="uniform", rcond="auto", random_state=None, C=1.0,
                 tol=1e-3, max_iter=-1):
        self.kernel = kernel
        self.n_components = n_components
        self.landmarks = landmarks
        self.rcond = rcond
        self.random_state = random_state
        self.C = C
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        from sklearn.svm import SVC  # noqa: PLC0415 (only this model needs it)

        C = check_positive("C", self.C)
        tol = check_positive("tol", self.tol)
        max_iter = check_int("max_iter", self.max_iter, minimum=-1)
        X, y_pm = self._rows_and_labels(X, y)
        Phi = self._features(X)
        Q, R, sigma, W = _approximation_spectrum(Phi, self.nystrom_.signature_)
        Psi = Q @ W
        svm = SVC(kernel="linear", C=C, tol=tol, max_iter=max_iter).fit(Psi * np.sqrt(np.abs(sigma)), y_pm)
        self.support_ = svm.support_
        self.n_iter_ = int(svm.n_iter_[0])
        # libsvm's dual_coef_ is y ⊙ α on the support vectors: Ψᵀ(y ⊙ α) from their rows only.
        psi_c = Psi[svm.support_].T @ svm.dual_coef_.ravel()
        self.coef_ = (self.nystrom_.signature_[:, None] * R.T) @ (W @ (np.sign(sigma) * psi_c))
        self.intercept_ = float(svm.intercept_[0])
        return self
