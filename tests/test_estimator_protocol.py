"""kreinbench.methods.base.Estimator: scikit-learn's estimator API without importing scikit-learn."""

import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.utils import get_tags

from kreinbench.errors import KreinbenchError
from kreinbench.methods import ESTIMATORS, IKLR, KLR
from kreinbench.methods.base import Estimator
from kreinbench.methods.multiclass import OneVsRest


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_params_round_trip_through_clone_as_for_a_base_estimator(name):
    cls = ESTIMATORS[name]
    est = cls()
    params = est.get_params()
    assert list(params) == sorted(params)
    twin = clone(est)
    assert type(twin) is cls and twin is not est and twin.get_params() == params
    assert repr(est) == f"{name}()"
    # A binary classifier's tags (scikit-learn's ClassifierMixin on BaseEstimator), but a kernel as
    # input: meta-estimators slice it on both axes.
    tags = get_tags(est)
    assert tags.input_tags.pairwise and tags.estimator_type == "classifier"
    assert not tags.classifier_tags.multi_class
    tags.input_tags.pairwise, tags.classifier_tags.multi_class = False, True
    assert tags == SklearnClassifier().__sklearn_tags__()


class SklearnClassifier(ClassifierMixin, BaseEstimator):
    """The tags scikit-learn gives a classifier of its own."""


def test_set_params_and_repr():
    est = IKLR().set_params(lam=0.5, solver="ccicp-sgd")
    assert (est.lam, est.solver) == (0.5, "ccicp-sgd")
    assert repr(est) == "IKLR(lam=0.5, solver='ccicp-sgd')"
    with pytest.raises(KreinbenchError, match="IKLR has no parameter 'lamda'"):
        est.set_params(lamda=1.0)


class Wrapper(Estimator):
    def __init__(self, *, estimator=None, weight=1.0):
        self.estimator = estimator
        self.weight = weight


def test_nested_params_as_in_scikit_learn():
    wrapper = Wrapper(estimator=KLR(lam=0.1))
    assert wrapper.get_params()["estimator__lam"] == 0.1
    assert set(wrapper.get_params(deep=False)) == {"estimator", "weight"}
    wrapper.set_params(estimator__lam=2.0, weight=0.5)
    assert (wrapper.estimator.lam, wrapper.weight) == (2.0, 0.5)
    twin = clone(wrapper)
    assert twin.estimator is not wrapper.estimator and twin.estimator.lam == 2.0


def test_one_vs_rest_fits_one_fresh_estimator_per_class():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(45, 2))
    y = np.repeat([0, 1, 2], 15)
    X[y == 1] += 3
    X[y == 2] -= 3
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    base = KLR(lam=0.01)
    ovr = OneVsRest(base).fit(K, y)
    assert all(est is not base and est.lam == 0.01 for est in ovr.estimators_)
    assert len({id(est) for est in ovr.estimators_}) == 3
    assert np.mean(ovr.predict(K) == y) > 0.9


def test_grid_search_cv_slices_the_kernel_on_both_axes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, -1)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    search = GridSearchCV(KLR(), {"lam": [0.01, 1.0]}, cv=KFold(3)).fit(K, y)
    for i, (tr, va) in enumerate(KFold(3).split(K)):
        own = KLR(lam=0.01).fit(K[np.ix_(tr, tr)], y[tr]).score(K[np.ix_(va, tr)], y[va])
        assert search.cv_results_[f"split{i}_test_score"][0] == pytest.approx(own, abs=1e-12)
    assert search.best_estimator_.lam == search.best_params_["lam"]


def test_the_fit_stage_does_not_import_scikit_learn():
    code = "import sys, kreinbench.pipeline.stages.fit; print(sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'pandas')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_klr_or_iklr_fit_job_imports_only_the_scipy_it_uses():
    # Every job pays its imports at start: scipy.spatial, .optimize and .sparse.linalg are loaded
    # only by the paths that call them (kernels, cccp-lbfgs, DANK, Lanczos at n >= DENSE_BELOW).
    code = """
import sys
import numpy as np
import kreinbench.pipeline.stages.fit
from kreinbench.methods import ESTIMATORS, IKLR, KLR
rng = np.random.default_rng(0)
X = rng.normal(size=(40, 3))
y = np.where(X[:, 0] > 0, 1, -1)
K = np.maximum(2.0 - np.abs(X[:, None] - X[None]).sum(-1), 0.0)
IKLR(solver="ccicp-gd").fit(K, y).decision_function(K)
KLR().fit(K, y)
assert "KLR" in ESTIMATORS
print(sorted(m for m in sys.modules if m.startswith(('scipy.spatial', 'scipy.optimize', 'scipy.sparse.linalg', 'kreinbench.methods.dank.estimator'))))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_check_params_rejects_without_data_what_fit_rejects(name):
    """check_params (run by the pipeline on every config value before the first job) accepts the
    defaults and names a parameter fit would reject."""
    cls = ESTIMATORS[name]
    cls().check_params()
    key = "C" if "C" in cls().get_params() else "lam"
    with pytest.raises(KreinbenchError, match=f"parameter {key} must be > 0"):
        cls(**{key: -1.0}).check_params()
