"""IKLR on Kreĭn features: the IKLR model on a signed low-rank factorization K ≈ Φ S Φᵀ.

With K ≈ Φ S Φᵀ (:class:`kreinbench.linalg.nystrom.KreinNystrom`: Φ is n × r, S = diag(±1)), the IKLR model
Kα + b and its regularizer αᵀKα become, with u = S Φᵀ α,

    Kα = Φ u,   αᵀKα = uᵀ S u = ‖u₊‖² − ‖u₋‖²,

so IKLR (TNNLS eq. (5)) is logistic regression on the features Φ with an indefinite regularizer:

    f(u, b) = (1/n) Σ log(1 + exp(−y_i(φ_iᵀu + b))) + (λ/2) uᵀ S u.

Every α gives a u with the same f, and on range(Φᵀ) the converse holds, so with all points as
landmarks (Φ S Φᵀ = K) this is IKLR itself, in r ≤ n unknowns instead of n, at O(n·r) per
function evaluation instead of O(n²).

CCCP's split is IKLR's eigen split (K₋ = τI + V₋|μ₋|V₋ᵀ, τ = max(−μ_min, 0) plus a round-off
margin) carried over to the features.  With all points as landmarks, feature j is eigenvector
v_j of K scaled by √|μ_j| (u_j = √|μ_j|·v_jᵀα), so K₊ and K₋, diagonal in that basis, become

    g_q = (λ/2) Σ_j ([μ_j > 0] + τ/|μ_j|) u_j²,   h_q = (λ/2) Σ_j ([μ_j < 0] + τ/|μ_j|) u_j²,

and CCCP on (u, b) makes exact IKLR's iterates.  For m < n landmarks the eigenvalues are those of
W = k(Z, Z) (KreinNystrom's ``eigenvalues_``), the same ratios τ/|λ_j| on the scale of W.  τ > 0
makes every subproblem strongly convex, and the per-feature τ/|λ_j| makes a feature of a small
eigenvalue move as slowly as its eigendirection does in IKLR.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.methods.base import (
    ConvergenceWarning,
    Estimator,
    RunawayWarning,
    binary_labels,
    check_int,
    check_positive,
    fitted_only,
    warn_at_caller,
)

# As in IKLR: a stationary point has ‖u‖ ≤ ‖Φ‖₂/(λ√n); iterates beyond RUNAWAY_FACTOR times that
# radius cannot be approaching one.
from kreinbench.methods.iklr.estimator import RUNAWAY_FACTOR
from kreinbench.methods.solvers.logistic import margin_losses, margin_weights

log = logging.getLogger(__name__)

# Seconds between progress lines of a long fit (as IKLR's).
PROGRESS_INTERVAL = 5.0


def _spectral_norm(A: np.ndarray, iterations: int = 50, rtol: float = 1e-6) -> float:
    """‖A‖₂ by power iteration on AᵀA (O(n·r) a step; an SVD of the n × r features is O(n·r²)),
    stopped once the estimate moves by less than ``rtol`` relative: a kernel's top eigenvalue is
    well separated, so that takes a few steps (EEG, n = 4000, m = 1000: 5, within 1e-8 of the norm)."""
    v = np.random.default_rng(0).standard_normal(A.shape[1])
    norm = 0.0
    for _ in range(iterations):
        w = A.T @ (A @ v)
        previous, norm = norm, float(np.linalg.norm(w))
        if norm == 0.0:
            return 0.0
        v = w / norm
        if abs(norm - previous) <= rtol * norm:
            break
    return float(np.sqrt(norm))


class _FeatureEstimator(Estimator):
    """``get_params``/``set_params``/``clone`` as every estimator here, but on feature rows: not
    the ``pairwise`` kernel input that :class:`~kreinbench.methods.base.Estimator` declares; a
    binary classifier to scikit-learn (stratified folds in its model selection)."""

    _estimator_type = "classifier"

    def __sklearn_tags__(self):
        from sklearn.base import BaseEstimator  # noqa: PLC0415 (only scikit-learn calls this)
        from sklearn.utils import ClassifierTags  # noqa: PLC0415

        tags = BaseEstimator.__sklearn_tags__(self)
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags(multi_class=False)
        tags.target_tags.required = True
        return tags


class KreinLogisticRegression(_FeatureEstimator):
    """Indefinite kernel logistic regression on Kreĭn features (Φ, S), by exact CCCP.

    Parameters
    ----------
    lam : float, default=1.0
        λ > 0 of (λ/2) uᵀSu.
    tau : float or None, default=None
        τ of the split (see the module docstring), on the scale of the eigenvalues passed to
        ``fit``; ``None`` means IKLR's, max(−λ_min, 0) plus a round-off margin.
    eps : float, default=1e-4
        Each subproblem is solved to ‖∇F_k‖ ≤ ε‖∇f(0, 0)‖ and CCCP stops at ‖∇f‖ ≤ ε‖∇f(0, 0)‖,
        the gradients taken in the dual coefficients α of u = SΦᵀα as exact IKLR takes them
        (∇_α f = ΦS∇_u f), so that with Φ S Φᵀ = K both stop where exact IKLR stops.
    max_outer : int, default=2000
    max_inner : int, default=10000
        L-BFGS iterations per subproblem.

    Attributes
    ----------
    coef_ : ndarray of shape (r,)
        u, the model's weights on the features: decision φ(x)ᵀu + b.
    intercept_ : float
    classes_ : ndarray of shape (2,)
    n_iter_ : int
        Outer (CCCP) iterations.
    stationarity_ : float
        ‖∇f‖ / ‖∇f(0, 0)‖ at the returned point (in the dual coefficients, see ``eps``).
    objective_ : float
        f at the returned point.
    tau_ : float
        τ of the split.
    diverged_ : bool
    history_ : list of dict
        Per outer iteration (0: the start u = 0, b = 0): ``iteration``, ``objective`` (f),
        ``stationarity`` (as ``stationarity_``) and ``elapsed`` seconds.
    """

    def __init__(self, *, lam=1.0, tau=None, eps=1e-4, max_outer=2000, max_inner=10000):
        self.lam = lam
        self.tau = tau
        self.eps = eps
        self.max_outer = max_outer
        self.max_inner = max_inner

    def _check(self, Phi, y, eigenvalues):
        lam = check_positive("lam", self.lam)
        tau = None if self.tau is None else check_positive("tau", self.tau, allow_zero=True)
        eps = check_positive("eps", self.eps)
        max_outer = check_int("max_outer", self.max_outer, minimum=1)
        max_inner = check_int("max_inner", self.max_inner, minimum=1)
        Phi = np.asarray(Phi, dtype=float)
        eigenvalues = np.asarray(eigenvalues, dtype=float)
        if Phi.ndim != 2 or eigenvalues.shape != (Phi.shape[1],) or not (np.isfinite(eigenvalues).all()
                                                                          and (eigenvalues != 0).all()):
            raise KreinbenchError(f"KreinLogisticRegression: features of shape {Phi.shape} need "
                                  f"{Phi.shape[1] if Phi.ndim == 2 else '?'} finite nonzero eigenvalues (their signs "
                                  f"are the signature), got shape {eigenvalues.shape}")
        y_pm, classes = binary_labels(y, Phi.shape[0])
        return Phi, y_pm, eigenvalues, classes, lam, tau, eps, max_outer, max_inner

    def fit(self, Phi, y, *, eigenvalues):
        """Fit on features ``Phi`` (n × r), the eigenvalues behind them (r nonzero: their signs are
        the signature S, their sizes set the split) and two-class labels."""
        Phi, y, mu, self.classes_, lam, tau, eps, max_outer, max_inner = self._check(Phi, y, eigenvalues)
        n, r = Phi.shape
        s = np.sign(mu)
        if tau is None:  # IKLR's default τ, with the same round-off margin
            tau = max(-mu.min(), 0.0) + r * np.finfo(float).eps * np.abs(mu).max()
        self.tau_ = tau
        g_q = lam * ((s > 0) + tau / np.abs(mu))  # the convex part's diagonal quadratic
        h_q = lam * ((s < 0) + tau / np.abs(mu))  # the concave part's, linearized at each outer iterate

        def loss_parts(u, b):
            margin = y * (Phi @ u + b)
            w = y * margin_weights(margin) / n  # minus the derivative of the mean loss in the scores
            return float(margin_losses(margin).sum()) / n, w

        def gradient_f(u, b):
            value, w = loss_parts(u, b)
            return value + 0.5 * lam * float(u @ (s * u)), np.append(-(Phi.T @ w) + lam * s * u, -w.sum())

        def dual_norm(grad):
            """‖∇f‖ in the dual coefficients α (u = SΦᵀα, so ∇_α f = ΦS∇_u f), as exact IKLR measures it."""
            return float(np.sqrt(np.sum((Phi @ (s * grad[:r])) ** 2) + grad[r] ** 2))

        u, b = np.zeros(r), 0.0
        f, grad = gradient_f(u, b)
        g0 = max(dual_norm(grad), np.finfo(float).tiny)
        self.history_ = [{"iteration": 0, "objective": f, "stationarity": 1.0, "elapsed": 0.0}]
        # L-BFGS runs on x = d ⊙ u with d_j² = g_q,j + ‖φ_j‖²/(4n), the subproblem's curvature along
        # feature j where every logistic weight takes its bound 1/4 (a Jacobi preconditioner: the
        # Kreĭn features are nearly orthogonal, ΦᵀΦ ≈ (n/m)|Λ|).  Without the loss term (d² = g_q,
        # the metric exact IKLR's solver takes from K₊) a feature of a large eigenvalue is stiff at
        # small λ: on EEG (n = 4000, m = 1000, λ = 1e-4) 427 L-BFGS steps, 39 with it, the same fit.
        # ‖ΦS∇_u F‖ ≤ ‖Φ diag(d)‖₂‖∇_x F‖, so this tolerance on x keeps the dual gradient of each
        # subproblem below ε‖∇f(0, 0)‖.
        scale = np.sqrt(g_q + np.einsum("ij,ij->j", Phi, Phi) / (4 * n))
        quad = g_q / scale**2  # the convex part's quadratic in x: ½ Σ quad_j x_j²
        gtol = eps * g0 / max(1.0, _spectral_norm(Phi * scale))
        radius = RUNAWAY_FACTOR * _spectral_norm(Phi) / (lam * np.sqrt(n))
        # Imported here: scipy.optimize adds start-up time to every job that imports this module.
        import scipy.optimize  # noqa: PLC0415

        self.diverged_ = False
        k = 0
        start = last_log = time.perf_counter()
        while k < max_outer:
            linear = h_q * u

            def subproblem(x):
                v = x[:r] / scale
                value, w = loss_parts(v, x[r])
                return (value + 0.5 * float(x[:r] @ (quad * x[:r])) - float(linear @ v),
                        np.append((-(Phi.T @ w) - linear) / scale + quad * x[:r], -w.sum()))

            # scipy's gtol bounds the largest entry; gtol/√(r+1) there bounds the 2-norm.
            res = scipy.optimize.minimize(subproblem, np.append(scale * u, b), jac=True, method="L-BFGS-B",
                                          options={"maxiter": max_inner, "gtol": gtol / np.sqrt(r + 1),
                                                   "ftol": 0.0, "maxcor": 20})
            k += 1
            u, b = res.x[:r] / scale, float(res.x[r])
            f, grad = gradient_f(u, b)
            now = time.perf_counter()
            self.history_.append({"iteration": k, "objective": f, "stationarity": dual_norm(grad) / g0,
                                  "elapsed": now - start})
            if now - last_log >= PROGRESS_INTERVAL:
                log.info("Kreĭn-feature IKLR outer %d: f = %.6g, |grad f| = %.3g, %.1f s", k, f,
                         np.linalg.norm(grad), now - start)
                last_log = now
            if np.linalg.norm(u) > radius:
                self.diverged_ = True
                warn_at_caller(f"KreinLogisticRegression: iterates ran away at outer iteration {k}: ||u|| exceeds "
                              f"{RUNAWAY_FACTOR:g}·||Phi||/(lam·sqrt(n)) = {radius:.3g}, beyond any stationary point; "
                              "try a larger lam", RunawayWarning)
                break
            if dual_norm(grad) <= eps * g0 or res.nit == 0:
                break
        self.coef_, self.intercept_, self.n_iter_ = u, b, k
        self.objective_ = f
        self.stationarity_ = dual_norm(grad) / g0
        if not self.diverged_ and self.stationarity_ > eps:
            warn_at_caller(f"KreinLogisticRegression stopped after {k} outer iterations at relative stationarity "
                          f"{self.stationarity_:.3g} > eps={eps:g}", ConvergenceWarning)
        return self

    def decision_function(self, Phi):
        """Scores φ(x)ᵀu + b of feature rows ``Phi`` (n_test × r)."""
        Phi = np.asarray(Phi, dtype=float)
        if Phi.ndim != 2 or Phi.shape[1] != self.coef_.size:
            raise KreinbenchError(f"KreinLogisticRegression: expected features with {self.coef_.size} columns, "
                                  f"got shape {Phi.shape}")
        return Phi @ self.coef_ + self.intercept_

    def predict(self, Phi):
        return self.classes_[(self.decision_function(Phi) > 0).astype(int)]

    def score(self, Phi, y):
        return float(np.mean(self.predict(Phi) == np.asarray(y)))


class NystromModel(_FeatureEstimator):
    """A model linear in the Kreĭn Nyström features of the rows: ``fit(X, y)`` validates the rows
    and labels (:meth:`_rows_and_labels`), computes the features (:meth:`_features`) and sets
    ``coef_`` and ``intercept_``; scores come in row blocks."""

    def _rows_and_labels(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """Rows as scikit-learn's ``check_X_y`` takes them (its messages for sparse, complex, NaN or
        empty input) and the labels as ±1, setting ``classes_`` and ``n_features_in_``."""
        from sklearn.utils.validation import check_X_y  # noqa: PLC0415 (these models import scikit-learn anyway)

        if y is None:
            raise KreinbenchError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        X, _ = check_X_y(X, np.zeros(len(y)) if hasattr(y, "__len__") else y, dtype=np.float64)
        y_pm, self.classes_ = binary_labels(y, X.shape[0])
        self.n_features_in_ = X.shape[1]
        return X, y_pm

    def _features(self, X) -> np.ndarray:
        from kreinbench.linalg.kernels import resolve_params  # noqa: PLC0415
        from kreinbench.linalg.nystrom import KreinNystrom  # noqa: PLC0415 (kreinbench.linalg.nystrom imports the kernels)

        kernel = self.kernel if callable(self.kernel) else resolve_params(self.kernel, X.shape[1])
        m = self.n_components
        if isinstance(m, (int, np.integer)) and m > X.shape[0]:
            # as scikit-learn's Nystroem: every row is a landmark (the approximation is then exact)
            warn_at_caller(f"{type(self).__name__}: n_components={m} > n_samples={X.shape[0]}; "
                           f"n_components={X.shape[0]} is used", UserWarning)
            m = X.shape[0]
        self.nystrom_ = KreinNystrom(kernel, n_components=m, landmarks=self.landmarks,
                                     random_state=self.random_state, rcond=self.rcond).fit(X)
        return self.nystrom_.transform(X)

    def decision_function(self, X):
        """Scores of the rows ``X``, in row blocks (no n_test × m feature matrix)."""
        from sklearn.utils.validation import check_array  # noqa: PLC0415

        return self.nystrom_.linear_scores(check_array(X, dtype=np.float64), self.coef_) + self.intercept_

    decision_function = fitted_only(decision_function, "coef_")

    def predict(self, X):
        scores = self.decision_function(X)  # first: it raises NotFittedError before classes_ is read
        return self.classes_[(scores > 0).astype(int)]

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y)))


class NystromIKLR(NystromModel):
    """IKLR at O(n·m) memory: Kreĭn Nyström features of the raw rows, then :class:`KreinLogisticRegression`.

    ``fit(X, y)`` and ``decision_function(X_test)`` take feature rows, never a kernel matrix.

    Parameters
    ----------
    kernel : dict or callable
        As :class:`kreinbench.linalg.nystrom.KreinNystrom`'s.
    n_components, landmarks, rcond, random_state
        The Nyström approximation's (:class:`kreinbench.linalg.nystrom.KreinNystrom`).
    lam, tau, eps, max_outer, max_inner
        The model's (:class:`KreinLogisticRegression`).

    Attributes
    ----------
    nystrom_ : KreinNystrom
    model_ : KreinLogisticRegression
    coef_, intercept_
        The model's, on the Nyström features: decision φ(x)ᵀ coef_ + intercept_.
    classes_ : ndarray of shape (2,)
    """

    def __init__(self, *, kernel, n_components=500, landmarks="uniform", rcond="auto", random_state=None, lam=1.0,
                 tau=None, eps=1e-4, max_outer=2000, max_inner=10000):
        self.kernel = kernel
        self.n_components = n_components
        self.landmarks = landmarks
        self.rcond = rcond
        self.random_state = random_state
        self.lam = lam
        self.tau = tau
        self.eps = eps
        self.max_outer = max_outer
        self.max_inner = max_inner

    def fit(self, X, y):
        X, _ = self._rows_and_labels(X, y)
        Phi = self._features(X)
        self.model_ = KreinLogisticRegression(lam=self.lam, tau=self.tau, eps=self.eps, max_outer=self.max_outer,
                                              max_inner=self.max_inner)
        self.model_.fit(Phi, y, eigenvalues=self.nystrom_.eigenvalues_)
        self.classes_, self.coef_, self.intercept_ = self.model_.classes_, self.model_.coef_, self.model_.intercept_
        return self
