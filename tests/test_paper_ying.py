"""Ying et al. (NIPS'09) Table 3 and Fig. 1: the table's arithmetic against hand-made runs, the
repetition Fig. 1 plots, and the paper config's plan at small scale."""

import json
import re

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT
from kreinbench.stages.paper_ying import fig1_runs, table3_frame, table3_markdown

NAMES = {"datasets": {"sonar": "Sonar", "mine": "mine"}, "methods": {"smm": "SMM", "spgm": "SPGM"}}


def runs_of(rows):
    """runs.csv rows from (dataset, method, rep, accuracy, train_time, params) tuples."""
    return pd.DataFrame([{"dataset": d, "method": m, "rep": r, "accuracy": a, "train_time": t,
                          "params": json.dumps(p), "kernel_instance": "noisy-rbf-sigma=1", "label": m.upper(),
                          "n_train": 160, "n_test": 40, "kernel_mu_min": -1.0 - r, "kernel_mu_max": 20.0 + r}
                         for d, m, r, a, t, p in rows])


@pytest.fixture
def runs():
    rows = []
    for rep, (a_smm, a_spgm) in enumerate([(0.80, 0.70), (0.82, 0.71), (0.78, 0.69)], start=1):
        rows += [("sonar", "smm", rep, a_smm, 0.1 * rep, {"C": 1}), ("sonar", "spgm", rep, a_spgm, 1.0, {"C": 1})]
        rows += [("mine", "smm", rep, 0.9, 0.2, {"C": 1}), ("mine", "spgm", rep, 0.9, 0.4, {"C": 10 if rep == 1 else 1})]
    return runs_of(rows)


def test_table3_puts_our_statistics_beside_the_papers(runs):
    paper = pd.read_csv(ROOT / "workflow/paper_values/ying_table3.csv", comment="#")
    table = table3_frame(runs, paper, NAMES, ["sonar", "mine"], ["smm", "spgm"]).set_index(["dataset", "method"])
    smm = table.loc[("sonar", "smm")]
    assert smm["mean"] == pytest.approx(0.80) and smm["std"] == pytest.approx(np.std([0.8, 0.82, 0.78], ddof=1))
    assert smm["paper_mean"] == pytest.approx(0.7634) and smm["diff"] == pytest.approx(0.80 - 0.7634)
    assert smm["seconds"] == pytest.approx(0.2) and smm["seconds_paper"] == 0.74
    assert smm["speedup"] == pytest.approx(0.74 / 0.2)
    assert (smm["n"], smm["n_paper"], smm["mu_min"], smm["mu_max_paper"]) == (200, 208, pytest.approx(-3.0), 21.47)
    assert smm["best"] and table.loc[("sonar", "spgm"), "p_value"] < 0.05
    assert table.loc[("sonar", "spgm"), "speedup"] == pytest.approx(5.12)
    # A dataset the paper lacks keeps our numbers and no paper value.
    assert np.isnan(table.loc[("mine", "smm"), "paper_mean"]) and np.isnan(table.loc[("mine", "smm"), "diff"])
    md = table3_markdown(table.reset_index())
    header = next(line for line in md.splitlines() if line.startswith("| dataset"))
    assert header.split(" | ")[1:4] == ["n", "λ_min", "λ_max"]
    assert "sonar (paper: Sonar) | 200 (208) | -3 (-1.38) | 22 (21.5) |" in md
    assert "**0.800 ± 0.020** (paper 0.763, Δ +0.037); 0.2 s (paper 0.74 s, speed-up 3.7×)" in md
    assert "0.700 ± 0.010 †" in md


def test_fig1_plots_the_first_repetition_where_both_solvers_chose_the_same_parameters(runs):
    assert set(fig1_runs(runs, "mine", ["smm", "spgm"])["rep"]) == {2}
    assert set(fig1_runs(runs, "sonar", ["smm", "spgm"])["rep"]) == {1}


def test_paper_config_at_small_scale_plans_both_solvers_and_the_targets(workflow_copy, snakemake):
    workdir = workflow_copy(yaml.safe_load((ROOT / "config.yaml").read_text()), "isvm_small")
    result = snakemake(workdir, "-n", "--configfile", "workflow/configs/paper-isvm.yaml", "--config", "scale=small")
    assert result.returncode == 0, result.stderr[-3000:]
    paper = yaml.safe_load((ROOT / "workflow/configs/paper-isvm.yaml").read_text())
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, re.M))
    # The paper config replaces config.yaml: only its two solvers, on its six datasets, 2 repetitions.
    assert counts["fit"] == str(2 * len(paper["datasets"]) * 2)
    assert counts["ying_table3"] == counts["ying_fig1"] == "1" and "iklr_table3" not in counts


def test_all_paper_targets_asks_for_the_papers_tables_and_figures_only(workflow_copy, snakemake):
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert config["figures"]["convergence"]  # the quick run's own figure, which must not be asked for
    workdir = workflow_copy(config, "paper_targets_only")
    result = snakemake(workdir, "-n", "all_paper_targets")
    assert result.returncode == 0, result.stderr[-3000:]
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, re.M))
    assert counts["iklr_table3"] == counts["iklr_fig3"] == "1" and "all" not in counts
    assert "figure" not in counts and counts["all_paper_targets"] == "1"
    # Each paper table rendered for the report; the quick run's accuracy table is not among them.
    assert re.findall(r"output: results/tables/(\w+)\.html", result.stdout) and \
        "results/tables/accuracy.html" not in result.stdout
