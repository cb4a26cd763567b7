"""The scale study: its points (kreinbench.experiments.scale), plan, stages and resources."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kreinbench.data.split import write_split
from kreinbench.errors import KreinbenchError
from kreinbench.experiments.scale import METHODS, scale_point, training_rows
from kreinbench.linalg.kernels import resolve_params
from kreinbench.pipeline import plan_scale, resources
from kreinbench.pipeline.stages import scale as scale_stage


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


# --- the study in the workflow: plan (kreinbench.pipeline.plan_scale), stages, resources ---------------------

STUDY = {"sizes": {"monk-2": [100, 169], "blobs": [300]}, "estimators": ["iklr", "svc", "nystrom-iklr"],
         "landmarks": [20, 40], "kernel": "tl1", "lam": 0.1, "C": 1.0, "exact_max_n": 150}


def study_config(**changes):
    return {"datasets": ["monk-2", "blobs"], "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}}, "methods": {},
            "papers": {"scale": {**STUDY, **changes}}}


def test_the_plan_runs_exact_methods_up_to_exact_max_n_and_nystrom_everywhere():
    points = plan_scale.points(study_config())
    assert points == [
        "results/scale/monk-2/iklr/n100.json", "results/scale/monk-2/svc/n100.json",
        "results/scale/monk-2/nystrom-iklr-m20/n100.json", "results/scale/monk-2/nystrom-iklr-m40/n100.json",
        "results/scale/monk-2/nystrom-iklr-m20/n169.json", "results/scale/monk-2/nystrom-iklr-m40/n169.json",
        "results/scale/blobs/nystrom-iklr-m20/n300.json", "results/scale/blobs/nystrom-iklr-m40/n300.json"]
    assert plan_scale.points({"papers": {}}) == []
    # m landmarks are drawn from the n rows: no Nyström point with m > n.
    assert plan_scale.points(study_config(landmarks=[20, 120])) == [
        "results/scale/monk-2/iklr/n100.json", "results/scale/monk-2/svc/n100.json",
        "results/scale/monk-2/nystrom-iklr-m20/n100.json", "results/scale/monk-2/nystrom-iklr-m20/n169.json",
        "results/scale/monk-2/nystrom-iklr-m120/n169.json", "results/scale/blobs/nystrom-iklr-m20/n300.json",
        "results/scale/blobs/nystrom-iklr-m120/n300.json"]
    assert plan_scale.parse_variant("nystrom-iklr-m500") == ("nystrom-iklr", 500)
    assert plan_scale.parse_variant("ksvm") == ("ksvm", None)
    with pytest.raises(KreinbenchError, match="'nystrom-iklr' is no variant"):
        plan_scale.parse_variant("nystrom-iklr")


@pytest.mark.parametrize(("changes", "message"), [
    ({"sizes": {"wine": [10]}}, "papers.scale.sizes: 'wine' is not in datasets"),
    ({"kernel": "rbf"}, "papers.scale.kernel: 'rbf' is not in kernels"),
    ({"landmarks": []}, "papers.scale.landmarks: nystrom-iklr needs"),
])
def test_a_bad_study_is_named_before_any_job(changes, message):
    with pytest.raises(KreinbenchError, match=message):
        plan_scale.check(study_config(**changes))


def test_the_stages_write_one_row_per_point_then_the_table_and_figure(load_split, tmp_path):
    split = tmp_path / "rep1.h5"
    write_split(load_split("monk-2"), split, provenance={})
    points = []
    for variant, n in (("iklr", 100), ("svc", 100), ("nystrom-iklr-m40", 100), ("nystrom-iklr-m40", 169)):
        out = tmp_path / "points" / f"{variant}-n{n}.json"
        scale_stage.point(split=str(split), dataset="monk-2", variant=variant, n_train=n,
                          kernel={"type": "tl1", "tau_factor": 0.7}, seed=0, lam=0.1, C=1.0, out=str(out))
        points.append(str(out))
    row = json.loads(Path(points[2]).read_text())
    assert row["dataset"] == "monk-2" and row["method"] == "nystrom-iklr" and row["m"] == 40 and row["n_train"] == 100
    scale_stage.table(points=points, csv=str(tmp_path / "scale.csv"), md=str(tmp_path / "scale.md"))
    table = pd.read_csv(tmp_path / "scale.csv")
    assert list(table.columns) == ["dataset", "n_train", "method", "m", "accuracy", "fit_s", "peak_rss_mib"]
    assert list(zip(table["method"], table["n_train"])) == [("iklr", 100), ("nystrom-iklr", 100),
                                                            ("nystrom-iklr", 169), ("svc", 100)]
    assert "| monk-2 | 169 | nystrom-iklr | 40 |" in (tmp_path / "scale.md").read_text()
    scale_stage.figure(table_csv=str(tmp_path / "scale.csv"), png=str(tmp_path / "scale.png"),
                       pdf=str(tmp_path / "scale.pdf"))
    assert (tmp_path / "scale.png").stat().st_size > 10_000
    with pytest.raises(KreinbenchError, match="papers.scale.sizes.monk-2: n_train=500 exceeds the split's 216"):
        scale_stage.point(split=str(split), dataset="monk-2", variant="svc", n_train=500,
                          kernel={"type": "tl1", "tau_factor": 0.7}, seed=0, lam=0.1, C=1.0,
                          out=str(tmp_path / "bad.json"))
    assert not (tmp_path / "bad.json").exists()


def test_a_point_asks_for_its_kernel_or_its_features_memory():
    size = resources.Size(n_train=8000, n_test=1000, n_features=22)
    exact = resources.scale_point_cost(size, None)
    nystrom = resources.scale_point_cost(size, 500)
    assert exact.memory >= 8 * 8000**2 and nystrom.memory < exact.memory / 5
