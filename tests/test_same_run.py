"""benchmarks/same_run.py: two runs' tables compare equal up to their timings, and no further."""

from pathlib import Path

import pandas as pd
import pytest

from same_run import same, same_csv


@pytest.mark.parametrize("names", ["metric", "quantity"])  # a long table's, the agreement's
def test_a_long_tables_timing_rows_are_left_out_but_its_results_are_not(tmp_path, names):
    rows = [{"dataset": "monk-2", "method": "ccicp-sgd", names: "accuracy", "mean": 0.81},
            {"dataset": "monk-2", "method": "ccicp-sgd", names: "train_time", "mean": 0.165}]
    before, after, other = tmp_path / "before.csv", tmp_path / "after.csv", tmp_path / "other.csv"
    pd.DataFrame(rows).to_csv(before, index=False)
    pd.DataFrame([rows[0], {**rows[1], "mean": 0.19}]).to_csv(after, index=False)
    pd.DataFrame([{**rows[0], "mean": 0.82}, rows[1]]).to_csv(other, index=False)
    assert same_csv(before, after)
    assert not same_csv(before, other)


def test_timing_columns_are_left_out_and_result_columns_kept(tmp_path):
    before, after, other = tmp_path / "before.csv", tmp_path / "after.csv", tmp_path / "other.csv"
    pd.DataFrame([{"method": "svm", "accuracy": 0.9, "train_time": 1.0, "speedup": 5.0}]).to_csv(before, index=False)
    pd.DataFrame([{"method": "svm", "accuracy": 0.9, "train_time": 2.0, "speedup": 2.5}]).to_csv(after, index=False)
    pd.DataFrame([{"method": "svm", "accuracy": 0.8, "train_time": 1.0, "speedup": 5.0}]).to_csv(other, index=False)
    assert same_csv(before, after) and not same_csv(before, other)


def test_a_records_tidy_tables_are_compared_as_tables(tmp_path):
    rows = {"dataset": "sonar", "method": "ccicp-gd", "rep": 1, "accuracy": 0.81, "train_time": 0.2}
    before, after, other = (tmp_path / f"{name}.csv.gz" for name in ("before", "after", "other"))
    pd.DataFrame([rows]).to_csv(before, index=False)
    pd.DataFrame([{**rows, "train_time": 0.4}]).to_csv(after, index=False)
    pd.DataFrame([{**rows, "accuracy": 0.8}]).to_csv(other, index=False)
    relative = Path("records/runs.csv.gz")
    assert same(before, after, relative) and not same(before, other, relative)
