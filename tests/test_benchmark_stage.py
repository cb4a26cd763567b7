"""The benchmark stage on tidy runs made up here: best cells, ranks, the test in the caption, the
datasets left out of the ranks, collapsed fits marked, and the diagram written."""

import numpy as np
import pandas as pd
import pytest

from kreinbench.pipeline.stages.benchmark import benchmark


@pytest.fixture
def runs(tmp_path):
    """Three methods on six datasets × 2 repetitions: "good" best everywhere, "bad" last; "partial"
    has no fit on d5; "bad" collapses on d0 (every prediction in one class); "mid" ran away in
    repetition 1 of d2 and stopped short of its tolerance in both repetitions of d3."""
    rng = np.random.default_rng(0)
    rows = []
    for d in range(6):
        for rep in (1, 2):
            for method, level in (("good", 0.9), ("mid", 0.8), ("bad", 0.7), ("partial", 0.75)):
                if method == "partial" and d == 5:
                    continue
                rows.append({"dataset": f"d{d}", "method": method, "rep": rep, "accuracy": level + 0.01 * rng.random(),
                             "train_time": 1.0 + d, "scaler_fit": "train", "majority_rate": 0.6,
                             "predicted_majority_share": 1.0 if (method == "bad" and d == 0) else 0.6,
                             "diverged": method == "mid" and d == 2 and rep == 1,
                             "not_converged": method == "mid" and d == 3})
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_the_table_the_test_and_the_diagram(runs, tmp_path):
    out = {k: str(tmp_path / f"benchmark.{k}") for k in ("csv", "md", "png", "pdf")}
    labels = {"good": "Good", "mid": "Mid", "bad": "Bad", "partial": "Partial"}
    benchmark(runs=str(runs), methods=["good", "mid", "bad", "partial"], labels=labels, cv_folds=5, alpha=0.05,
              **out)
    table = pd.read_csv(out["csv"], index_col=0)
    assert list(table.columns) == ["Good", "Mid", "Bad", "Partial"]
    assert table.loc["d1", "Good"].startswith("**0.9") and not table.loc["d1", "Mid"].startswith("**")
    assert table.loc["average rank (1 = best)"].tolist() == ["1.00", "2.00", "4.00", "3.00"]
    assert table.loc["d0", "Bad"].endswith("⊘2") and "⊘" not in table.loc["d1", "Bad"]
    # a fit that ran away or stopped short is marked, not silently ranked as a result
    assert table.loc["d2", "Mid"].endswith("‡1") and table.loc["d3", "Mid"].endswith("◇2")
    assert not any(mark in table.loc["d1", "Mid"] for mark in "‡◇⊘")
    assert pd.isna(table.loc["d5", "Partial"])
    md = open(out["md"]).read()
    assert "over the 5 datasets where every method ran" in md and "Left out of the ranks (a method has no fit " \
        "there): d5" in md
    assert "F_F = inf" in md or "p = " in md
    assert "‡k: k repetitions ran away" in md and "◇k:" in md and "never counts as agreement" not in md
    assert open(out["png"], "rb").read(4) == b"\x89PNG"


def test_a_method_without_fits_is_named_and_nothing_is_written(runs, tmp_path):
    out = {k: str(tmp_path / f"b.{k}") for k in ("csv", "md", "png", "pdf")}
    with pytest.raises(ValueError, match=r"method\(s\) \['absent'\] have no fit records"):
        benchmark(runs=str(runs), methods=["good", "mid", "absent"], labels={}, cv_folds=5, alpha=0.05, **out)
    assert not any((tmp_path / f"b.{k}").exists() for k in ("csv", "md", "png", "pdf"))
