"""Stages `ying_table3` and `ying_fig1`: Ying, Campbell and Girolami (NIPS'09) Table 3 and Fig. 1
regenerated from the tidy records of rule `table`, beside the paper's values.

Table 3, per dataset: n, the average extreme eigenvalues of the noisy kernel K₀ on the training
part (of the kernel instance the solvers fitted: in paper-isvm, K₀ at the σ of an SVM's CV on the
clean kernel), and per solver (SMM, SPGM) the test accuracy and the
training time, each beside the paper's, with paired t-tests of the best solver against the other.
Fig. 1: the objective f(α_k) of the proxy-kernel SVM against the iteration, SMM and SPGM.
"""

from __future__ import annotations

import json
import math

import matplotlib.pyplot as plt  # noqa: E402, I001
import pandas as pd

from kreinbench.atomic import write_csv_atomic, write_text_atomic

# kreinbench.report.render selects the Agg backend before pyplot is imported.
from kreinbench.report.render import COLLAPSE_NOTE, collapse_mark, save_figure, to_markdown, wrap
from kreinbench.report.statistics import ALPHA, collapse_stats, paired_tests

# The paper's colours (Fig. 1 caption: SMM blue, SPGM red).
PAPER_COLOURS = {"SMM": "tab:blue", "SPGM": "tab:red"}

TABLE3_COLUMNS = ["dataset", "paper_dataset", "method", "label", "paper_method", "reps", "n", "n_paper",
                  "mu_min", "mu_min_paper", "mu_max", "mu_max_paper", "mean", "std", "paper_mean", "diff",
                  "best", "p_value", "best_significantly_better", "seconds", "seconds_std", "seconds_paper",
                  "speedup", "collapsed", "majority_rate"]


def table3_frame(runs: pd.DataFrame, paper: pd.DataFrame, names: dict[str, dict[str, str]],
                 dataset_order: list[str], method_order: list[str], alpha: float = ALPHA) -> pd.DataFrame:
    """One row per dataset × method of ``runs``: accuracy statistics and t-test
    (:func:`kreinbench.report.statistics.paired_tests`), mean training time, n and the kernel's
    mean μ_min / μ_max over repetitions, each beside the paper's value where ``paper`` (the
    transcribed Table 3, accuracy in %) has it; ``diff`` = our accuracy − the paper's and
    ``speedup`` = the paper's seconds / ours where our n is the paper's (else NaN); the fits that collapsed to one class
    (:func:`kreinbench.report.statistics.collapse_stats`)."""
    table = paired_tests(runs, dataset_order, method_order, alpha)
    per_run = runs.assign(n=runs["n_train"] + runs["n_test"])
    stats = per_run.groupby(["dataset", "method"]).agg(
        n=("n", "first"), mu_min=("kernel_mu_min", "mean"), mu_max=("kernel_mu_max", "mean"),
        seconds=("train_time", "mean"), seconds_std=("train_time", "std"), label=("label", "first"))
    table = table.merge(stats.reset_index(), on=["dataset", "method"])
    table["paper_dataset"] = table["dataset"].map(names["datasets"])
    table["paper_method"] = table["method"].map(names["methods"])
    paper = paper.assign(paper_mean=paper["accuracy"] / 100.0).rename(columns={
        "size": "n_paper", "lambda_min": "mu_min_paper", "lambda_max": "mu_max_paper", "seconds": "seconds_paper"})
    paper = paper[["paper_dataset", "paper_method", "n_paper", "mu_min_paper", "mu_max_paper", "paper_mean",
                   "seconds_paper"]]
    table = table.merge(paper, on=["paper_dataset", "paper_method"], how="left")
    table["diff"] = table["mean"] - table["paper_mean"]
    # A speed-up compares like with like only at the paper's n (a capped or stand-in set is smaller).
    table["speedup"] = (table["seconds_paper"] / table["seconds"]).where(table["n"] == table["n_paper"])
    table = table.merge(collapse_stats(runs), on=["dataset", "method"], how="left")
    return table[TABLE3_COLUMNS]


def _pair(ours: float, theirs: float, digits: int = 3) -> str:
    return f"{ours:.{digits}g}" if math.isnan(theirs) else f"{ours:.{digits}g} ({theirs:.{digits}g})"


def _cell(row) -> str:
    acc = f"{row.mean:.3f} ± {row.std:.3f}"
    acc = f"**{acc}**" if row.best else acc + (" †" if row.best_significantly_better else "")
    acc += collapse_mark(row)
    time = f"{row.seconds:.3g} s"
    if math.isnan(row.paper_mean):
        return f"{acc}; {time}"
    speedup = (f"speed-up {row.speedup:.1f}×" if not math.isnan(row.speedup)
               else f"at the paper's n = {row.n_paper:.0f}, no speed-up")
    return (f"{acc} (paper {row.paper_mean:.3f}, Δ {row.diff:+.3f}); "
            f"{time} (paper {row.seconds_paper:.3g} s, {speedup})")


def table3_markdown(table: pd.DataFrame, alpha: float = ALPHA) -> str:
    """Datasets (rows) × [n, μ_min, μ_max, one column per solver], the paper's layout."""
    datasets = list(dict.fromkeys(table["dataset"]))
    first = table.drop_duplicates("dataset").set_index("dataset")
    wide = table.assign(cell=[_cell(row) for row in table.itertuples(index=False)])
    wide = wide.pivot(index="dataset", columns="method", values="cell").loc[datasets, list(dict.fromkeys(table["method"]))]
    methods = table.drop_duplicates("method").set_index("method")
    wide.columns = [f"{methods.at[m, 'label']} (paper: {methods.at[m, 'paper_method']})" for m in wide.columns]
    # Inserted at the front in reverse, so that the columns read n, λ_min, λ_max.
    for column, ours, theirs in (("λ_max", "mu_max", "mu_max_paper"), ("λ_min", "mu_min", "mu_min_paper"),
                                 ("n", "n", "n_paper")):
        wide.insert(0, column, [_pair(float(first.at[d, ours]), float(first.at[d, theirs])) for d in datasets])
    wide.index = [d if first.at[d, "paper_dataset"] == d else f"{d} (paper: {first.at[d, 'paper_dataset']})"
                  for d in datasets]
    reps = "/".join(map(str, sorted(set(table["reps"]))))
    caption = (
        f"Ying et al. (NIPS'09) Table 3, regenerated: n, the mean extreme eigenvalues of the noisy kernel K₀ on "
        f"the training part, and per solver the test accuracy (mean ± std over {reps} repetitions) and the "
        f"mean training time of the final fit (CV excluded). Paper values in parentheses (10 random 4:1 "
        f"splits, MATLAB). **Bold**: best mean; †: the best solver is significantly better (two-sided paired "
        f"t-test over repetitions, p < {alpha:g}); {COLLAPSE_NOTE}.")
    return to_markdown(wide, caption)


def ying_table3(*, runs: str, paper: str, names: dict, datasets: list[str], methods: list[str], csv: str,
                md: str) -> None:
    """Ying et al. Table 3: accuracy and the kernels' extreme eigenvalues beside the paper's."""
    table = table3_frame(pd.read_csv(runs), pd.read_csv(paper, comment="#"), names, list(datasets), list(methods))
    write_csv_atomic(csv, table)
    write_text_atomic(md, table3_markdown(table))


def fig1_runs(runs: pd.DataFrame, dataset: str, methods: list[str]) -> pd.DataFrame:
    """The repetition each panel plots: the first one where every solver's CV chose the same
    hyper-parameters and kernel (the solvers then maximize the same f, so their curves share the
    maximum, as in the paper's figure); the first repetition when there is none."""
    sub = runs[(runs["dataset"] == dataset) & runs["method"].isin(methods)]
    for rep, group in sub.groupby("rep"):
        if len(group) == len(methods) and group[["params", "kernel_instance"]].nunique().max() == 1:
            return group
    return sub[sub["rep"] == sub["rep"].min()]


def fig1_figure(history: pd.DataFrame, runs: pd.DataFrame, datasets: dict[str, str], methods: dict[str, str]):
    """One panel per dataset (``{ours: paper's name}``): f(α_k) against the iteration k of each solver
    in ``methods`` (``{ours: paper's name}``), log-scaled iterations as SMM needs far fewer."""
    fig, axes = plt.subplots(1, len(datasets), figsize=(5.2 * len(datasets), 4.2), squeeze=False,
                             constrained_layout=True)
    for ax, (dataset, paper_dataset) in zip(axes[0], datasets.items()):
        chosen = fig1_runs(runs, dataset, list(methods))
        notes = []
        for run in chosen.itertuples(index=False):
            curve = history[(history["dataset"] == dataset) & (history["method"] == run.method)
                            & (history["rep"] == run.rep)]
            name = methods[run.method]
            ax.plot(curve["iteration"] + 1, curve["objective"], color=PAPER_COLOURS.get(name), label=name)
            params = ", ".join(f"{k} = {v:g}" for k, v in json.loads(run.params).items())
            notes.append(f"{name}: rep {run.rep}, {run.kernel_instance}, {params}")
        ax.set_xscale("log")
        ax.set_xlabel("iteration k + 1 (log scale)")
        ax.set_ylabel("objective f(α_k) (dual of the proxy-kernel SVM)")
        ax.set_title(f"{paper_dataset}" + (f" (`{dataset}`)" if paper_dataset != dataset else ""))
        ax.grid(alpha=0.3, which="both")
        ax.legend()
        ax.text(0.0, -0.2, "\n".join(notes), transform=ax.transAxes, fontsize=7, va="top")
    fig.suptitle(wrap("Ying et al. (NIPS'09) Fig. 1, regenerated: objective value versus iteration "
                      "(a dual objective, maximized: it rises to its maximum)", 5.2 * len(datasets), 12), fontsize=12)
    return fig


def ying_fig1(*, history: str, runs: str, datasets: dict[str, str], methods: dict[str, str], png: str,
              pdf: str) -> None:
    """Ying et al. Fig. 1: SMM's and SPGM's objective per iteration."""
    fig = fig1_figure(pd.read_csv(history), pd.read_csv(runs), dict(datasets), dict(methods))
    save_figure(fig, png, pdf)
