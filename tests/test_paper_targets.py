"""Paper targets: IKLR Table III (join with the paper's values, paired t-tests), Fig. 3, scales."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline import paper_targets, plan, plan_iklr
from kreinbench.pipeline.stages.paper_tables import table3_frame, table3_markdown
from kreinbench.report.statistics import paired_tests

ROOT = Path(__file__).resolve().parents[1]


def runs_of(accuracies: dict[str, list[float]], dataset: str = "d") -> pd.DataFrame:
    """Tidy run records (as rule `table` writes) of one dataset: method -> accuracy per repetition."""
    return pd.DataFrame([
        {"dataset": dataset, "method": method, "label": method.upper(), "rep": rep, "accuracy": acc}
        for method, accs in accuracies.items() for rep, acc in enumerate(accs, start=1)
    ])


BEST = [0.90, 0.92, 0.88, 0.91, 0.93]
# Consistently 0.04-0.06 below the best on every repetition: a paired test must call it worse.
WORSE = [0.85, 0.88, 0.83, 0.86, 0.87]
# Below the best on average (0.904 vs 0.908) but above it on two repetitions: not significant.
NOISY = [0.93, 0.89, 0.91, 0.87, 0.92]


def test_paired_ttest_marks_a_consistent_loser_and_spares_a_noisy_one():
    table = paired_tests(runs_of({"a": BEST, "b": WORSE, "c": NOISY}), ["d"], ["a", "b", "c"]).set_index("method")
    assert table["best"].tolist() == [True, False, False]
    assert table.at["b", "p_value"] < 0.05 and table.at["b", "best_significantly_better"]
    assert table.at["c", "p_value"] > 0.05 and not table.at["c", "best_significantly_better"]
    assert np.isnan(table.at["a", "p_value"]) and not table.at["a", "best_significantly_better"]
    assert table.at["b", "mean"] == pytest.approx(np.mean(WORSE))
    assert table.at["b", "std"] == pytest.approx(np.std(WORSE, ddof=1))
    assert (table["reps"] == 5).all()


def test_identical_runs_tie_without_significance_and_the_first_method_is_best():
    table = paired_tests(runs_of({"a": BEST, "b": BEST}), ["d"], ["b", "a"]).set_index("method")
    assert table.at["b", "best"] and not table.at["a", "best"]
    assert np.isnan(table.at["a", "p_value"]) and not table.at["a", "best_significantly_better"]


def test_table3_joins_the_paper_values_under_the_mapped_names():
    runs = pd.concat([runs_of({"klr": BEST, "iklr": WORSE}, "sonar-uci"), runs_of({"klr": NOISY, "iklr": BEST}, "blobs")])
    runs["diverged"] = (runs["method"] == "iklr") & (runs["dataset"] == "sonar-uci") & (runs["rep"] <= 2)
    paper = pd.DataFrame({"paper_dataset": ["sonar", "sonar"], "paper_method": ["KLR(RBF)", "CCICP-GD"],
                          "mean": [0.789, 0.794], "std": [0.022, 0.060]})
    names = {"datasets": {"sonar-uci": "sonar", "blobs": "blobs"}, "methods": {"klr": "KLR(RBF)", "iklr": "CCICP-GD"}}
    table = table3_frame(runs, paper, names, ["sonar-uci", "blobs"], ["klr", "iklr"])
    assert list(zip(table["dataset"], table["method"])) == [("sonar-uci", "klr"), ("sonar-uci", "iklr"),
                                                            ("blobs", "klr"), ("blobs", "iklr")]
    sonar_iklr = table.iloc[1]
    assert sonar_iklr["paper_method"] == "CCICP-GD" and sonar_iklr["paper_mean"] == 0.794
    assert sonar_iklr["diff"] == pytest.approx(np.mean(WORSE) - 0.794)
    assert sonar_iklr["best_significantly_better"]
    assert table.loc[table["dataset"] == "blobs", "paper_mean"].isna().all()
    md = table3_markdown(table)
    assert "| sonar-uci (paper: sonar) |" in md and "| KLR (paper: KLR(RBF)) |" in md
    assert f"**{np.mean(BEST):.3f} ± {np.std(BEST, ddof=1):.3f}** (paper 0.789 ± 0.022, Δ +0." in md
    # † marks the method significantly worse than the best, ‡2 its two runaway repetitions
    assert f"{np.mean(WORSE):.3f} ± {np.std(WORSE, ddof=1):.3f} † ‡2 (paper 0.794" in md
    assert "†: significantly worse than the best" in md


def test_paper_values_transcribe_all_of_table_iii():
    paper = pd.read_csv(ROOT / "workflow/paper_values/iklr_table3.csv", comment="#")
    assert paper.shape == (16 * 8, 4)
    cell = paper[(paper["paper_dataset"] == "monks1") & (paper["paper_method"] == "CCICP-GD")]
    assert cell[["mean", "std"]].values.tolist() == [[0.765, 0.065]]


CONFIG = {
    "datasets": ["sonar-uci", "monks1", "blobs"],
    "methods": {"klr-rbf": {}, "ccicp-gd": {}, "ccicp-sgd": {}, "cccp-gd": {}},
    "papers": {"iklr": {"datasets": {"sonar-uci": "sonar", "monk-2": "monks2"},
                        "methods": {"klr-rbf": "KLR(RBF)", "ccicp-sgd": "CCICP-SGD", "cccp-gd": "CCCP-GD",
                                    "ccicp-gd": "CCICP-GD"},
                        "fig3": {"datasets": ["monks1"]}}},
}


def test_paper_names_default_to_ours_and_ignore_names_the_config_lacks():
    names = plan.paper_names(CONFIG, "iklr")
    assert names["datasets"] == {"sonar-uci": "sonar", "monks1": "monks1", "blobs": "blobs"}
    assert names["methods"]["klr-rbf"] == "KLR(RBF)"
    # Fig. 3's legend order is the paper's, whatever the config's order.
    assert plan_iklr.fig3_methods(CONFIG) == {"cccp-gd": "CCCP-GD", "ccicp-gd": "CCICP-GD", "ccicp-sgd": "CCICP-SGD"}
    assert paper_targets.wanted(CONFIG)[-1] == "figures/iklr_fig3.pdf"
    assert paper_targets.wanted({**CONFIG, "papers": {}}) == []


def test_two_methods_under_one_paper_name_is_an_error():
    bad = {**CONFIG, "papers": {"iklr": {"methods": {"ccicp-gd": "CCICP-GD", "ccicp-sgd": "CCICP-GD"}}}}
    with pytest.raises(KreinbenchError, match="'ccicp-gd' and 'ccicp-sgd' are both the paper's 'CCICP-GD'"):
        plan.check_papers(bad)


def test_scale_caps_repetitions_and_n_keeping_smaller_caps():
    config = {"repetitions": 10, "datasets": ["a", "b"], "scale": "small",
              "dataset_options": {"a": {"split": {"protocol": "random", "max_n": 100}}},
              "scales": {"small": {"repetitions": 3, "max_n": 400}}}
    scaled = plan.scaled_config(config)
    assert scaled["repetitions"] == 3
    assert scaled["dataset_options"] == {"a": {"split": {"protocol": "random", "max_n": 100}},
                                         "b": {"split": {"max_n": 400}}}
    assert plan.scaled_config({**config, "scale": "full"}) == {**config, "scale": "full"}
    with pytest.raises(KreinbenchError, match="no scales.huge"):
        plan.scaled_config({**config, "scale": "huge"})


# Fig. 3's three solvers on one small dataset; the mapping onto the paper's sonar row is only
# there to exercise the join (blobs is synthetic).
TINY_CONFIG = {
    "seed": 3,
    "repetitions": 2,
    "cv_folds": 2,
    "datasets": ["blobs"],
    "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
    "methods": {
        solver: {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": solver}, "grid": {"lam": [0.1, 1.0]}}
        for solver in ("ccicp-gd", "ccicp-sgd", "cccp-gd")
    },
    "papers": {"iklr": {"datasets": {"blobs": "sonar"},
                        "methods": {"ccicp-gd": "CCICP-GD", "ccicp-sgd": "CCICP-SGD", "cccp-gd": "CCCP-GD"},
                        "fig3": {"datasets": ["blobs"]}}},
}


@pytest.fixture(scope="module")
def finished(run_workflow):
    return run_workflow(TINY_CONFIG, "paper_targets")


def test_rule_all_writes_table_iii_beside_the_paper(finished):
    table = pd.read_csv(finished / "results/tables/iklr_table3.csv")
    assert table["method"].tolist() == ["ccicp-gd", "ccicp-sgd", "cccp-gd"]
    assert table["paper_mean"].tolist()[:2] == [0.794, 0.690] and np.isnan(table["paper_mean"].iloc[2])
    assert table["best"].sum() == 1 and (table["reps"] == 2).all()
    assert "IKLR (TNNLS) Table III" in (finished / "results/tables/iklr_table3.md").read_text()
    assert (finished / "logs/iklr_table3/iklr_table3.log").exists()


def test_rule_all_draws_fig3(finished):
    png = (finished / "figures/iklr_fig3.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert (finished / "figures/iklr_fig3.pdf").read_bytes()[:4] == b"%PDF"
    assert (finished / "logs/iklr_fig3/iklr_fig3.log").exists()
    assert not list(finished.rglob(".*.tmp"))


def test_paper_config_at_small_scale_plans_three_repetitions_of_every_fit(workflow_copy, snakemake):
    workdir = workflow_copy(yaml.safe_load((ROOT / "config.yaml").read_text()), "paper_small")
    result = snakemake(workdir, "-n", "--configfile", "workflow/configs/paper-iklr.yaml", "--config", "scale=small")
    assert result.returncode == 0, result.stderr[-3000:]
    paper = yaml.safe_load((ROOT / "workflow/configs/paper-iklr.yaml").read_text())
    # A study method (Table VII's CCICP-SGD-I, ...) is fitted on its own `datasets` only; the
    # `fit_batches` datasets' fits of a repetition are one fit_batch_<dataset> job.
    batched = set(paper["fit_batches"])
    fits = sum(len(set(spec.get("datasets", paper["datasets"])) - batched) for spec in paper["methods"].values()) * 3
    # Snakemake's job-count table: "<rule>   <count>" per line.
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, re.M))
    assert counts["fit"] == str(fits) and counts["iklr_table3"] == counts["iklr_fig3"] == "1"
    assert all(counts[f"fit_batch_{plan.rule_suffix(d)}"] == "3" for d in batched)
    assert counts["iklr_table7"] == counts["iklr_table6"] == counts["iklr_fig_init"] == "1"
    assert counts["iklr_table4"] == counts["iklr_mm17_table2"] == counts["iklr_mm17_fig1"] == "1"


def test_the_benchmark_config_plans_every_method_once_per_dataset_and_repetition(workflow_copy, snakemake):
    """benchmark.yaml at small scale: one fit_batch job per dataset × repetition (every method of the
    config inside), the accuracy table, and the benchmark's table and diagram."""
    workdir = workflow_copy(yaml.safe_load((ROOT / "config.yaml").read_text()), "benchmark_small")
    result = snakemake(workdir, "-n", "--configfile", "workflow/configs/benchmark.yaml", "--config", "scale=small")
    assert result.returncode == 0, result.stderr[-3000:]
    config = yaml.safe_load((ROOT / "workflow/configs/benchmark.yaml").read_text())
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, re.M))
    assert "fit" not in counts and counts["benchmark"] == counts["table"] == "1"
    assert all(counts[f"fit_batch_{plan.rule_suffix(d)}"] == "2" for d in config["datasets"])
    assert len(config["datasets"]) == len(set(config["datasets"])) >= 15
