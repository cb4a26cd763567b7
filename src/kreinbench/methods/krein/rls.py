"""Kreĭn kernel regularized least squares (Oglic & Gärtner, "Learning in Reproducing Kernel Kreĭn
Spaces", ICML 2018): the squared loss with the Kreĭn inner product as regularizer, on a hypersphere
of the associated Hilbert space, solved to global optimality with one eigendecomposition.

The problem, over f = f₊ + f₋ in the kernel's RKKS 𝒦 = 𝒦₊ ⊕ 𝒦₋, H_K its associated Hilbert space:

    min_f  (1/n) Σᵢ (f(xᵢ) − yᵢ)² + λ ⟨f, f⟩_K    s.t.  ‖f‖_{H_K} = r,

where ⟨f, f⟩_K = ‖f₊‖² − ‖f₋‖² is indefinite (without the constraint the objective is unbounded
below along every eigenvector of K with −nλ < dᵢ < 0) and ‖f‖²_{H_K} = ‖f₊‖² + ‖f₋‖².  The
representer theorem gives f = Σᵢ αᵢ k(xᵢ, ·); with K = U diag(d) Uᵀ, S = sign(d) and the split
K₊ − K₋ of the Gram matrix's spectrum, ⟨f, f⟩_K = αᵀKα and ‖f‖²_{H_K} = αᵀ|K|α.  On range(K) the
change of variables β = |D|^½ Uᵀα turns the sphere αᵀ|K|α = r² into ‖β‖ = r and the problem into

    min_β  βᵀHβ − 2bᵀβ + ‖y‖²/n    s.t.  ‖β‖ = r,    H = |D|/n + λS (diagonal),  b = S|D|^½Uᵀy / n,

a quadratic form on a hypersphere.  Its global minimizers are exactly the β with (H − μI)β = b,
‖β‖ = r and H − μI ⪰ 0 (Gander, Golub & von Matt, "A constrained eigenvalue problem", 1989): μ is
the root below h_min = min diag(H) of the secular equation Σᵢ bᵢ²/(hᵢ − μ)² = r², unique since the
left side increases from 0 to ∞ on (−∞, h_min) when b has a component on h_min's eigenspace (the
easy case).  In the hard case (b orthogonal to that eigenspace and ‖(H − h_min I)⁺b‖ ≤ r),
μ = h_min and β = (H − h_min I)⁺b + z with z in the eigenspace making ‖β‖ = r.  Back in α:

    α = U diag(1 / (dᵢ + n(λ − sᵢμ))) Uᵀ y,

a ridge of n(λ − μ) on K₊'s directions and of n(λ + μ) on K₋'s (there dᵢ + n(λ + μ) ≤ 0, and the
training fit along them is scaled by |dᵢ| / (|dᵢ| − n(λ + μ)), more than one when λ + μ > 0).  On a
positive semi-definite kernel λβᵀSβ = λr² is constant on the sphere, so λ drops out and the model
is kernel ridge regression, scikit-learn's ``KernelRidge(alpha=n(λ − μ))``, at the ridge whose
solution has RKHS norm r (tests/test_krein_rls.py checks both).

Choices where the problem statement leaves a detail to the implementation:

- the split K₊ − K₋ is that of the training Gram matrix's eigendecomposition, and eigenvalues with
  |dᵢ| at round-off level (:meth:`~kreinbench.linalg.spectrum.Spectrum.negative_tolerance`) are
  dropped: their directions carry no function (f vanishes on the data and has zero norm there);
- no intercept: the hypothesis is f ∈ K, as the problem states (a bias would need a regularization
  of its own); labels are ±1 and a point's class is the sign of f;
- ``radius`` is r itself, the H_K norm of f.  Because the risk is averaged over n, r's scale does
  not grow with n (for kernels whose eigenvalues grow like n): a logarithmic grid such as
  10^-2 … 10^2 for kernel values of order one is the natural search space;
- the hard-case component z points along b's round-off component in the eigenspace, or along the
  eigenspace's first basis vector when b has none there (any such z is a global minimizer: the
  objective is the same).
"""

from __future__ import annotations

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.spectrum import Spectrum, eigendecompose
from kreinbench.methods.base import (
    ConvergenceWarning,
    KernelClassifierMixin,
    KernelModel,
    KernelRegressorMixin,
    check_cross_kernel,
    check_int,
    check_positive,
    check_regression_kernel,
    check_train_kernel,
    warn_at_caller,
)

EPS = np.finfo(float).eps


def minimize_on_sphere(h: np.ndarray, b: np.ndarray, radius: float, *, tol: float, max_iter: int,
                       constant: float = 0.0) -> dict:
    """The global minimizer of xᵀdiag(h)x − 2bᵀx + ``constant`` on the sphere ‖x‖ = ``radius``.

    Writing μ = h_min − t, the easy case solves ‖x(t)‖ = r for t > 0, x(t) = b/(g + t), g = h − h_min
    ≥ 0 (g + t, not h − μ, avoids the cancellation near h_min), by Newton's method on the nearly
    linear 1/r − 1/‖x(t)‖ (Reinsch's form of the secular equation) inside a bracket that every step
    shrinks, with bisection where Newton leaves it: t* ≥ |bᵢ|/r − gᵢ for every i (each term alone
    reaches r there) and t* ≤ ‖b‖/r (‖x(t)‖ ≤ ‖b‖/t).  It stops at |‖x‖ − r| ≤ ``tol``·r or when the
    bracket is one ulp wide.

    Returns a dict: ``x``, ``mu``, ``hard_case``, ``converged``, ``residual`` (|‖x‖ − r|/r) and
    ``history`` (one row per secular-equation iterate: ``iteration``, ``mu``, ``norm`` = ‖x(μ)‖,
    ``objective`` at x(μ), which lies on the sphere only at convergence).
    """
    h_min = float(h.min())
    g = h - h_min
    # h_min's eigenspace, to round-off (H's eigenvalues repeat where K's do)
    bottom = g <= h.size * EPS * max(float(np.abs(h).max()), np.finfo(float).tiny)
    g[bottom] = 0.0
    b_bottom = float(np.linalg.norm(b[bottom]))

    def objective(x):
        return float(x @ (h * x) - 2.0 * (b @ x) + constant)

    rhs = b
    # b has no component on h_min's eigenspace to round-off (that of the eigenvectors, in b = S|D|^½Uᵀy/n,
    # is of order n·eps): the hard case unless the rest of x at μ = h_min already lies outside the
    # sphere, when an easy root t* > 0 exists without it.  Either branch is continuous in b there: the
    # easy one's x tends to the hard one's as b's bottom part goes to zero.
    if b_bottom <= h.size * EPS * np.linalg.norm(b):
        rhs = np.where(bottom, 0.0, b)
        rest = rhs / np.where(bottom, 1.0, g)
        inner = float(np.linalg.norm(rest))
        if inner <= radius:
            direction = np.zeros_like(b)
            if b_bottom > 0:
                direction[bottom] = b[bottom] / b_bottom
            else:
                direction[np.flatnonzero(bottom)[0]] = 1.0
            x = rest + np.sqrt(radius ** 2 - inner ** 2) * direction
            row = {"iteration": 0, "mu": h_min, "norm": float(np.linalg.norm(x)), "objective": objective(x)}
            return {"x": x, "mu": h_min, "hard_case": True, "converged": True,
                    "residual": abs(row["norm"] - radius) / radius, "history": [row]}
        b_bottom = 0.0
    lo = max(b_bottom / radius, float(np.max(np.abs(rhs) / radius - g)), 0.0)
    hi = float(np.linalg.norm(rhs)) / radius
    step, history, converged = lo, [], False
    for iteration in range(max_iter):
        t, shifted = step, g + step
        x = np.divide(rhs, shifted, out=np.zeros_like(rhs), where=rhs != 0)  # 0/0 only where bᵢ = 0
        norm = float(np.linalg.norm(x))
        history.append({"iteration": iteration, "mu": h_min - t, "norm": norm, "objective": objective(x)})
        if abs(norm - radius) <= tol * radius:
            converged = True
            break
        if norm > radius:
            lo = t
        else:
            hi = t
        if hi - lo <= 2 * EPS * hi:  # no float between the ends: as accurate as t can be
            converged = True
            break
        # Newton on 1/r − 1/‖x(t)‖, whose derivative is −Σ xᵢ²/(gᵢ + t) / ‖x‖³
        slope = float(np.sum(np.divide(x * x, shifted, out=np.zeros_like(x), where=x != 0)))
        step = t + (norm / radius - 1.0) * norm * norm / slope if slope > 0 else hi
        if not lo < step < hi:
            step = np.sqrt(lo * hi) if lo > 0 else hi / 2
    return {"x": x, "mu": h_min - t, "hard_case": False, "converged": converged,
            "residual": abs(norm - radius) / radius, "history": history}


class _KreinLeastSquares(KernelModel):
    """What the classifier and the regressor share: parameters, and the fit on a vector of targets."""

    needs_spectrum = True

    def __init__(self, *, lam=1.0, radius=1.0, tol=1e-12, max_iter=100):
        self.lam = lam
        self.radius = radius
        self.tol = tol
        self.max_iter = max_iter

    def check_params(self) -> None:
        self._validated()

    def _validated(self) -> tuple[float, float, float, int]:
        return (check_positive("lam", self.lam), check_positive("radius", self.radius),
                check_positive("tol", self.tol), check_int("max_iter", self.max_iter, minimum=1))

    def _fit_targets(self, K: np.ndarray, targets: np.ndarray, spectrum: Spectrum | None, lam: float, radius: float,
                     tol: float, max_iter: int) -> dict:
        """The fitted attributes for ``targets`` (set by the caller, all at once: a failed fit leaves
        the estimator unfitted)."""
        if spectrum is None:
            spectrum = eigendecompose(K)
        elif spectrum.kind != "full" or spectrum.eigenvalues.size != K.shape[0]:
            raise KreinbenchError(f"spectrum must be the full eigendecomposition of K ({K.shape[0]} eigenpairs), "
                                  f"got a {spectrum.kind!r} one with {spectrum.eigenvalues.size}")
        n = K.shape[0]
        keep = np.abs(spectrum.eigenvalues) > spectrum.negative_tolerance()
        if not keep.any():
            raise KreinbenchError("K is zero to round-off: no function of its span has ‖f‖ = radius > 0")
        d, U = spectrum.eigenvalues[keep], spectrum.eigenvectors[:, keep]
        sign, root = np.sign(d), np.sqrt(np.abs(d))
        h = np.abs(d) / n + lam * sign
        b = sign * root * (U.T @ targets) / n
        solution = minimize_on_sphere(h, b, radius, tol=tol, max_iter=max_iter, constant=float(targets @ targets) / n)
        if not solution["converged"]:
            warn_at_caller(f"{type(self).__name__}: the secular equation stopped after {max_iter} iterations at "
                           f"relative residual {solution['residual']:.3g} of ‖f‖ = radius", ConvergenceWarning)
        history = solution["history"]
        return {"alpha_": U @ (solution["x"] / root), "multiplier_": solution["mu"],
                "hard_case_": solution["hard_case"], "objective_": history[-1]["objective"], "history_": history,
                "n_iter_": len(history) - 1, "stationarity_": solution["residual"], "diverged_": False}


class KreinRLS(_KreinLeastSquares, KernelClassifierMixin):
    """Kreĭn kernel regularized least squares classifier (Oglic & Gärtner, ICML 2018), on a
    precomputed, possibly indefinite kernel.

    Fits f = K_cross α to the labels as ±1 by the squared loss with the Kreĭn regularizer λ⟨f, f⟩_K
    on the sphere ‖f‖_{H_K} = r, to global optimality (see :mod:`kreinbench.methods.krein.rls`);
    predicts the class by the sign of f.  No intercept.  For real targets use
    :class:`KreinRLSRegressor`, the same problem and solver.

    Parameters
    ----------
    lam : float, default=1.0
        λ > 0, the weight of the Kreĭn inner product ⟨f, f⟩_K = ‖f₊‖² − ‖f₋‖²; on the sphere it
        equals 2λ‖f₊‖² − λr², a penalty on the positive part's share of the norm.  It has no effect
        on a positive semi-definite kernel.
    radius : float, default=1.0
        r > 0, the H_K norm ‖f‖ = (αᵀ|K|α)^½ every solution has.
    tol : float, default=1e-12
        Relative accuracy |‖f‖ − r| ≤ tol·r at which the secular equation's Newton iteration stops.
    max_iter : int, default=100
        Iteration cap of that Newton iteration (it takes a handful; a ConvergenceWarning says when
        the cap stopped it).

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        The expansion coefficients: f(x) = Σᵢ αᵢ k(xᵢ, x).
    multiplier_ : float
        μ, the Lagrange multiplier of the sphere in the β coordinates (the secular equation's root);
        μ ≤ min(|dᵢ|/n + λ sign(dᵢ)), which certifies the global minimum.
    hard_case_ : bool
        Whether the labels were orthogonal to the bottom eigenspace of H (μ at its eigenvalue).
    objective_ : float
        (1/n)‖Kα − y‖² + λαᵀKα at the solution.
    classes_ : ndarray of shape (2,)
    history_ : list of dict
        One row per secular-equation iterate: ``iteration``, ``mu``, ``norm`` (‖f‖_{H_K} there),
        ``objective``.
    n_iter_ : int
    stationarity_ : float
        |‖f‖_{H_K} − r| / r at the solution.
    diverged_ : bool
        Always False (the solver cannot diverge).
    """

    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        """Fit on the train kernel ``K`` (n, n) and labels ``y`` (two classes); ``spectrum`` is K's
        cached full eigendecomposition, computed here if None."""
        params = self._validated()  # before the data: a bad parameter is the first thing to say
        K, y_pm, classes = check_train_kernel(K, y)
        vars(self).update(self._fit_targets(K, y_pm, spectrum, *params), classes_=classes)
        return self

    def decision_function(self, K_cross):
        """f = K_cross α for a cross-kernel of shape (n_test, n_train); its sign is the class."""
        K_cross = check_cross_kernel(K_cross, self.alpha_.size)
        return K_cross @ self.alpha_


class KreinRLSRegressor(_KreinLeastSquares, KernelRegressorMixin):
    """Kreĭn kernel regularized least squares regression: :class:`KreinRLS`'s problem and solver on
    real targets, predicting f = K_cross α (no intercept: center the targets for one).

    Parameters and attributes are :class:`KreinRLS`'s, less ``classes_``.
    """

    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        """Fit on the train kernel ``K`` (n, n) and real targets ``y``; ``spectrum`` as for
        :meth:`KreinRLS.fit`."""
        params = self._validated()
        K, y = check_regression_kernel(K, y)
        vars(self).update(self._fit_targets(K, y, spectrum, *params))
        return self

    def predict(self, K_cross):
        """f = K_cross α for a cross-kernel of shape (n_test, n_train)."""
        K_cross = check_cross_kernel(K_cross, self.alpha_.size)
        return K_cross @ self.alpha_
