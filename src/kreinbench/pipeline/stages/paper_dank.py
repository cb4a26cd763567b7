"""Stages `dank_table1`, `dank_table3`, `dank_fig5`, `dank_fig7`, `dank_fig8`: the DANK paper's
(JMLR) classification results regenerated from the tidy records of rule `table`, beside the
paper's values (workflow/paper_values/dank_table{1,3}.csv).

Table 1: test (and training) accuracy of SVM-CV and DANK per UCI dataset, with a paired t-test of
DANK against SVM-CV, beside every column the paper prints (LogDet, BMKL, RF, KNPL: paper only).
Table 3: accuracy, training time and rank(F) of SVM, exact DANK and k-means-partitioned DANK on
the large sets. Fig. 5: DANK with and without the low-rank regularizer. Fig. 7: out-of-sample
extensions of F against the number of training points. Fig. 8: sensitivity to τ and η.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt  # noqa: E402, I001
import numpy as np
import pandas as pd

from kreinbench.atomic import write_csv_atomic, write_text_atomic

# kreinbench.report.render selects the Agg backend before pyplot is imported.
from kreinbench.report.render import COLLAPSE_NOTE, collapse_mark, save_figure, scaling_note, to_markdown
from kreinbench.report.statistics import ALPHA, collapse_stats, paired_tests

# Table 1's columns in the paper's order; those we run are mapped to config methods by the config.
TABLE1_PAPER_METHODS = ("LogDet", "BMKL", "RF", "SVM-CV", "KNPL", "DANK")
TABLE1_COLUMNS = ["paper_dataset", "dataset", "paper_method", "method", "reps", "n_train", "n_test", "n_paper", "d_paper",
                  "mean", "std", "paper_mean", "paper_std", "diff", "train_mean", "train_std", "paper_train_mean",
                  "paper_train_std", "train_diff", "p_value", "significant", "paper_significant", "collapsed", "majority_rate"]
# Table 3's columns in the paper's order (method and setting).
TABLE3_PAPER_COLUMNS = ("SVM-SMO", "LogDet exact", "LogDet scalable", "BMKL exact", "BMKL scalable", "RF",
                        "DANK exact", "DANK scalable")
TABLE3_COLUMNS = ["paper_dataset", "dataset", "column", "method", "reps", "n_train", "n_test", "accuracy",
                  "accuracy_std", "paper_accuracy", "diff", "seconds", "seconds_std", "paper_seconds", "rank_F",
                  "paper_rank_F", "collapsed", "majority_rate"]


def _percent(runs: pd.DataFrame) -> pd.DataFrame:
    """Accuracies in %, as the paper prints them."""
    return runs.assign(accuracy=100.0 * runs["accuracy"], train_accuracy=100.0 * runs["train_accuracy"])


def table1_frame(runs: pd.DataFrame, paper: pd.DataFrame, settings: dict, alpha: float = ALPHA) -> pd.DataFrame:
    """One row per (dataset, Table 1 column): ours (SVM-CV, DANK: test and training accuracy in %,
    mean and std over repetitions) beside the paper's, ``diff`` = ours − the paper's, and the
    two-sided paired t-test of DANK against SVM-CV over repetitions (``significant``: DANK's mean
    is higher and p < ``alpha``, the paper's "•"). Paper-only rows (datasets we do not run, methods
    we do not implement) keep our columns empty; the paper's row order comes first. ``collapsed``
    counts the fits that predict (nearly) one class, ``majority_rate`` is the test halves' (a
    fraction: :func:`kreinbench.report.statistics.collapse_stats`)."""
    collapse = collapse_stats(runs)
    runs = _percent(runs)
    ours = {"SVM-CV": settings["svm"], "DANK": settings["dank"]}
    names = settings["datasets"]
    tests = paired_tests(runs, list(names), list(ours.values()), alpha).set_index(["dataset", "method"])
    rows = []
    for dataset, paper_dataset in names.items():
        sub = runs[runs["dataset"] == dataset]
        for paper_method, method in ours.items():
            acc = sub[sub["method"] == method]
            if acc.empty:
                continue
            other = ours["SVM-CV"] if paper_method == "DANK" else ours["DANK"]
            p_value, significant = math.nan, False
            if (dataset, other) in tests.index and (dataset, method) in tests.index:
                # paired_tests compares the best of the two against the other: the p-value sits on
                # the other's row, and a significant win is the best's.
                best = bool(tests.at[(dataset, method), "best"])
                p_value = float(tests.at[(dataset, other if best else method), "p_value"])
                # The paper's "•" marks wins of the data-adaptive method only.
                significant = (paper_method == "DANK" and best
                               and bool(tests.at[(dataset, other), "best_significantly_better"]))
            rows.append({"paper_dataset": paper_dataset, "dataset": dataset, "paper_method": paper_method,
                         "method": method, "reps": len(acc), "n_train": int(acc["n_train"].iloc[0]),
                         "n_test": int(acc["n_test"].iloc[0]),
                         "mean": acc["accuracy"].mean(), "std": acc["accuracy"].std(),
                         "train_mean": acc["train_accuracy"].mean(), "train_std": acc["train_accuracy"].std(),
                         "p_value": p_value, "significant": significant})
    measured = pd.DataFrame(rows, columns=["paper_dataset", "dataset", "paper_method", "method", "reps", "n_train",
                                           "n_test", "mean",
                                           "std", "train_mean", "train_std", "p_value", "significant"])
    test = paper[paper["split"] == "test"].rename(columns={"mean": "paper_mean", "std": "paper_std",
                                                           "n": "n_paper", "d": "d_paper",
                                                           "significant": "paper_significant"})
    train = paper[paper["split"] == "train"][["paper_dataset", "paper_method", "mean", "std"]].rename(
        columns={"mean": "paper_train_mean", "std": "paper_train_std"})
    test = test.drop(columns="split").merge(train, on=["paper_dataset", "paper_method"], how="left")
    table = test.merge(measured, on=["paper_dataset", "paper_method"], how="outer")
    # Our datasets the paper lacks (none in the paper config) come after the paper's rows.
    order = {d: i for i, d in enumerate(dict.fromkeys([*paper["paper_dataset"], *names.values()]))}
    table["_row"] = table["paper_dataset"].map(order)
    table["_col"] = table["paper_method"].map({m: i for i, m in enumerate(TABLE1_PAPER_METHODS)})
    table = table.sort_values(["_row", "_col"], kind="stable").drop(columns=["_row", "_col"]).reset_index(drop=True)
    table["diff"] = table["mean"] - table["paper_mean"]
    table["train_diff"] = table["train_mean"] - table["paper_train_mean"]
    table["paper_significant"] = table["paper_significant"].fillna(0).astype(bool)
    table["significant"] = table["significant"].eq(True)  # NaN (paper-only rows): not significant
    table = table.merge(collapse, on=["dataset", "method"], how="left")
    return table.reindex(columns=TABLE1_COLUMNS)


def _repetitions(table: pd.DataFrame) -> str:
    """The repetition counts of the measured rows, e.g. "10" or "9/10"."""
    return "/".join(str(int(r)) for r in sorted(set(table["reps"].dropna()))) or "0"


def _num(value: float, digits: int = 1) -> str:
    return "" if pd.isna(value) else f"{value:.{digits}f}"


def _ours_vs_paper(mean, std, paper_mean, paper_std, diff, mark: str = "") -> str:
    """"ours ± std mark (paper p ± s, Δ d)"; the paper's value alone where we have none."""
    paper = f"{_num(paper_mean)} ± {_num(paper_std)}" if not pd.isna(paper_mean) else ""
    if pd.isna(mean):
        return f"paper {paper}" if paper else ""
    ours = f"{_num(mean)} ± {_num(std)}{mark}"
    return f"{ours} (paper {paper}, Δ {diff:+.1f})" if paper else ours


def table1_markdown(table: pd.DataFrame, alpha: float = ALPHA, scaling: str = "") -> str:
    """Datasets (rows) × the paper's columns: (d, n), LogDet, BMKL, RF, SVM-CV training and test,
    KNPL, DANK training and test."""
    header = ["n train + test (paper's (d, n))", "LogDet", "BMKL", "RF", "SVM-CV training", "SVM-CV test", "KNPL",
              "DANK training", "DANK test"]
    index, cells = [], []
    for paper_dataset, group in table.groupby("paper_dataset", sort=False):
        by = group.set_index("paper_method")
        dataset = group["dataset"].dropna()
        name = paper_dataset if dataset.empty or dataset.iloc[0] == paper_dataset else f"{paper_dataset} (`{dataset.iloc[0]}`)"
        measured = group.dropna(subset=["n_train"])
        paper_dn = ("" if pd.isna(group["d_paper"].iloc[0])
                    else f"({_num(group['d_paper'].iloc[0], 0)}, {_num(group['n_paper'].iloc[0], 0)})")
        size = (f"{int(measured['n_train'].iloc[0])} + {int(measured['n_test'].iloc[0])} {paper_dn}".strip()
                if not measured.empty
                else f"not run {paper_dn}")
        row = [size]
        for method in TABLE1_PAPER_METHODS:
            r = by.loc[method] if method in by.index else None
            if r is None:
                row += [""] * (2 if method in ("SVM-CV", "DANK") else 1)
                continue
            mark = " •" if r["significant"] else ""
            paper_mark = " •" if r["paper_significant"] else ""
            if method in ("SVM-CV", "DANK"):
                row.append(_ours_vs_paper(r["train_mean"], r["train_std"], r["paper_train_mean"], r["paper_train_std"],
                                          r["train_diff"]))
            test = _ours_vs_paper(r["mean"], r["std"], r["paper_mean"], r["paper_std"], r["diff"],
                                  mark + collapse_mark(r))
            row.append(test + paper_mark if pd.isna(r["mean"]) else test)
        index.append(name)
        cells.append(row)
    wide = pd.DataFrame(cells, index=index, columns=header)
    reps = _repetitions(table)
    caption = (
        f"DANK (JMLR) Table 1, regenerated: accuracy in % (mean ± std over {reps} repetitions; the paper: 10"
        f"{f'; {scaling}' if scaling else ''}), "
        f"test and, for SVM-CV and DANK, training accuracy. Ours first, the paper's in parentheses with "
        f"Δ = ours − paper's; LogDet, BMKL, RF and KNPL are not implemented (paper values only). •: DANK is "
        f"significantly better than SVM-CV (two-sided paired t-test over repetitions, p < {alpha:g}); a • after "
        f"a paper value is the paper's mark; {COLLAPSE_NOTE}. Rows 'not run': multiclass sets the binary "
        f"pipeline does not run.")
    return to_markdown(wide, caption)


def write_table(frame, markdown, *, runs: str, paper: str, settings: dict, csv: str, md: str) -> None:
    """Rule body of a table: ``frame(runs, paper values, settings)`` as ``csv`` and ``markdown`` of it as ``md``."""
    table = frame(pd.read_csv(runs), pd.read_csv(paper, comment="#"), settings)
    write_csv_atomic(csv, table)
    write_text_atomic(md, markdown(table))


def dank_table1(*, runs: str, paper: str, settings: dict, csv: str, md: str) -> None:
    """DANK Table 1: SVM against DANK on the small UCI sets, beside the paper's."""
    records = pd.read_csv(runs)
    table = table1_frame(records, pd.read_csv(paper, comment="#"), settings)
    write_csv_atomic(csv, table)
    fitted = records[records["dataset"].isin(settings["datasets"])]
    write_text_atomic(md, table1_markdown(table, scaling=scaling_note(fitted)))


def table3_frame(runs: pd.DataFrame, paper: pd.DataFrame, settings: dict) -> pd.DataFrame:
    """One row per (dataset, Table 3 column): ours where the config runs the column (accuracy in %,
    mean training time, mean rank(F)) beside the paper's; paper-only rows otherwise; the fits that
    collapsed to one class as in :func:`table1_frame`."""
    rows = []
    for dataset, columns in settings["columns"].items():
        for column, method in columns.items():
            sub = runs[(runs["dataset"] == dataset) & (runs["method"] == method)]
            if sub.empty:
                continue
            rows.append({"paper_dataset": settings["datasets"][dataset], "dataset": dataset, "column": column,
                         "method": method, "reps": len(sub), "n_train": int(sub["n_train"].iloc[0]),
                         "n_test": int(sub["n_test"].iloc[0]), "accuracy": 100.0 * sub["accuracy"].mean(),
                         "accuracy_std": 100.0 * sub["accuracy"].std(), "seconds": sub["train_time"].mean(),
                         "seconds_std": sub["train_time"].std(), "rank_F": sub["rank_F"].mean()})
    measured = pd.DataFrame(rows, columns=["paper_dataset", "dataset", "column", "method", "reps", "n_train",
                                           "n_test", "accuracy", "accuracy_std", "seconds", "seconds_std", "rank_F"])
    paper = paper.rename(columns={"accuracy": "paper_accuracy", "seconds": "paper_seconds", "rank_F": "paper_rank_F"})
    table = paper.merge(measured, on=["paper_dataset", "column"], how="outer")
    order = {d: i for i, d in enumerate(dict.fromkeys([*paper["paper_dataset"], *settings["datasets"].values()]))}
    table["_row"] = table["paper_dataset"].map(order)
    table["_col"] = table["column"].map({c: i for i, c in enumerate(TABLE3_PAPER_COLUMNS)})
    table = table.sort_values(["_row", "_col"], kind="stable").drop(columns=["_row", "_col"]).reset_index(drop=True)
    table["diff"] = table["accuracy"] - table["paper_accuracy"]
    table = table.merge(collapse_stats(runs), on=["dataset", "method"], how="left")
    return table.reindex(columns=TABLE3_COLUMNS)


def _pair(ours, theirs, fmt, failed: bool) -> str:
    """Ours beside the paper's value; "×" where the paper's method failed, nothing where the paper
    prints no such number (rank(F) of covtype's scalable DANK)."""
    theirs_text = "×" if failed else ("" if pd.isna(theirs) else fmt(theirs))
    if pd.isna(ours):
        return f"paper {theirs_text}" if theirs_text else ""
    return f"{fmt(ours)} (paper {theirs_text})" if theirs_text else fmt(ours)


def table3_markdown(table: pd.DataFrame) -> str:
    """The paper's layout: per dataset, rows acc. (%), time (s) and rank(F); columns the methods."""
    index, cells = [], []
    for paper_dataset, group in table.groupby("paper_dataset", sort=False):
        by = group.set_index("column")
        measured = group.dropna(subset=["reps"])
        size = (f"{paper_dataset}, n = {int(measured['n_train'].iloc[0])} / {int(measured['n_test'].iloc[0])}"
                if not measured.empty else f"{paper_dataset} (not run)")
        for metric, ours, theirs, fmt in (("acc. (%)", "accuracy", "paper_accuracy", lambda v: f"{v:.1f}"),
                                          ("time (s)", "seconds", "paper_seconds", lambda v: f"{v:.3g}"),
                                          ("rank(F)", "rank_F", "paper_rank_F", lambda v: f"{v:.0f}")):
            row = []
            for column in TABLE3_PAPER_COLUMNS:
                if column not in by.index or (metric == "rank(F)" and not column.startswith("DANK")):
                    row.append("")
                    continue
                r = by.loc[column]
                cell = _pair(r[ours], r[theirs], fmt, failed=pd.isna(r["paper_accuracy"]))
                if metric == "acc. (%)" and not pd.isna(r[ours]):
                    cell = cell.replace(" (paper", f" ± {r['accuracy_std']:.1f}{collapse_mark(r)} (paper", 1)
                row.append(cell)
            index.append(f"{size}: {metric}")
            cells.append(row)
    wide = pd.DataFrame(cells, index=index, columns=list(TABLE3_PAPER_COLUMNS))
    reps = _repetitions(table)
    caption = (
        f"DANK (JMLR) Table 3, regenerated: test accuracy (mean ± std over {reps} repetitions), mean training "
        f"time of the final fit in seconds (this machine, Python; the paper: MATLAB on a 2.3 GHz Xeon) and "
        f"rank(F) (scalable: the sum over the k-means blocks). Settings of Table 2 (C = 32, fixed σ, v "
        f"clusters); n = training / test points we ran, which may be capped (see the config). Paper values in "
        f"parentheses, × = the paper's failure for lack of memory; {COLLAPSE_NOTE}; LogDet, BMKL and RF are "
        f"not implemented; covtype is not run (not in the mirror).")
    return to_markdown(wide, caption, index_name="dataset: metric")


def dank_table3(*, runs: str, paper: str, settings: dict, csv: str, md: str) -> None:
    """DANK Table 3: exact and scalable DANK on the large sets, beside the paper's."""
    write_table(table3_frame, table3_markdown, runs=runs, paper=paper, settings=settings, csv=csv, md=md)


def _stats(runs: pd.DataFrame, dataset: str, method: str, column: str = "accuracy", scale: float = 100.0):
    values = scale * runs[(runs["dataset"] == dataset) & (runs["method"] == method)][column]
    return (float(values.mean()), float(values.std()) if len(values) > 1 else 0.0) if len(values) else (math.nan, math.nan)


def fig5_figure(runs: pd.DataFrame, paper: pd.DataFrame, settings: dict):
    """Grouped bars per dataset: test accuracy of DANK with (τ > 0) and without (τ = 0) the
    low-rank regularizer, mean ± std; the paper's Table 1 DANK value (its τ = 0.01) as a marker."""
    datasets = settings["datasets"]
    x = np.arange(len(datasets))
    width = 0.38
    fig, ax = plt.subplots(figsize=(max(6.4, 1.0 * len(datasets) + 2), 4.4), constrained_layout=True)
    for offset, key, label, colour in ((-width / 2, "with", "DANK (with low rank)", "tab:red"),
                                       (width / 2, "without", "DANK (without low rank)", "tab:blue")):
        stats = [_stats(runs, d, settings[key]) for d in datasets]
        ax.bar(x + offset, [m for m, _ in stats], width, yerr=[s for _, s in stats], capsize=3, color=colour,
               label=label)
    table1 = paper[(paper["paper_method"] == "DANK") & (paper["split"] == "test")].set_index("paper_dataset")["mean"]
    marks = [table1.get(name, math.nan) for name in datasets.values()]
    ax.plot(x - width / 2, marks, "k_", markersize=18, markeredgewidth=2, label="paper, Table 1 DANK (τ = 0.01)")
    ax.set_xticks(x, list(datasets.values()))
    ax.set_ylabel("test accuracy (%)")
    low = np.nanmin([_stats(runs, d, settings[k])[0] for d in datasets for k in ("with", "without")] + marks)
    ax.set_ylim(max(0.0, low - 15.0), 100.0)
    ax.grid(axis="y", alpha=0.3)
    # Below the axes: inside, the legend would cover the last bars.
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8)
    ax.set_title("DANK (JMLR) Fig. 5, regenerated: influence of the low-rank constraint on test accuracy")
    return fig


def dank_fig5(*, runs: str, paper: str, settings: dict, png: str, pdf: str) -> None:
    """DANK Fig. 5 (:func:`fig5_figure`)."""
    save_figure(fig5_figure(pd.read_csv(runs), pd.read_csv(paper, comment="#"), settings), png, pdf)


def fig7_frame(runs: pd.DataFrame, settings: dict) -> pd.DataFrame:
    """Per dataset × extension: n (training points), accuracy (%) and prediction time (s), mean and std."""
    rows = []
    for dataset in settings["datasets"]:
        for legend, method in settings["methods"].items():
            sub = runs[(runs["dataset"] == dataset) & (runs["method"] == method)]
            if sub.empty:
                continue
            rows.append({"dataset": dataset, "extension": legend, "n": int(sub["n_train"].iloc[0]),
                         "accuracy": 100.0 * sub["accuracy"].mean(), "accuracy_std": 100.0 * sub["accuracy"].std(),
                         "seconds": sub["test_time"].mean(), "seconds_std": sub["test_time"].std()})
    return pd.DataFrame(rows).sort_values(["extension", "n"], kind="stable")


def fig7_figure(runs: pd.DataFrame, settings: dict):
    """(a) test accuracy and (b) prediction time (extension included) against n, one line per extension."""
    frame = fig7_frame(runs, settings)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), constrained_layout=True)
    for legend in settings["methods"]:
        sub = frame[frame["extension"] == legend]
        axes[0].errorbar(sub["n"], sub["accuracy"], yerr=sub["accuracy_std"].fillna(0.0), marker="o", capsize=3,
                         label=legend)
        axes[1].errorbar(sub["n"], sub["seconds"], yerr=sub["seconds_std"].fillna(0.0), marker="o", capsize=3,
                         label=legend)
    axes[0].set_ylabel("test accuracy (%)")
    axes[1].set_ylabel("prediction time incl. extension of F (s)")
    for ax, title in zip(axes, ("(a) test accuracy", "(b) time cost")):
        ax.set_xlabel("number of training points n (ijcnn1)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, title="out-of-sample extension")
    fig.suptitle("DANK (JMLR) Fig. 7, regenerated: out-of-sample extensions of F "
                 "(Pan et al. 2017's hyper-RKHS extension is not implemented)")
    return fig


def dank_fig7(*, runs: str, settings: dict, png: str, pdf: str) -> None:
    """DANK Fig. 7 (:func:`fig7_figure`)."""
    save_figure(fig7_figure(pd.read_csv(runs), settings), png, pdf)


def fig8_figure(runs: pd.DataFrame, settings: dict):
    """(a) test accuracy against τ, (b) against η/C², one line per dataset (mean over repetitions),
    and in (b) the baseline η = ‖α_SVM‖² as a dashed line of the dataset's colour."""
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 4.6), constrained_layout=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (dataset, name) in enumerate(settings["datasets"].items()):
        colour = colours[i % len(colours)]
        for ax, key in zip(axes, ("tau", "eta")):
            values = list(settings[key].values())
            means = [_stats(runs, dataset, m)[0] for m in settings[key]]
            ax.plot(values, means, marker="o", color=colour, label=name)
        baseline = _stats(runs, dataset, settings["baseline"])[0]
        axes[1].axhline(baseline, color=colour, linestyle="--", linewidth=1)
    axes[1].plot([], [], "k--", linewidth=1, label="η = ‖α‖²₂ (baseline)")
    axes[0].set_xlabel("τ (log scale; η = ‖α‖²₂)")
    axes[1].set_xlabel("η / C² (log scale; τ = 0.01)")
    for ax, title in zip(axes, ("(a) influence of τ", "(b) influence of η")):
        ax.set_xscale("log")
        ax.set_ylabel("test accuracy (%)")
        ax.set_title(title)
        ax.grid(alpha=0.3, which="both")
    # One legend below both panels (the same datasets and colours): inside, it covered curves.
    fig.legend(*axes[1].get_legend_handles_labels(), loc="outside lower center", ncol=len(settings["datasets"]) + 1,
               fontsize=8)
    fig.suptitle("DANK (JMLR) Fig. 8, regenerated: parameter sensitivity of τ and η (mean over repetitions)")
    return fig


def dank_fig8(*, runs: str, settings: dict, png: str, pdf: str) -> None:
    """DANK Fig. 8 (:func:`fig8_figure`)."""
    save_figure(fig8_figure(pd.read_csv(runs), settings), png, pdf)
