"""Indefinite kernel logistic regression (IKLR) by the concave-(inexact-)convex procedure.

Model (IKLR TNNLS eq. (5), with an unregularized bias b):

    f(α, b) = (1/n) Σ_i log(1 + exp(−y_i((Kα)_i + b))) + (λ/2) αᵀKα,   K symmetric, indefinite.

Positive decomposition f = g − h, g = L + (λ/2)αᵀK₊α, h = (λ/2)αᵀK₋α, K = K₊ − K₋ (eq. (7)):

- ``split="eigen"`` (the paper, eq. after (6)): K₋ = τI + V₋ diag(−μ₋) V₋ᵀ over the negative
  eigenpairs (μ₋, V₋), K₊ = K + K₋ — the paper's two diagonal matrices in the eigenbasis, written
  so that only the negative eigenpairs are needed; τ > −μ_min is not even required for PSD-ness
  (τ ≥ 0 is), but is kept as the paper's default.
- ``split="shift"`` (beyond the paper): K₋ = τI, K₊ = K + τI with τ ≥ −μ_min; needs only the
  eigenvalues (no eigenvectors), and has the same stationary points (MM'17 §4.3: the split
  changes only the rate).

Each outer step minimizes the convex majorizer F_k (see :mod:`kreinbench.methods.iklr.inner`),
which touches f at α_k, so every decrease of F_k is a decrease of f.

Cost (benchmarks/bench_iklr.py).  The spectral step is the cheapest that gives the split exactly:
without a cached spectrum, a Cholesky factorization first (n³/3 flops in BLAS 3); when it
succeeds K is positive definite to working precision, both splits reduce to K₋ = τI and only
μ_max is needed (Lanczos).  Otherwise the negative eigenpairs (eigen split, LAPACK ``syevr``
subset) or μ_min and μ_max alone (shift split, Lanczos) — never a full ``eigh``.  The solver carries Kα, K₋α and the
loss gradient from one outer iteration to the next (∇F_k(α_k) = ∇f(α_k)) and updates Kα by
linearity along each GD direction, so CCICP-GD costs two kernel matvecs per inner step and none
for the diagnostics of the history.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Callable, NamedTuple

import numpy as np
import scipy.linalg.blas
import scipy.linalg.lapack
from array_api_compat import device

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.arrays import is_array_api, namespace, to_numpy
from kreinbench.linalg.blas import serial_syrk
from kreinbench.linalg.eigen import lanczos_extremes, largest_eigenvalue, positive_definite
from kreinbench.linalg.implicit_kernel import submatrix
from kreinbench.linalg.kernels import check_memory
from kreinbench.linalg.spectrum import Spectrum, compute_spectrum
from kreinbench.methods.base import (
    ConvergenceWarning,
    RunawayWarning,
    binary_labels,
    check_choice,
    check_int,
    check_positive,
    check_train_kernel,
    warn_at_caller,
)
from kreinbench.methods.iklr import inner as iklr_inner
from kreinbench.methods.iklr import lockstep as iklr_lockstep
from kreinbench.methods.iklr.inner import Point, Subproblem, norm
from kreinbench.methods.solvers.logistic import KernelLogisticMixin, LogisticKernelLoss

log = logging.getLogger(__name__)


class SpectralData(NamedTuple):
    """What a split needs of K's spectrum: μ_min (0 when K is certified positive definite, which
    gives the same τ, ‖K‖ and Theorem 1 bound), μ_max, the negative eigenpairs (empty for the
    shift split), and how they were obtained (``spectral_path_``)."""

    path: str
    mu_min: float
    mu_max: float
    mu_neg: np.ndarray
    V_neg: np.ndarray
    # Cholesky factors of K₊ by τ, shared by the fits on this kernel that precondition by it (the
    # λ path of one fold); None: each fit factors its own.
    factors: dict | None = None

# Per solver: inner solver and the paper's defaults.
# Each solver's default split (``split=None``): the fastest that ends where the paper's eigen split
# ends, measured on the TL1 kernels of MONK-2 (n = 216) and svmguide1 (n = 2000) at λ = 1e-4 … 10
# (docs/solver-fidelity.md).  MM'17's Armijo GD ends at the same point with either split (f within
# 3e-6 relative, the same test predictions) and the shift split skips the LAPACK call for the
# negative eigenpairs (a single svmguide1 fit 6x faster).  TNNLS's printed steps do not: on MONK-2
# at λ = 0.01 and 0.1 the shift split's iterates ran off (f = −80 and −21 against −10.5 and 0.31,
# test accuracy 0.65 and 0.62 against 0.81 and 0.88); SGD's path follows any perturbation (14 %
# apart in f on svmguide1); and exact CCCP needs the eigen split: with K₋ = τI, τ = −μ_min, K₊ is
# singular along the most negative eigenvector and the exact subproblem is unbounded below there
# (L-BFGS ran to f = −3e13 in two outer steps on svmguide1).
SOLVERS = {
    # TNNLS Algorithm 1 with GD; CCICP-SGD with ε = 1e-4 (TNNLS §V-A), SGD-I with ε = 1 (Table VII).
    # ε and η of these three are on the summed objective n·F_k (see the IKLR docstring).
    "ccicp-gd": {"inner": "gd-printed", "eps": 1.0, "max_outer": 20, "eta": 0.02, "rho": 0.8, "split": "eigen"},
    "ccicp-sgd": {"inner": "sgd", "eps": 1e-4, "max_outer": 20, "eta": 0.02, "rho": 0.8, "split": "eigen"},
    "ccicp-sgd-i": {"inner": "sgd", "eps": 1.0, "max_outer": 20, "eta": 0.02, "rho": 0.8, "split": "eigen"},
    # MM'17 Algorithm 1: inner ‖∇F‖ ≤ ε‖α‖, t_max = 15, η = 0.2, decay 0.5, outer stop on relative change.
    "ccicp-gd-mm17": {"inner": "gd-mm17", "eps": None, "max_outer": 15, "eta": 0.2, "rho": 0.5, "split": "shift"},
    # Exact CCCP: every subproblem solved to ‖∇F_k‖ ≤ ε‖∇f(α⁰, b⁰)‖, until ‖∇f‖ ≤ ε‖∇f(α⁰, b⁰)‖.
    "cccp-gd": {"inner": "gd-exact", "eps": 1e-4, "max_outer": 2000, "eta": None, "rho": None, "split": "eigen"},
    "cccp-lbfgs": {"inner": "lbfgs", "eps": 1e-4, "max_outer": 2000, "eta": None, "rho": None, "split": "eigen"},
}
# Exact CCCP: every subproblem solved, so the iterates do not depend on the inner solver.
EXACT_SOLVERS = ("cccp-gd", "cccp-lbfgs")
# The solvers whose inner loops run on any array API namespace (a GPU's): the GD ones.
ARRAY_API_INNER = ("gd-printed", "gd-mm17", "gd-exact")
ARRAY_API_SOLVERS = tuple(name for name, d in SOLVERS.items() if d["inner"] in ARRAY_API_INNER)
SPLITS = {"eigen", "shift"}
INITS = {"zeros", "ones", "minus_ones", "uniform"}
# MM'17's ε when Theorem 1 allows none (its bound is negative): a stated, not derived, value.
MM17_FALLBACK_EPS = 1e-3
# Bytes of fold eigenvectors a CV lock step always holds: below this they are small beside the
# interpreter itself (about 95 MiB with numpy, scipy and h5py), whatever the kernel's size.
LOCKSTEP_HELD_FLOOR = 32 * 2**20
# Seconds between progress lines of a long fit.
PROGRESS_INTERVAL = 5.0
# A stationary point satisfies K(λα − y⊙β/n) = 0, hence ‖α‖ ≤ 1/(λ√n) on range(K); iterates
# beyond this many times that radius cannot be approaching one.
RUNAWAY_FACTOR = 10.0
# An inexact solver stopped by k_max warns when ‖∇f‖ is still above this share of ‖∇f(α⁰, b⁰)‖.
INEXACT_FAR = 1e-2


class IKLR(KernelLogisticMixin):
    """Indefinite kernel logistic regression on a precomputed kernel.

    Parameters
    ----------
    lam : float, default=1.0
        Regularization weight λ > 0 of (λ/2)αᵀKα.
    solver : str, default="cccp-lbfgs"
        ``"cccp-lbfgs"`` (the default: exact CCCP, inner L-BFGS in the K₊ metric; beyond the
        paper), ``"ccicp-gd"`` (TNNLS Algorithm 1: inner GD stopped when |ΔF_k| ≤ ε; what the
        paper's tables run),
        ``"ccicp-sgd"`` / ``"ccicp-sgd-i"`` (one random column per inner step, eq. (12)),
        ``"ccicp-gd-mm17"`` (MM'17 Algorithm 1), ``"cccp-gd"`` (exact CCCP, inner GD to
        ‖∇F_k‖ ≤ ε‖∇f(α⁰, b⁰)‖).  Why the default is exact CCCP by L-BFGS: see Notes.
    eps : float or None
        The solver's ε; ``None`` means its default (1e-4 for ``"cccp-lbfgs"``; the papers' 1,
        1e-4, 1, Theorem 1 and 1e-4 for the others in the order above).
        For the CCICP solvers of TNNLS, ε bounds the change of the summed objective n·F_k (see
        Notes).  For ``"ccicp-gd-mm17"`` the default is half of Theorem 1's bound when that is
        positive, else 1e-3.
    max_outer : int or None
        k_max; ``None`` means the solver's default (20; 15 for MM'17; 2000 for exact CCCP).
    eta, rho : float or None
        Initial inner step η and its per-step decay ρ, η_t = η ρ^t from each outer iteration's
        start (CCICP solvers; defaults 0.02/0.8, on the summed objective n·F_k; MM'17 0.2/0.5).
    max_inner : int, default=10000
        Cap on inner steps per outer iteration.
    split : {"eigen", "shift"} or None, default=None
        The positive decomposition (see the module docstring); ``None`` means the solver's:
        ``"shift"`` for MM'17's CCICP (the same fit as the paper's eigen split, without its
        eigenvectors), ``"eigen"`` for the others (see ``SOLVERS``).
    tau : float or None
        τ of the decomposition; ``None`` means max(−μ_min, 0) plus a round-off margin.
    init : {"zeros", "ones", "minus_ones", "uniform"}, default="zeros"
        α⁽⁰⁾ of TNNLS Table VI; ``"uniform"`` draws U(0, 1).
    random_state : int or None
        Seed of ``init="uniform"`` and of the SGD column choice.
    cv_solver : {None, "cccp-gd", "cccp-lbfgs"}, default=None
        The solver of the cross-validation fits (:meth:`lambda_path_scores`) when it differs from
        ``solver``; both must be exact CCCP, whose iterates do not depend on how the subproblems
        are solved (tested at convergence).  ``cv_solver="cccp-lbfgs"`` with ``solver="cccp-gd"``
        chooses λ by the preconditioned solver while the final fit, the one Table IV times, runs
        the paper's gradient descent.

    Attributes
    ----------
    alpha_, intercept_, classes_
    history_ : list of dict
        One row per outer iteration (0 = the initial point): ``objective`` f, ``grad_norm`` ‖∇f‖,
        ``alpha_norm``, ``inner_steps``, ``inner_residual`` (‖∇_α F_k(α_{k+1})‖ / ‖α_k‖, the ε of
        TNNLS eq. (13) this step achieved), ``matvecs`` (kernel products so far), ``elapsed`` seconds.
    n_iter_ : int
    n_matvecs_ : int
        Products with the n×n kernel the solver made (the cost unit; spectral work excluded).
    spectral_path_ : str
        How the spectral step was done: ``"given"`` (the ``spectrum`` argument),
        ``"cholesky"`` (K certified positive definite, μ_max by Lanczos), ``"lanczos"`` (shift split:
        μ_min and μ_max by Lanczos), ``"negative"`` or ``"lambda_min"`` (the partial spectrum of
        :func:`kreinbench.linalg.spectrum.compute_spectrum`).
    stationarity_ : float
        ‖∇f(α, b)‖ / ‖∇f(α⁰, b⁰)‖ at the returned point.
    diverged_ : bool
        True when the iterates ran away (see Notes).
    tau_ : float
    theorem1_bound_ : float
        λ(‖K₊‖ − ‖K₋‖) − ‖K‖²/(4n), TNNLS eq. (15) (spectral norms).
    theorem1_satisfied_ : bool
        Whether the largest inner residual (the achieved ε of eq. (13)) is below that bound, i.e.
        whether Theorem 1's convergence guarantee covers this fit.

    Notes
    -----
    The default solver is exact CCCP with L-BFGS subproblems (``"cccp-lbfgs"``), chosen by
    measurement: benchmarks/iklr_default_solver.py (output benchmarks/results/iklr_default_solver.md;
    TL1 kernels of seven of TNNLS Table III's small sets and a 2000-point synthetic problem, λ = 1e-4,
    0.01 and 1, 24 fits per solver).  A default must descend to a stationary point without a
    warning wherever there is one to reach.  Exact CCCP did so on every fit where it did not run
    away (14 of 14, all 9 on positive definite kernels: f never rose, ‖∇f‖ ≤ 1e-4 of the start's),
    and its L-BFGS subproblems made it 3.4 times faster in total than gradient descent on the same
    subproblems (``"cccp-gd"``, the same iterates).  The paper's CCICP-GD let f rise in all 24 fits,
    ended above f(0) in 14 and stopped far from stationarity (median ‖∇f‖ 0.26 of the start's)
    with a ConvergenceWarning in all 24; MM'17's CCICP descended but reached stationarity in 6 (3
    of the 14, none of the 9 on positive definite kernels), stopping short with a warning in 15
    and silently in 3.  Test accuracy on the 14 was the same to a point (0.836, 0.837, 0.827).  On
    the other 10 fits (monks1 and monks2 at every λ, breast-cancer and the synthetic problem at
    λ ≥ 0.01) λ is too large for the loss's curvature to hold f's negative directions (see below): no stationary
    point is reachable by descent, and the default says so with a :class:`RunawayWarning`, where
    the CCICP solvers stop after their fixed number of outer steps at points that are not
    stationary either; cross-validating λ avoids those λ.  The papers' solvers are one parameter
    away (``solver="ccicp-gd"`` etc.), and every paper config names its solver.

    The scale of Algorithm 1 (TNNLS).  Eq. (5) prints the mean loss (1/n)Σ, but Algorithm 1's
    ε = 1 and η = 0.02 are the summed objective's: on the mean, |ΔF_k| ≤ 1 ends every inner loop
    after one step for every ε ≥ 0.1, which contradicts Fig. 2 (training time keeps falling as ε
    grows from 0.01 to 5), and CCICP-GD misses Table III by up to 24 points.  So the CCICP
    solvers of TNNLS run Algorithm 1 on n·F_k (λ keeps eq. (5)'s meaning): steps n·η_t and the
    inner test |ΔF_k| ≤ ε/n on F_k.  The printed schedule η_t = ηρ^t restarts at each outer
    iteration (carried over, it froze the fits at α ≈ 0) and is taken without a line search;
    only steps beyond 2/(λ‖K₊‖), which make the quadratic part diverge, are clipped.  CCICP-SGD
    reads the same way: steps n·η_t on the one-sample gradient of F_k (eq. (12)), capped by one
    sample's Lipschitz bound, and the inner test |ΔF_k| ≤ ε/n.  The measurements behind this
    reading are in docs/solver-fidelity.md.

    With any negative eigenvalue, f is unbounded below (f(tv) → −∞ along a negative eigenvector v),
    so IKLR returns a stationary point, and CCCP iterates can run away from all of them (a
    stationary point is a saddle of f along v unless λ < |μ|h/n, h the logistic weight; MM'17
    §4.3).  Every stationary point has ‖α‖ ≤ 1/(λ√n) on range(K), and iterates keep α⁰'s component
    on null(K); once ‖α‖ exceeds 10/(λ√n) + ‖α⁰‖ the fit stops, sets ``diverged_`` and warns with
    :class:`RunawayWarning`.
    """

    # The pipeline's spectrum (kreinbench.pipeline.plan.spectrum_kind): the negative eigenpairs for the
    # eigen split, only mu_min and mu_max for the shift split.
    needs_spectrum = staticmethod(lambda params: "lambda_min" if IKLR(**params)._validated()["split"] == "shift"
                                  else "negative")

    def __init__(self, *, lam=1.0, solver="cccp-lbfgs", eps=None, max_outer=None, eta=None, rho=None,
                 max_inner=10000, split=None, tau=None, init="zeros", random_state=None, cv_solver=None):
        self.lam = lam
        self.solver = solver
        self.eps = eps
        self.max_outer = max_outer
        self.eta = eta
        self.rho = rho
        self.max_inner = max_inner
        self.split = split
        self.tau = tau
        self.init = init
        self.random_state = random_state
        self.cv_solver = cv_solver

    # -- parameters -------------------------------------------------------------------------
    def check_params(self) -> None:
        self._validated()

    def _validated(self) -> dict:
        solver = check_choice("solver", self.solver, SOLVERS)
        p = dict(SOLVERS[solver])
        for name in ("eps", "max_outer", "eta", "rho"):
            if getattr(self, name) is not None:
                p[name] = getattr(self, name)
        p["lam"] = float(check_positive("lam", self.lam))
        if p["eps"] is not None:
            p["eps"] = check_positive("eps", p["eps"], allow_zero=True)
        p["max_outer"] = check_int("max_outer", p["max_outer"], minimum=1)
        if p["eta"] is not None:
            p["eta"] = check_positive("eta", p["eta"])
            p["rho"] = check_positive("rho", p["rho"])
            if p["rho"] >= 1:
                raise KreinbenchError(f"parameter rho must be in (0, 1), got {p['rho']!r}")
        p["max_inner"] = check_int("max_inner", self.max_inner, minimum=1)
        if self.split is not None:
            p["split"] = check_choice("split", self.split, SPLITS)
        p["tau"] = None if self.tau is None else check_positive("tau", self.tau, allow_zero=True)
        p["init"] = check_choice("init", self.init, INITS)
        p["solver"] = solver
        if self.cv_solver is not None:
            check_choice("cv_solver", self.cv_solver, SOLVERS)
            if not (solver in EXACT_SOLVERS and self.cv_solver in EXACT_SOLVERS):
                raise KreinbenchError(f"parameter cv_solver={self.cv_solver!r} needs an exact CCCP solver and solver="
                                      f"{solver!r} to be one too ({', '.join(EXACT_SOLVERS)}): only exact CCCP "
                                      "solvers end at the same point whatever solves their subproblems")
        return p

    def _cv_twin(self) -> "IKLR":
        """The estimator the cross-validation fits: this one, or with ``cv_solver`` as its solver."""
        if self.cv_solver is None:
            return self
        return IKLR(**{**self.get_params(), "solver": self.cv_solver, "cv_solver": None})

    # -- decomposition ----------------------------------------------------------------------
    @staticmethod
    def _spectral_step(K: np.ndarray, split: str, spectrum: Spectrum | None, *, certified: bool | None = None):
        """:class:`SpectralData` for the split: from ``spectrum`` if given, else as cheaply as possible.

        Without a spectrum: a Cholesky certificate first (K ≻ 0: no negative eigenpair, and μ_min
        enters the fit only through max(−μ_min, 0) = 0, max(|μ_min|, μ_max) = μ_max and
        min(μ_min, 0) = 0, so 0 stands in for it exactly); else the partial spectrum the split
        needs.  The shift split needs only μ_min and μ_max: both come from one Lanczos run
        (:func:`kreinbench.linalg.eigen.lanczos_extremes`, tens of matvecs where LAPACK's ``syevr``
        tridiagonalizes K in O(n³)), with μ_min lowered by its residual bound so that τ ≥ −μ_min;
        LAPACK is the fallback when Lanczos does not converge.  (ARPACK's ``eigsh(which="SA")``
        with its defaults needed 49 s at n = 1000: see that function.)  The eigen split needs every
        negative eigenpair, which only the LAPACK subset call gives with certainty.
        ``certified`` says whether K is already known to be positive definite (None: find out).
        """
        n = K.shape[0]
        none = (np.empty(0), np.empty((n, 0)))
        if spectrum is None:
            if certified is None:
                certified = positive_definite(K)
            if certified:
                return SpectralData("cholesky", 0.0, largest_eigenvalue(K, seed=0), *none)
            if split == "shift":
                ends = lanczos_extremes(K, seed=0)
                if ends.converged:  # the residual bound: τ from it is >= −μ_min
                    return SpectralData("lanczos", ends.mu_min - ends.mu_min_residual, ends.mu_max, *none)
            path = "lambda_min" if split == "shift" else "negative"
            spectrum = compute_spectrum(K, path)
        else:
            path = "given"
        mu_min, mu_max = float(spectrum.eigenvalues[0]), float(spectrum.mu_max)
        return SpectralData(path, mu_min, mu_max, *(none if split == "shift" else spectrum.negative_part()))

    @staticmethod
    def _kminus(mu_neg, V_neg, tau):
        """K₋ as a function v ↦ K₋v costing O(n·#negative), never an n×n product."""
        if mu_neg.shape[0] == 0:
            return lambda v: tau * v
        # v may be a vector or a matrix of column vectors (the lock-step λ path).
        weights = -mu_neg
        return lambda v: tau * v + V_neg @ ((weights if v.ndim == 1 else weights[:, None]) * (V_neg.T @ v))

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, K, y, *, spectrum: Spectrum | None = None):
        """Fit on the train kernel ``K`` (n, n) and labels ``y`` (two classes).

        ``spectrum`` is K's eigendecomposition if already computed (the pipeline passes the
        cached one); otherwise what the split needs is computed here.
        """
        p = self._validated()
        if is_array_api(K):
            return self._fit_array_api(K, y, spectrum, p)
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        return self._fit(K, y_pm, self._spectral_step(K, p["split"], spectrum), p)

    def takes_array_api(self) -> bool:
        """Whether ``fit`` runs on an array API array (a GPU's) with this solver: the GD ones."""
        return self._validated()["inner"] in ARRAY_API_INNER

    def _fit_array_api(self, K, y, spectrum, p: dict):
        """The fit on an array API array (a PyTorch or CuPy array on a GPU): K's namespace and device
        throughout, the spectral step of :mod:`kreinbench.linalg.xp_spectrum`, the GD solvers."""
        from kreinbench.linalg.xp_spectrum import spectral_step  # noqa: PLC0415 (the array route's module)

        xp = namespace(K)
        _check_array_api_fit(xp, K, self.solver, p["inner"])
        if spectrum is not None:
            raise KreinbenchError("IKLR on an array API array computes its own spectral step: pass no spectrum")
        y_pm, self.classes_ = binary_labels(y if isinstance(y, np.ndarray) else to_numpy(y), K.shape[0])
        y_xp = xp.asarray(y_pm.astype(np.float64), device=device(K))
        return self._fit(K, y_xp, spectral_step(K, p["split"]), p)

    def lambda_path_takes_array_api(self) -> bool:
        """Whether :meth:`lambda_path_scores` runs on an array API array (a GPU's): with the GD solvers,
        CCICP-GD's fits in lock step (see :func:`grouped_lambda_path_scores`)."""
        return self._cv_twin().takes_array_api()

    def _fit(self, K, y_pm, spectral: SpectralData, p: dict):
        """Fit on a checked kernel and ±1 labels, given the spectral step's result."""
        kminus = self._prepare(K, y_pm.shape[0], spectral, p)
        self._solve(K, y_pm, kminus, p)
        residuals = [h["inner_residual"] for h in self.history_[1:] if np.isfinite(h["inner_residual"])]
        self.theorem1_satisfied_ = bool(residuals) and max(residuals) < self.theorem1_bound_
        return self

    def _prepare(self, K, n: int, spectral: SpectralData, p: dict):
        """τ, the Theorem 1 bound and the step caps (into ``p``) from the spectral step; returns K₋."""
        self.spectral_path_, mu_min, mu_max, mu_neg, V_neg = spectral[:5]
        norm_K = max(abs(mu_min), abs(mu_max))
        margin = n * np.finfo(float).eps * norm_K
        # Python floats: a NumPy scalar times an array of another namespace is NumPy's operation
        self.tau_ = float(max(-mu_min, 0.0) + margin if p["tau"] is None else p["tau"])
        if self.tau_ < -mu_min - margin:
            raise KreinbenchError(f"parameter tau={self.tau_!r} must be >= -mu_min = {-mu_min!r} so that "
                                  "K+ and K- are positive semi-definite")
        norm_kminus = self.tau_ - min(mu_min, 0.0) if p["split"] == "eigen" else self.tau_
        self.theorem1_bound_ = p["lam"] * ((mu_max + self.tau_) - norm_kminus) - norm_K**2 / (4 * n)
        if p["eps"] is None:  # MM'17: "compute ε" — the largest that Theorem 1 allows, halved
            p["eps"] = 0.5 * self.theorem1_bound_ if self.theorem1_bound_ > 0 else MM17_FALLBACK_EPS
        kminus = self._kminus(mu_neg, V_neg, self.tau_)
        # GD's steps are capped by the quadratic's curvature λ‖K₊‖ only: beyond 2/(λ‖K₊‖) the
        # printed schedule diverges without bound, below it GD on the quadratic part contracts
        # (gd_printed).  MM'17's Armijo-safeguarded GD starts from 1/(λ‖K₊‖) at most.  SGD steps
        # keep the full bound with the per-sample ‖[K_j 1]‖²/4.
        quad = p["lam"] * (mu_max + self.tau_)
        p["gd_step_cap"] = (2.0 if p["inner"] == "gd-printed" else 1.0) / quad
        if p["inner"] == "sgd":  # the largest squared column norm, without an n×n temporary
            p["sgd_step_cap"] = 1.0 / (quad + (float(np.einsum("ij,ij->j", K, K).max()) + 1.0) / 4.0)
        if p["inner"] == "lbfgs":
            p["factor"] = self._kplus_factor(K, mu_neg, V_neg, spectral.factors)
            # ‖g‖ ≤ ‖L‖₂‖L⁻¹g‖ and ‖L‖₂² = λ_max(K₊) = μ_max + τ: a tolerance on the gradient in the
            # K₊⁻¹ metric divided by this keeps the Euclidean one of the other exact solver.
            p["metric_bound"] = float(np.sqrt(max(mu_max, 0.0) + self.tau_))
        return kminus

    def _kplus_factor(self, K, mu_neg, V_neg, factors: dict | None) -> np.ndarray:
        """The lower Cholesky factor of K₊ = K + K₋ = K + τI + V₋ diag(−μ₋) V₋ᵀ (positive definite:
        K₋ ⪰ τI lifts every eigenvalue of K to at least τ > 0), from ``factors`` when a fit on the
        same kernel and τ made it (n³/3 flops).

        K₊ is built in one n × n array, a copy of K in Fortran order (which LAPACK updates and
        factors in place): τ on its diagonal, and the negative part W Wᵀ, W = V₋ diag(√−μ₋)
        (n × #negative), added to its lower triangle by a rank-#negative update (BLAS ``syrk``)
        — never K₋ applied to an n × n identity, nor an n × n product.  The factorization reads
        only the lower triangle, so K₊ needs no symmetrizing."""
        if factors is not None and self.tau_ in factors:
            return factors[self.tau_]
        n = K.shape[0]
        check_memory((n + mu_neg.size) * n * 8, f"the Cholesky factor of K+ for a {n} x {n} kernel")
        K_plus = np.array(K, dtype=np.float64, order="F")
        K_plus.flat[:: n + 1] += self.tau_
        try:
            with serial_syrk(n):
                if mu_neg.size:
                    K_plus = scipy.linalg.blas.dsyrk(1.0, V_neg * np.sqrt(-mu_neg), beta=1.0, c=K_plus, lower=1,
                                                     overwrite_c=1)
                factor = scipy.linalg.cholesky(K_plus, lower=True, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError as exc:  # the shift split's K₊ = K + τI is singular to round-off
            raise KreinbenchError(f"IKLR {self.solver}: K+ = K + K- is not positive definite to working "
                                  f"precision (tau = {self.tau_:.3g}); use split='eigen' or a larger tau") from exc
        if factors is not None:
            factors[self.tau_] = factor
        return factor

    def _initial_alpha(self, n: int, rng) -> np.ndarray:
        if self.init == "zeros":
            return np.zeros(n)
        if self.init == "ones":
            return np.ones(n)
        if self.init == "minus_ones":
            return -np.ones(n)
        return rng.uniform(0.0, 1.0, size=n)

    @staticmethod
    def _objective_and_gradient_norm(loss: LogisticKernelLoss, lam: float, alpha, b):
        """f and ‖∇f‖ at (α, b), by two kernel products."""
        Ka = loss.K @ alpha
        return IKLR._objective_and_gradient_norm_at(loss, lam, Point(alpha, b, Ka, None), loss.gradient(Ka, b))

    @staticmethod
    def _objective_and_gradient_norm_at(loss: LogisticKernelLoss, lam: float, pt: Point, loss_grad):
        """f and ‖∇f‖ at a point whose Kα and loss gradient are known (no kernel product)."""
        g_alpha, g_b = loss_grad
        g_alpha = g_alpha + lam * pt.Ka
        f = loss.value(pt.Ka, pt.b) + 0.5 * lam * float(pt.alpha @ pt.Ka)
        return f, math.sqrt(float(g_alpha @ g_alpha) + g_b * g_b)

    def _inner(self, sub, pt, p, g0, rng, state):
        kind = p["inner"]
        n = pt.alpha.shape[0]
        if kind == "gd-printed":
            return iklr_inner.gd_printed(sub, pt, eta=n * p["eta"], rho=p["rho"], eps=p["eps"] / n,
                                         max_inner=p["max_inner"], step_cap=p["gd_step_cap"])
        if kind == "gd-mm17":
            return iklr_inner.gd_mm17(sub, pt, eta=p["eta"], rho=p["rho"], eps=p["eps"],
                                      max_inner=p["max_inner"], step_cap=p["gd_step_cap"])
        if kind == "sgd":
            return iklr_inner.sgd(sub, pt, eta=n * p["eta"], rho=p["rho"], eps=p["eps"] / n, max_inner=p["max_inner"],
                                  rng=rng, step_cap=p["sgd_step_cap"])
        if kind == "lbfgs":
            return iklr_inner.lbfgs(sub, pt, gtol=p["eps"] * g0 / max(1.0, p["metric_bound"]),
                                    max_inner=p["max_inner"], factor=p["factor"])
        pt, F, t, state["step"] = iklr_inner.gd_exact(sub, pt, gtol=p["eps"] * g0,
                                                      max_inner=p["max_inner"], step0=state["step"])
        return pt, F, t

    def _solve(self, K, y, kminus, p) -> None:
        n = y.shape[0]
        lam = p["lam"]
        on_numpy = isinstance(K, np.ndarray)
        xp = None if on_numpy else namespace(y)
        loss = LogisticKernelLoss(K, y, xp)
        rng = np.random.default_rng(self.random_state)
        # drawn on the host by the same generator on every route: the same α⁰
        alpha0 = self._initial_alpha(n, rng)
        if not on_numpy:
            alpha0 = xp.asarray(alpha0, device=y.device)
        exact = p["solver"] in EXACT_SOLVERS
        start = last_log = time.perf_counter()
        matvecs = 0
        if iklr_inner.any_nonzero(alpha0):
            Ka0, matvecs = K @ alpha0, 1
        else:
            Ka0 = np.zeros(n) if on_numpy else xp.zeros(n, dtype=K.dtype, device=y.device)
        pt = Point(alpha0.copy() if on_numpy else xp.asarray(alpha0, copy=True), 0.0, Ka0, kminus(alpha0))
        # ∇F_k(α_k) = ∇f(α_k): the loss gradient of the diagnostics is the inner solver's first one.
        sub = Subproblem(loss, lam, kminus, pt)
        f, g0 = self._objective_and_gradient_norm_at(loss, lam, pt, sub.loss_gradient(pt))
        g0 = max(g0, np.finfo(float).tiny)
        self.history_ = [{"iteration": 0, "objective": f, "grad_norm": g0, "alpha_norm": norm(alpha0),
                          "inner_steps": 0, "inner_residual": float("nan"), "matvecs": matvecs + sub.matvecs,
                          "elapsed": 0.0}]
        # Stationary points lie within 1/(λ√n) of the origin on range(K); on null(K) every step
        # keeps α⁰'s component.  So ‖α*‖ ≤ 1/(λ√n) + ‖α⁰‖ for every stationary point reachable.
        runaway_radius = RUNAWAY_FACTOR / (lam * np.sqrt(n)) + norm(alpha0)
        self.diverged_ = False
        state = {"step": 1.0}
        grad_norm = g0
        k = 0
        while k < p["max_outer"]:
            previous = pt
            pt, _, t = self._inner(sub, pt, p, g0, rng, state)
            k += 1
            # ∇_α F_k(α_{k+1}) for the residual; its loss gradient (one matvec unless the inner
            # solver made it) is cached on the point for ∇f and the next subproblem.
            g_sub = sub.gradient(pt)[0]
            matvecs += sub.matvecs
            sub = Subproblem(loss, lam, kminus, pt)
            prev_norm = norm(previous.alpha)
            residual = norm(g_sub) / prev_norm if prev_norm > 0 else float("nan")
            f, grad_norm = self._objective_and_gradient_norm_at(loss, lam, pt, sub.loss_gradient(pt))
            alpha_norm = norm(pt.alpha)
            now = time.perf_counter()
            self.history_.append({"iteration": k, "objective": f, "grad_norm": grad_norm, "alpha_norm": alpha_norm,
                                  "inner_steps": t, "inner_residual": residual, "matvecs": matvecs,
                                  "elapsed": now - start})
            if now - last_log >= PROGRESS_INTERVAL:
                log.info("IKLR %s outer %d: f = %.6g, |grad f| = %.3g, %.1f s", p["solver"], k, f, grad_norm, now - start)
                last_log = now
            if alpha_norm > runaway_radius:
                self.diverged_ = True
                warn_at_caller(
                    f"IKLR iterates ran away at outer iteration {k}: ||alpha|| = {alpha_norm:.3g} exceeds "
                    f"{RUNAWAY_FACTOR:g}/(lam*sqrt(n)) + ||alpha0|| = {runaway_radius:.3g}, beyond any stationary point, and "
                    f"f = {f:.3g} is falling along a negative eigendirection of K. Try a smaller lam: a stationary "
                    "point resists a negative eigenvalue mu of K only while lam < |mu|*h/n, h the logistic loss's "
                    "curvature there (MM'17 section 4.3).",
                    RunawayWarning)
                break
            # t == 0: the inner solve cannot decrease F_k in floating point any more.
            if exact and (grad_norm <= p["eps"] * g0 or t == 0):
                break
            if p["solver"] == "ccicp-gd-mm17":
                if alpha_norm > 0 and norm(pt.alpha - previous.alpha) / alpha_norm <= p["eps"]:
                    break
        self.alpha_, self.intercept_, self.n_iter_, self.n_matvecs_ = pt.alpha, float(pt.b), k, matvecs
        self.stationarity_ = grad_norm / g0
        if not self.diverged_:
            self._warn_if_not_stationary(p, exact)

    def _warn_if_not_stationary(self, p: dict, exact: bool) -> None:
        """The ConvergenceWarning of a fit that ended (without running away) far from stationarity."""
        k = self.n_iter_
        if exact and self.stationarity_ > p["eps"]:
            warn_at_caller(f"IKLR {p['solver']} stopped after {k} outer iterations at relative stationarity "
                           f"{self.stationarity_:.3g} > eps={p['eps']:g}", ConvergenceWarning)
        elif not exact and k == p["max_outer"] and self.stationarity_ > INEXACT_FAR:
            # The paper's fixed k_max is its stopping rule, so this is how the method ends; the
            # warning says how far from a stationary point that leaves the fit.
            warn_at_caller(f"IKLR {p['solver']} reached max_outer={k} at relative stationarity "
                           f"||grad f|| / ||grad f(alpha0)|| = {self.stationarity_:.3g}, far from a stationary "
                           "point; raise max_outer, or use solver='cccp-lbfgs' for a converged fit",
                           ConvergenceWarning)


    # -- cross-validation -------------------------------------------------------------------
    def supports_lambda_path(self) -> bool:
        return True

    def lambda_path_scores(self, K, y, folds, lams, *, seconds: dict | None = None) -> np.ndarray:
        """Validation accuracies (n_lams × n_folds) of this estimator with each λ of ``lams`` on
        each (train, validation) index pair of ``folds``, fitted on slices of ``K``: the scores of
        the separate fits (:func:`kreinbench.methods.selection.cross_validate` with ``paths=False``), by
        :func:`grouped_lambda_path_scores` (shared spectral step, lock step)."""
        return grouped_lambda_path_scores([self], K, y, folds, lams, seconds=seconds)[0]

    @staticmethod
    def grouped_lambda_path_scores(prototypes: list, K, y, folds, lams) -> list:
        """:func:`grouped_lambda_path_scores` (the hook of :func:`kreinbench.methods.selection.cross_validate_group`)."""
        return grouped_lambda_path_scores(prototypes, K, y, folds, lams)

    def groups_lambda_paths_with(self, other) -> bool:
        """Whether ``other``'s λ path can share this one's CV (:func:`grouped_lambda_path_scores`):
        an IKLR on the same spectral split whose fits run in the same kind of lock step."""
        if not isinstance(other, IKLR):
            return False
        p, q = self._validated(), other._validated()
        return (p["split"] == q["split"] and p["inner"] == q["inner"] in LOCKSTEP_INNER
                and (p["max_outer"], p["max_inner"]) == (q["max_outer"], q["max_inner"]))


# Inner solvers whose CV fits run in lock step (one matrix product per step for all fits).
LOCKSTEP_INNER = ("gd-printed", "sgd")


def _check_array_api_fit(xp, K, solver: str, inner: str) -> None:
    """An IKLR fit or CV on an array API array K (a PyTorch or CuPy array on a GPU) needs a solver
    that runs there and a square, finite, symmetric float64 K."""
    if inner not in ARRAY_API_INNER:
        raise KreinbenchError(f"IKLR solver={solver!r} runs on NumPy only (its inner solver: SciPy's L-BFGS, "
                              "or one-column SGD steps, latency-bound on a GPU); on an array of "
                              f"{xp.__name__} use one of {ARRAY_API_SOLVERS}")
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.dtype != xp.float64:
        raise KreinbenchError(f"K must be a square (n, n) float64 kernel matrix, got shape {K.shape} and "
                              f"dtype {K.dtype}")
    if not bool(xp.all(xp.isfinite(K))):
        raise KreinbenchError("K contains NaN or infinite entries")
    scale = float(xp.max(xp.abs(K)))
    if float(xp.max(xp.abs(K - K.T))) > 1e-10 * scale:
        raise KreinbenchError("K is not symmetric")


def grouped_lambda_path_scores(prototypes: list, K, y, folds, lams, *, seconds: dict | None = None) -> list:
    """For each IKLR of ``prototypes`` (they differ in anything but λ), its validation accuracies
    (n_lams × n_folds) with each λ of ``lams`` on each (train, validation) pair of ``folds``.

    The scores of the separate fits (:func:`kreinbench.methods.selection.cross_validate` with
    ``paths=False``), but the spectral step is shared: one Cholesky factorization of K certifies
    every fold kernel positive definite at once (a principal submatrix of a positive definite
    matrix is one), leaving each fold only its μ_max (Lanczos); otherwise each fold's partial
    spectrum is computed once and serves every λ and every prototype (τ and K₋ depend on neither;
    the prototypes must share ``split``).  For CCICP-GD and CCICP-SGD the fits of all folds, λ and
    prototypes run in one lock step (:mod:`kreinbench.methods.iklr.lockstep`, each SGD fit drawing
    its samples from its own stream as alone): the same
    iterates, each fold's embedded in K's rows, so that the kernel products of a step are one
    matrix product with K (the wider, the cheaper per fit: on 2000 rows 0.87 ms per column at 35
    columns, 0.42 ms at 350) and its Python work is done once.  The folds are split into several
    lock steps only when their negative eigenvectors would take more than half of K's bytes and
    ``LOCKSTEP_HELD_FLOOR``.  Warm starts in λ are not used: CCICP-GD runs its k_max outer
    iterations whatever the start, and its printed steps restart at η each time, so a warm start
    would change the fit, not its cost.  ``seconds``, when given, receives the wall time of each
    part (``certificate``, ``slices``, ``spectral``, ``fits``, ``scoring``).

    On an array API array K (a PyTorch or CuPy array on a GPU) the same runs in K's namespace and
    on its device, for the GD solvers: CCICP-GD's lock step by
    :mod:`kreinbench.methods.iklr.xp_lockstep`, the others' fits one by one; each fold's spectral
    step by :mod:`kreinbench.linalg.xp_spectrum`, which certifies a fold by its own Cholesky
    factorization (cheap there) instead of K's.  The validation folds are scored on the device
    too, and only their predictions come back.  CCICP-SGD and L-BFGS are refused there by name.
    """
    prototypes = [proto._cv_twin() for proto in prototypes]
    first = prototypes[0]
    p0 = first._validated()
    if not all(first.groups_lambda_paths_with(other) for other in prototypes[1:]):
        raise KreinbenchError("IKLR fits that share a CV must share split, inner solver (CCICP-GD or CCICP-SGD), "
                              "max_outer and max_inner")
    array_api = is_array_api(K)
    if array_api:
        from kreinbench.linalg.xp_spectrum import spectral_step  # noqa: PLC0415 (the array route's module)

        xp = namespace(K)
        _check_array_api_fit(xp, K, first.solver, p0["inner"])
        y = y if isinstance(y, np.ndarray) else to_numpy(y)
    else:
        K, _, _ = check_train_kernel(K, y)
        y = np.asarray(y)
    seconds = {} if seconds is None else seconds
    seconds.update(dict.fromkeys(("certificate", "slices", "spectral", "fits", "scoring"), 0.0))
    clock = time.perf_counter()

    def lap(part):
        nonlocal clock
        now = time.perf_counter()
        seconds[part] += now - clock
        clock = now

    certified = None if array_api else (positive_definite(K) or None)  # not certified: each fold tests itself
    lap("certificate")
    lockstep = p0["inner"] in LOCKSTEP_INNER
    fold_ests, waiting, held = [], [], 0  # lock-step fits not yet run; their K₋ eigenvectors' bytes
    for j, (tr, va) in enumerate(folds):
        K_tr = submatrix(K, tr, tr)
        if array_api:
            y_tr, fold_classes = binary_labels(y[tr], tr.size)
        else:
            K_tr, y_tr, fold_classes = check_train_kernel(K_tr, y[tr])
        lap("slices")
        if array_api:
            spectral = spectral_step(K_tr, p0["split"])
        else:
            spectral = IKLR._spectral_step(K_tr, p0["split"], None, certified=certified)._replace(factors={})
        lap("spectral")
        per_prototype = [[IKLR(**{**proto.get_params(), "lam": lam}) for lam in lams] for proto in prototypes]
        for ests in per_prototype:
            for est in ests:
                est.classes_ = fold_classes
        fold_ests.append(per_prototype)
        if lockstep:
            waiting += [_LockstepFits.prepared(ests, K_tr, y_tr, spectral, rows=tr) for ests in per_prototype]
            held += _nbytes(spectral.V_neg)
            # All folds in one lock step, unless their eigenvectors would outgrow half of K
            # (the memory target is 3× the kernel's bytes) and the floor.
            if j == len(folds) - 1 or held > max(_nbytes(K) // 2, LOCKSTEP_HELD_FLOOR):
                del K_tr, spectral
                _fit_lockstep(K, waiting)
                waiting, held = [], 0
        else:
            if array_api:
                y_tr = xp.asarray(y_tr, device=device(K))
            for ests in per_prototype:
                for est in ests:
                    est._fit(K_tr, y_tr, spectral, est._validated())
        lap("fits")
    scores = [np.empty((len(lams), len(folds))) for _ in prototypes]
    for j, ((tr, va), per_prototype) in enumerate(zip(folds, fold_ests)):
        K_va = submatrix(K, va, tr)
        for table, ests in zip(scores, per_prototype):
            for i, est in enumerate(ests):
                table[i, j] = est.score(K_va, y[va])
    lap("scoring")
    return scores


def _nbytes(a) -> int:
    """Bytes of a NumPy array, or of a float64 array of another namespace (the standard has no
    ``nbytes``; the array route runs in float64)."""
    return a.nbytes if isinstance(a, np.ndarray) else 8 * math.prod(a.shape)


class _LockstepFits(NamedTuple):
    """CCICP-GD or CCICP-SGD fits that differ only in λ, on one kernel (K or a fold's principal
    submatrix), ready for :func:`_fit_lockstep`."""

    ests: list
    params: list
    rows: np.ndarray  # the kernel's rows in K
    y_pm: np.ndarray
    kminus: Callable[[np.ndarray], np.ndarray]  # v ↦ K₋v of this kernel (τ, hence K₋, does not depend on λ)
    tau_only: bool  # K₋ = τI (no negative eigenpairs in the split)
    alpha0: np.ndarray
    rngs: list  # per fit, its random stream after α⁽⁰⁾ was drawn (CCICP-SGD's samples)

    @classmethod
    def prepared(cls, ests: list, K, y_pm, spectral: SpectralData, *, rows) -> "_LockstepFits":
        params = [est._validated() for est in ests]
        for est, p in zip(ests, params):
            kminus = est._prepare(K, y_pm.shape[0], spectral, p)
        rngs = [np.random.default_rng(est.random_state) for est in ests]
        alpha0 = [est._initial_alpha(y_pm.shape[0], rng) for est, rng in zip(ests, rngs)][0]
        return cls(ests, params, rows, y_pm, kminus, spectral.V_neg.shape[1] == 0, alpha0, rngs)


def _fit_lockstep(K, fits: list) -> None:
    """Fit every estimator of ``fits`` (a list of :class:`_LockstepFits`) in one lock step on K.

    A fold's fits are embedded in K's rows (zero α off the fold's rows), so the kernel products of
    all folds and λ are one matrix product with K per step, and the Python work of a step is
    shared by all of them.  Each estimator gets ``alpha_``, ``intercept_``, ``n_iter_``,
    ``diverged_``, ``stationarity_`` and ``n_matvecs_`` of its separate fit; no ``history_``.
    The warnings are those of the separate fits (in the runaway's, without its objective value).
    On an array API array K (CCICP-GD only) the fits run in K's namespace and on its device
    (:mod:`kreinbench.methods.iklr.xp_lockstep`), and each ``alpha_`` stays there.
    """
    n = K.shape[0]
    columns = [(fit, i) for fit in fits for i in range(len(fit.ests))]
    Y, A0 = np.zeros((n, len(columns))), np.zeros((n, len(columns)))
    for c, (fit, _) in enumerate(columns):
        Y[fit.rows, c], A0[fit.rows, c] = fit.y_pm, fit.alpha0
    lams = np.array([fit.params[i]["lam"] for fit, i in columns])
    sizes = np.array([fit.y_pm.shape[0] for fit, _ in columns])
    radius = RUNAWAY_FACTOR / (lams * np.sqrt(sizes)) + np.linalg.norm(A0, axis=0)
    params = [fit.params[i] for fit, i in columns]
    p = params[0]
    shared = {(q["inner"], q["max_outer"], q["max_inner"]) for q in params}
    if len(shared) > 1:
        raise KreinbenchError(f"IKLR fits in one lock step must share the inner solver, max_outer and max_inner; "
                              f"got (inner, max_outer, max_inner) in {sorted(shared)}")
    sgd = p["inner"] == "sgd"
    caps = np.array([q["sgd_step_cap" if sgd else "gd_step_cap"] for q in params])
    # ε and η on the summed objective, as in IKLR._inner, for each column's number of rows.
    common = dict(A0=A0, radius=radius, eta=sizes * np.array([q["eta"] for q in params]),
                  rho=np.array([q["rho"] for q in params]), eps=np.array([q["eps"] for q in params]) / sizes,
                  max_outer=p["max_outer"], max_inner=p["max_inner"])
    on_numpy = isinstance(K, np.ndarray)
    if sgd:
        out = iklr_lockstep.ccicp_sgd_lockstep(K, Y, _kminus_of_columns(fits), lams, caps,
                                               rngs=[fit.rngs[i] for fit, i in columns], **common)
    elif on_numpy:
        out = iklr_lockstep.ccicp_gd_lockstep(K, Y, _kminus_of_columns(fits), lams, caps, **common)
    else:
        from kreinbench.methods.iklr import xp_lockstep  # noqa: PLC0415 (the array route's module)

        out = xp_lockstep.ccicp_gd_lockstep(K, Y, xp_lockstep.kminus_of_columns(K, fits), lams, caps, **common)
    for c, (fit, i) in enumerate(columns):
        est = fit.ests[i]
        est.alpha_ = out["alpha"][fit.rows, c] if on_numpy else xp_lockstep.column_on_rows(out["alpha"], c, fit.rows)
        est.intercept_ = float(out["b"][c])
        est.n_iter_, est.diverged_ = int(out["n_iter"][c]), bool(out["diverged"][c])
        est.n_matvecs_, est.stationarity_ = int(out["matvecs"][c]), float(out["stationarity"][c])
        if est.diverged_:
            warn_at_caller(f"IKLR iterates ran away at outer iteration {est.n_iter_}: ||alpha|| exceeds "
                           f"{RUNAWAY_FACTOR:g}/(lam*sqrt(n)) + ||alpha0|| = {radius[c]:.3g} (lam = {est.lam:g}), beyond "
                           "any stationary point", RunawayWarning)
        else:
            est._warn_if_not_stationary(fit.params[i], exact=False)


def _kminus_of_columns(fits: list):
    """(V, cols) ↦ each column's K₋ applied to V's columns, zero off the column's rows."""
    fit_of = np.repeat(np.arange(len(fits)), [len(fit.ests) for fit in fits])
    tau = np.repeat([fit.ests[0].tau_ for fit in fits], [len(fit.ests) for fit in fits])
    if all(fit.tau_only for fit in fits):
        return lambda V, cols: V * tau[cols]  # V is zero off each column's rows already

    def kminus(V, cols):
        out = np.zeros_like(V)
        which = fit_of[cols]
        for f in np.unique(which):
            j = np.flatnonzero(which == f)
            block = np.ix_(fits[f].rows, j)
            out[block] = fits[f].kminus(V[block])
        return out

    return kminus
