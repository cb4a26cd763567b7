"""Comparing many methods over many datasets: average ranks, the Friedman test, Nemenyi's post-hoc
test and the critical-difference diagram (Demšar, "Statistical comparisons of classifiers over
multiple data sets", JMLR 7, 2006, §3.2).

Each dataset is one independent sample (its score: the mean test accuracy over the repetitions),
so a dataset must not enter twice under two names.  Within a dataset the methods are ranked, 1 the
best, ties sharing the mean of their ranks; the Friedman statistic tests whether the average ranks
differ, and its F form (Iman & Davenport) is the one Demšar recommends (the χ² form is
conservative).  The post-hoc p-values and the diagram are scikit-posthocs' (a maintained
implementation, not ours); the critical difference CD = q_α √(k(k+1)/(6N)) is drawn from the
Studentized range quantile, as Demšar's Table 5 tabulates it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats


@dataclass(frozen=True)
class Friedman:
    """The Friedman test of k methods on N datasets."""

    n_datasets: int
    n_methods: int
    chi2: float  # Friedman's χ²_F (Demšar eq. (2)), without a tie correction
    f: float  # Iman–Davenport's F_F = (N − 1)χ²_F / (N(k − 1) − χ²_F)
    p_value: float  # of F_F on (k − 1, (k − 1)(N − 1)) degrees of freedom
    critical_difference: float  # Nemenyi's CD at ``alpha``
    alpha: float


def ranks(scores: pd.DataFrame) -> pd.DataFrame:
    """Each dataset's (row's) ranks of the methods (columns), 1 the highest score, ties averaged."""
    return scores.rank(axis=1, ascending=False, method="average")


def friedman(scores: pd.DataFrame, alpha: float = 0.05) -> Friedman:
    """The Friedman test on ``scores`` (datasets × methods, higher is better; no missing cell)."""
    if scores.isna().any().any():
        missing = scores.columns[scores.isna().any()].tolist()
        raise ValueError(f"the Friedman test needs every method on every dataset: {missing} lack some")
    n, k = scores.shape
    if n < 2 or k < 2:
        raise ValueError(f"the Friedman test needs at least 2 datasets and 2 methods, got {n} and {k}")
    mean_ranks = ranks(scores).mean(axis=0).to_numpy()
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(mean_ranks**2) - k * (k + 1) ** 2 / 4.0)
    denominator = n * (k - 1) - chi2
    f = (n - 1) * chi2 / denominator if denominator > 0 else np.inf
    p_value = float(stats.f.sf(f, k - 1, (k - 1) * (n - 1))) if np.isfinite(f) else 0.0
    # Nemenyi's q_α: the Studentized range quantile over √2 (Demšar Table 5)
    q_alpha = stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0)
    cd = float(q_alpha * np.sqrt(k * (k + 1) / (6.0 * n)))
    return Friedman(n_datasets=n, n_methods=k, chi2=float(chi2), f=float(f), p_value=p_value,
                    critical_difference=cd, alpha=alpha)


def nemenyi(scores: pd.DataFrame) -> pd.DataFrame:
    """Nemenyi's post-hoc p-values for every pair of methods (scikit-posthocs)."""
    import scikit_posthocs  # noqa: PLC0415 (statsmodels and seaborn: only the benchmark's report needs them)

    p_values = scikit_posthocs.posthoc_nemenyi_friedman(scores.to_numpy())
    p_values.index = p_values.columns = scores.columns
    return p_values


def critical_difference_diagram(scores: pd.DataFrame, test: Friedman, ax) -> None:
    """Demšar's diagram on ``ax``: the average ranks, methods joined where Nemenyi's test does not
    separate them at ``test.alpha``."""
    import matplotlib  # noqa: PLC0415
    import scikit_posthocs  # noqa: PLC0415

    # one colour per method (the default cycle repeats after ten)
    palette = [matplotlib.colormaps["tab20"](i % 20) for i in range(scores.shape[1])]
    scikit_posthocs.critical_difference_diagram(ranks(scores).mean(axis=0), nemenyi(scores), alpha=test.alpha,
                                                ax=ax, label_fmt_left="{label} ({rank:.2f})",
                                                label_fmt_right="({rank:.2f}) {label}",
                                                color_palette=dict(zip(scores.columns, palette)))
