"""The scale study's points (kreinbench.experiments.scale)."""

import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.experiments.scale import METHODS, scale_point, training_rows
from kreinbench.kernels import resolve_params


@pytest.fixture(scope="module")
def monk2(load_split):
    split = load_split("monk-2")
    return split.X_train, split.y_train, split.X_test, split.y_test


@pytest.mark.parametrize("method", METHODS)
def test_each_method_gives_one_row_of_the_table(monk2, method):
    X, y, X_test, y_test = monk2
    kernel = resolve_params({"type": "tl1", "tau_factor": 0.7}, X.shape[1])
    row = scale_point(X, y, X_test, y_test, method=method, n_train=150, kernel=kernel, seed=0,
                      m=60 if method == "nystrom-iklr" else None)
    assert set(row) == {"n_train", "method", "m", "accuracy", "fit_s", "peak_rss_mib"}
    assert row["n_train"] == 150 and row["method"] == method
    assert 0.4 <= row["accuracy"] <= 1 and row["fit_s"] > 0 and row["peak_rss_mib"] > 50


def test_ksvm_on_a_positive_definite_kernel_scores_as_scikit_learns_svc(monk2):
    """Kreĭn SVM flips nothing on a positive definite kernel: it is the SVM, whose reference is libsvm."""
    X, y, X_test, y_test = monk2
    kernel = resolve_params({"type": "rbf", "sigma": 1.0, "convention": "iklr"}, X.shape[1])
    rows = [scale_point(X, y, X_test, y_test, method=method, n_train=200, kernel=kernel, seed=1, C=1.0)
            for method in ("ksvm", "svc")]
    assert rows[0]["accuracy"] == pytest.approx(rows[1]["accuracy"], abs=1 / len(y_test) + 1e-12)


def test_training_rows_are_seeded_and_stratified():
    y = np.array([1] * 300 + [-1] * 100)
    rows = training_rows(y, 100, seed=3)
    assert rows.size == 100 and (y[rows] == 1).sum() == 75
    np.testing.assert_array_equal(rows, training_rows(y, 100, seed=3))
    assert not np.array_equal(rows, training_rows(y, 100, seed=4))
    np.testing.assert_array_equal(training_rows(y, 400, seed=3), np.arange(400))


def test_bad_points_are_named(monk2):
    X, y, X_test, y_test = monk2
    kernel = resolve_params({"type": "tl1", "tau_factor": 0.7}, X.shape[1])
    with pytest.raises(KreinbenchError, match="unknown method 'svr'"):
        scale_point(X, y, X_test, y_test, method="svr", n_train=50, kernel=kernel, seed=0)
    with pytest.raises(KreinbenchError, match="m \\(landmarks\\) is for nystrom-iklr only"):
        scale_point(X, y, X_test, y_test, method="ksvm", n_train=50, kernel=kernel, seed=0, m=10)
    with pytest.raises(KreinbenchError, match="n_train=5000"):
        scale_point(X, y, X_test, y_test, method="ksvm", n_train=5000, kernel=kernel, seed=0)
