"""Fits that predict (nearly) one class: per fit, and counted per table cell."""

import math

import numpy as np
import pandas as pd
import pytest

from kreinbench.report.collapse import collapsed, prediction_balance
from kreinbench.report.statistics import collapse_stats


def test_prediction_balance_is_the_largest_class_share_of_predictions_and_of_labels():
    y = np.array([1, 1, 1, -1])
    assert prediction_balance(np.array([1, 1, -1, -1]), y) == {"predicted_majority_share": 0.5, "majority_rate": 0.75}
    assert prediction_balance(np.array(["a"] * 4), np.array(["a", "b", "b", "c"])) == {
        "predicted_majority_share": 1.0, "majority_rate": 0.5}
    with pytest.raises(ValueError, match="do not match"):
        prediction_balance(np.ones(3), y)


def test_a_fit_collapsed_when_it_predicts_one_class_or_scores_the_base_rate():
    # one class (99 of 100), the base rate within a point (0.9025 at 0.9025; 0.51 at 0.50), a fit that learned,
    # and a record that lacks the share (judged by the base rate alone) or the rate (unknown)
    accuracy = [0.60, 0.9025, 0.51, 0.85, 0.9030, 0.85]
    share = [0.99, 0.95, 0.55, 0.60, math.nan, 0.60]
    rate = [0.55, 0.9025, 0.50, 0.55, 0.9025, math.nan]
    out = collapsed(accuracy, share, rate)
    assert out[:5].tolist() == [1.0, 1.0, 1.0, 0.0, 1.0] and math.isnan(out[5])


def test_cells_count_their_collapsed_fits_and_stay_unknown_without_the_rates():
    runs = pd.DataFrame({"dataset": ["a"] * 3 + ["b"] * 2, "method": ["m"] * 5,
                         "accuracy": [0.5, 0.9, 0.5, 0.8, 0.7], "predicted_majority_share": [1.0, 0.6, 0.7, 0.6, 0.6],
                         "majority_rate": [0.5, 0.5, 0.5, 0.6, 0.6]})
    stats = collapse_stats(runs).set_index("dataset")
    assert stats["collapsed"].tolist() == [2.0, 0.0] and stats["majority_rate"].tolist() == [0.5, 0.6]
    old = collapse_stats(runs.drop(columns=["predicted_majority_share", "majority_rate"]))
    assert old["collapsed"].isna().all() and old["majority_rate"].isna().all()
