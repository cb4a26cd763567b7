"""The IKLR studies' tidy frames (Tables IV–VII and Figs. 2–3): per dataset × method × metric, our
mean and spread over the repetitions beside the paper's value, from the run records.

Shared by the tables (:mod:`kreinbench.pipeline.stages.paper_tables`) and the figures
(:mod:`kreinbench.pipeline.stages.paper_figures`), which render the same frames.
"""

from __future__ import annotations

import math

import pandas as pd

from kreinbench.report.statistics import collapse_stats

STUDY_COLUMNS = ["dataset", "paper_dataset", "method", "label", "paper_method", "metric", "reps", "mean", "std",
                 "paper_mean", "paper_std", "diff", "collapsed", "majority_rate"]
# The metrics of a study that are a test accuracy (whose fits may have collapsed to one class).
ACCURACY_METRICS = ("accuracy", "accuracy_percent")
# How each metric of the run records is named in a table.
METRIC_NAMES = {"accuracy": "accuracy", "train_time": "training time (s)", "test_time": "test time (s)",
                "objective": "final objective", "matvecs": "kernel products"}


def with_final_objectives(runs: pd.DataFrame, history: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with column ``objective``: its value at each run's last outer iteration."""
    last = history.sort_values("iteration").groupby(["dataset", "method", "rep"], sort=False).tail(1)
    return runs.merge(last[["dataset", "method", "rep", "objective"]], on=["dataset", "method", "rep"], how="left")


def study_frame(runs: pd.DataFrame, paper: pd.DataFrame, datasets: dict[str, str], methods: pd.DataFrame,
                metrics: list[str]) -> pd.DataFrame:
    """Per dataset x method x metric of a study: repetitions, our mean and std, the paper's mean
    and std and ``diff`` = our mean − the paper's (empty where the paper has no such cell); on
    accuracy rows, the fits that collapsed to one class and the test halves' majority rate
    (:func:`kreinbench.report.statistics.collapse_stats`).

    ``datasets`` maps ours to the paper's names; ``methods`` has one row per method with the
    columns that, with ``paper_dataset`` and ``metric``, key ``paper`` (``paper_method``, and
    ``init`` for Table VI). Rows follow the order of ``datasets``, ``methods`` and ``metrics``.
    """
    runs = runs[runs["dataset"].isin(datasets) & runs["method"].isin(methods["method"])]
    long = runs.melt(id_vars=["dataset", "method", "label", "rep"], value_vars=metrics, var_name="metric")
    stats = (long.groupby(["dataset", "method", "label", "metric"])["value"]
             .agg(reps="count", mean="mean", std="std").reset_index())
    stats["paper_dataset"] = stats["dataset"].map(datasets)
    stats = stats.merge(methods, on="method")
    keys = [c for c in paper.columns if c not in ("mean", "std")]
    table = stats.merge(paper.rename(columns={"mean": "paper_mean", "std": "paper_std"}), on=keys, how="left")
    table["diff"] = table["mean"] - table["paper_mean"]
    table = table.merge(collapse_stats(runs), on=["dataset", "method"], how="left")
    table.loc[~table["metric"].isin(ACCURACY_METRICS), ["collapsed", "majority_rate"]] = math.nan
    order = {"dataset": list(datasets), "method": list(methods["method"]), "metric": metrics}
    table = table.sort_values(list(order), key=lambda col: col.map({v: i for i, v in enumerate(order[col.name])}))
    extra = [c for c in methods.columns if c not in STUDY_COLUMNS]
    return table[STUDY_COLUMNS[:5] + extra + STUDY_COLUMNS[5:]].reset_index(drop=True)


# Table VI and Fig. 3: α⁽⁰⁾ per row, as the paper prints it.
INIT_NAMES = {"zeros": "α⁽⁰⁾ = 0", "ones": "α⁽⁰⁾ = 1", "minus_ones": "α⁽⁰⁾ = −1", "uniform": "α⁽⁰⁾ᵢ ~ U(0, 1)"}
