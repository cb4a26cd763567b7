"""IKLR paper studies on a few datasets, from config to files: Table VII (SGD vs SGD-I), Table VI and
figure iklr_fig_init (initializations), Fig. 2 (ε of CCICP-GD). One small workflow run per study keeps
each test fast."""

import os
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from snakemake.utils import validate

from conftest import ROOT, SHARED_DATASETS
from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import get_dataset, load_registry
from kreinbench.data.split import split_dataset
from kreinbench.errors import KreinbenchError
from kreinbench.pipeline import paper_targets, plan, plan_iklr
from kreinbench.pipeline.stages.paper_tables import table6_split_note, timing_frame

LAM = {"lam": [0.1, 1.0]}


def iklr(solver, **params):
    return {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": solver, **params}, "grid": LAM}


# blobs stands for the paper's guide1-t only to exercise the join with the paper's values.
STUDY_CONFIG = {
    "seed": 5,
    "repetitions": 2,
    "cv_folds": 2,
    "datasets": ["blobs"],
    "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
    "methods": {
        "ccicp-sgd": iklr("ccicp-sgd"),
        "ccicp-sgd-i": {**iklr("ccicp-sgd-i"), "datasets": ["blobs"]},
    },
    "papers": {"iklr": {
        "datasets": {"blobs": "guide1-t"},
        "methods": {"ccicp-sgd": "CCICP-SGD", "ccicp-sgd-i": "CCICP-SGD-I"},
        "table7": {"datasets": ["blobs"], "methods": ["ccicp-sgd", "ccicp-sgd-i"]},
    }},
}


@pytest.fixture(scope="module")
def finished(run_workflow):
    return run_workflow(STUDY_CONFIG, "paper_studies")


def test_a_method_with_datasets_is_fitted_on_those_only_and_left_out_of_table_iii():
    config = {**STUDY_CONFIG, "datasets": ["blobs", "sonar"]}
    fits = plan.all_fits(config)
    assert "results/fits/blobs/ccicp-sgd-i/rep2.json" in fits
    assert not [f for f in fits if "sonar/ccicp-sgd-i" in f] and len(fits) == 2 * 2 + 2
    assert plan_iklr.table3_methods(config) == ["ccicp-sgd"]
    assert paper_targets.wanted(STUDY_CONFIG) == ["results/tables/iklr_table3.csv", "results/tables/iklr_table3.md",
                                                  "results/tables/iklr_table7.csv", "results/tables/iklr_table7.md"]


def test_table_iii_rows_are_its_own_datasets_and_its_columns_the_methods_fitted_on_all_of_them():
    # The paper's Table III is on its small sets; the larger ones serve the studies only (§V-B).
    config = {**STUDY_CONFIG, "datasets": ["blobs", "sonar", "eeg"],
              "methods": {"ksvm": {"estimator": "KSVM", "kernel": "tl1", "grid": {"C": [1.0]},
                                   "datasets": ["blobs", "sonar"]},
                          "ccicp-sgd": iklr("ccicp-sgd"),
                          "cccp-gd": {**iklr("cccp-gd"), "datasets": ["blobs", "eeg"]}},
              "papers": {"iklr": {"table3": {"datasets": ["blobs", "sonar"]}}}}
    assert plan_iklr.table3_datasets(config) == ["blobs", "sonar"]
    assert plan_iklr.table3_methods(config) == ["ksvm", "ccicp-sgd"]
    assert plan_iklr.table3_datasets(STUDY_CONFIG) == ["blobs"]
    plan_iklr.check_studies(config)
    with pytest.raises(KreinbenchError, match=r"papers.iklr.table3.datasets: 'iris' is not in datasets"):
        plan_iklr.check_studies({**config, "papers": {"iklr": {"table3": {"datasets": ["iris"]}}}})
    fig3 = {**config, "papers": {"iklr": {"methods": {"cccp-gd": "CCCP-GD"}, "fig3": {"datasets": ["sonar"]}}}}
    with pytest.raises(KreinbenchError, match=r"papers.iklr.fig3: method 'cccp-gd' is not fitted on sonar"):
        plan_iklr.check_studies(fig3)


def test_a_study_method_not_fitted_on_a_study_dataset_is_an_error():
    bad = {**STUDY_CONFIG, "datasets": ["blobs", "sonar"], "papers": {"iklr": {"table7": {"datasets": ["sonar"], "methods": ["ccicp-sgd-i"]}}}}
    with pytest.raises(KreinbenchError, match="'ccicp-sgd-i' is not fitted on sonar"):
        plan_iklr.check_studies(bad)


def test_table7_beside_the_paper(finished):
    table = pd.read_csv(finished / "results/tables/iklr_table7.csv")
    runs = pd.read_csv(finished / "results/records/runs.csv")
    assert table[["method", "metric"]].values.tolist() == [
        [m, metric] for m in ("ccicp-sgd", "ccicp-sgd-i") for metric in ("accuracy", "train_time", "test_time")]
    assert (table["dataset"] == "blobs").all() and (table["reps"] == 2).all()
    sgd_i = runs[(runs["dataset"] == "blobs") & (runs["method"] == "ccicp-sgd-i")]
    row = table[(table["method"] == "ccicp-sgd-i") & (table["metric"] == "accuracy")].iloc[0]
    assert row["mean"] == pytest.approx(sgd_i["accuracy"].mean())
    assert row["std"] == pytest.approx(sgd_i["accuracy"].std())
    assert (row["paper_mean"], row["paper_std"]) == (0.876, 0.037)
    assert row["diff"] == pytest.approx(row["mean"] - 0.876)
    time = table[(table["method"] == "ccicp-sgd") & (table["metric"] == "train_time")].iloc[0]
    assert time["paper_mean"] == 714.72 and np.isnan(time["paper_std"])
    md = (finished / "results/tables/iklr_table7.md").read_text()
    assert "IKLR (TNNLS) Table VII" in md and "| metric | blobs (paper: guide1-t) · CCICP-SGD |" in md
    assert f"| accuracy | {table.at[0, 'mean']:.3f} ± {table.at[0, 'std']:.3f} (paper 0.947 ± 0.022, Δ " in md
    assert "(paper 714.7, Δ " in md


def test_table7_leaves_the_paper_columns_empty_for_a_dataset_it_lacks():
    runs = pd.DataFrame({"dataset": "d", "method": ["a", "a"], "label": "A", "rep": [1, 2], "accuracy": [0.5, 0.7],
                         "train_time": [1.0, 3.0], "test_time": [0.1, 0.1]})
    paper = pd.DataFrame({"paper_dataset": ["EEG"], "paper_method": ["CCICP-SGD"], "metric": ["accuracy"],
                          "mean": [0.63], "std": [0.042]})
    table = timing_frame(runs, paper, {"d": "d"}, {"a": "CCICP-SGD"})
    assert table["mean"].tolist() == pytest.approx([0.6, 2.0, 0.1])
    assert table["paper_mean"].isna().all() and table["diff"].isna().all()


def test_paper_values_transcribe_all_of_table_vii():
    paper = pd.read_csv(plan_iklr.__file__.rsplit("/src/", 1)[0] + "/workflow/paper_values/iklr_table7.csv",
                        comment="#")
    assert paper.shape == (4 * 2 * 3, 5)
    assert paper.groupby("metric").size().to_dict() == {"accuracy": 8, "test_time": 8, "train_time": 8}


def test_a_fit_takes_its_random_state_from_the_split_seed_unless_the_config_fixes_it():
    from kreinbench.methods import ESTIMATORS
    from kreinbench.pipeline.stages.fit import seeded

    assert seeded(ESTIMATORS["IKLR"], {"init": "uniform"}, 2**32 + 7) == {"init": "uniform", "random_state": 7}
    assert seeded(ESTIMATORS["IKLR"], {"random_state": 1}, 7) == {"random_state": 1}
    assert seeded(ESTIMATORS["KLR"], {}, 7) == {}


# Table VI: two solvers from two initializations; blobs stands for the paper's monks1.
INIT_CONFIG = {
    **STUDY_CONFIG,
    "methods": {"ccicp-gd": {**iklr("ccicp-gd"), "datasets": ["blobs"]},
                "ccicp-sgd-uniform": iklr("ccicp-sgd", init="uniform")},
    # The study's own names (a mapping), as paper-iklr's Table VI has them.
    "papers": {"iklr": {"table6": {"datasets": {"blobs": "monks1"}, "methods": ["ccicp-sgd-uniform", "ccicp-gd"]}}},
}


@pytest.fixture(scope="module")
def inits_finished(run_workflow):
    return run_workflow(INIT_CONFIG, "paper_inits")


def test_table6_methods_are_keyed_by_solver_and_init():
    assert plan_iklr.table6_methods(INIT_CONFIG) == {
        "ccicp-sgd-uniform": {"paper_method": "CCICP-SGD", "init": "uniform"},
        "ccicp-gd": {"paper_method": "CCICP-GD", "init": "zeros"}}
    twice = {**INIT_CONFIG, "papers": {"iklr": {"table6": {"datasets": ["blobs"], "methods": ["ccicp-gd", "again"]}}},
             "methods": {**INIT_CONFIG["methods"], "again": iklr("ccicp-gd", init="zeros")}}
    with pytest.raises(KreinbenchError, match="same setting"):
        plan_iklr.check_studies(twice)


def test_table6_beside_the_paper(inits_finished):
    table = pd.read_csv(inits_finished / "results/tables/iklr_table6.csv")
    assert table[["method", "init", "metric"]].values.tolist() == [
        ["ccicp-sgd-uniform", "uniform", "accuracy"], ["ccicp-sgd-uniform", "uniform", "objective"],
        ["ccicp-gd", "zeros", "accuracy"], ["ccicp-gd", "zeros", "objective"]]
    assert (table["reps"] == 2).all() and table["paper_dataset"].eq("monks1").all()
    history = pd.read_csv(inits_finished / "results/records/history.csv")
    last = history[history["method"] == "ccicp-gd"].sort_values("iteration").groupby("rep").tail(1)
    assert table.at[3, "mean"] == pytest.approx(last["objective"].mean())
    assert np.isnan(table.at[3, "paper_mean"])
    sgd, gd = table.iloc[0], table.iloc[2]
    assert gd["paper_mean"] == 0.694 and np.isnan(gd["paper_std"])
    assert (sgd["paper_mean"], sgd["paper_std"]) == (0.663, 0.054)
    assert sgd["diff"] == pytest.approx(sgd["mean"] - 0.663)
    md = (inits_finished / "results/tables/iklr_table6.md").read_text()
    # Rows in the paper's order of α⁽⁰⁾ (0 before U(0, 1)), whatever the config's order.
    assert "| init · metric | CCICP-GD · blobs (paper: monks1) | CCICP-SGD · blobs (paper: monks1) |" in md
    assert md.index("| α⁽⁰⁾ = 0 · accuracy |") < md.index("| α⁽⁰⁾ᵢ ~ U(0, 1) · accuracy |")
    # The caption says which split the runs share (here blobs' random halves, 200 / 200 points).
    assert "blobs: a random split of 200 / 200 points per run" in md
    # The cell rounds the mean and std the CSV holds (at a tie, either way: 0.9225 may print 0.923).
    cell = re.search(r"\| α⁽⁰⁾ = 0 · accuracy \| (\d\.\d{3}) ± (\d\.\d{3}) \(paper 0\.694, Δ ", md)
    assert cell and float(cell[1]) == pytest.approx(gd["mean"], abs=5.01e-4)
    assert float(cell[2]) == pytest.approx(gd["std"], abs=5.01e-4)
    assert re.search(rf"{sgd['mean']:.3f} ± {sgd['std']:.3f} \(paper 0.663 ± 0.054, Δ [+-]0\.\d{{3}}\) \|", md)


def test_fig_init_is_drawn(inits_finished):
    png = (inits_finished / "figures/iklr_fig_init.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert (inits_finished / "figures/iklr_fig_init.pdf").read_bytes()[:4] == b"%PDF"


def paper_iklr() -> dict:
    return yaml.safe_load((ROOT / "workflow/configs/paper-iklr.yaml").read_text())


def test_paper_table6_runs_on_the_provided_train_and_test_files():
    config = paper_iklr()
    validate(config, str(ROOT / "workflow/schemas/config.schema.yaml"))
    plan.check_config(config)
    plan_iklr.check_studies(config)
    assert plan_iklr.study_datasets(config, "table6") == {"monks1-provided": "monks1", "svmguide1-provided": "guide1-t"}
    assert all(split["protocol"] == "provided" and "parts" not in split
               for split in plan_iklr.study_splits(config, "table6").values())
    for method in plan_iklr.table6_methods(config):
        assert set(plan.method_datasets(config, method)) >= {"monks1-provided", "svmguide1-provided"}
    # Tables III and IV keep the random halves of the registry's monks1 and svmguide1.
    assert plan.method_datasets(config, "ccicp-gd-ones") == ["monks1-provided", "svmguide1-provided"]
    assert config["dataset_options"]["monks1"]["split"]["parts"] == ["train"]
    # The copies read the registry's files, checksums and parsing.
    registry = load_registry()
    for copy, original in (("monks1-provided", "monks1"), ("svmguide1-provided", "svmguide1")):
        ours, theirs = get_dataset(copy, config["custom_datasets"]), registry[original]
        assert [(f["name"], f["part"], f["sha256"], f["mirror"]) for f in ours.source["files"]] == \
            [(f["name"], f["part"], f["sha256"], f["mirror"]) for f in theirs.source["files"]]
        assert (ours.parser, ours.label, ours.drop_columns) == (theirs.parser, theirs.label, theirs.drop_columns)


@pytest.mark.parametrize("name, sizes", [("monks1-provided", (124, 432)), ("svmguide1-provided", (3089, 4000))])
def test_table6_runs_share_one_split_and_differ_in_their_seed(tmp_path, name, sizes):
    config = paper_iklr()
    spec = get_dataset(name, config["custom_datasets"], config.get("dataset_options", {}).get(name))
    manifest = fetch_dataset(spec, tmp_path / "manifest.json",
                             mirror=os.environ.get("KREINBENCH_MIRROR") or str(SHARED_DATASETS))
    data = parse_dataset(spec, tmp_path, [f["file"] for f in manifest["files"]])
    runs = [split_dataset(data, spec.split, dataset=name, rep=rep, base_seed=config["seed"]) for rep in (1, 2)]
    assert (runs[0].y_train.size, runs[0].y_test.size) == sizes
    for part in ("X_train", "y_train", "X_test", "y_test"):
        np.testing.assert_array_equal(getattr(runs[0], part), getattr(runs[1], part))
    assert runs[0].attrs["seed"] != runs[1].attrs["seed"]


def test_table6_caption_names_the_split_of_each_dataset():
    note = table6_split_note({"monks1-provided": {"protocol": "provided"},
                              "guide": {"protocol": "provided", "max_n": 400},
                              "halves": {"protocol": "random", "test_size": 0.5, "parts": ["test"]}},
                             {"monks1-provided": (124, 432), "guide": (400, 400), "halves": (2000, 2000)})
    assert note == ("monks1-provided: one split, its provided training and test files (124 / 432 points), the same "
                    "in every run; guide: one split, its provided training and test files (400 / 400 points), each "
                    "part capped at 400 rows by a subsample seeded per run; halves: a random split of 2000 / 2000 "
                    "points per run of the provided test rows")


def test_paper_values_transcribe_all_of_table_vi():
    paper = pd.read_csv(plan_iklr.__file__.rsplit("/src/", 1)[0] + "/workflow/paper_values/iklr_table6.csv",
                        comment="#")
    assert paper.shape == (2 * 2 * 4, 6) and paper["std"].isna().sum() == 8


# Fig. 2: CCICP-GD at three ε, listed out of order; blobs stands for the paper's guide1-t.
EPS_CONFIG = {
    **STUDY_CONFIG,
    "methods": {"gd-eps1": iklr("ccicp-gd"), "gd-eps1e-3": {**iklr("ccicp-gd", eps=1e-3), "datasets": ["blobs"]},
                "gd-eps5": {**iklr("ccicp-gd", eps=5.0), "datasets": ["blobs"]}},
    "papers": {"iklr": {"datasets": {"blobs": "guide1-t"},
                        "fig2": {"datasets": ["blobs"], "methods": ["gd-eps1", "gd-eps5", "gd-eps1e-3"]}}},
}


@pytest.fixture(scope="module")
def eps_finished(run_workflow):
    return run_workflow(EPS_CONFIG, "paper_eps")


def test_fig2_takes_ccicp_gd_methods_only():
    assert plan_iklr.fig2_methods(EPS_CONFIG) == {"gd-eps1": 1.0, "gd-eps5": 5.0, "gd-eps1e-3": 1e-3}
    assert paper_targets.wanted(EPS_CONFIG)[2:] == [
        "results/tables/iklr_fig2.csv", "figures/iklr_fig2.png", "figures/iklr_fig2.pdf"]
    # CCCP-GD (ε = 1e-4) is no point of the sweep: the paper varies ε of CCICP-GD alone.
    exact = {**EPS_CONFIG, "methods": {**EPS_CONFIG["methods"], "gd-eps1e-3": iklr("cccp-gd")}}
    with pytest.raises(KreinbenchError, match="gd-eps1e-3 not ccicp-gd"):
        plan_iklr.check_studies(exact)
    twice = {**EPS_CONFIG, "methods": {**EPS_CONFIG["methods"], "gd-eps5": iklr("ccicp-gd", eps=1.0)}}
    with pytest.raises(KreinbenchError, match="same setting"):
        plan_iklr.check_studies(twice)


def test_fig2_plots_the_means_of_the_runs(eps_finished):
    for suffix, magic in (("png", b"\x89PNG\r\n\x1a\n"), ("pdf", b"%PDF")):
        assert (eps_finished / f"figures/iklr_fig2.{suffix}").read_bytes().startswith(magic)
    data = pd.read_csv(eps_finished / "results/tables/iklr_fig2.csv")
    runs = pd.read_csv(eps_finished / "results/records/runs.csv")
    # (c): each run's kernel products, the last count of its history.
    history = pd.read_csv(eps_finished / "results/records/history.csv")
    runs = runs.merge(history.groupby(["method", "rep"], as_index=False)["matvecs"].max(), on=["method", "rep"])
    means = runs.groupby("method")[["accuracy", "train_time", "matvecs"]].agg(["mean", "std"])
    assert data[["method", "eps", "metric"]].values.tolist() == [
        [m, eps, metric] for m, eps in (("gd-eps1e-3", 1e-3), ("gd-eps1", 1.0), ("gd-eps5", 5.0))
        for metric in ("accuracy", "train_time", "matvecs")]
    # A smaller ε never costs fewer kernel products (same λ grid, the inner test only tighter).
    work = data[data["metric"] == "matvecs"]["mean"].tolist()
    assert work[0] >= work[1] >= work[2]
    assert (data["reps"] == 2).all() and data["paper_dataset"].eq("guide1-t").all()
    assert data["mean"].tolist() == pytest.approx([means.at[m, (metric, "mean")] for m, metric in
                                                   zip(data["method"], data["metric"])])
    assert data["std"].tolist() == pytest.approx([means.at[m, (metric, "std")] for m, metric in
                                                  zip(data["method"], data["metric"])])
