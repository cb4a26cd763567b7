"""The agreement record: every paper-table cell with a paper value judged, counted and explained."""

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline import paper_targets
from kreinbench.pipeline.stages.agreement import agreement
from kreinbench.report.agreement import CELL_COLUMNS, judged, judged_tables, markdown, summary, table_cells


def accuracy_table():
    """Rows as iklr_table3 writes them (accuracies as fractions), one without a paper value."""
    return pd.DataFrame({"dataset": ["sonar", "sonar", "heart"], "paper_dataset": ["Sonar", "Sonar", "Heart"],
                         "method": ["flip-klr", "ksvm", "ksvm"], "paper_method": ["Flip", "KSVM", "KSVM"],
                         "mean": [0.84, 0.80, 0.81], "std": [0.02, 0.03, 0.04],
                         "paper_mean": [0.546, 0.79, math.nan], "paper_std": [0.045, 0.001, math.nan]})


def test_cells_are_the_rows_with_a_paper_value_and_each_kernels_eigenvalues_once():
    ying = pd.DataFrame({"paper_dataset": ["Sonar", "Sonar"], "paper_method": ["SMM", "SPGM"], "mean": [0.83, 0.82],
                         "std": [0.03, 0.04], "paper_mean": [0.76, 0.76], "mu_min": [-1.38, -1.38],
                         "mu_min_paper": [-1.38, -1.38], "mu_max": [48.6, 48.6], "mu_max_paper": [21.5, 21.5]})
    study = pd.DataFrame({"paper_dataset": ["monks1"] * 2, "paper_method": ["CCICP-GD"] * 2, "init": ["ones"] * 2,
                          "metric": ["accuracy", "train_time"], "mean": [0.7, 1.5], "std": [0.0, 0.1],
                          "paper_mean": [0.697, 0.3], "paper_std": [math.nan, math.nan]})
    percent = pd.DataFrame({"paper_dataset": ["EEG"], "column": ["DANK exact"], "accuracy": [95.0],
                            "accuracy_std": [0.5], "paper_accuracy": [96.7]})
    cells = pd.concat([table_cells("iklr_table3", accuracy_table()), table_cells("ying_table3", ying),
                       table_cells("iklr_table6", study), table_cells("dank_table3", percent, quantity="accuracy_percent")], ignore_index=True)
    assert list(zip(cells["table"], cells["column"], cells["quantity"])) == [
        ("iklr_table3", "Flip", "accuracy"), ("iklr_table3", "KSVM", "accuracy"),
        ("ying_table3", "SMM", "accuracy"), ("ying_table3", "μ_min", "eigenvalue"), ("ying_table3", "μ_max", "eigenvalue"),
        ("ying_table3", "SPGM", "accuracy"),
        ("iklr_table6", "CCICP-GD, α⁽⁰⁾ = ones", "accuracy"), ("iklr_table6", "CCICP-GD, α⁽⁰⁾ = ones", "train_time"),
        ("dank_table3", "DANK exact", "accuracy_percent")]


def test_verdicts_follow_the_criteria_and_the_first_matching_explanation():
    cells = pd.DataFrame([
        # accuracy: the slack is 0.03 or 2 paper-std, whichever is larger
        {"table": "t", "dataset": "a", "column": "X", "quantity": "accuracy", "ours": 0.829, "ours_std": 0.01,
         "paper": 0.80, "paper_std": 0.001},
        {"table": "t", "dataset": "b", "column": "X", "quantity": "accuracy", "ours": 0.85, "ours_std": 0.01,
         "paper": 0.80, "paper_std": 0.03},
        {"table": "t", "dataset": "c", "column": "X", "quantity": "accuracy", "ours": 0.90, "ours_std": 0.01,
         "paper": 0.80, "paper_std": 0.03},
        # in %: 3 points
        {"table": "p", "dataset": "a", "column": "Y", "quantity": "accuracy_percent", "ours": 93.5, "ours_std": 1.0,
         "paper": 96.4, "paper_std": math.nan},
        # eigenvalues: 5 %
        {"table": "e", "dataset": "a", "column": "μ_max", "quantity": "eigenvalue", "ours": 104.0, "ours_std": math.nan,
         "paper": 100.0, "paper_std": math.nan},
        {"table": "e", "dataset": "b", "column": "μ_max", "quantity": "eigenvalue", "ours": 94.0, "ours_std": math.nan,
         "paper": 100.0, "paper_std": math.nan},
        {"table": "t", "dataset": "a", "column": "X", "quantity": "train_time", "ours": 9.0, "ours_std": 1.0,
         "paper": 1.0, "paper_std": math.nan},
    ])
    explanations = [{"table": "e", "dataset": "*", "column": "μ_*", "why": "kernel scaled differently",
                     "evidence": ["benchmarks/results/k.md"]},
                    {"table": "*", "why": "anything else"}]
    out = judged(cells, explanations)
    assert out["agrees"].tolist() == [True, True, False, True, True, False, None]
    assert out["status"].tolist() == ["agrees", "agrees", "explained", "agrees", "agrees", "explained", "reported"]
    assert out["why"].tolist() == ["", "", "anything else", "", "",
                                   "kernel scaled differently (evidence: benchmarks/results/k.md)", ""]
    assert out["diff"].iloc[2] == pytest.approx(0.10)
    counts = summary(out).set_index("table")
    assert counts.loc["all accuracy", ["judged", "agree", "explained", "unexplained"]].tolist() == [4, 3, 1, 0]
    assert counts.loc["all eigenvalue", ["judged", "agree", "explained"]].tolist() == [2, 1, 1]
    assert counts.loc["t", ["judged", "agree", "unexplained"]].tolist() == [3, 2, 0]
    unexplained = summary(judged(cells, [])).set_index("table")
    assert unexplained.loc["all accuracy", "unexplained"] == 1 and unexplained.loc["all eigenvalue", "unexplained"] == 1
    text = markdown(judged(cells, []), "Agreement")
    assert "| **all accuracy** | 4 | 3 | 75% | 0 | 0 | 1 | 0 |" in text
    assert [line.split(" | ")[1] for line in text.splitlines() if line.endswith(" | unexplained | – |")] == ["c", "b"]


def test_a_difference_equal_to_the_bound_agrees_however_it_rounds():
    """0.871 − 0.841 is 0.030000000000000027 in floating point: on the bound, not beyond it."""
    cells = pd.DataFrame([{"table": "t", "dataset": d, "column": "X", "quantity": q, "ours": ours, "ours_std": 0.0,
                           "paper": paper, "paper_std": math.nan}
                          for d, q, ours, paper in (("a", "accuracy", 0.871, 0.841), ("b", "accuracy_percent", 87.1, 84.1),
                                                    ("c", "accuracy", 0.8711, 0.841), ("d", "eigenvalue", 105.0, 100.0))])
    assert judged(cells, [])["agrees"].tolist() == [True, True, False, True]


def test_relative_mse_agrees_within_two_paper_std_or_ten_percent():
    cells = pd.DataFrame([{"table": "dank_table4", "dataset": d, "column": "DANK", "quantity": "relative_mse",
                           "ours": ours, "ours_std": 0.01, "paper": paper, "paper_std": std}
                          for d, ours, paper, std in (("a", 0.108, 0.100, 0.001), ("b", 0.115, 0.100, 0.001),
                                                      ("c", 0.115, 0.100, 0.010), ("d", 0.030, 0.104, 0.002))])
    out = judged(cells, [])
    assert out["agrees"].tolist() == [True, False, True, False]
    assert out["criterion"].tolist() == ["|Δ| ≤ 0.01", "|Δ| ≤ 0.01", "|Δ| ≤ 0.02", "|Δ| ≤ 0.0104"]


def test_a_cell_whose_fits_collapsed_never_agrees_and_is_counted_as_collapsed():
    """ijcnn1-tr's 0.9025 is the paper's 0.914 within 3 points, but every fit predicts the majority class."""
    table = pd.DataFrame({"dataset": ["ijcnn1-tr", "ijcnn1-tr", "guide1-t"], "method": ["ccicp-gd", "cccp-gd", "ccicp-gd"],
                          "paper_dataset": ["ijcnn1-tr", "ijcnn1-tr", "guide1-t"],
                          "paper_method": ["CCICP-GD", "CCCP-GD", "CCICP-GD"], "reps": [10, 10, 10],
                          "mean": [0.9025, 0.93, 0.95], "std": [0.0, 0.01, 0.01], "paper_mean": [0.914, 0.92, 0.955],
                          "paper_std": [0.01, 0.01, 0.01], "collapsed": [10, 4, math.nan],
                          "majority_rate": [0.9025, 0.9025, math.nan]})
    out = judged(table_cells("iklr_table4", table), [])
    assert out["status"].tolist() == ["collapsed", "agrees", "agrees"]
    assert out["agrees"].tolist() == [False, True, True]
    assert out["why"].iloc[0] == "10 of 10 fits predict (nearly) one class (the test halves' majority rate: 0.902)"
    counts = summary(out).set_index("table").loc["all accuracy"]
    assert counts[["judged", "agree", "collapsed", "unexplained"]].tolist() == [3, 2, 1, 0]
    assert "| iklr_table4 | ijcnn1-tr | CCICP-GD | 0.902 ± 0 | 0.914 ± 0.01 | -0.0115 | collapsed |" in markdown(out, "A")


def test_each_fit_counts_once_and_stand_ins_apart():
    """MM'17 Table 2 shows Table III's fits again: shown and judged, not counted twice; a stand-in's
    cells are judged but not counted."""
    table3 = pd.DataFrame({"dataset": ["sonar", "splice-uci"], "method": ["ksvm", "ksvm"],
                           "paper_dataset": ["Sonar", "splice"], "paper_method": ["KSVM", "KSVM"],
                           "mean": [0.80, 0.70], "std": [0.01, 0.01], "paper_mean": [0.79, 0.90],
                           "paper_std": [0.01, 0.01]})
    mm17 = table3.assign(paper_mean=[0.60, 0.90])
    cells = pd.concat([table_cells("iklr_table3", table3, {"splice-uci": "splice"}),
                       table_cells("iklr_mm17_table2", mm17, {"splice-uci": "splice"})], ignore_index=True)
    out = judged(cells, [])
    assert out["counted"].tolist() == [True, False, False, False]
    counts = summary(out).set_index("table")
    assert counts.loc["iklr_mm17_table2", ["judged", "agree", "unexplained", "not counted"]].tolist() == [2, 0, 2, 2]
    assert counts.loc["all accuracy", ["judged", "agree"]].tolist() == [1, 1]


def test_training_cells_are_judged_beside_the_test_cells():
    """DANK Table 1 prints training accuracy for SVM-CV and DANK: each its own cell."""
    table = pd.DataFrame({"dataset": ["heart-uci"], "method": ["dank"], "paper_dataset": ["heart"],
                          "paper_method": ["DANK"], "reps": [10], "mean": [81.4], "std": [2.9], "paper_mean": [87.9],
                          "paper_std": [3.3], "train_mean": [87.5], "train_std": [3.1], "paper_train_mean": [94.3],
                          "paper_train_std": [1.7]})
    out = judged(table_cells("dank_table1", table, quantity="accuracy_percent"), [])
    assert list(zip(out["column"], out["quantity"], out["agrees"])) == [
        ("DANK", "accuracy_percent", True), ("DANK training", "accuracy_percent", False)]
    assert out["counted"].tolist() == [True, True]


def test_an_eigenvalue_the_repetitions_range_holds_is_explained_by_it():
    """Table II gives μ over every repetition's random training half: a paper value inside that
    range is one more draw (explained, with the range); outside it stays unexplained."""
    table = pd.DataFrame({"paper_dataset": ["monks1", "sonar"], "mu_min": [-1.83, 2.0], "mu_min_paper": [-2.09, 1.45],
                          "mu_min_lo": [-2.5, 1.55], "mu_min_hi": [-1.4, 2.0], "mu_max": [92.9, 2855.0],
                          "mu_max_paper": [94.1, 3025.0], "mu_max_lo": [91.7, 2849.0], "mu_max_hi": [97.1, 2965.0]})
    out = judged(table_cells("iklr_table2", table), [])
    assert list(out.columns) == CELL_COLUMNS
    assert out["agrees"].tolist() == [False, True, False, False]
    assert out["why"].iloc[0].startswith("the paper's value lies within ours over the repetitions' random training "
                                         "halves [-2.5, -1.4]")
    assert out["why"].iloc[2:].tolist() == ["", ""]
    # an explanations entry comes first
    assert judged(table_cells("iklr_table2", table), [{"table": "*", "why": "x"}])["why"].iloc[0] == "x"


def test_stage_writes_the_record_and_names_a_bad_explanations_file(tmp_path):
    table = tmp_path / "iklr_table3.csv"
    accuracy_table().to_csv(table, index=False)
    explanations = tmp_path / "explanations.yaml"
    explanations.write_text("- {table: iklr_table3, dataset: Sonar, column: Flip, why: the paper's Flip is low}\n")
    csv, md = tmp_path / "agreement.csv", tmp_path / "agreement.md"
    agreement(tables=[str(table)], explanations=str(explanations), csv=str(csv), md=str(md), title="Agreement",
              quantities=paper_targets.quantities())
    record = pd.read_csv(csv)
    assert record["agrees"].tolist() == [False, True] and record["why"].fillna("").tolist() == ["the paper's Flip is low", ""]
    assert "| iklr_table3 | 2 | 1 | 50% | 0 | 1 | 0 | 0 |" in md.read_text()
    explanations.write_text("why: not a list\n")
    with pytest.raises(KreinbenchError, match="explanations.yaml"):
        agreement(tables=[str(table)], explanations=str(explanations), csv=str(tmp_path / "x.csv"),
                  md=str(tmp_path / "x.md"), title="Agreement", quantities=paper_targets.quantities())
    assert not (tmp_path / "x.csv").exists()


def test_each_paper_tables_unit_comes_from_the_registry_and_an_unknown_table_is_refused(tmp_path):
    quantities = paper_targets.quantities()
    explanations = tmp_path / "none.yaml"
    explanations.write_text("[]\n")
    assert quantities["dank_table4"] == "relative_mse"
    assert quantities["dank_table1"] == quantities["dank_table3"] == "accuracy_percent"
    assert quantities["iklr_table3"] == quantities["ying_table3"] == "accuracy"
    table = tmp_path / "dank_table4.csv"
    pd.DataFrame([{"dataset": "mpg", "method": "dank", "mean": 0.135, "std": 0.01, "paper_mean": 0.173,
                   "paper_std": 0.008}]).to_csv(table, index=False)
    cells = judged_tables([str(table)], str(explanations), quantities)
    assert cells["quantity"].tolist() == ["relative_mse"] and cells["criterion"].tolist() == ["|Δ| ≤ 0.0173"]
    renamed = tmp_path / "my_table.csv"
    table.rename(renamed)
    with pytest.raises(KreinbenchError, match="my_table: no quantity"):
        judged_tables([str(renamed)], str(explanations), quantities)


def test_an_offline_stand_in_is_named_beside_the_papers_row_and_its_explanation_applies_only_to_it():
    table = pd.DataFrame({"dataset": ["splice-uci", "toy"], "paper_dataset": ["splice", "toy"],
                          "paper_method": ["KSVM", "KSVM"], "mean": [0.70, 0.60], "std": [0.01, 0.01],
                          "paper_mean": [0.90, 0.90], "paper_std": [0.01, 0.01]})
    cells = table_cells("iklr_table3", table, {"splice-uci": "splice"})
    assert list(cells["dataset"]) == ["splice (splice-uci)", "toy"]
    assert list(table_cells("iklr_table3", table)["dataset"]) == ["splice", "toy"]  # online: the paper's row
    entries = yaml.safe_load((Path(__file__).parents[1] / "workflow/paper_values/explanations.yaml").read_text())
    why = judged(cells, entries)["why"].tolist()
    assert why[0].startswith("offline run: the UCI splice sequences") and why[1] == ""
