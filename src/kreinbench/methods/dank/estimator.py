"""DANK: data-adaptive nonparametric kernels in the SVM (Liu, Huang, Gong, Yang, Li; JMLR).

The classifier learns, with the SVM dual variables α, an adaptive matrix F ⪰ 0 near 11ᵀ that
reshapes the kernel into F ⊙ K (problem (5)):

    max_{α ∈ A} min_{F ⪰ 0} 1ᵀα − ½αᵀY(F ⊙ K)Yα + η‖F − 11ᵀ‖²_F + τη‖F‖_*,
    A = {αᵀy = 0, 0 ≤ α ≤ C},

solved by an accelerated projected gradient with a backtracked step (the default, not in the
paper), Nesterov's smooth method (Algorithm 1) or projected gradient (eq. (16)) on
h(α) = min_F H(α, F); see :mod:`kreinbench.methods.dank.problem`.  The default fit stops once the
Wolfe gap certifies (h* − h(α))/|h(α)| ≤ tol (:mod:`kreinbench.methods.solvers.dual_gap`), else warns with
that bound.  ``n_clusters=v`` solves the
k-means-partitioned approximation of §4 instead (:mod:`kreinbench.methods.dank.partition`).
Test points borrow columns of F from training points chosen in input space
(:mod:`kreinbench.methods.dank.neighbours`), so ``fit`` and ``decision_function`` take the features.
"""

from __future__ import annotations

import numbers

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.implicit_kernel import LIBSVM_TYPES
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
from kreinbench.methods.dank.neighbours import EXTENSIONS, extension_indices
from kreinbench.methods.dank.partition import merged_history, partition, solve_cluster
from kreinbench.methods.dank.problem import PROJECTIONS, SOLVERS, STOPPING_RULES, solve_dank
from kreinbench.methods.dank.solver import relative_gap
from kreinbench.methods.solvers.libsvm import libsvm_dual

ETA_RULES = {"svm", "0.1C2"}
# Starts of the exact version's ascent: α = 0 (Algorithm 1), or the α of the SVM on the same K and C.
INITS = {"zeros", "svm"}
# "<k>C2" is η = k·C² for any k > 0: §6.2.5 (Fig. 8(b)) sweeps k = 0.001 … 100 and suggests 0.1.
C2_SUFFIX = "C2"


def c2_factor(eta: str) -> float | None:
    """k of an η rule "<k>C2" (η = k·C²), or None when ``eta`` is not of that form."""
    if not eta.endswith(C2_SUFFIX):
        return None
    try:
        k = float(eta.removesuffix(C2_SUFFIX))
    except ValueError:
        return None
    return k if k > 0.0 and np.isfinite(k) else None


def resolve_eta(eta, C: float, K: np.ndarray, y: np.ndarray, *, svm_alpha=None) -> float:
    """η as a number: given, k·C² ("<k>C2", e.g. "0.1C2" of §6.2.5), or ‖α_SVM‖²₂ of an SVM fitted
    on K first (§6.1.1; ``svm_alpha``, when given, is that SVM's α)."""
    if isinstance(eta, str):
        k = c2_factor(eta)
        if k is not None:
            return k * C**2
        check_choice("eta", eta, ETA_RULES)
        alpha = libsvm_dual(K, y, C)[0] if svm_alpha is None else svm_alpha
        value = float(alpha @ alpha)
        if value <= 0.0:
            raise KreinbenchError("parameter eta='svm': the SVM has no support vector, so ||alpha_SVM||^2 = 0; "
                                  "give eta as a number")
        return value
    return check_positive("eta", eta)


def check_features(X, n: int, name: str) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] != n:
        raise KreinbenchError(f"{name} must have shape ({n}, n_features) to match the kernel, got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise KreinbenchError(f"{name} contains NaN or infinite entries")
    return X


def not_converged_message(name: str, p: dict, step: float, gap: float) -> str:
    """The ConvergenceWarning of a fit that ran out of iterations: how far it is from the optimum."""
    rule = ("relative gap bound" if p["stopping"] == "gap" else "||alpha(t) - alpha(t-1)||") + f" <= tol={p['tol']:g}"
    return (f"{name} stopped at max_iter={p['max_iter']} before {rule}: relative gap to the optimum "
            f"(h* - h)/|h| <= {gap:.3g}, last ||alpha(t) - alpha(t-1)|| = {step:.3g}")


def extended_scores(F, K_cross_S: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Σ_{i∈S} v_i F'_ij K(x_i, x'_j), F'_j = mean of the F columns ``idx[j]`` (shape (m, k))."""
    m, k = idx.shape
    cols = F.columns(idx.ravel()).reshape(-1, m, k).mean(axis=2)  # (s, m)
    return np.einsum("i,im,mi->m", F.v_support, cols, K_cross_S)


class DANK(KernelClassifierMixin):
    """DANK classifier on a precomputed (PSD, or indefinite) kernel, with features for the extension.

    Parameters
    ----------
    C : float, default=1.0
        Box bound of the dual variables.
    eta : float or {"svm", "<k>C2"}, default="svm"
        η of η‖F − 11ᵀ‖²_F: a number, ‖α_SVM‖²₂ of ``SVC(C, kernel="precomputed")`` fitted on K
        first (§6.1.1; also for the partitioned version, on the whole K), or k·C² (§6.2.5: "0.1C2").
    tau : float, default=0.01
        Weight τ of the nuclear norm τη‖F‖_* (exact version; the partitioned one has none).
    n_clusters : int or None, default=None
        None: the exact problem (5).  v: the k-means-partitioned problem (18) of §4 (no bias, no
        nuclear norm; one subproblem per cluster, test points predicted by their nearest centre's
        cluster model).
    solver : {"fista", "nesterov", "pg"}, default="fista"
        Not in the paper: accelerated projected gradient with a backtracked L capped by
        Algorithm 1's (:func:`~kreinbench.methods.dank.solver.backtracking_ascent`); or the paper's
        Nesterov smooth method (Algorithm 1, L = n + 3nC²‖K‖²_F/(4η)) or standard projected
        gradient (eq. (16), L = n − τ/2 + nC²λ_max(K)/(4η)).  Algorithm 1's step 1/L is so short
        that it rarely meets ``tol`` within 2000 iterations (80 points of heart, σ = 1, C = 1,
        η = 10: a Wolfe bound of 4.9e-4 after 2000 iterations and 3.3 s; fista certifies 1e-4 in
        29 iterations and 0.1 s).
    monotone : bool, default=False
        Nesterov only: the monotone variant (θ⁽ᵗ⁾ = argmax h over {θ⁽ᵗ⁻¹⁾, θ̃⁽ᵗ⁾, α⁽ᵗ⁾}).
    projection : {"exact", "alternating"}, default="exact"
        Projection onto A: exact (:func:`~kreinbench.methods.solvers.projection.project_box_hyperplane`)
        or the paper's 10 alternating clip/hyperplane projections.  The alternating one leaves no
        exact zero in α, so it forfeits the low-rank speed-up (every point is a "support vector").
    fit_intercept : bool, default=True
        Exact version: keep the bias (αᵀy = 0 in A, b from the KKT conditions on free support
        vectors).  False drops both, as in problem (17).
    max_iter, tol : int, float, default=2000, 1e-4
        Iteration limit (Algorithm 1's t_max) and the tolerance of ``stopping``.
    stopping : {"gap", "step"}, default="gap"
        "gap": stop once G(α)/|h(α)| ≤ tol, G(α) = max_{u ∈ A} ∇h(α)ᵀ(u − α) ≥ h* − h(α) (the
        Wolfe gap, :mod:`~kreinbench.methods.solvers.dual_gap`): a certified relative gap to the optimum
        of (5) for a PSD K.  "step": the paper's rule ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂ ≤ tol, which does not bound
        the gap (a short step is small far from the optimum).
    init : {"zeros", "svm"}, default="zeros"
        Exact version: where the ascent starts, α⁽⁰⁾ = 0 (Algorithm 1) or the α of
        ``SVC(C, kernel="precomputed")`` on the same K (the SVM that ``eta="svm"`` fits anyway).
        The start changes the iterations, not the maximum of the concave h.  With η = ‖α_SVM‖²,
        F stays near 11ᵀ and the maximizer near α_SVM: on ijcnn1 (10000 points, C = 32) the
        ascent from α_SVM certified the gap in 1 iteration, from 0 in 187, whose supports (the
        sizes of the matrices each iteration works on) began at all 10000 points, not 960.
        The partitioned version starts each cluster at 0.
    extension : {"reciprocal", "knn"}, default="reciprocal"
        Out-of-sample extension of F (eq. (12), or the k-NN baselines of Fig. 7).
    n_neighbors : int, default=1
        k of ``extension="knn"``.
    max_rank : int or None, default=None
        Reciprocal extension only: count only mutual ``max_rank``-nearest pairs (fallback: the
        nearest training point); None is eq. (12) as printed.
    random_state : int or None
        Seed of k-means.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        Dual variables (Nesterov's θ of the last iteration).
    intercept_ : float
    F_ : ndarray of shape (n, n)
        The learned adaptive matrix (built on access from its low-rank factors).  Partitioned:
        the paper's block-diagonal F̄ = diag(F^(1,1), …, F^(v,v)).
    rank_F_ : int
        rank(F) (partitioned: Σ_c rank F^(c,c)).
    eta_ : float
    objective_ : float
        h(α_) (partitioned: Σ_c h_c(α_c)).
    gap_ : float
        G(α_)/|h(α_)|, the bound on the relative gap (h* − h(α_))/|h(α_)| at the fitted α
        (partitioned: Σ_c G_c / |Σ_c h_c|).
    history_ : list of dict
        Per iteration (0 = α⁽⁰⁾ = 0): ``objective`` h(α⁽ᵗ⁾) = H(α⁽ᵗ⁾, F(α⁽ᵗ⁾)), ``step_norm``
        ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂, ``gap`` G(α⁽ᵗ⁾)/|h(α⁽ᵗ⁾)| (exact version), ``elapsed``.
    n_iter_ : int
    converged_ : bool
    lipschitz_ : float (exact version)
    cluster_labels_ : ndarray of shape (n,) (partitioned version)
    classes_ : ndarray of shape (2,)
    """

    needs_features = True

    def __init__(self, *, C=1.0, eta="svm", tau=0.01, n_clusters=None, solver="fista", monotone=False,
                 projection="exact", fit_intercept=True, max_iter=2000, tol=1e-4, stopping="gap", init="zeros",
                 extension="reciprocal", n_neighbors=1, max_rank=None, random_state=None):
        self.C = C
        self.eta = eta
        self.tau = tau
        self.n_clusters = n_clusters
        self.solver = solver
        self.monotone = monotone
        self.projection = projection
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.stopping = stopping
        self.init = init
        self.extension = extension
        self.n_neighbors = n_neighbors
        self.max_rank = max_rank
        self.random_state = random_state

    def check_params(self) -> None:
        self._validated()

    def _validated(self) -> dict:
        if not isinstance(self.monotone, (bool, np.bool_)):
            raise KreinbenchError(f"parameter monotone must be True or False, got {self.monotone!r}")
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise KreinbenchError(f"parameter fit_intercept must be True or False, got {self.fit_intercept!r}")
        if not (isinstance(self.eta, str) or isinstance(self.eta, numbers.Real)):
            raise KreinbenchError(f"parameter eta must be a positive number or one of {sorted(ETA_RULES)}, "
                                  f"got {self.eta!r}")
        return {
            "C": check_positive("C", self.C),
            "tau": check_positive("tau", self.tau, allow_zero=True),
            "n_clusters": None if self.n_clusters is None else check_int("n_clusters", self.n_clusters, minimum=1),
            "solver": check_choice("solver", self.solver, SOLVERS),
            "monotone": bool(self.monotone),
            "projection": check_choice("projection", self.projection, PROJECTIONS),
            "fit_intercept": bool(self.fit_intercept),
            "max_iter": check_int("max_iter", self.max_iter, minimum=1),
            "tol": check_positive("tol", self.tol, allow_zero=True),
            "stopping": check_choice("stopping", self.stopping, STOPPING_RULES),
            "init": check_choice("init", self.init, INITS),
            "extension": check_choice("extension", self.extension, EXTENSIONS),
            "n_neighbors": check_int("n_neighbors", self.n_neighbors, minimum=1),
            "max_rank": None if self.max_rank is None else check_int("max_rank", self.max_rank, minimum=1),
        }

    def takes_implicit_kernel(self, kernel_type: str) -> bool:
        # The partitioned version takes its clusters' blocks; η's SVM needs a kernel libsvm computes.
        return self.n_clusters is not None and (self.eta != "svm" or kernel_type in LIBSVM_TYPES)

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, K, y, X, *, warm_start=None):
        """Fit on the train kernel ``K`` (n, n), labels ``y`` (two classes) and features ``X`` (n, d).

        ``warm_start`` (exact version only): dual variables (n,) to start the ascent from, projected
        onto A first, in place of ``init``'s start.  The maximum is the same.
        """
        p = self._validated()
        # The partitioned version takes its clusters' blocks of an implicit kernel (and η's SVM
        # computes it in libsvm); the exact one needs the matrix.
        K, y_pm, self.classes_ = check_train_kernel(K, y, implicit=p["n_clusters"] is not None)
        self.X_fit_ = check_features(X, K.shape[0], "X")
        if p["n_clusters"] is not None and p["n_clusters"] > K.shape[0]:
            raise KreinbenchError(f"parameter n_clusters={p['n_clusters']} exceeds the {K.shape[0]} training points")
        exact = p["n_clusters"] is None
        svm_alpha = libsvm_dual(K, y_pm, p["C"])[0] if self.eta == "svm" or (exact and p["init"] == "svm") else None
        self.eta_ = resolve_eta(self.eta, p["C"], K, y_pm, svm_alpha=svm_alpha)
        if warm_start is not None and (p["n_clusters"] is not None or np.shape(warm_start) != y_pm.shape):
            raise KreinbenchError(f"warm_start must be dual variables of shape {y_pm.shape} of the exact version "
                                  f"(n_clusters=None), got shape {np.shape(warm_start)} with n_clusters={p['n_clusters']}")
        if exact:
            if warm_start is None and p["init"] == "svm":
                warm_start = svm_alpha
            self._fit_exact(K, y_pm, p, warm_start)
        else:
            self._fit_partitioned(K, y_pm, p)
        if not self.converged_:
            warn_at_caller(not_converged_message(f"DANK {p['solver']}", p, self.history_[-1]["step_norm"], self.gap_),
                          ConvergenceWarning)
        return self

    def _fit_exact(self, K, y, p, warm_start) -> None:
        sol = solve_dank(K, y, C=p["C"], eta=self.eta_, tau=p["tau"], fit_intercept=p["fit_intercept"],
                         solver=p["solver"], monotone=p["monotone"], projection=p["projection"],
                         max_iter=p["max_iter"], tol=p["tol"], stopping=p["stopping"], x0=warm_start)
        self.alpha_, self.intercept_, self.objective_ = sol.alpha, sol.intercept, sol.objective
        self.gap_ = sol.result.gap
        self._F = sol.F
        self.rank_F_ = sol.F.rank
        self.lipschitz_ = sol.lipschitz
        self.history_, self.n_iter_, self.converged_ = sol.result.history, sol.result.n_iter, sol.result.converged

    def _fit_partitioned(self, K, y, p) -> None:
        self.kmeans_ = partition(self.X_fit_, p["n_clusters"], self.random_state)
        self.cluster_labels_ = self.kmeans_.labels_
        self._clusters = []
        alpha = np.zeros(y.size)
        for c in range(p["n_clusters"]):
            idx = np.flatnonzero(self.cluster_labels_ == c)
            sol = solve_cluster(K[np.ix_(idx, idx)], y[idx], C=p["C"], eta=self.eta_, solver=p["solver"],
                                monotone=p["monotone"], max_iter=p["max_iter"], tol=p["tol"],
                                stopping=p["stopping"], name=f"DANK cluster {c}")
            alpha[idx] = sol.alpha
            self._clusters.append((idx, sol))
        solutions = [sol for _, sol in self._clusters]
        self.alpha_, self.intercept_ = alpha, 0.0
        self.objective_ = float(sum(s.objective for s in solutions))
        # the clusters' absolute bounds add up (h̄ = Σ_c h_c, Lemma 5)
        self.gap_ = relative_gap(sum(s.result.gap * abs(s.objective) for s in solutions), self.objective_)
        self.rank_F_ = int(sum(s.F.rank for s in solutions))
        self.history_ = merged_history(solutions)
        self.n_iter_ = max(s.result.n_iter for s in solutions)
        self.converged_ = all(s.result.converged for s in solutions)

    # -- cross-validation along C -----------------------------------------------------------
    def supports_grid_path(self, grid: dict) -> bool:
        """True when CV should call :meth:`grid_path_scores`: a grid of C alone for the exact version."""
        return set(grid) == {"C"} and self.n_clusters is None

    def grid_path_scores(self, K, y, folds, candidates: list[dict], X=None) -> np.ndarray:
        """Validation accuracies (candidates × folds) of fits warm-started along C, as separate fits would give.

        Per fold, the candidates run by C ascending, each fit started from the previous solution
        scaled by C/C_prev.  The scaled α stays in A (yᵀα = 0 and 0 ≤ α ≤ C are invariant under
        the scaling) and is exact for the coordinates at the bound, which most are at small C.
        On ijcnn1 (400 points, 11 C) it cuts the FISTA iterations of a fold about 3-fold and its
        time about 5-fold against cold starts; unscaled α, also feasible, saves only a quarter.
        The start changes the iterations, not the maximum of the concave h, so the scores are
        those of cold-started fits up to the solver tolerance (tested).  With ``init="svm"`` each
        fit starts from its own SVM's α instead, nearer its maximizer than the path's.
        """
        params = self.get_params()
        order = sorted(range(len(candidates)), key=lambda i: candidates[i]["C"])
        scores = np.empty((len(candidates), len(folds)))
        for j, (tr, va) in enumerate(folds):
            K_tr, K_va = K[np.ix_(tr, tr)], K[np.ix_(va, tr)]
            previous = None
            for i in order:
                est = DANK(**{**params, **candidates[i]})
                start = None if previous is None or est.init == "svm" else previous.alpha_ * (est.C / previous.C)
                est.fit(K_tr, y[tr], X[tr], warm_start=start)
                scores[i, j] = est.score(K_va, y[va], X[va])
                previous = est
        return scores

    @property
    def F_(self) -> np.ndarray:
        if not hasattr(self, "_clusters"):
            return self._F.dense()
        F = np.zeros((self.alpha_.size, self.alpha_.size))
        for idx, sol in self._clusters:
            F[np.ix_(idx, idx)] = sol.F.dense()
        return F

    # -- prediction -------------------------------------------------------------------------
    def _indices(self, X_train, X_test) -> np.ndarray:
        return extension_indices(X_train, X_test, method=self.extension, n_neighbors=self.n_neighbors,
                                 max_rank=self.max_rank)

    def decision_function(self, K_cross, X_test):
        """Σᵢ αᵢ yᵢ F'_ij K(xᵢ, x'_j) + b for a cross-kernel (n_test, n_train) and features (n_test, d)."""
        K_cross = check_cross_kernel(K_cross, self.alpha_.size, implicit=hasattr(self, "_clusters"))
        X_test = check_features(X_test, K_cross.shape[0], "X_test")
        if not hasattr(self, "_clusters"):
            F = self._F
            idx = self._indices(self.X_fit_, X_test)
            return extended_scores(F, K_cross[:, F.support], idx) + self.intercept_
        scores = np.zeros(K_cross.shape[0])
        assigned = self.kmeans_.predict(X_test)
        for c, (idx, sol) in enumerate(self._clusters):
            rows = np.flatnonzero(assigned == c)
            if rows.size == 0:
                continue
            local = self._indices(self.X_fit_[idx], X_test[rows])
            K_block = K_cross[np.ix_(rows, idx[sol.F.support])]
            scores[rows] = extended_scores(sol.F, K_block, local)
        return scores
