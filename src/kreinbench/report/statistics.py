"""Statistics shared by the papers' tables: the paired t-test of each method against the best, and
the fits of each cell that collapsed to one class."""

from __future__ import annotations

import math

import pandas as pd
from scipy.stats import ttest_rel

from kreinbench.report.collapse import collapsed

# Level of the two-sided paired t-test of the best method against each other one.
ALPHA = 0.05


def paired_tests(runs: pd.DataFrame, dataset_order: list[str], method_order: list[str],
                 alpha: float = ALPHA) -> pd.DataFrame:
    """Per dataset x method: repetitions, mean and std of test accuracy, whether it is the best
    method of the dataset (highest mean; the first in ``method_order`` on a tie), and the
    p-value of a two-sided paired t-test (``scipy.stats.ttest_rel``) of the best method's
    accuracies against this method's over the repetitions both have.

    Pairing by repetition is sound because every method of a repetition sees the same split.
    The p-value is NaN for the best method itself, with fewer than two shared repetitions, or
    when the two agree on every repetition (the t statistic is 0/0): never significant.
    """
    rows = []
    for dataset in [d for d in dataset_order if d in set(runs["dataset"])]:
        acc = runs[runs["dataset"] == dataset].pivot(index="rep", columns="method", values="accuracy")
        acc = acc[[m for m in method_order if m in acc.columns]]
        means = acc.mean()
        best = means.idxmax()
        for method in acc.columns:
            pair = acc[[best, method]].dropna()
            p_value = math.nan
            if method != best and len(pair) >= 2 and (pair[best] != pair[method]).any():
                p_value = float(ttest_rel(pair[best], pair[method]).pvalue)
            rows.append({"dataset": dataset, "method": method, "reps": int(acc[method].count()),
                         "mean": float(means[method]), "std": float(acc[method].std()), "best": method == best,
                         "p_value": p_value, "best_significantly_better": bool(p_value < alpha)})
    return pd.DataFrame(rows)


def collapse_stats(runs: pd.DataFrame, keys: list[str] | None = None) -> pd.DataFrame:
    """Per group of ``runs`` (``keys``, default dataset × method): ``collapsed``, the number of its
    fits that predict (nearly) one class (:func:`kreinbench.report.collapse.collapsed`), and
    ``majority_rate``, the mean majority rate of their test halves; both NaN for records without
    the majority rate."""
    keys = keys or ["dataset", "method"]
    share = runs["predicted_majority_share"] if "predicted_majority_share" in runs else math.nan
    rate = runs["majority_rate"] if "majority_rate" in runs else math.nan
    flags = runs[keys].assign(collapsed=collapsed(runs["accuracy"], share, rate) if len(runs) else [],
                              majority_rate=rate)
    # min_count=1: a group whose records lack the rates stays NaN, not 0 collapsed fits
    return flags.groupby(keys, sort=False).agg(collapsed=("collapsed", lambda c: c.sum(min_count=1)),
                                               majority_rate=("majority_rate", "mean")).reset_index()


def fit_flags(runs: pd.DataFrame, keys: list[str] | None = None) -> pd.DataFrame:
    """Per group of ``runs`` (``keys``, default dataset × method): ``diverged``, the fits that ran
    away (RunawayWarning), ``not_converged``, those stopped at their iteration limit short of their
    tolerance (ConvergenceWarning), and :func:`collapse_stats`' ``collapsed`` and ``majority_rate``;
    records without a flag count as fits without it."""
    keys = keys or ["dataset", "method"]
    flags = runs[keys].copy()
    for name in ("diverged", "not_converged"):
        flags[name] = runs[name].fillna(False).astype(bool).astype(int) if name in runs else 0
    counts = flags.groupby(keys, sort=False)[["diverged", "not_converged"]].sum().reset_index()
    return counts.merge(collapse_stats(runs, keys), on=keys, how="left")
