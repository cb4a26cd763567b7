import warnings

import numpy as np
import pytest
from sklearn.svm import SVC

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.spectrum import eigendecompose
from kreinbench.methods.base import ConvergenceWarning
from kreinbench.methods.iklr.tdcasvm import TDCASVM
from kreinbench.methods.isvm.svm import dual_objective


def pm(y):
    return np.where(y == np.unique(y)[1], 1.0, -1.0)


def test_psd_kernel_reaches_the_svc_dual_optimum(rbf_heart):
    K, K_test, y, _ = rbf_heart
    est = TDCASVM(C=2.0, inner_tol=1e-9).fit(K, y)
    ref = SVC(kernel="precomputed", C=2.0, tol=1e-10).fit(K, y)
    alpha_ref = np.zeros(y.size)
    alpha_ref[ref.support_] = np.abs(ref.dual_coef_[0])
    y_pm = pm(y)
    d_ref = dual_objective(K, y_pm, alpha_ref)
    assert est.history_[-1]["objective"] == pytest.approx(dual_objective(K, y_pm, est.alpha_), rel=1e-12)
    assert abs(est.history_[-1]["objective"] - d_ref) <= 1e-6 * abs(d_ref)
    np.testing.assert_allclose(est.decision_function(K_test), ref.decision_function(K_test), atol=1e-4)


def test_dca_objective_is_monotone_on_an_indefinite_kernel(tl1_monk2):
    K, _, y, _ = tl1_monk2
    spectrum = eigendecompose(K)
    assert spectrum.eigenvalues[0] < 0
    est = TDCASVM(C=1.0, tol=1e-8).fit(K, y, spectrum=spectrum)
    dual = np.array([row["objective"] for row in est.history_])
    assert est.n_iter_ >= 3
    assert np.all(np.diff(dual) >= -1e-9 * np.abs(dual[1:]))
    y_pm = pm(y)
    assert dual[-1] == pytest.approx(dual_objective(K, y_pm, est.alpha_), rel=1e-12)
    assert abs(y_pm @ est.alpha_) < 1e-9 and est.alpha_.min() >= 0 and est.alpha_.max() <= 1.0
    # A DCA fixed point is a KKT point of the indefinite dual: its violation is small.
    assert est.stationarity_ < 1e-2


def test_rho_below_minus_lambda_min_is_rejected(tl1_monk2):
    K, _, y, _ = tl1_monk2
    spectrum = eigendecompose(K)
    with pytest.raises(KreinbenchError, match="parameter rho"):
        TDCASVM(rho=0.5 * -spectrum.eigenvalues[0]).fit(K, y, spectrum=spectrum)


def test_stopping_at_max_outer_warns(tl1_monk2):
    K, _, y, _ = tl1_monk2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = TDCASVM(C=1.0, max_outer=2).fit(K, y)
    assert est.n_iter_ == 2
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
