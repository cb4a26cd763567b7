"""Implicit kernels (``storage: implicit``): entries computed where a method uses them, the same
fits as on the stored matrix, a clear error where a method needs the matrix whole, and the
partitioned-DANK path at 10⁵ points (covtype's, on a seeded synthetic set)."""

import copy
import json
import time
import tracemalloc

import numpy as np
import pytest

from kreinbench.data.split import Split, write_split
from kreinbench.errors import KreinbenchError
from kreinbench.linalg import cache
from kreinbench.linalg.implicit_kernel import ImplicitKernel, fold_kernels
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.methods import DANK, IKLR, SVM
from kreinbench.pipeline import plan
from kreinbench.pipeline.resources import Size, fit_cost, implicit_fit_cost
from kreinbench.pipeline.stages import fit as fit_stage
from kreinbench.pipeline.stages import kernel as kernel_stage

GAUSS = {"type": "rbf", "convention": "dank", "sigma": 0.5}


def two_class(n, d, seed, shift=0.8):
    """Two seeded Gaussian classes, features scaled into [0, 1] as the splits scale them."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.standard_normal((n, d)) * 0.35 + shift * y[:, None] / np.sqrt(d)
    return np.clip((X + 1.5) / 3.5, 0.0, 1.0), y


@pytest.fixture(scope="module")
def data():
    X, y = two_class(700, 4, seed=1)
    return X[:400], y[:400], X[400:], y[400:]


@pytest.mark.parametrize("spec", [GAUSS, {"type": "tl1", "tau_factor": 0.7}])
def test_blocks_and_products_are_the_matrix(data, spec):
    """Entries, slices and products of an implicit kernel, and of its restriction to a CV fold's
    rows and columns, are the matrix's."""
    X, _, X_test, _ = data
    params = resolve_params(spec, X.shape[1])
    K, K_test = kernel_matrices(params, X, X_test)
    train, test = ImplicitKernel(params, X), ImplicitKernel(params, X_test, X)
    assert train.shape == K.shape and test.shape == K_test.shape
    rows, cols = np.array([5, 0, 399, 17]), np.arange(0, 400, 7)
    np.testing.assert_allclose(train[np.ix_(rows, cols)], K[np.ix_(rows, cols)], rtol=0, atol=1e-15)
    np.testing.assert_allclose(test[rows[:3] % 300], K_test[rows[:3] % 300], rtol=0, atol=1e-15)
    v = np.zeros(400)
    v[cols] = np.linspace(-1, 1, cols.size)  # the zero columns are skipped
    np.testing.assert_allclose(test @ v, K_test @ v, rtol=1e-12, atol=1e-12)
    V = np.random.default_rng(0).standard_normal((400, 3))
    np.testing.assert_allclose(train @ V, K @ V, rtol=1e-12, atol=1e-11)
    fold, held_out = np.arange(0, 400, 3), np.arange(1, 400, 3)
    K_fold, K_held_out = fold_kernels(train, fold, held_out)
    assert isinstance(K_fold, ImplicitKernel) and K_fold.X_cols is K_fold.X_rows  # a train kernel still
    np.testing.assert_allclose(K_fold[np.ix_(rows % 134, cols % 134)], K[np.ix_(fold[rows % 134], fold[cols % 134])],
                               rtol=0, atol=1e-15)
    np.testing.assert_allclose(K_held_out @ V[:134], K[np.ix_(held_out, fold)] @ V[:134], rtol=1e-12, atol=1e-11)
    np.testing.assert_array_equal(fold_kernels(K, fold, held_out)[1], K[np.ix_(held_out, fold)])


def test_asking_for_the_whole_matrix_is_an_error_that_says_its_size():
    X = np.zeros((50_000, 2))
    with pytest.raises(KreinbenchError, match=r"50000 x 50000\) is implicit .* 18\.6 GiB"):
        np.asarray(ImplicitKernel(resolve_params(GAUSS, 2), X, name="train kernel"))


def test_svm_on_an_implicit_kernel_is_the_svm_on_its_matrix(data):
    """libsvm computing the Gaussian kernel itself solves the same dual as on the matrix."""
    X, y, X_test, y_test = data
    params = resolve_params(GAUSS, X.shape[1])
    K, K_test = kernel_matrices(params, X, X_test)
    on_matrix = SVM(C=4.0).fit(K, y)
    implicit = SVM(C=4.0).fit(ImplicitKernel(params, X), y)
    np.testing.assert_allclose(implicit.alpha_, on_matrix.alpha_, atol=1e-9)
    np.testing.assert_allclose(implicit.decision_function(ImplicitKernel(params, X_test, X)),
                               on_matrix.decision_function(K_test), atol=1e-9)
    tl1 = resolve_params({"type": "tl1", "tau_factor": 0.7}, X.shape[1])
    assert not SVM().takes_implicit_kernel("tl1")
    with pytest.raises(KreinbenchError, match="libsvm computes only"):
        SVM().fit(ImplicitKernel(tl1, X), y)


def test_partitioned_dank_on_an_implicit_kernel_is_dank_on_its_matrix(data):
    X, y, X_test, y_test = data
    params = resolve_params(GAUSS, X.shape[1])
    K, K_test = kernel_matrices(params, X, X_test)
    on_matrix = DANK(C=8.0, n_clusters=4, random_state=0).fit(K, y, X)
    implicit = DANK(C=8.0, n_clusters=4, random_state=0).fit(ImplicitKernel(params, X), y, X)
    assert implicit.eta_ == pytest.approx(on_matrix.eta_, rel=1e-9)
    np.testing.assert_allclose(implicit.alpha_, on_matrix.alpha_, atol=1e-8)
    np.testing.assert_allclose(implicit.decision_function(ImplicitKernel(params, X_test, X), X_test),
                               on_matrix.decision_function(K_test, X_test), atol=1e-8)
    # the exact version needs the matrix: a clear error, not a 20 GB allocation
    assert not DANK().takes_implicit_kernel("rbf") and DANK(n_clusters=4).takes_implicit_kernel("rbf")
    with pytest.raises(KreinbenchError, match="is implicit"):
        DANK(C=8.0).fit(ImplicitKernel(params, X), y, X)
    with pytest.raises(KreinbenchError, match="is implicit"):
        IKLR().fit(ImplicitKernel(params, X), y)


@pytest.fixture()
def split_file(data, tmp_path):
    X, y, X_test, y_test = data
    split = Split(X_train=X, y_train=y, X_test=X_test, y_test=y_test, train_index=np.arange(400),
                  test_index=np.arange(400, 700), attrs={"seed": 11})
    path = tmp_path / "rep1.h5"
    write_split(split, path, provenance={})
    return path


@pytest.mark.parametrize("spec", [{"estimator": "SVM", "kernel": "gauss", "params": {"C": 4}},
                                  {"estimator": "SVM", "kernel": "gauss", "grid": {"C": [0.25, 4, 64]}},
                                  {"estimator": "DANK", "kernel": "gauss", "params": {"C": 8, "n_clusters": 3}},
                                  {"estimator": "DANK", "kernel": "gauss", "params": {"n_clusters": 3},
                                   "grid": {"C": [0.5, 8]}}])
def test_the_fit_stage_writes_the_same_record_from_an_implicit_kernel(split_file, tmp_path, spec):
    """The kernel job of an implicit kernel stores no matrix; the fit job computes what it needs
    and records what the matrix's fit records, timings aside: with a grid, the CV's fold scores
    and choice too (each fold an implicit kernel on its rows)."""
    records = {}
    for storage in ("matrix", "implicit"):
        kernel = tmp_path / storage / "gauss.h5"
        kernel_stage.kernel(split=str(split_file), specs={"gauss": {**GAUSS, "storage": storage}},
                            kernels=[str(kernel)])
        assert (cache.kernel_storage(kernel) == cache.IMPLICIT) == (storage == "implicit")
        record = tmp_path / storage / "rep1.json"
        fit_stage.fit(dataset="synthetic", method="m", rep=1, spec=spec, cv_members={}, cv_folds=3,
                      split=str(split_file), kernels=[str(kernel)], record=str(record))
        records[storage] = json.loads(record.read_text())
    implicit_file = tmp_path / "implicit" / "gauss.h5"
    assert implicit_file.stat().st_size < 20_000 < (tmp_path / "matrix" / "gauss.h5").stat().st_size
    with pytest.raises(KreinbenchError, match="implicit kernel"):
        cache.read_kernel_part(implicit_file, "train")
    timing = ("train_time", "test_time", "cv_time", "history")
    matrix, implicit = ({k: v for k, v in r.items() if k not in timing} for r in records.values())
    assert implicit == matrix
    assert records["implicit"]["history"][-1]["objective"] == pytest.approx(
        records["matrix"]["history"][-1]["objective"], rel=1e-9)


def test_an_implicit_kernel_from_another_split_is_refused(split_file, data, tmp_path):
    kernel = tmp_path / "gauss.h5"
    kernel_stage.kernel(split=str(split_file), specs={"gauss": {**GAUSS, "storage": "implicit"}}, kernels=[str(kernel)])
    other = tmp_path / "other.h5"
    X, y, X_test, y_test = data
    write_split(Split(X_train=X[::-1], y_train=y[::-1], X_test=X_test, y_test=y_test, train_index=np.arange(400),
                      test_index=np.arange(400, 700), attrs={"seed": 11}), other, provenance={})
    with pytest.raises(KreinbenchError, match="split_sha256"):
        fit_stage.fit(dataset="synthetic", method="m", rep=1, spec={"estimator": "SVM", "kernel": "gauss"},
                      cv_members={}, cv_folds=3, split=str(other), kernels=[str(kernel)], record=str(tmp_path / "r.json"))


def config_with_implicit_kernel(method_spec: dict) -> dict:
    return {"datasets": ["heart"], "repetitions": 1, "cv_folds": 3,
            "kernels": {"gauss": {"type": "rbf", "convention": "dank", "sigma": 0.5, "storage": "implicit"}},
            "methods": {"m": {"kernel": "gauss", **method_spec}}}


@pytest.mark.parametrize("method_spec, message", [
    ({"estimator": "DANK", "params": {"C": 1.0}}, "needs the kernel matrix"),
    ({"estimator": "KSVM", "params": {"C": 1.0}}, "needs the kernel matrix"),
])
def test_the_plan_refuses_a_method_that_cannot_use_an_implicit_kernel(method_spec, message):
    with pytest.raises(KreinbenchError, match=f"config methods.m: .*{message}"):
        plan.check_config(config_with_implicit_kernel(method_spec))
    plan.check_config(config_with_implicit_kernel({"estimator": "DANK", "params": {"C": 1.0, "n_clusters": 5}}))


def test_a_scale_lifts_a_cap_and_drops_a_method_by_null():
    config = {"repetitions": 10, "datasets": ["a", "b"],
              "dataset_options": {"a": {"split": {"max_n": 100, "protocol": "random"}}},
              "kernels": {"k": {"type": "rbf"}}, "methods": {"x": {"kernel": "k"}, "y": {"kernel": "k"}},
              "papers": {"dank": {"table3": {"a": {"exact": "x", "scalable": "y"}}}},
              "scales": {"paper": {"dataset_options": {"a": {"split": {"max_n": None}}},
                                   "kernels": {"k": {"storage": "implicit"}}, "methods": {"x": None},
                                   "papers": {"dank": {"table3": {"a": {"exact": None}}}}}},
              "scale": "paper"}
    original = copy.deepcopy(config)
    scaled = plan.scaled_config(config)
    assert scaled["dataset_options"] == {"a": {"split": {"protocol": "random"}}}
    assert scaled["kernels"] == {"k": {"type": "rbf", "storage": "implicit"}}
    assert list(scaled["methods"]) == ["y"] and scaled["papers"]["dank"]["table3"] == {"a": {"scalable": "y"}}
    assert config == original


def test_the_memory_planner_sizes_an_implicit_fit_by_its_blocks():
    """All of ijcnn1: the matrices would be 57 GB; the implicit fit's plan is a few GB."""
    size = Size(n_train=49_990, n_test=91_701, n_features=22)
    assert fit_cost(size, instances=1, candidates=1, folds=5).memory > 50 * 2**30
    assert implicit_fit_cost(size, n_clusters=50).memory < 3 * 2**30
    assert implicit_fit_cost(size, n_clusters=None).memory < 2 * 2**30


@pytest.mark.slow
def test_partitioned_dank_runs_at_a_hundred_thousand_points_in_bounded_memory():
    """covtype's code path (all of its 464 810 training points on an implicit kernel; the paper takes v = 200) on a
    seeded synthetic set of 10⁵ training points: the whole fit and prediction never allocate
    anything near an n x n matrix (80 GB here); numpy's allocations peak below 1 GB."""
    X, y = two_class(110_000, 3, seed=5, shift=2.0)
    X_train, y_train, X_test, y_test = X[:100_000], y[:100_000], X[100_000:], y[100_000:]
    params = resolve_params(GAUSS, 3)
    start = time.perf_counter()
    tracemalloc.start()
    try:
        model = DANK(C=1.0, n_clusters=400, random_state=0).fit(ImplicitKernel(params, X_train), y_train, X_train)
        accuracy = model.score(ImplicitKernel(params, X_test, X_train), y_test, X_test)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**30
    assert accuracy > 0.95
    assert len(model._clusters) == 400 and model.alpha_.shape == (100_000,)
    print(f"10^5 points: {time.perf_counter() - start:.1f} s, numpy peak {peak / 2**20:.0f} MiB, accuracy {accuracy:.4f}")
