"""DANK Fig. 4 data: Nesterov's smooth method (Algorithm 1) against projected gradient (eq. (16)),
and the accelerated projected gradient with a backtracked step (solver="fista") the configs run.

Per iteration t of each solver: H(α⁽ᵗ⁾, F(α⁽ᵗ⁾)) = h(α⁽ᵗ⁾) (panel (a)) and ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂
(panel (b)), from the ``history_`` the :class:`~kreinbench.methods.dank.estimator.DANK` fit records.
"""

from __future__ import annotations

import pandas as pd

from kreinbench.methods.dank.estimator import DANK

FIGURE4_SOLVERS = ("nesterov", "pg", "fista")


def figure4_data(K, y, X, *, C=1.0, eta="svm", tau=0.01, max_iter=2000, tol=0.0) -> pd.DataFrame:
    """Convergence histories of the solvers of problem (5) on one training set.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Train kernel.
    y : ndarray of shape (n,)
        Labels (two classes).
    X : ndarray of shape (n, d)
        Features (the estimator's out-of-sample extension needs them; unused by the solvers).
    C, eta, tau : float (eta also "svm" or "0.1C2")
        As for :class:`~kreinbench.methods.dank.estimator.DANK`; the paper's defaults τ = 0.01, η = ‖α_SVM‖².
    max_iter : int, default=2000
        Iterations of each solver (Algorithm 1's t_max).
    tol : float, default=0.0
        Tolerance of the paper's rule ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖ ≤ tol (the figure's panel (b)); 0 runs every
        solver for ``max_iter`` iterations, so that the curves cover the same range (a
        ConvergenceWarning then says so).

    Returns
    -------
    pandas.DataFrame
        One row per solver and iteration: ``solver``, ``iteration`` (0 = α⁽⁰⁾ = 0),
        ``objective`` H(α⁽ᵗ⁾, F(α⁽ᵗ⁾)), ``step_norm`` ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂ (NaN at t = 0), ``elapsed`` (s).
    """
    frames = []
    for solver in FIGURE4_SOLVERS:
        est = DANK(C=C, eta=eta, tau=tau, solver=solver, max_iter=max_iter, tol=tol, stopping="step").fit(K, y, X)
        frames.append(pd.DataFrame(est.history_).assign(solver=solver))
    return pd.concat(frames, ignore_index=True)[["solver", "iteration", "objective", "step_norm", "elapsed"]]
