"""DANK (JMLR) paper targets: the planning of workflow/configs/paper-dank.yaml, the table and figure
builders on small synthetic records, the `tuned_by` fit path, and a tiny real Snakemake run."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from snakemake.utils import validate

from kreinbench.data.split import read_split
from kreinbench.errors import KreinbenchError
from kreinbench.methods import DANK
from kreinbench.methods.dank.estimator import c2_factor, resolve_eta
from kreinbench.pipeline import paper_checks, paper_targets, plan, plan_dank
from kreinbench.pipeline.stages import paper_dank

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "workflow" / "configs" / "paper-dank.yaml"
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
PAPER_TABLE1 = ROOT / "workflow" / "paper_values" / "dank_table1.csv"
PAPER_TABLE3 = ROOT / "workflow" / "paper_values" / "dank_table3.csv"


def load_config() -> dict:
    return yaml.safe_load(CONFIG.read_text())


def run_row(dataset, method, rep, accuracy, *, train_accuracy=0.9, n_train=50, n_test=50, train_time=1.0,
            test_time=0.01, rank_F=3):
    return {"dataset": dataset, "method": method, "rep": rep, "accuracy": accuracy, "train_accuracy": train_accuracy,
            "n_train": n_train, "n_test": n_test, "train_time": train_time, "test_time": test_time, "rank_F": rank_F}


# -- config and planning ----------------------------------------------------------------------

def test_paper_config_validates_and_plans_every_target():
    config = load_config()
    validate(config, str(SCHEMA))
    plan.check_config(config)
    paper_checks.check(config)
    targets = paper_targets.wanted(config)
    for name in ("dank_table1.csv", "dank_table1.md", "dank_table3.csv", "dank_table3.md", "dank_fig5.png",
                 "dank_fig5.pdf", "dank_fig7.png", "dank_fig8.pdf"):
        assert any(t.endswith(name) for t in targets), name
    # Table 1 protocol: σ and C over 2^-5 … 2^5, the DANK convention exp(-d²/(2σ²)).
    gauss = config["kernels"]["gauss"]
    assert gauss["convention"] == "dank"
    assert gauss["sigma"] == [2.0**k for k in range(-5, 6)]
    assert config["methods"]["svm-cv"]["grid"]["C"] == [2.0**k for k in range(-5, 6)]
    # Table 2's 1/(2σ²) = 100 on EEG.
    assert 1.0 / (2.0 * config["kernels"]["gauss-eeg"]["sigma"] ** 2) == pytest.approx(100.0)
    fig8 = plan_dank.fig8_settings(config)
    assert list(fig8["tau"].values()) == [0.001, 0.01, 0.1, 0.5, 1.0]
    assert list(fig8["eta"].values()) == [0.001, 0.01, 0.1, 1.0, 10.0, 100.0]


def test_small_scale_caps_n_and_repetitions():
    config = load_config()
    small = plan.scaled_config({**config, "scale": "small"})
    assert small["repetitions"] == 2
    assert small["dataset_options"]["ijcnn1"]["split"]["max_n"] == 1000
    assert small["dataset_options"]["eeg"]["split"]["max_n"] == 1000
    # Fig. 7's n = 100 … 500 training points (half of each cap) survive the scale's cap.
    assert [small["dataset_options"][f"ijcnn1-n{n}"]["split"]["max_n"] for n in range(100, 600, 100)] == \
        [200, 400, 600, 800, 1000]


def test_targets_are_absent_without_their_key():
    config = load_config()
    del config["papers"]["dank"]["fig8"]
    assert not any("fig8" in t for t in paper_targets.wanted(config))
    assert paper_targets.wanted({"papers": {}}) == []


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["papers"]["dank"]["fig5"].update(without="nope"), "unknown method 'nope'"),
    (lambda c: c["papers"]["dank"]["fig8"]["datasets"].append("sonar-uci"), "not fitted on 'sonar-uci'"),
    (lambda c: c["papers"]["dank"]["fig8"]["eta"].append("dank"), "not of the form '<k>C2'"),
    (lambda c: c["papers"]["dank"]["fig8"]["tau"].append("dank-eta0.1C2"), "two methods have the same tau"),
])
def test_bad_dank_targets_name_the_key(edit, message):
    config = copy.deepcopy(load_config())
    edit(config)
    with pytest.raises(KreinbenchError, match="papers.dank") as info:
        plan_dank.check_dank_targets(config)
    assert message in str(info.value)


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["methods"]["dank"].update(tuned_by="nope"), "unknown method 'nope'"),
    (lambda c: c["methods"]["dank"].update(tuned_by="dank-tau0"), "itself tuned_by another method without a grid"),
    (lambda c: c["methods"]["dank"].update(kernel="gauss-eeg"), "uses kernel"),
    (lambda c: c["methods"]["dank"]["datasets"].append("eeg"), "not fitted on eeg"),
])
def test_bad_tuned_by_is_refused(edit, message):
    config = copy.deepcopy(load_config())
    edit(config)
    with pytest.raises(KreinbenchError, match=message):
        plan.check_config(config)


def test_tuned_fit_reads_the_other_methods_record():
    config = load_config()
    inputs = plan.fit_inputs(config, "heart-uci", "dank", 2)
    assert inputs["tuned_by"] == "results/fits/heart-uci/svm-cv/rep2.json"
    assert "tuned_by" not in plan.fit_inputs(config, "heart-uci", "svm-cv", 2)


def test_eta_rule_k_times_c_squared():
    assert c2_factor("0.001C2") == 0.001 and c2_factor("100C2") == 100.0
    assert c2_factor("svm") is None and c2_factor("-1C2") is None and c2_factor("xC2") is None
    K, y = np.eye(4), np.array([1, -1, 1, -1])
    assert resolve_eta("10C2", 0.5, K, y) == pytest.approx(2.5)
    with pytest.raises(KreinbenchError, match="eta"):
        resolve_eta("C3", 0.5, K, y)
    assert plan_dank.dank_params(load_config(), "dank-eta10C2") == {"tau": 0.01, "eta": "10C2"}
    assert DANK().eta == "svm"


# -- tables --------------------------------------------------------------------------------------

def table1_runs() -> pd.DataFrame:
    # heart: DANK beats SVM-CV on each of 4 repetitions by 4-6 points (significant); monks1: a tie.
    rows = []
    for rep, (svm, dank) in enumerate([(0.80, 0.85), (0.82, 0.86), (0.81, 0.87), (0.79, 0.84)], start=1):
        rows.append(run_row("heart-uci", "svm-cv", rep, svm, train_accuracy=0.88))
        rows.append(run_row("heart-uci", "dank", rep, dank, train_accuracy=0.95))
    for rep, (svm, dank) in enumerate([(0.80, 0.82), (0.82, 0.80), (0.81, 0.81), (0.80, 0.80)], start=1):
        rows.append(run_row("monks1", "svm-cv", rep, svm))
        rows.append(run_row("monks1", "dank", rep, dank))
    return pd.DataFrame(rows)


TABLE1_SETTINGS = {"datasets": {"heart-uci": "heart", "monks1": "monks1"}, "svm": "svm-cv", "dank": "dank"}


def test_table1_joins_paper_values_and_marks_significant_wins():
    paper = pd.read_csv(PAPER_TABLE1, comment="#")
    table = paper_dank.table1_frame(table1_runs(), paper, TABLE1_SETTINGS)
    heart = table[table["paper_dataset"] == "heart"].set_index("paper_method")
    assert heart.at["DANK", "mean"] == pytest.approx(85.5)
    assert heart.at["DANK", "paper_mean"] == 87.9 and heart.at["DANK", "paper_train_mean"] == 94.3
    assert heart.at["DANK", "diff"] == pytest.approx(85.5 - 87.9)
    assert heart.at["DANK", "train_mean"] == pytest.approx(95.0)
    assert heart.at["DANK", "significant"] and not heart.at["SVM-CV", "significant"]
    assert heart.at["DANK", "p_value"] < 0.05
    assert heart.at["KNPL", "paper_significant"] and pd.isna(heart.at["KNPL", "mean"])
    monks = table[table["paper_dataset"] == "monks1"].set_index("paper_method")
    assert not monks["significant"].any() and monks.at["DANK", "p_value"] > 0.05
    # Every paper row is kept: glass and wine appear with the paper's values only.
    assert {"glass", "wine"} <= set(table["paper_dataset"])
    assert table[table["paper_dataset"] == "glass"]["mean"].isna().all()
    assert list(table["paper_dataset"].drop_duplicates())[:2] == ["diabetic", "heart"]

    md = paper_dank.table1_markdown(table)
    heart_line = next(line for line in md.splitlines() if line.startswith("| heart"))
    assert "85.5 ± 1.3 • (paper 87.9 ± 2.9, Δ -2.4)" in heart_line
    assert "paper 87.4 ± 3.9 •" in heart_line  # the paper's own mark on KNPL
    assert "| glass | not run (9, 214) |" in md


def test_table3_beside_paper_with_rank_and_missing_covtype():
    runs = pd.DataFrame([run_row("eeg", m, rep, acc, n_train=500, n_test=500, train_time=t, rank_F=r)
                         for rep in (1, 2)
                         for m, acc, t, r in (("svm-eeg", 0.90, 0.1, np.nan), ("dank-exact-eeg", 0.92, 5.0, 30),
                                              ("dank-scalable-eeg", 0.91, 1.0, 100 + rep))])
    settings = {"datasets": {"eeg": "EEG"},
                "columns": {"eeg": {"SVM-SMO": "svm-eeg", "DANK exact": "dank-exact-eeg",
                                    "DANK scalable": "dank-scalable-eeg"}}}
    table = paper_dank.table3_frame(runs, pd.read_csv(PAPER_TABLE3, comment="#"), settings)
    eeg = table[table["paper_dataset"] == "EEG"].set_index("column")
    assert eeg.at["DANK exact", "accuracy"] == pytest.approx(92.0)
    assert eeg.at["DANK exact", "paper_accuracy"] == 96.7 and eeg.at["DANK exact", "diff"] == pytest.approx(-4.7)
    assert eeg.at["DANK scalable", "rank_F"] == pytest.approx(101.5) and eeg.at["DANK scalable", "paper_rank_F"] == 142
    assert pd.isna(eeg.at["BMKL exact", "accuracy"]) and eeg.at["BMKL exact", "paper_seconds"] == 1426.3
    covtype = table[table["paper_dataset"] == "covtype"]
    assert covtype["reps"].isna().all() and len(covtype) == 8
    md = paper_dank.table3_markdown(table)
    assert "| EEG, n = 500 / 500: acc. (%) | 90.0 ± 0.0 (paper 95.9) |" in md
    assert "| covtype (not run): acc. (%) | paper 96.1 | paper × |" in md
    assert "101.5" not in md and "102 (paper 142)" in md  # rank(F) rounded as the paper prints it
    # covtype: × where the paper's method failed, no rank(F) where it prints none.
    assert "| covtype (not run): rank(F) |  |  |  |  |  |  | paper × |  |" in md


# -- figures -------------------------------------------------------------------------------------

def test_figures_draw_from_synthetic_records(tmp_path):
    config = load_config()
    rows = []
    for rep in (1, 2):
        for dataset in ("heart-uci", "monks1"):
            for m in ["dank", "dank-tau0", *plan_dank.fig8_settings(config)["tau"],
                      *plan_dank.fig8_settings(config)["eta"]]:
                rows.append(run_row(dataset, m, rep, 0.8 + 0.01 * rep))
        for n in (100, 200):
            for m in ("dank", "dank-1nn", "dank-5nn"):
                rows.append(run_row(f"ijcnn1-n{n}", m, rep, 0.9, n_train=n, test_time=n / 1e4))
    runs = pd.DataFrame(rows)
    paper = pd.read_csv(PAPER_TABLE1, comment="#")
    fig5 = {"datasets": {"heart-uci": "heart", "monks1": "monks1"}, "with": "dank", "without": "dank-tau0"}
    fig7 = {"datasets": {"ijcnn1-n100": "ijcnn1-n100", "ijcnn1-n200": "ijcnn1-n200"},
            "methods": {"reciprocal NN": "dank", "1-NN": "dank-1nn", "5-NN": "dank-5nn"}}
    fig8 = {**plan_dank.fig8_settings(config), "datasets": fig5["datasets"]}
    frame = paper_dank.fig7_frame(runs, fig7)
    assert frame.set_index(["extension", "n"]).at[("1-NN", 200), "seconds"] == pytest.approx(0.02)
    figures = {"5": paper_dank.fig5_figure(runs, paper, fig5), "7": paper_dank.fig7_figure(runs, fig7),
               "8": paper_dank.fig8_figure(runs, fig8)}
    for number, fig in figures.items():
        titles = [fig._suptitle.get_text() if fig._suptitle else ""] + [ax.get_title() for ax in fig.axes]
        assert any(f"DANK (JMLR) Fig. {number}," in t for t in titles)
    # Fig. 8(b): one curve per dataset over the six η, and each dataset's dashed baseline.
    eta_axis = figures["8"].axes[1]
    curves = [line for line in eta_axis.get_lines() if line.get_linestyle() == "-"]
    assert len(curves) == 2 and all(len(line.get_xdata()) == 6 for line in curves)
    assert sum(line.get_linestyle() == "--" for line in eta_axis.get_lines()) == 3  # 2 baselines + legend entry
    # Fig. 5: the paper's Table 1 DANK values (heart 87.9, monks1 83.6) as markers.
    marks = [line for line in figures["5"].axes[0].get_lines() if line.get_label().startswith("paper")]
    assert list(marks[0].get_ydata()) == [87.9, 83.6]
    paper_dank.save_figure(figures["7"], str(tmp_path / "fig7.png"), str(tmp_path / "fig7.pdf"))
    assert (tmp_path / "fig7.png").stat().st_size > 10_000 and (tmp_path / "fig7.pdf").exists()
    for fig in (figures["5"], figures["8"]):
        paper_dank.plt.close(fig)


# -- the workflow ----------------------------------------------------------------------------------

def test_paper_config_at_small_scale_lists_the_targets(workflow_copy, snakemake):
    workdir = workflow_copy(load_config(), "dank_small")
    result = snakemake(workdir, "-n", "--configfile", "workflow/configs/paper-dank.yaml", "--config", "scale=small")
    assert result.returncode == 0, result.stderr[-3000:]
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, re.M))
    config = load_config()
    # 2 repetitions; the small sets' fits of a repetition are one fit_batch_<dataset> job (fit_batches)
    batched = plan.batched_datasets(config)
    fits = sum(len(set(plan.method_datasets(config, m)) - set(batched)) for m in config["methods"]) * 2
    assert counts["fit"] == str(fits) and len(batched) == 10
    assert all(counts[f"fit_batch_{plan.rule_suffix(d)}"] == "2" for d in batched)
    for rule in ("dank_table1", "dank_table3", "dank_fig5", "dank_fig7", "dank_fig8"):
        assert counts[rule] == "1", rule


def tiny_config() -> dict:
    """Every DANK target on 60 seeded blobs: one repetition, 2-fold CV over C."""
    dank = {"estimator": "DANK", "kernel": "gauss", "tuned_by": "svm-cv"}
    return {
        "seed": 1, "repetitions": 1, "cv_folds": 2, "datasets": ["blobs"],
        "dataset_options": {"blobs": {"split": {"max_n": 60}}},
        "kernels": {"gauss": {"type": "rbf", "convention": "dank", "sigma": [0.5, 4.0]}},
        "methods": {
            "svm-cv": {"label": "SVM-CV", "estimator": "SVM", "kernel": "gauss", "grid": {"C": [1.0, 8.0]}},
            "dank": {**dank, "label": "DANK", "params": {"tau": 0.01}},
            "dank-tau0": {**dank, "params": {"tau": 0.0}},
            "dank-tau0.1": {**dank, "params": {"tau": 0.1}},
            "dank-eta0.1C2": {**dank, "params": {"eta": "0.1C2"}},
            "dank-1nn": {**dank, "params": {"extension": "knn", "n_neighbors": 1}},
            "dank-cv": {**dank, "params": {"tau": 0.01}, "grid": {"C": [0.5, 2.0]}},
        },
        "papers": {"dank": {
            "methods": {"svm-cv": "SVM-CV", "dank": "DANK"},
            "table1": {"datasets": ["blobs"], "svm": "svm-cv", "dank": "dank"},
            "table3": {"blobs": {"SVM-SMO": "svm-cv", "DANK exact": "dank"}},
            "fig5": {"datasets": ["blobs"], "with": "dank", "without": "dank-tau0"},
            "fig7": {"datasets": ["blobs"], "methods": {"reciprocal NN": "dank", "1-NN": "dank-1nn"}},
            "fig8": {"datasets": ["blobs"], "baseline": "dank", "tau": ["dank", "dank-tau0.1"], "eta": ["dank-eta0.1C2"]},
        }},
    }


def test_tiny_run_writes_every_target_from_tuned_fits(run_workflow):
    workdir = run_workflow(tiny_config(), "dank_tiny")
    svm = json.loads((workdir / "results/fits/blobs/svm-cv/rep1.json").read_text())
    dank = json.loads((workdir / "results/fits/blobs/dank/rep1.json").read_text())
    # DANK took SVM-CV's kernel instance and C, and ran no CV of its own.
    assert dank["tuned_by"] == "svm-cv" and dank["cv_accuracy"] is None and svm["cv_accuracy"] is not None
    assert (dank["kernel_instance"], dank["params"]) == (svm["kernel_instance"], svm["params"])
    # With a grid of its own: SVM-CV's kernel instance, C by its own CV.
    dank_cv = json.loads((workdir / "results/fits/blobs/dank-cv/rep1.json").read_text())
    assert dank_cv["kernel_instance"] == svm["kernel_instance"] and dank_cv["cv_accuracy"] is not None
    assert dank_cv["params"]["C"] in (0.5, 2.0)
    assert 0.0 <= dank["train_accuracy"] <= 1.0 and dank["rank_F"] >= 1
    # the balance of the test predictions and the test half's majority rate (one-class fits)
    split = read_split(workdir / "data/splits/blobs/rep1.h5")
    assert dank["majority_rate"] == max(np.mean(split.y_test == c) for c in np.unique(split.y_test))
    assert 0.5 <= dank["predicted_majority_share"] <= 1.0
    table1 = pd.read_csv(workdir / "results/tables/dank_table1.csv")
    ours = table1[table1["dataset"] == "blobs"].set_index("paper_method")
    assert set(ours.index) == {"SVM-CV", "DANK"} and (ours["reps"] == 1).all()
    assert len(table1[table1["paper_dataset"] == "diabetic"]) == 6  # the paper's rows are kept
    assert "blobs" in (workdir / "results/tables/dank_table1.md").read_text()
    table3 = pd.read_csv(workdir / "results/tables/dank_table3.csv")
    ours = table3[table3["dataset"] == "blobs"].set_index("column")
    assert pd.isna(ours.at["SVM-SMO", "rank_F"]) and ours.at["DANK exact", "rank_F"] == dank["rank_F"]
    for fig in ("dank_fig5", "dank_fig7", "dank_fig8"):
        assert (workdir / f"figures/{fig}.png").stat().st_size > 10_000 and (workdir / f"figures/{fig}.pdf").exists()
