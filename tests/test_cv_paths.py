"""CV over a λ grid by the estimators' λ paths (kreinbench.methods.selection.cross_validate): the scores
of the separate fits, with the shared work done once."""

import warnings

import numpy as np
import pytest

from kreinbench.methods import IKLR, KLR, ConvergenceWarning, SpectrumKLR
from kreinbench.methods.base import check_train_kernel
from kreinbench.methods.iklr.estimator import _fit_lockstep, _LockstepFits
from kreinbench.methods.selection import cross_validate, lambda_path

LAMS = [1e-3, 0.1, 1.0, 10.0]


def both(make, K, y, grid=None):
    grid = grid or {"lam": LAMS}
    path = cross_validate(make, {"k": K}, y, grid, n_folds=3, seed=7)
    plain = cross_validate(make, {"k": K}, y, grid, n_folds=3, seed=7, paths=False)
    return path, plain


@pytest.mark.parametrize("make", [
    lambda p: KLR(**p),
    lambda p: SpectrumKLR(correction="flip", **p),
    lambda p: SpectrumKLR(correction="clip", test_kernel="projected", **p),
    lambda p: IKLR(solver="ccicp-gd", **p),
    lambda p: IKLR(solver="ccicp-sgd", random_state=3, **p),
], ids=["klr", "flip", "clip-projected", "ccicp-gd", "ccicp-sgd"])
def test_lambda_path_gives_the_scores_and_warnings_of_separate_fits(tl1_monk2, make):
    K, _, y, _ = tl1_monk2
    path, plain = both(make, K, y)
    assert [r["cv_accuracy"] for r in path.scores] == [r["cv_accuracy"] for r in plain.scores]
    assert [r["cv_std"] for r in path.scores] == [r["cv_std"] for r in plain.scores]
    assert (path.best_params, path.n_warnings) == (plain.best_params, plain.n_warnings)


def test_grids_beyond_lambda_and_feature_estimators_use_separate_fits():
    assert lambda_path(lambda p: KLR(**p), {"lam": LAMS}) is not None
    assert lambda_path(lambda p: KLR(**p), {"lam": LAMS, "tol": [1e-8]}) is None
    assert lambda_path(lambda p: IKLR(**p), {"eps": [1.0]}) is None


def test_klr_warm_start_reaches_the_cold_solution_in_fewer_newton_steps(rbf_heart):
    K, _, y, _ = rbf_heart
    K, y_pm, _ = check_train_kernel(K, y)
    cold = [KLR(lam=lam)._newton(K, y_pm) for lam in LAMS[::-1]]
    warm, start = [], None
    for lam in LAMS[::-1]:
        warm.append(KLR(lam=lam)._newton(K, y_pm, start))
        start = (warm[-1].alpha_, warm[-1].intercept_)
    for c, w in zip(cold, warm):
        np.testing.assert_allclose(w.alpha_, c.alpha_, rtol=1e-6, atol=1e-8 * np.abs(c.alpha_).max())
        assert w.stationarity_ <= 1e-10  # relative to ‖∇f(0, 0)‖, as the cold fit's
    assert sum(w.n_iter_ for w in warm) < sum(c.n_iter_ for c in cold)


def test_lockstep_reports_the_separate_fits_stationarity_and_warnings(tl1_monk2):
    K, _, y, _ = tl1_monk2
    with warnings.catch_warnings(record=True) as caught_separate:
        warnings.simplefilter("always")
        separate = [IKLR(lam=lam, solver="ccicp-gd").fit(K, y) for lam in LAMS]
    ests = [IKLR(lam=lam, solver="ccicp-gd") for lam in LAMS]
    K_checked, y_pm, _ = check_train_kernel(K, y)
    with warnings.catch_warnings(record=True) as caught_lockstep:
        warnings.simplefilter("always")
        _fit_lockstep(K_checked, [_LockstepFits.prepared(ests, K_checked, y_pm, IKLR._spectral_step(K_checked, "eigen", None),
                                                      rows=np.arange(y_pm.size))])
    for one, batched in zip(separate, ests):
        assert batched.stationarity_ == pytest.approx(one.stationarity_, rel=1e-8)
    assert [w.category for w in caught_lockstep] == [w.category for w in caught_separate]
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught_lockstep)


def test_flip_clip_shift_share_their_folds_spectra_with_the_scores_of_their_own_cvs(tl1_monk2, monkeypatch):
    """Flip, Clip and Shift in one group CV (`cv_with`): one eigendecomposition per fold for the
    three, and each method's scores those of its own CV."""
    from kreinbench.methods.iklr import klr
    from kreinbench.methods.selection import cross_validate_group

    K, _, y, _ = tl1_monk2
    lams = [1e-3, 0.1, 10.0]
    protos = {t: SpectrumKLR(correction=t) for t in ("flip", "clip", "shift")}
    calls = []
    real = klr.eigendecompose
    monkeypatch.setattr(klr, "eigendecompose", lambda K_: calls.append(K_.shape) or real(K_))
    group = cross_validate_group(protos, {"tl1": K}, y, lams, n_folds=3, seed=2)
    assert len(calls) == 3  # one per fold
    for name, proto in protos.items():
        alone = cross_validate(lambda p, proto=proto: SpectrumKLR(**{**proto.get_params(), **p}), {"tl1": K}, y,
                               {"lam": lams}, n_folds=3, seed=2)
        assert group[name].scores == alone.scores and group[name].best_params == alone.best_params
    assert SpectrumKLR().groups_lambda_paths_with(SpectrumKLR(correction="clip"))
    assert not SpectrumKLR().groups_lambda_paths_with(KLR())
