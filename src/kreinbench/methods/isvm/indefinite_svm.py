"""Indefinite SVM (Luss & d'Aspremont, NIPS 2007) by SPGM and Nesterov's smooth method (Ying et al., NIPS 2009).

The proxy-kernel SVM  max_{α ∈ Q₁} min_{K ⪰ 0} αᵀe − ½αᵀYKYα + ρ‖K − K₀‖²_F  with
Q₁ = {α : αᵀy = 0, 0 ≤ α ≤ C} has the concave objective (Ying eqs. (3)–(6))

    f(α) = αᵀe − ½αᵀY K(α) Y α + ρ‖K(α) − K₀‖²_F,   K(α) = (K₀ + vvᵀ/(4ρ))₊,  v = Yα,
    ∇f(α) = e − Y K(α) Y α.

Writing M = K₀ + vvᵀ/(4ρ) and completing the square in K,
ρ‖K − K₀‖²_F − ½vᵀKv = ρ‖K − M‖²_F − ½vᵀK₀v − ‖v‖⁴/(16ρ), and the minimum over K ⪰ 0 of
‖K − M‖²_F is ‖M₋‖²_F = Σ_{μ_j(M)<0} μ_j².  Hence

    f(α) = eᵀα − ½vᵀK₀v − ‖v‖⁴/(16ρ) + ρ Σ_{μ_j(M)<0} μ_j²,    K(α)v = Mv − M₋v,

which needs only the negative eigenpairs of M and never forms K(α) or the n × n difference
K(α) − K₀ (no cancellation between large matrices).
"""

from __future__ import annotations

import logging
import time

import numpy as np
import scipy.linalg
from scipy.linalg.lapack import dlasd4

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.eigen import largest_eigenvalue
from kreinbench.linalg.spectrum import Spectrum, check_symmetric_kernel, compute_spectrum, eigendecompose
from kreinbench.methods.base import (
    ConvergenceWarning,
    KernelClassifierMixin,
    check_choice,
    check_cross_kernel,
    check_int,
    check_positive,
    check_train_kernel,
    warn_at_caller,
)
from kreinbench.methods.isvm.apg import apg
from kreinbench.methods.solvers.dual_gap import wolfe_gap
from kreinbench.methods.solvers.projection import project_box_hyperplane
from kreinbench.methods.solvers.smo import intercept

log = logging.getLogger(__name__)

SOLVERS = {"smm", "spgm", "apg"}
EIGENSOLVERS = {"rank-one", "eigh"}
TEST_KERNELS = {"original", "proxy"}
# Seconds between progress lines of a long fit.
PROGRESS_INTERVAL = 5.0


def _proxy_products_eigh(K0: np.ndarray, v: np.ndarray, c: float) -> tuple[np.ndarray, float, float]:
    """(M₊v, vᵀK₀v, Σ_{μ<0} μ²) for M = K₀ + c vvᵀ by a fresh dense eigendecomposition of M."""
    K0v = K0 @ v
    M = K0 + c * np.outer(v, v)
    mu, U = scipy.linalg.eigh(M, driver="evd", overwrite_a=True, check_finite=False)
    neg = mu < 0
    mu_neg, U_neg = mu[neg], U[:, neg]
    Mneg_v = U_neg @ (mu_neg * (U_neg.T @ v))
    return K0v + (c * float(v @ v)) * v - Mneg_v, float(v @ K0v), float(mu_neg @ mu_neg)


class RankOneProxyProducts:
    """(M₊v, vᵀK₀v, Σ_{μ<0} μ²) for M = K₀ + c vvᵀ from K₀'s fixed spectrum, in O(n²) per call.

    In K₀'s eigenbasis, M = U(Λ + c zzᵀ)Uᵀ with z = Uᵀv.  The eigenvalues μ_j of Λ + c zzᵀ are the
    roots of the secular equation 1 + c Σ_k z_k²/(λ_k − μ) = 0, one in each interval (λ_j, λ_{j+1}),
    with eigenvectors q_j ∝ (Λ − μ_j)⁻¹z; hence M₋z = Σ_{μ_j<0} μ_j q_j (q_jᵀz)/‖q_j‖² needs only the
    negative roots and the differences λ_k − μ_j.  LAPACK's ``dlasd4`` (the secular-equation solver
    of the SVD divide-and-conquer; it takes the diagonal as squares d², so d = √(λ − λ_1)) returns
    those differences as (d_k − σ)(d_k + σ) to high relative accuracy, which keeps the q_j
    accurate even when a root lies close to a pole.  M₊v = Mv − M₋v = U(Λz − M₋z) + c‖v‖²v and
    vᵀK₀v = zᵀΛz come from the same z: one product with Uᵀ and one with U, and none with K₀.

    Components with c|z_k|‖z‖ at round-off level are deflated (eigenpair (λ_k, e_k) of the
    update), and eigenvalues closer than round-off are merged into one pole (the secular solver
    needs strictly separated poles), as in the divide-and-conquer eigensolvers.  Should the
    secular solver still fail, the call returns ``None`` and the caller falls back to a dense
    eigendecomposition.
    """

    def __init__(self, spectrum: Spectrum):
        self.lam = spectrum.eigenvalues
        self.U = spectrum.eigenvectors
        self.tol = 8.0 * np.finfo(float).eps * max(spectrum.scale, np.finfo(float).tiny)

    def __call__(self, v: np.ndarray, c: float) -> tuple[np.ndarray, float, float] | None:
        z = self.U.T @ v
        negative = self._negative_part(z, c)
        if negative is None:
            return None
        r, sum_sq = negative
        lam_z = self.lam * z
        return self.U @ (lam_z - r) + (c * float(v @ v)) * v, float(z @ lam_z), sum_sq

    def _negative_part(self, z: np.ndarray, c: float) -> tuple[np.ndarray, float] | None:
        """(M₋z in K₀'s eigenbasis, Σ_{μ<0} μ²), or None when the poles are not separated."""
        lam = self.lam
        w = c * float(z @ z)
        r = np.zeros_like(z)
        deflated = w * np.abs(z) / np.sqrt(max(float(z @ z), np.finfo(float).tiny)) <= self.tol * max(1.0, w)
        neg_deflated = deflated & (lam < 0)
        r[neg_deflated] = lam[neg_deflated] * z[neg_deflated]
        sum_sq = float(lam[neg_deflated] @ lam[neg_deflated])
        keep = np.flatnonzero(~deflated)
        if keep.size == 0 or lam[keep[0]] >= 0:
            return r, sum_sq
        # Poles closer than round-off (a repeated eigenvalue: e.g. the zeros of a low-rank K₀) are
        # one pole: rotating the cluster's eigenvectors so that z lies along one of them, u = z_g/‖z_g‖,
        # leaves the others eigenvectors of M with the cluster's eigenvalue, orthogonal to z (no share
        # of M₋z; their μ² still count in Σ_{μ<0} μ²).
        starts = np.flatnonzero(np.r_[True, np.diff(lam[keep]) > self.tol * max(1.0, w)])
        sizes = np.diff(np.r_[starts, keep.size])
        lam_k = np.add.reduceat(lam[keep], starts) / sizes
        z_k = np.sqrt(np.add.reduceat(z[keep] ** 2, starts))
        if lam_k[0] >= 0:  # a round-off cluster about 0 was the only negative eigenvalue
            return r, sum_sq
        tied = lam_k < 0
        sum_sq += float((sizes[tied] - 1) @ lam_k[tied] ** 2)
        d = np.sqrt(lam_k - lam_k[0])
        zn = z_k / np.sqrt(float(z_k @ z_k))
        w_k = c * float(z_k @ z_k)
        # Roots increase with j and μ_j ∈ (λ_j, λ_{j+1}): those below the last negative pole are
        # negative, and only the root of the interval that contains 0 needs its sign tested.
        n_neg = int(np.searchsorted(lam_k, 0.0))
        sigma, Q = np.empty(n_neg), np.empty((n_neg, lam_k.size))
        for j in range(n_neg):
            delta, sigma[j], work, info = dlasd4(j, d, zn, w_k)
            if info != 0:
                return None
            # Row j holds λ_k − μ_j until the loop ends, then q_j = (Λ − μ_j)⁻¹z: no list of rows to
            # stack, and M₋z = Σ_j μ_j (q_jᵀz/‖q_j‖²) q_j is one product with Q.
            np.multiply(delta, work, out=Q[j])
        mu = lam_k[0] + sigma * sigma
        count = n_neg if mu[-1] < 0 else n_neg - 1
        if count:
            mu, Q = mu[:count], Q[:count]
            np.divide(z_k, Q, out=Q)
            r_k = (mu * (Q @ z_k) / np.einsum("ij,ij->i", Q, Q)) @ Q
            # back from each cluster's direction u to K₀'s eigenvectors: r_g = r_k · z_g/‖z_g‖
            r[keep] = np.repeat(r_k / z_k, sizes) * z[keep]
            sum_sq += float(mu @ mu)
        return r, sum_sq


class ProxyObjective:
    """f(α), ∇f(α) and the proxy kernel for a fixed indefinite K₀, labels y and ρ.

    ``rank_one`` (a :class:`RankOneProxyProducts` of K₀) replaces the dense eigendecomposition of M
    per evaluation by the secular-equation update; ``None`` means dense ``eigh`` every time.
    """

    def __init__(self, K0: np.ndarray, y: np.ndarray, rho: float, rank_one: RankOneProxyProducts | None = None):
        self.K0 = K0
        self.y = y
        self.rho = rho
        self.rank_one = rank_one
        self.n_fallbacks = 0

    def proxy_products(self, v: np.ndarray) -> tuple[np.ndarray, float, float]:
        """(K(α)v = M₊v, vᵀK₀v, Σ_{μ<0} μ²) for M = K₀ + vvᵀ/(4ρ)."""
        c = 1.0 / (4.0 * self.rho)
        if self.rank_one is not None:
            out = self.rank_one(v, c)
            if out is not None:
                return out
            self.n_fallbacks += 1
        return _proxy_products_eigh(self.K0, v, c)

    def value_and_gradient(self, alpha: np.ndarray) -> tuple[float, np.ndarray]:
        v = self.y * alpha
        Kv, vK0v, neg_sq = self.proxy_products(v)
        vv = float(v @ v)
        f = float(alpha.sum() - 0.5 * vK0v - vv * vv / (16.0 * self.rho) + self.rho * neg_sq)
        return f, 1.0 - self.y * Kv

    def proxy_kernel(self, alpha: np.ndarray) -> np.ndarray:
        """K(α) = M₊ as an explicit matrix (dense eigendecomposition)."""
        v = self.y * alpha
        mu, U = scipy.linalg.eigh(self.K0 + np.outer(v, v) / (4.0 * self.rho), driver="evd")
        Kp = (U * np.maximum(mu, 0.0)) @ U.T
        return (Kp + Kp.T) / 2


class IndefiniteSVM(KernelClassifierMixin):
    """SVM with an indefinite kernel through a learned PSD proxy kernel (Luss & d'Aspremont 2007).

    Maximizes Ying et al.'s f(α) over Q₁ by the simplified projected gradient method
    (``solver="spgm"``, Ying Table 1, step 1/L) or Nesterov's smooth method (``solver="smm"``,
    Ying Table 2), both with L = λ_max(K₀) + nC²/ρ (Ying Theorem 2), from α₀ = 0, or, not in
    the paper, by an accelerated projected gradient with a backtracking step (``solver="apg"``,
    :func:`kreinbench.methods.isvm.apg.apg`: FISTA with adaptive restart, stopped by the
    certified Frank–Wolfe gap; the same maximum in far fewer iterations at large C).  The
    projections onto Q₁ are exact (:func:`kreinbench.methods.solvers.projection.project_box_hyperplane`:
    binary search over the breakpoints of the multiplier of αᵀy = 0, then the linear piece
    solved in closed form).

    Parameters
    ----------
    C : float, default=1.0
        Box constraint C > 0.
    rho : float, default=1.0
        Weight ρ > 0 of ‖K − K₀‖²_F; large ρ keeps the proxy close to K₀ (and L small).
    solver : {"smm", "spgm", "apg"}, default="smm"
        ``"smm"`` and ``"spgm"`` are the paper's (Table 3 times them); ``"apg"`` is not.
    tol : float, default=1e-6
        SMM/SPGM: stop when |f_{k+1} − f_k| ≤ tol·|f_{k+1}| (Ying §5 uses 1e-6).  APG: stop
        when the Frank–Wolfe gap, an upper bound on f* − f(α), is ≤ tol·|f(α)|.
    max_iter : int, default=10000
    eigensolver : {"rank-one", "eigh"}, default="rank-one"
        How the negative part of M = K₀ + vvᵀ/(4ρ) is obtained at each iteration:
        ``"rank-one"`` by the secular equation on K₀'s spectrum (:class:`RankOneProxyProducts`,
        O(n²) per iteration after one eigendecomposition of K₀; ~20× faster than a dense
        eigh at n = 960 in benchmarks/bench_svm.py), ``"eigh"`` by a dense eigendecomposition
        of M every iteration (O(n³)).
    test_kernel : {"original", "proxy"}, default="original"
        How test points are scored.  ``"original"``: f(x) = Σ_i y_i α_i k₀(x, x_i) + b with the
        given (indefinite) cross-kernel, as Ying et al. and Chen & Ye evaluate.  ``"proxy"``: the
        cross-kernel is carried through the training eigenbasis of K₀ onto the learned proxy,
        k*(x) = K* K₀⁻¹ k₀(x) (pseudo-inverse; eigenvalues at round-off level dropped), which
        reproduces the rows of K* = K(α) on training points.  (Luss & d'Aspremont's own
        heuristic needs the test-test kernel block and is not offered.)
    cv_solver : {None, "smm", "spgm", "apg"}, default=None
        The solver of the cross-validation fits, when it differs from ``solver`` (None: the
        same).  With ``cv_solver="apg"`` model selection runs :meth:`grid_path_scores` (APG
        along the grid, warm-started) while the final fit, the one a paper's table times, still
        runs ``solver``.  (``cross_validate(paths=False)`` fits every candidate separately by
        ``solver``.)

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        The iterate with the largest f seen (for SPGM the last one: f increases monotonically).
    dual_coef_ : ndarray of shape (n,)
        y ⊙ α.
    intercept_ : float
        b from the KKT conditions of the SVM with kernel K(α) (libsvm's rule).
    objective_ : float
        f(alpha_).
    classes_ : ndarray of shape (2,)
    history_ : list of dict
        One row per gradient evaluation (iteration 0 = α₀): ``objective`` f(α_k) (for SMM at the
        point where the gradient is taken), ``step_norm`` ‖α_{k+1} − α_k‖, ``elapsed``.
    n_iter_ : int
    stationarity_ : float
        Projected-gradient norm L‖P_{Q₁}(α + ∇f(α)/L) − α‖ at the returned α (0 at the maximum).
    lipschitz_ : float
        L = λ_max(K₀) + nC²/ρ.
    local_lipschitz_ : float
        APG only: its last backtracking estimate of the local Lipschitz constant (≪ L at large C).
    n_evaluations_ : int
        APG only: evaluations of f and ∇f (each one rank-one eigen-update), about 2 per iteration.
    gap_ : float
        The Frank–Wolfe gap max_{β∈Q₁} ∇f(α)ᵀ(β − α) ≥ f* − f(α) at the returned α.
    n_eigh_fallbacks_ : int
        Iterations where the rank-one update fell back to a dense eigh (near-tied eigenvalues of K₀).
    diverged_ : bool
        Always False: Q₁ is bounded and f is concave.
    """

    needs_spectrum = True

    def __init__(self, *, C=1.0, rho=1.0, solver="smm", tol=1e-6, max_iter=10000, eigensolver="rank-one",
                 test_kernel="original", cv_solver=None):
        self.C = C
        self.rho = rho
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.eigensolver = eigensolver
        self.test_kernel = test_kernel
        self.cv_solver = cv_solver

    def check_params(self) -> None:
        self._validated()

    def _validated(self) -> tuple:
        """(C, ρ, solver, tol, max_iter, eigensolver), each checked; cv_solver and test_kernel checked."""
        if self.cv_solver is not None:
            check_choice("cv_solver", self.cv_solver, SOLVERS)
        check_choice("test_kernel", self.test_kernel, TEST_KERNELS)
        return (check_positive("C", self.C), check_positive("rho", self.rho), check_choice("solver", self.solver, SOLVERS),
                check_positive("tol", self.tol), check_int("max_iter", self.max_iter, minimum=1),
                check_choice("eigensolver", self.eigensolver, EIGENSOLVERS))

    def fit(self, K, y, *, spectrum: Spectrum | None = None, warm_start: tuple | None = None):
        """Fit on the indefinite kernel K₀ = ``K`` (n, n); ``spectrum`` is K₀'s cached eigendecomposition.

        The full spectrum is needed for ``eigensolver="rank-one"`` and ``test_kernel="proxy"``
        (computed here once if not given); otherwise only λ_max(K₀), for L.  ``warm_start``
        (APG only) is ``(alpha, L)`` of a fit on the same K₀ and y, e.g. at a smaller C: the start
        point (projected onto this fit's Q₁) and the first trial Lipschitz estimate.
        """
        C, rho, solver, tol, max_iter, eigensolver = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        check_symmetric_kernel(K, "K")
        n = y_pm.size
        if spectrum is not None and spectrum.eigenvalues.size != n:
            raise KreinbenchError(f"spectrum has {spectrum.eigenvalues.size} eigenvalues but K is {n} x {n}")
        if spectrum is None and (self.test_kernel == "proxy" or eigensolver == "rank-one"):
            spectrum = eigendecompose(K)
        if spectrum is not None:
            lam_max = float(spectrum.eigenvalues[-1])
        else:
            lam_max = largest_eigenvalue(K, exact=True)
        # Ying's Theorem 2 bounds λ_max(K(α)) by λ_max(K₀) + ‖α‖²/(4ρ); with λ_max(K₀) < 0 the
        # proxy part is still PSD, so the bound uses max(λ_max, 0).
        self.lipschitz_ = max(lam_max, 0.0) + n * C * C / rho
        L = self.lipschitz_
        objective = ProxyObjective(K, y_pm, rho, RankOneProxyProducts(spectrum) if eigensolver == "rank-one" else None)
        if solver == "apg":
            progress = _Progress("apg", tol)
            alpha0, L0 = warm_start if warm_start is not None else (None, max(lam_max, 1.0))
            alpha, f, self.local_lipschitz_, self.n_evaluations_, converged, self.gap_ = apg(
                objective.value_and_gradient, y_pm, C, min(L0, L), tol, max_iter, alpha0,
                lambda f, step: progress.record(f, step))
            self.history_ = progress.history
        else:
            run = _smm if solver == "smm" else _spgm
            alpha, f, self.history_, converged = run(objective, y_pm, C, L, tol, max_iter)
        self.alpha_, self.objective_ = alpha, f
        self.n_iter_ = len(self.history_) - 1
        self.dual_coef_ = y_pm * alpha
        _, grad = objective.value_and_gradient(alpha)
        if solver != "apg":
            self.gap_ = wolfe_gap(grad, alpha, y_pm, C)
        self.stationarity_ = float(L * np.linalg.norm(project_box_hyperplane(alpha + grad / L, y_pm, C) - alpha))
        # The SVM dual with kernel K(α), in libsvm's minimization form, has gradient Y K(α) Y α − e = −∇f.
        self.intercept_ = intercept(-grad, alpha, y_pm, C)
        self.diverged_ = False
        self.n_eigh_fallbacks_ = objective.n_fallbacks
        if self.test_kernel == "proxy":
            self._test_coef = self._proxy_test_coefficients(objective, spectrum)
        if not converged:
            rule = "the Frank–Wolfe gap" if solver == "apg" else "the relative change of f"
            warn_at_caller(f"IndefiniteSVM {solver} stopped at max_iter={max_iter} before {rule} "
                          f"fell below tol={tol:g} (projected-gradient norm {self.stationarity_:.3g})",
                          ConvergenceWarning)
        return self

    def supports_grid_path(self, grid: dict) -> bool:
        """True when CV should call :meth:`grid_path_scores`: CV by APG over a grid of C and ρ only."""
        cv_solver = check_choice("cv_solver", self.solver if self.cv_solver is None else self.cv_solver, SOLVERS)
        return cv_solver == "apg" and bool(grid) and set(grid) <= {"C", "rho"}

    def grid_path_scores(self, K, y, folds, candidates: list[dict], X=None) -> np.ndarray:
        """Validation accuracies (candidates × folds) of APG fits on slices of ``K``, as separate fits would give.

        ``X`` is unused (the kernel is all IndefiniteSVM needs); it is in the signature every
        grid-path estimator shares with :func:`kreinbench.methods.selection.cross_validate`.

        Per fold, K₀'s spectrum is computed once (:func:`kreinbench.linalg.spectrum.compute_spectrum`,
        as for separate fits) and the candidates run by ρ, then C ascending, each fit started from
        the solution at the next smaller C with the same ρ (feasible: Q₁ grows with C) and its
        last Lipschitz estimate.  The start changes the iterations, not the maximum of the concave
        f, so the scores are those of cold-started fits up to the solver tolerance (tested).
        """
        from kreinbench.methods.selection import read_only  # selection imports the estimators' modules

        params = self.get_params()
        params.update(solver="apg", cv_solver=None)
        order = sorted(range(len(candidates)), key=lambda i: (candidates[i].get("rho", self.rho),
                                                              candidates[i].get("C", self.C)))
        scores = np.empty((len(candidates), len(folds)))
        for j, (tr, va) in enumerate(folds):
            K_tr, K_va = K[np.ix_(tr, tr)], K[np.ix_(va, tr)]
            spectrum = read_only(compute_spectrum(K_tr, "full"))
            warm, warm_rho = None, None
            for i in order:
                est = IndefiniteSVM(**{**params, **candidates[i]})
                if est.rho != warm_rho:
                    warm, warm_rho = None, est.rho
                est.fit(K_tr, y[tr], spectrum=spectrum, warm_start=warm)
                warm = (est.alpha_, est.local_lipschitz_)
                scores[i, j] = est.score(K_va, y[va])
        return scores

    def _proxy_test_coefficients(self, objective: ProxyObjective, spectrum: Spectrum) -> np.ndarray:
        """w with k₀(x)ᵀw = k*(x)ᵀ(y ⊙ α), k*(x) = K* K₀⁺ k₀(x)."""
        mu, U = spectrum.eigenvalues, spectrum.eigenvectors
        keep = np.abs(mu) > spectrum.negative_tolerance()
        Kstar_c = objective.proxy_kernel(self.alpha_) @ self.dual_coef_
        return U[:, keep] @ ((U[:, keep].T @ Kstar_c) / mu[keep])

    def decision_function(self, K_cross):
        """Scores for a cross-kernel of shape (n_test, n_train), as chosen by ``test_kernel``."""
        K_cross = check_cross_kernel(K_cross, self.alpha_.size)
        coef = self._test_coef if self.test_kernel == "proxy" else self.dual_coef_
        return K_cross @ coef + self.intercept_


class _Progress:
    """History rows and the stopping rule shared by both solvers."""

    def __init__(self, name: str, tol: float):
        self.name = name
        self.tol = tol
        self.start = self.last_log = time.perf_counter()
        self.history: list[dict] = []

    def record(self, f: float, step_norm: float) -> bool:
        """Append a row; True when the relative change of f is below tol."""
        now = time.perf_counter()
        k = len(self.history)
        self.history.append({"iteration": k, "objective": f, "step_norm": step_norm, "elapsed": now - self.start})
        if now - self.last_log >= PROGRESS_INTERVAL:
            log.info("IndefiniteSVM %s iteration %d: f = %.10g, %.1f s", self.name, k, f, now - self.start)
            self.last_log = now
        if k == 0:
            return False
        f_prev = self.history[-2]["objective"]
        return abs(f - f_prev) <= self.tol * abs(f)


def _spgm(objective: ProxyObjective, y, C, L, tol, max_iter):
    """Ying Table 1 with γ = L: α_{k+1} = P_{Q₁}(α_k + ∇f(α_k)/L); f(α_k) increases (Theorem 3)."""
    progress = _Progress("spgm", tol)
    alpha = np.zeros(y.size)
    f, grad = objective.value_and_gradient(alpha)
    progress.record(f, 0.0)
    for _ in range(max_iter):
        new = project_box_hyperplane(alpha + grad / L, y, C)
        step = float(np.linalg.norm(new - alpha))
        alpha = new
        f, grad = objective.value_and_gradient(alpha)
        if progress.record(f, step):
            return alpha, f, progress.history, True
    return alpha, f, progress.history, False


def _smm(objective: ProxyObjective, y, C, L, tol, max_iter):
    """Ying Table 2 (Nesterov 2005, §3, with d(α) = ½‖α − α₀‖², σ = 1), written for maximization.

    γ_k = P(α_k + ∇f(α_k)/L),  β_k = P(α₀ + Σ_{i≤k} (i+1)∇f(α_i)/(2L)),
    α_{k+1} = 2/(k+3) β_k + (k+1)/(k+3) γ_k.
    The gradient (and with it f) is evaluated at α_k only: one eigendecomposition per iteration.
    The returned point is the α_k with the largest f seen, since f(α_k) need not increase.
    """
    progress = _Progress("smm", tol)
    alpha0 = np.zeros(y.size)
    alpha = alpha0
    grad_sum = np.zeros(y.size)
    best_alpha, best_f = alpha, -np.inf
    f, grad = objective.value_and_gradient(alpha)
    progress.record(f, 0.0)
    converged = False
    for k in range(max_iter):
        if f > best_f:
            best_alpha, best_f = alpha, f
        gamma = project_box_hyperplane(alpha + grad / L, y, C)
        grad_sum += (k + 1) * grad
        beta = project_box_hyperplane(alpha0 + grad_sum / (2.0 * L), y, C)
        new = (2.0 * beta + (k + 1) * gamma) / (k + 3)
        step = float(np.linalg.norm(new - alpha))
        alpha = new
        f, grad = objective.value_and_gradient(alpha)
        if progress.record(f, step):
            converged = True
            break
    if f > best_f:
        best_alpha, best_f = alpha, f
    return best_alpha, best_f, progress.history, converged
