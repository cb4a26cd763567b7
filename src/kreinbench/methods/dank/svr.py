"""DANK-SVR: data-adaptive nonparametric kernels in ε-insensitive support vector regression (DANK §5).

Problem (22), with a = α̂ − α̌ and x = [α̂; α̌] ∈ R^{2n}:

    max_x min_{F ⪰ 0} H = −½aᵀ(F ⊙ K)a + aᵀy − ε(α̂ + α̌)ᵀ1 + η‖F − 11ᵀ‖²_F + τη‖F‖_*,
    A = {0 ≤ α̂, α̌ ≤ C, 1ᵀ(α̂ − α̌) = 0}.

(22) prints the equality constraint as (α̂ − α̌)ᵀy = 0; the constraint the bias b of the SVR
induces (and scikit-learn's SVR solves) is 1ᵀ(α̂ − α̌) = 0, implemented here.  F(x) =
J_{τ/2}(11ᵀ + Γ), Γ = diag(a) K diag(a)/(4η), and by Danskin's theorem, with g = (F ⊙ K)a:

    ∂h/∂α̂ = y − g − ε1,   ∂h/∂α̌ = −y + g − ε1.

Proposition 10 prints −εI for −ε1 and −(F ⊙ K)a in ∂h/∂α̌; differentiating H gives +g there
(a depends on α̌ with a minus sign), as implemented.  Solved by Algorithm 2 (Nesterov's method with
the steps 1/(2L), 1/(4L), L = 2(n + 9nC²‖K‖²_F/(4η)), Theorem 11) or, by default, the accelerated
projected gradient with a backtracked step; the default stop is the certified relative gap of
:mod:`kreinbench.methods.solvers.dual_gap` (z = [1; −1]), as for :class:`~kreinbench.methods.dank.estimator.DANK`.
"""

from __future__ import annotations

import numbers

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.methods.base import (
    ConvergenceWarning,
    KernelRegressorMixin,
    check_choice,
    check_cross_kernel,
    check_int,
    check_positive,
    check_regression_kernel,
    warn_at_caller,
)
from kreinbench.methods.dank.adaptive import adaptive_matrices
from kreinbench.methods.dank.estimator import check_features, extended_scores, not_converged_message
from kreinbench.methods.dank.neighbours import EXTENSIONS, extension_indices
from kreinbench.methods.dank.problem import PROJECTIONS, STOPPING_RULES
from kreinbench.methods.dank.solver import (
    Evaluation,
    backtracking_ascent,
    kkt_intercept,
    make_projection,
    nesterov_ascent,
)
from kreinbench.methods.solvers.dual_gap import make_gap

ETA_RULES = {"svr", "0.1C2"}


def svr_evaluate(K: np.ndarray, y: np.ndarray, epsilon: float, eta: float, tau: float):
    """The oracle x = [α̂; α̌] ↦ (h(x), ∇h(x), F(x))."""
    n = y.size
    adaptive_matrix = adaptive_matrices(K, eta, tau)

    def evaluate(x: np.ndarray) -> Evaluation:
        a = x[:n] - x[n:]
        F = adaptive_matrix(a)
        g = F.hadamard_times_v()
        value = float(-0.5 * a @ g + a @ y - epsilon * x.sum() + F.penalty(eta, tau))
        return Evaluation(value, np.concatenate([y - g - epsilon, g - y - epsilon]), F)

    return evaluate


def svr_lipschitz(K: np.ndarray, C: float, eta: float) -> float:
    """L = 2(n + 9nC²‖K‖²_F/(4η)) of Theorem 11."""
    n = K.shape[0]
    return 2.0 * (n + 9.0 * n * C**2 * float(np.sum(K * K)) / (4.0 * eta))


def relative_mse(y_true, y_pred) -> float:
    """The paper's RMSE (§6.3): Σ(ĝ(xᵢ) − yᵢ)² / Σ(yᵢ − mean(y))², lower is better."""
    y_true = np.asarray(y_true, dtype=float)
    denom = float(np.sum((y_true - y_true.mean()) ** 2))
    if denom == 0.0:
        raise KreinbenchError("relative MSE is undefined for constant targets y")
    return float(np.sum((np.asarray(y_pred, dtype=float) - y_true) ** 2)) / denom


SVR_SOLVERS = {"nesterov", "fista"}


class DANKSVR(KernelRegressorMixin):
    """DANK-SVR regressor on a precomputed kernel, with features for the out-of-sample extension.

    Parameters
    ----------
    C : float, default=1.0
    epsilon : float, default=0.1
        Width ε of the ε-insensitive loss.
    eta : float or {"svr", "0.1C2"}, default="svr"
        A number, ‖α̂ − α̌‖²₂ of ``SVR(C, epsilon, kernel="precomputed")`` fitted on K first (as
        η = ‖α_SVM‖² for the classifier), or 0.1C².
    tau : float, default=0.01
    solver : {"fista", "nesterov"}, default="fista"
        The accelerated projected gradient with a backtracked step capped by Theorem 11's L
        (:func:`~kreinbench.methods.dank.solver.backtracking_ascent`; not in the paper), or
        Algorithm 2 (Nesterov's smooth method, step 1/L): the same maximizer, which the former
        reaches in far fewer iterations, as for :class:`~kreinbench.methods.dank.estimator.DANK`.
    monotone : bool, default=False
        The monotone variant of Nesterov's method.
    projection : {"exact", "alternating"}, default="exact"
    max_iter, tol : int, float, default=2000, 1e-4
        Iteration limit (Algorithm 2's t_max) and the tolerance of ``stopping``.
    stopping : {"gap", "step"}, default="gap"
        "gap": the Wolfe gap bound on (h* − h)/|h| ≤ tol (:mod:`~kreinbench.methods.solvers.dual_gap`);
        "step": Algorithm 2's rule ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂ ≤ tol, α = α̂ − α̌.
    extension, n_neighbors, max_rank
        As for :class:`~kreinbench.methods.dank.estimator.DANK`.

    ``score`` is R², as for scikit-learn's regressors (higher is better, so that
    ``GridSearchCV`` maximizes it); the paper's relative MSE of Table 4 is 1 − R²
    (:func:`relative_mse`).

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        a = α̂ − α̌ (``dual_coef_`` of scikit-learn's SVR).
    alpha_hat_, alpha_check_ : ndarray of shape (n,)
    intercept_ : float
        b from the KKT conditions on free α̂ᵢ (b = yᵢ − gᵢ − ε) and free α̌ᵢ (b = yᵢ − gᵢ + ε).
    F_ : ndarray of shape (n, n)
    rank_F_, eta_, objective_, lipschitz_, n_iter_, converged_
    gap_ : float
        The Wolfe bound on (h* − h)/|h| at the fitted point.
    history_ : list of dict
        ``iteration``, ``objective`` h, ``step_norm`` ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂, ``gap`` (the bound), ``elapsed``.
    """

    needs_features = True

    def __init__(self, *, C=1.0, epsilon=0.1, eta="svr", tau=0.01, solver="fista", monotone=False,
                 projection="exact", max_iter=2000, tol=1e-4, stopping="gap", extension="reciprocal", n_neighbors=1,
                 max_rank=None):
        self.C = C
        self.epsilon = epsilon
        self.eta = eta
        self.tau = tau
        self.solver = solver
        self.monotone = monotone
        self.projection = projection
        self.max_iter = max_iter
        self.tol = tol
        self.stopping = stopping
        self.extension = extension
        self.n_neighbors = n_neighbors
        self.max_rank = max_rank

    def _validated(self) -> dict:
        if not isinstance(self.monotone, (bool, np.bool_)):
            raise KreinbenchError(f"parameter monotone must be True or False, got {self.monotone!r}")
        if not (isinstance(self.eta, str) or isinstance(self.eta, numbers.Real)):
            raise KreinbenchError(f"parameter eta must be a positive number or one of {sorted(ETA_RULES)}, "
                                  f"got {self.eta!r}")
        return {
            "C": check_positive("C", self.C),
            "epsilon": check_positive("epsilon", self.epsilon, allow_zero=True),
            "tau": check_positive("tau", self.tau, allow_zero=True),
            "solver": check_choice("solver", self.solver, SVR_SOLVERS),
            "projection": check_choice("projection", self.projection, PROJECTIONS),
            "max_iter": check_int("max_iter", self.max_iter, minimum=1),
            "tol": check_positive("tol", self.tol, allow_zero=True),
            "stopping": check_choice("stopping", self.stopping, STOPPING_RULES),
            "extension": check_choice("extension", self.extension, EXTENSIONS),
            "n_neighbors": check_int("n_neighbors", self.n_neighbors, minimum=1),
            "max_rank": None if self.max_rank is None else check_int("max_rank", self.max_rank, minimum=1),
        }

    def _resolve_eta(self, p, K, y) -> float:
        if isinstance(self.eta, str):
            check_choice("eta", self.eta, ETA_RULES)
            if self.eta == "0.1C2":
                return 0.1 * p["C"] ** 2
            from sklearn.svm import SVR  # noqa: PLC0415 (scikit-learn costs 1.5 s of start-up; only this path needs it)

            svr = SVR(C=p["C"], epsilon=p["epsilon"], kernel="precomputed").fit(K, y)
            value = float(np.sum(svr.dual_coef_**2))
            if value <= 0.0:
                raise KreinbenchError("parameter eta='svr': the SVR has no support vector (epsilon too large?); "
                                      "give eta as a number")
            return value
        return check_positive("eta", self.eta)

    def fit(self, K, y, X):
        """Fit on the train kernel ``K`` (n, n), real targets ``y`` (n,) and features ``X`` (n, d)."""
        p = self._validated()
        K, y = check_regression_kernel(K, y)
        self.X_fit_ = check_features(X, K.shape[0], "X")
        n = y.size
        self.eta_ = self._resolve_eta(p, K, y)
        z = np.concatenate([np.ones(n), -np.ones(n)])
        self.lipschitz_ = svr_lipschitz(K, p["C"], self.eta_)
        evaluate = svr_evaluate(K, y, p["epsilon"], self.eta_, p["tau"])
        project = make_projection(p["projection"], z, p["C"])
        common = dict(lipschitz=2.0 * self.lipschitz_, max_iter=p["max_iter"], tol=p["tol"], rule=p["stopping"],
                      gap=make_gap(z, p["C"]), to_alpha=lambda x: x[:n] - x[n:])
        if p["solver"] == "fista":
            res = backtracking_ascent(evaluate, project, np.zeros(2 * n), name="DANK-SVR-FISTA", **common)
        else:
            res = nesterov_ascent(evaluate, project, np.zeros(2 * n), monotone=bool(self.monotone),
                                  name="DANK-SVR", **common)
        self.alpha_hat_, self.alpha_check_ = res.x[:n], res.x[n:]
        self.alpha_ = self.alpha_hat_ - self.alpha_check_
        self.intercept_ = kkt_intercept(res.evaluation.grad, z, res.x, p["C"])
        self._F = res.evaluation.state
        self.rank_F_ = self._F.rank
        self.objective_ = res.evaluation.value
        self.gap_ = res.gap
        self.history_, self.n_iter_, self.converged_ = res.history, res.n_iter, res.converged
        if not self.converged_:
            warn_at_caller(not_converged_message(f"DANK-SVR {p['solver']}", p, self.history_[-1]["step_norm"], self.gap_),
                           ConvergenceWarning)
        return self

    @property
    def F_(self) -> np.ndarray:
        return self._F.dense()

    def predict(self, K_cross, X_test):
        """Σᵢ aᵢ F'_ij K(xᵢ, x'_j) + b for a cross-kernel (n_test, n_train) and features (n_test, d)."""
        K_cross = check_cross_kernel(K_cross, self.alpha_.size)
        X_test = check_features(X_test, K_cross.shape[0], "X_test")
        idx = extension_indices(self.X_fit_, X_test, method=self.extension, n_neighbors=self.n_neighbors,
                                max_rank=self.max_rank)
        return extended_scores(self._F, K_cross[:, self._F.support], idx) + self.intercept_

