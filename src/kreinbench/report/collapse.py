"""Whether a classifier's fit learned anything: fits that predict (nearly) one class.

A fit that puts every test point in one class scores the test half's majority rate, which can
look like a paper's number on imbalanced data (ijcnn1's 0.9025, fertility's 0.88). Each fit
record carries the two rates below, and the papers' tables count, per cell, the fits that
collapsed by :func:`collapsed`; such a cell is never agreement (:mod:`kreinbench.report.agreement`).
"""

from __future__ import annotations

import numpy as np

# A fit collapsed when at least this share of its test predictions falls in one class ...
ONE_CLASS_SHARE = 0.99
# ... or when its test accuracy is within this of the test half's majority rate (what predicting
# the largest class scores): it is then no better than a constant.
BASE_RATE_MARGIN = 0.01


def prediction_balance(predicted, y_true) -> dict[str, float]:
    """``predicted_majority_share``: the share of the predictions in their most frequent class;
    ``majority_rate``: the share of ``y_true`` in its most frequent class."""
    predicted, y_true = np.asarray(predicted), np.asarray(y_true)
    if predicted.shape != y_true.shape or predicted.size == 0:
        raise ValueError(f"predictions of shape {predicted.shape} do not match labels of shape {y_true.shape}")
    return {"predicted_majority_share": _largest_share(predicted), "majority_rate": _largest_share(y_true)}


def _largest_share(labels: np.ndarray) -> float:
    _, counts = np.unique(labels, return_counts=True)
    return float(counts.max() / labels.size)


def collapsed(accuracy, predicted_majority_share, majority_rate) -> np.ndarray:
    """Per fit (arrays of fractions): 1.0 where the fit collapsed, 0.0 where not, NaN where its
    record lacks the majority rate. A record with the rate but not the predictions' share (a record
    made before the share was recorded, its rate computed from its split) is judged by the
    base-rate margin alone."""
    accuracy, share, rate = (np.asarray(a, dtype=float) for a in (accuracy, predicted_majority_share, majority_rate))
    # Both margins are compared with a tolerance: 99 of 100 predictions in one class is a
    # one-class fit however the division rounds.
    one_class = np.nan_to_num(share, nan=0.0) >= ONE_CLASS_SHARE - 1e-12
    at_base_rate = np.abs(accuracy - rate) <= BASE_RATE_MARGIN + 1e-12
    return np.where(np.isnan(rate), np.nan, (one_class | at_base_rate).astype(float))
