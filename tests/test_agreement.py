"""The agreement record: every paper-table cell with a paper value judged, counted and explained."""

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from kreinbench.agreement import CELL_COLUMNS, judged, markdown, summary, table_cells
from kreinbench.errors import KreinbenchError
from kreinbench.stages.agreement import agreement


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
                       table_cells("iklr_table6", study), table_cells("dank_table3", percent)], ignore_index=True)
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
    explanations = [{"table": "e", "dataset": "*", "column": "μ_*", "why": "kernel scaled differently"},
                    {"table": "*", "why": "anything else"}]
    out = judged(cells, explanations)
    assert out["agrees"].tolist() == [True, True, False, True, True, False, None]
    assert out["why"].tolist() == ["", "", "anything else", "", "", "kernel scaled differently", ""]
    assert out["diff"].iloc[2] == pytest.approx(0.10)
    counts = summary(out).set_index("table")
    assert counts.loc["all"].tolist() == [6, 4, 0]
    assert counts.loc["t"].tolist() == [3, 2, 0]
    unexplained = summary(judged(cells, [])).set_index("table")
    assert unexplained.loc["all", "unexplained"] == 2
    text = markdown(judged(cells, []), "Agreement")
    assert "| **all** | 6 | 4 | 67% | 2 |" in text
    assert [line.split(" | ")[1] for line in text.splitlines() if line.endswith(" | unexplained |")][1:] == ["c", "b"]


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
    agreement(tables=[str(table)], explanations=str(explanations), csv=str(csv), md=str(md), title="Agreement")
    record = pd.read_csv(csv)
    assert record["agrees"].tolist() == [False, True] and record["why"].fillna("").tolist() == ["the paper's Flip is low", ""]
    assert "| iklr_table3 | 2 | 1 | 50% | 0 |" in md.read_text()
    explanations.write_text("why: not a list\n")
    with pytest.raises(KreinbenchError, match="explanations.yaml"):
        agreement(tables=[str(table)], explanations=str(explanations), csv=str(tmp_path / "x.csv"),
                  md=str(tmp_path / "x.md"), title="Agreement")
    assert not (tmp_path / "x.csv").exists()


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
