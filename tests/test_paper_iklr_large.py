"""IKLR paper targets added for the larger sets, the SPD kernels and the MM'17 version: Table IV
(CCCP-GD / CCICP-GD / CCICP-SGD: accuracy, training and test time), Table V (Log-E vs Aff-I
methods, accuracy in % and the kernel's μ), MM'17 Table 2 (Table III's builder) and Fig. 1 (Fig. 3's)."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline import paper_targets, plan, plan_iklr
from kreinbench.pipeline.stages.paper_tables import (
    table3_frame,
    table3_markdown,
    table4_markdown,
    table5_frame,
    table5_markdown,
    timing_frame,
)

ROOT = Path(__file__).resolve().parents[1]


def paper_values(name: str) -> pd.DataFrame:
    return pd.read_csv(ROOT / f"workflow/paper_values/{name}.csv", comment="#")


def synthetic_runs(values: dict[tuple[str, str], list[tuple]], columns: list[str]) -> pd.DataFrame:
    """Tidy run records: ``{(dataset, method): [(column values of rep 1), (rep 2), ...]}``."""
    return pd.DataFrame([{"dataset": d, "method": m, "label": m.upper(), "rep": rep, **dict(zip(columns, row))}
                         for (d, m), rows in values.items() for rep, row in enumerate(rows, start=1)])


# --- Table IV --------------------------------------------------------------------------------

def test_paper_values_transcribe_all_of_table_iv():
    paper = paper_values("iklr_table4")
    assert paper.shape == (4 * 3 * 3, 5)
    assert paper["std"].notna().sum() == 12  # only the accuracies have a std
    cell = paper[(paper["paper_dataset"] == "EEG") & (paper["paper_method"] == "CCCP-GD")].set_index("metric")
    assert cell.at["accuracy", "mean"] == 0.769 and cell.at["train_time", "mean"] == 17171.0


def test_table4_joins_each_metric_of_each_solver_with_the_paper():
    runs = synthetic_runs({("eeg", "cccp"): [(0.70, 12.0, 0.10), (0.80, 14.0, 0.30)],
                           ("eeg", "gd"): [(0.60, 1.0, 0.2), (0.70, 3.0, 0.2)],
                           ("blobs", "gd"): [(0.90, 1.0, 0.1), (0.92, 1.0, 0.1)]},
                          ["accuracy", "train_time", "test_time"])
    table = timing_frame(runs, paper_values("iklr_table4"), {"eeg": "EEG", "blobs": "blobs"},
                         {"cccp": "CCCP-GD", "gd": "CCICP-GD"})
    assert table[["dataset", "method", "metric"]].values.tolist() == [
        [d, m, metric] for d, m in (("eeg", "cccp"), ("eeg", "gd"), ("blobs", "gd"))
        for metric in ("accuracy", "train_time", "test_time")]
    row = table.iloc[1]  # eeg, CCCP-GD, train_time
    assert row["mean"] == 13.0 and row["std"] == pytest.approx(np.sqrt(2.0))
    assert row["paper_mean"] == 17171.0 and np.isnan(row["paper_std"]) and row["diff"] == 13.0 - 17171.0
    assert (table.iloc[0]["paper_mean"], table.iloc[0]["paper_std"]) == (0.769, 0.042)
    assert table.loc[table["dataset"] == "blobs", "paper_mean"].isna().all()
    md = table4_markdown(table)
    assert "IKLR (TNNLS) Table IV" in md
    assert "| dataset · paper_method | accuracy | training time (s) | test time (s) |" in md
    assert "| eeg (paper: EEG) · CCCP-GD | 0.750 ± 0.071 (paper 0.769 ± 0.042, Δ -0.019) | 13 ± 1.414 (paper 1.717e+04, Δ " in md
    assert "| blobs · CCICP-GD | 0.910 ± 0.014 | 1 ± 0 | 0.1 ± 0 |" in md


# --- Table V ---------------------------------------------------------------------------------

def test_paper_values_transcribe_all_of_table_v():
    paper = paper_values("iklr_table5")
    assert len(paper) == 2 + 9 and set(paper["paper_dataset"]) == {"Yale B"}
    mu = paper[paper["metric"] != "accuracy_percent"].set_index("metric")["mean"]
    assert mu.to_dict() == {"mu_min": -160.28, "mu_max": 670.05}
    acc = paper[paper["metric"] == "accuracy_percent"].set_index("paper_method")
    # §V-C: CCICP-GD beats TDCASVM by 0.6 and KSVM by 0.5 points.
    assert acc.at["CCICP-GD", "mean"] - acc.at["TDCASVM", "mean"] == pytest.approx(0.6)
    assert acc.at["CCICP-GD", "mean"] - acc.at["KSVM", "mean"] == pytest.approx(0.5)


TABLE5_METHODS = {"svm-le": "SVM(Log-E)", "gd-ai": "CCICP-GD"}
# SVM on the PD kernel records no spectrum; CCICP-GD records the μ of its CV-chosen kernel.
TABLE5_RUNS = synthetic_runs({("faces", "svm-le"): [(0.95, None, None), (0.97, None, None)],
                              ("faces", "gd-ai"): [(0.98, -150.0, 600.0), (0.99, -170.0, 700.0)]},
                             ["accuracy", "kernel_mu_min", "kernel_mu_max"])


def table5_paper():
    return pd.read_csv(ROOT / "workflow/paper_values/iklr_table5.csv", comment="#", keep_default_na=False,
                       na_values={"std": [""]})


def test_table5_reports_percent_and_the_spectrum_of_the_ccicp_gd_kernel_beside_the_paper():
    table = table5_frame(TABLE5_RUNS, table5_paper(), {"faces": "Yale B"}, TABLE5_METHODS, "gd-ai")
    cells = table.set_index(["method", "metric"])
    assert ("svm-le", "mu_min") not in cells.index  # no spectrum recorded, no row
    assert cells.at[("svm-le", "accuracy_percent"), "mean"] == pytest.approx(96.0)
    assert cells.at[("svm-le", "accuracy_percent"), "paper_mean"] == 97.6
    assert cells.at[("gd-ai", "accuracy_percent"), "diff"] == pytest.approx(98.5 - 98.3)
    assert cells.at[("gd-ai", "mu_min"), "mean"] == -160.0
    assert cells.at[("gd-ai", "mu_min"), "paper_mean"] == -160.28 and cells.at[("gd-ai", "mu_max"), "diff"] == 650 - 670.05
    md = table5_markdown(table, table5_paper(), "gd-ai")
    assert "| dataset | μ_min | μ_max | SVM(Log-E) | CCICP-GD |" in md
    assert "| faces (paper: Yale B) | -160 ± 14.14 (paper -160.3, Δ +0.28) | " in md
    assert "| 96.0 ± 1.4 (paper 97.6 ± 0.5, Δ -1.6) | 98.5 ± 0.7 (paper 98.3 ± 0.8, Δ +0.2) |" in md
    assert "(paper Yale B)" not in md  # the paper's row is ours here


def test_table5_shows_the_papers_row_apart_when_no_dataset_of_ours_is_the_papers():
    table = table5_frame(TABLE5_RUNS, table5_paper(), {"faces": "faces"}, TABLE5_METHODS, "gd-ai")
    assert table["paper_mean"].isna().all()
    md = table5_markdown(table, table5_paper(), "gd-ai")
    assert md.endswith("| Yale B (paper) | -160.3 | 670 | 97.6 ± 0.5 | 98.3 ± 0.8 |\n")
    assert "| faces | -160 ± 14.14 | 650 ± 70.71 | 96.0 ± 1.4 | 98.5 ± 0.7 |" in md


# --- MM'17 -----------------------------------------------------------------------------------

def test_mm17_table2_differs_from_table_iii_in_four_cells_and_its_methods():
    mm17 = paper_values("iklr_mm17_table2")
    assert mm17.shape == (8 * 6, 4) and set(mm17["paper_method"]) == {"KLR(RBF)", "Flip", "Clip", "Shift", "KSVM",
                                                                       "CCICP"}
    tnnls = paper_values("iklr_table3").replace({"paper_method": {"CCICP-GD": "CCICP"}})
    both = mm17.merge(tnnls, on=["paper_dataset", "paper_method"], suffixes=("", "_tnnls"))
    differ = both[(both["mean"] != both["mean_tnnls"]) | (both["std"] != both["std_tnnls"])]
    assert sorted(zip(differ["paper_dataset"], differ["paper_method"])) == [
        ("monks1", "KSVM"), ("monks2", "Clip"), ("monks2", "Flip"), ("transfusion", "CCICP")]


def test_mm17_table2_is_table_iii_under_mm17_names():
    runs = synthetic_runs({("monks1", "mm17"): [(0.70,), (0.80,)], ("monks1", "ksvm"): [(0.60,), (0.62,)]},
                          ["accuracy"])
    names = {"datasets": {"monks1": "monks1"}, "methods": {"mm17": "CCICP", "ksvm": "KSVM"}}
    table = table3_frame(runs, paper_values("iklr_mm17_table2"), names, ["monks1"], ["ksvm", "mm17"])
    assert table.set_index("method")["paper_mean"].to_dict() == {"ksvm": 0.586, "mm17": 0.765}
    md = table3_markdown(table, title="IKLR (MM'17) Table 2")
    assert md.startswith("IKLR (MM'17) Table 2, regenerated") and "| MM17 (paper: CCICP) |" in md


def test_mm17_fig1_draws_ccicp_and_cccp_in_the_papers_colours(tmp_path):
    from kreinbench.pipeline.stages.paper_figures import fig3_figure
    from kreinbench.report.render import save_figure

    runs = pd.DataFrame({"dataset": "monks1", "method": ["mm17", "cccp"], "rep": 1, "params": '{"lam": 0.1}',
                         "diverged": False})
    history = pd.DataFrame({"dataset": "monks1", "method": ["mm17"] * 3 + ["cccp"] * 4, "rep": 1,
                            "iteration": [0, 1, 2, 0, 1, 2, 3], "objective": [0.69, 0.5, 0.49, 0.69, 0.6, 0.55, 0.5]})
    fig = fig3_figure(history, runs, ["monks1"], {"mm17": "CCICP", "cccp": "CCCP"},
                      colours=plan_iklr.MM17_FIG1_COLOURS, title="IKLR (MM'17) Fig. 1")
    # one panel per method (small multiples), each drawn in its paper colour
    assert [[line.get_color() for line in ax.lines] for ax in fig.axes if ax.lines] == [["tab:red"], ["tab:blue"]]
    assert fig._suptitle.get_text().startswith("IKLR (MM'17) Fig. 1")
    save_figure(fig, str(tmp_path / "f.png"))
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- planning --------------------------------------------------------------------------------

PAPER_IKLR = yaml.safe_load((ROOT / "workflow/configs/paper-iklr.yaml").read_text())
PAPER_SPD = yaml.safe_load((ROOT / "workflow/configs/paper-iklr-spd.yaml").read_text())


def test_paper_configs_ask_for_the_new_targets():
    targets = paper_targets.wanted(PAPER_IKLR)
    for path in ("results/tables/iklr_table2.md", "results/tables/iklr_table3.md", "results/tables/iklr_table4.md",
                 "results/tables/iklr_mm17_table2.md", "figures/iklr_mm17_fig1.png"):
        assert path in targets
    assert plan_iklr.study_methods(PAPER_IKLR, "fig1", plan_iklr.MM17) == {"ccicp-gd-mm17": "CCICP", "cccp-gd": "CCCP"}
    assert plan_iklr.study_datasets(PAPER_IKLR, "table2", plan_iklr.MM17)["sonar-uci"] == "sonar"
    # The SPD config borrows the paper's names but is not Table III's experiment.
    assert paper_targets.wanted(PAPER_SPD) == ["results/tables/iklr_table5.csv", "results/tables/iklr_table5.md"]
    assert plan_iklr.table5_spectrum_method(PAPER_SPD) == "ccicp-gd-affi"


def test_study_errors_name_the_key():
    no_gd = {**PAPER_SPD, "papers": {"iklr": {**PAPER_SPD["papers"]["iklr"],
                                             "table5": {"datasets": ["digits-3v8"], "methods": ["svm-loge"]}}}}
    with pytest.raises(KreinbenchError, match="table5.methods: none is the paper's CCICP-GD"):
        plan_iklr.check_studies(no_gd)
    mm17 = PAPER_IKLR["papers"]["iklr_mm17"]
    odd = {**PAPER_IKLR, "papers": {"iklr_mm17": {**mm17, "fig1": {"datasets": ["monks1"], "methods": ["ksvm"]}}}}
    with pytest.raises(KreinbenchError, match="iklr_mm17.fig1.methods: KSVM not in MM'17 Fig. 1"):
        plan_iklr.check_studies(odd)
    narrow = {**PAPER_IKLR, "papers": {"iklr_mm17": {**mm17, "table2": {"datasets": ["eeg"], "methods": ["ccicp-gd-mm17"]}}}}
    with pytest.raises(KreinbenchError, match="papers.iklr_mm17.table2: method 'ccicp-gd-mm17' is not fitted on eeg"):
        plan_iklr.check_studies(narrow)


def test_the_yale_b_option_of_the_spd_config_is_a_valid_binary_dataset():
    text = (ROOT / "workflow/configs/paper-iklr-spd.yaml").read_text()
    block = "\n".join(line[4:] for line in text.splitlines() if line.startswith("#   ") and "snakemake" not in line)
    custom = yaml.safe_load(block)["custom_datasets"]
    config = {**PAPER_SPD, "custom_datasets": custom, "datasets": ["digits-3v8", "yale-b-1v2"]}
    plan.check_config(config)  # a multiclass or malformed entry would raise here


def test_spd_config_at_small_scale_plans_table_v_only(workflow_copy, snakemake):
    workdir = workflow_copy(yaml.safe_load((ROOT / "config.yaml").read_text()), "spd_small")
    result = snakemake(workdir, "-n", "--configfile", "workflow/configs/paper-iklr-spd.yaml", "--config", "scale=small")
    assert result.returncode == 0, result.stderr[-3000:]
    counts = dict(re.findall(r"^([\w-]+)\s+(\d+)$", result.stdout, re.M))
    assert counts["iklr_table5"] == "1" and "iklr_table3" not in counts
    # One kernel job per config kernel (its 7 σ) and repetition.
    assert counts["fit"] == str(9 * 3) and counts["kernel_log-e"] == counts["kernel_aff-i"] == "3"


# --- one small real run of the TL1 targets ---------------------------------------------------

def iklr(solver):
    return {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": solver}, "grid": {"lam": [0.1]}}


# blobs stands for the paper's EEG and monks1 only to exercise the joins. Exact CCCP-GD is left out:
# its fits take seconds each (the unit tests above join its paper values).
TINY = {
    "seed": 11, "repetitions": 2, "cv_folds": 2, "datasets": ["blobs"],
    "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
    "methods": {"ccicp-gd": iklr("ccicp-gd"), "ccicp-sgd": iklr("ccicp-sgd"),
                "ccicp-gd-mm17": {**iklr("ccicp-gd-mm17"), "datasets": ["blobs"]}},
    "papers": {
        "iklr": {"datasets": {"blobs": "EEG"}, "table3": False,
                 "methods": {"ccicp-gd": "CCICP-GD", "ccicp-sgd": "CCICP-SGD"},
                 "table4": {"datasets": ["blobs"], "methods": ["ccicp-gd", "ccicp-sgd"]}},
        "iklr_mm17": {"datasets": {"blobs": "monks1"}, "methods": {"ccicp-gd-mm17": "CCICP"},
                      "table2": {"datasets": ["blobs"], "methods": ["ccicp-gd", "ccicp-gd-mm17"]},
                      "fig1": {"datasets": ["blobs"], "methods": ["ccicp-gd-mm17"]}},
    },
}


@pytest.fixture(scope="module")
def finished(run_workflow):
    return run_workflow(TINY, "paper_iklr_large")


def test_rule_all_writes_table_iv_mm17_table2_and_fig1(finished):
    assert not (finished / "results/tables/iklr_table3.csv").exists()
    table = pd.read_csv(finished / "results/tables/iklr_table4.csv")
    runs = pd.read_csv(finished / "results/records/runs.csv")
    assert len(table) == 2 * 3 and (table["reps"] == 2).all()
    row = table[(table["method"] == "ccicp-sgd") & (table["metric"] == "test_time")].iloc[0]
    assert row["mean"] == pytest.approx(runs.loc[runs["method"] == "ccicp-sgd", "test_time"].mean())
    assert row["paper_mean"] == 0.1188
    assert "| blobs (paper: EEG) · CCICP-SGD |" in (finished / "results/tables/iklr_table4.md").read_text()
    mm17 = pd.read_csv(finished / "results/tables/iklr_mm17_table2.csv").set_index("method")
    assert mm17.at["ccicp-gd-mm17", "paper_mean"] == 0.765 and np.isnan(mm17.at["ccicp-gd", "paper_mean"])
    assert (finished / "figures/iklr_mm17_fig1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (finished / "figures/iklr_mm17_fig1.pdf").read_bytes()[:4] == b"%PDF"
    for rule in ("iklr_table4", "iklr_mm17_table2", "iklr_mm17_fig1"):
        assert (finished / f"logs/{rule}/{rule}.log").exists()
