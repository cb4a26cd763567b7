"""Stages `iklr_fig3`, `iklr_fig_init`, `iklr_fig2` and `iklr_mm17_fig1`: IKLR (TNNLS, MM'17) figures
regenerated from the tidy records of rule `table`.

Fig. 3 plots the objective against the outer iteration for CCCP-GD (red), CCICP-GD (blue) and
CCICP-SGD (green); MM'17's Fig. 1 is the same plot of its CCICP (red) and CCCP (blue) on monks1.
We draw one panel per method and dataset (small multiples), each on its own scale: our runs
include CCCP-GD runs that run away to −10⁴ and CCICP-GD runs that oscillate in the hundreds,
which on one shared axis would flatten every other curve to a line. Each of our runs fits its own
CV-chosen λ, so the curves of one panel need not share an objective; the note under each panel
gives every run's λ, its title what the runs' objectives did (ran away, rose).
"""

from __future__ import annotations

import json
import string

import matplotlib.pyplot as plt  # noqa: E402, I001
import pandas as pd
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from kreinbench.atomic import write_csv_atomic
from kreinbench.pipeline.plan_iklr import MM17_FIG1_COLOURS

# kreinbench.report.render selects the Agg backend before pyplot is imported.
from kreinbench.report.render import (
    MARK_LEGEND,
    MARK_STYLES,
    drawn_mark,
    objective_marks,
    objective_scale,
    objective_summary,
    reps_text,
    save_figure,
    wrap,
)
from kreinbench.report.studies import INIT_NAMES, METRIC_NAMES, study_frame, with_final_objectives

# The paper's colours for its three solvers (Fig. 3 caption).
PAPER_COLOURS = {"CCCP-GD": "tab:red", "CCICP-GD": "tab:blue", "CCICP-SGD": "tab:green"}
# Inches of one panel of Fig. 3.
PANEL_WIDTH, PANEL_HEIGHT = 6.0, 3.4


def _lambda_note(runs: pd.DataFrame) -> str:
    """The CV-chosen λ of each repetition of one method, e.g. ``λ by rep 1–3: 5, 0.1, 1``."""
    lams = [json.loads(params).get("lam") for params in runs["params"]]
    return (f"λ by rep {reps_text(runs['rep'].tolist())}: "
            + ", ".join("–" if lam is None else f"{lam:g}" for lam in lams))


def _objective_panel(ax, history: pd.DataFrame, runs_of: pd.DataFrame, colour: str) -> dict[int, dict[str, bool]]:
    """Every run of one method on one dataset: a line per repetition, its last point marked when
    the objective ran away or ended above its start; returns each repetition's marks."""
    marks, values = {}, []
    for run in runs_of.itertuples(index=False):
        hist = history[history["rep"] == run.rep]
        ax.plot(hist["iteration"], hist["objective"], "-o", ms=2.5, lw=1.0, alpha=0.75, color=colour)
        marks[run.rep] = objective_marks(hist["objective"], bool(run.diverged))
        last = (hist["iteration"].iloc[-1], hist["objective"].iloc[-1])
        drawn = drawn_mark(marks[run.rep])
        if drawn:
            ax.plot(*last, **MARK_STYLES[drawn])
        values += hist["objective"].tolist()
    ax.set_ylabel(f"objective f(α_k, b_k)\n(nats per point; {objective_scale(ax, values)})", fontsize=9)
    return marks


FIG3_TITLE = "IKLR (TNNLS) Fig. 3, regenerated: objective per outer iteration of CCCP-GD, CCICP-GD, CCICP-SGD"


def fig3_figure(history: pd.DataFrame, runs: pd.DataFrame, datasets: list[str], methods: dict[str, str],
                colours: dict[str, str] = PAPER_COLOURS, title: str = FIG3_TITLE):
    """One panel per method (rows) and dataset (columns): the objective per outer iteration of each
    run of ``methods`` (``{ours: paper's name}``), one line per repetition, coloured as in the paper
    (``colours``: paper's name -> colour); ``title`` names the paper's figure.

    A diverged run (IKLR stopped on a runaway ‖α‖: on an indefinite kernel the objective is
    unbounded below) is marked ✕ at its last point, a run that ended above its starting objective
    ▲; each panel's title names them, and a panel whose objective leaves ±10 is drawn on a
    symmetric log scale so that every run stays visible.
    """
    fig, axes = plt.subplots(len(methods), len(datasets), figsize=(PANEL_WIDTH * len(datasets),
                                                                   PANEL_HEIGHT * len(methods) + 1.2),
                             squeeze=False, constrained_layout=True)
    letters, seen = iter(string.ascii_lowercase), set()
    for row, (method, paper_name) in enumerate(methods.items()):
        for col, dataset in enumerate(datasets):
            ax = axes[row][col]
            runs_of = runs[(runs["dataset"] == dataset) & (runs["method"] == method)].sort_values("rep")
            hist = history[(history["dataset"] == dataset) & (history["method"] == method)]
            marks = _objective_panel(ax, hist, runs_of, colours[paper_name])
            seen |= {drawn_mark(m) for m in marks.values()}
            ax.set_title(wrap(f"({next(letters)}) {paper_name} on {dataset}: {objective_summary(marks)}",
                              PANEL_WIDTH, 9), fontsize=9)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel(wrap(f"outer iteration k (count); {_lambda_note(runs_of)}", PANEL_WIDTH - 0.8, 8),
                          fontsize=8)
            ax.grid(alpha=0.3)
    handles = [Line2D([], [], color=colours[name], marker="o", ms=3, label=f"{name} (one line per repetition)")
               for name in methods.values()]
    handles += [Line2D([], [], **style, label=label) for key, style, label in MARK_LEGEND if key in seen]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=8)
    width = PANEL_WIDTH * len(datasets)
    fig.suptitle(wrap(f"{title}\nf = mean logistic loss + (λ/2) αᵀKα on the training half; λ chosen by CV per "
                      "run; each panel on its own scale", width, 10), fontsize=10)
    return fig


def iklr_fig3(*, history: str, runs: str, datasets: list[str], methods: dict[str, str], png: str, pdf: str) -> None:
    """Fig. 3: the objective per outer iteration of ``methods`` on ``datasets``."""
    fig = fig3_figure(pd.read_csv(history), pd.read_csv(runs), list(datasets), dict(methods))
    save_figure(fig, png, pdf)


def iklr_mm17_fig1(*, history: str, runs: str, datasets: list[str], methods: dict[str, str], png: str,
                   pdf: str) -> None:
    """MM'17 Fig. 1: Fig. 3's layout for CCICP and CCCP."""
    fig = fig3_figure(pd.read_csv(history), pd.read_csv(runs), list(datasets), dict(methods),
                      colours=MM17_FIG1_COLOURS,
                      title="IKLR (MM'17) Fig. 1, regenerated: objective per outer iteration of CCICP "
                            "(MM'17 Algorithm 1) and CCCP")
    save_figure(fig, png, pdf)


def fig_init_figure(table: pd.DataFrame, runs: pd.DataFrame):
    """Accuracy (top) and final objective (bottom) per initialization α⁽⁰⁾, one column per dataset:
    each repetition a dot, mean ± std a bar, CCICP-GD and CCICP-SGD side by side in Fig. 3's colours.
    ``table`` is Table VI's frame (:func:`kreinbench.pipeline.stages.paper_tables.table6_frame`), ``runs``
    the per-repetition values it summarises (columns dataset, method, accuracy, objective)."""
    datasets = list(dict.fromkeys(table["dataset"]))
    inits = [i for i in INIT_NAMES if i in set(table["init"])]
    solvers = list(dict.fromkeys(table["paper_method"]))
    fig, axes = plt.subplots(2, len(datasets), figsize=(max(6.4, 5.2 * len(datasets)), 7.5), squeeze=False,
                             constrained_layout=True)
    metrics = {"accuracy": "test accuracy (fraction correct)", "objective": "final objective f(α, b) (nats per point)"}
    for col, dataset in enumerate(datasets):
        paper_name = table.loc[table["dataset"] == dataset, "paper_dataset"].iloc[0]
        for row, (metric, ylabel) in enumerate(metrics.items()):
            ax = axes[row][col]
            for s, solver in enumerate(solvers):
                offset = (s - (len(solvers) - 1) / 2) * 0.2
                cells = table[(table["dataset"] == dataset) & (table["paper_method"] == solver)
                              & (table["metric"] == metric)].set_index("init")
                for x, init in enumerate(inits):
                    if init not in cells.index:
                        continue
                    values = runs.loc[(runs["dataset"] == dataset) & (runs["method"] == cells.at[init, "method"]), metric]
                    ax.plot([x + offset] * len(values), values, "o", ms=3, alpha=0.4, color=PAPER_COLOURS[solver])
                    ax.errorbar(x + offset, cells.at[init, "mean"], yerr=cells.at[init, "std"], fmt="s", capsize=4,
                                color=PAPER_COLOURS[solver])
            ax.set_xticks(range(len(inits)), [INIT_NAMES[i] for i in inits], fontsize=8)
            ax.set_xlim(-0.5, len(inits) - 0.5)
            ax.set_xlabel("initialization α⁽⁰⁾")
            title = f"{dataset}" + (f" (paper: {paper_name})" if paper_name != dataset else "")
            if metric == "objective":
                # A run that ran away ends far below the others: a symmetric log scale keeps them apart.
                plotted = runs[(runs["dataset"] == dataset) & runs["method"].isin(table["method"])]
                ylabel = f"{ylabel}\n({objective_scale(ax, plotted[metric])})"
                away = int(plotted["diverged"].fillna(False).astype(bool).sum()) if "diverged" in plotted else 0
                # On a line of its own: beside a long dataset name it left the canvas.
                title += f"\n{away} of {len(plotted)} runs ran away (diverged)" if away else "\nno run ran away"
            ax.set_ylabel(ylabel)
            ax.set_title(title)
            ax.grid(alpha=0.3)
            ax.legend(handles=[Line2D([], [], color=PAPER_COLOURS[name], marker="s", label=name) for name in solvers],
                      fontsize=8)
    fig.suptitle("IKLR (TNNLS) Table VI as a figure (iklr_fig_init):\nCCICP-GD and CCICP-SGD from four "
                 "initializations α⁽⁰⁾\ndots: repetitions; squares and bars: mean ± std; λ by CV per run",
                 fontsize=10)
    return fig


def iklr_fig_init(*, table: str, runs: str, history: str, png: str, pdf: str) -> None:
    """Table VI as a figure: accuracy and final objective per initialization."""
    frame = with_final_objectives(pd.read_csv(runs), pd.read_csv(history))
    save_figure(fig_init_figure(pd.read_csv(table), frame), png, pdf)


# Fig. 2: test accuracy (a) and training time (b) of CCICP-GD against ε.

# The paper's colours for its two datasets, in the study's order (monks1 red, guide1-t blue).
FIG2_COLOURS = ["tab:red", "tab:blue", "tab:green", "tab:purple"]
# (c) is the cost in a unit that does not depend on the machine or its load: (b) of a fit that
# takes a tenth of a second is mostly noise on a shared machine.
FIG2_METRICS = {"accuracy": "(a) test accuracy (fraction correct)", "train_time": "(b) training time (s)",
                "matvecs": "(c) kernel products of the final fit (count)"}
# What §V-D says of Fig. 2, the figure's only values we can compare with (printed on the figure).
FIG2_PAPER_SAYS = ("paper (§V-D): accuracy \"not sensitive to ε\"; on monks1 the training time \"does not "
                   "dramatically decrease\"\nfrom ε = 0.0001 to 0.01 \"and then it rapidly falls down\"")
# Fig. 2 is a plot, so no paper values were transcribed: the frame has ours alone.
NO_PAPER_VALUES = pd.DataFrame(columns=["paper_dataset", "paper_method", "mean", "std"])


def with_kernel_products(runs: pd.DataFrame, history: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with ``matvecs``: the kernel products of each run's final fit (its history's last count)."""
    last = history.groupby(["dataset", "method", "rep"], as_index=False)["matvecs"].max()
    return runs.merge(last, on=["dataset", "method", "rep"], how="left")


def fig2_frame(runs: pd.DataFrame, datasets: dict[str, str], methods: dict[str, float]) -> pd.DataFrame:
    """The data of Fig. 2: per dataset x method x metric (accuracy, training time, kernel products
    (``runs`` from :func:`with_kernel_products`)), repetitions,
    mean and std, with the method's ε (rows by ε within a dataset). ``datasets`` maps ours to the
    paper's names; ``methods`` (CCICP-GD, :func:`kreinbench.pipeline.plan_iklr.fig2_methods`) is ``{ours: ε}``."""
    by_eps = dict(sorted(methods.items(), key=lambda item: item[1]))
    frame = pd.DataFrame({"method": list(by_eps), "paper_method": "CCICP-GD", "eps": list(by_eps.values())})
    table = study_frame(runs, NO_PAPER_VALUES, datasets, frame, list(FIG2_METRICS))
    return table.drop(columns=["paper_mean", "paper_std", "diff"])


def _fig2_panel(ax, cells: pd.DataFrame, runs: pd.DataFrame, metric: str, colour: str, label: str) -> None:
    """One dataset's ``metric`` against ε: each repetition a dot, mean ± std a line with bars."""
    for row in cells.itertuples(index=False):
        values = runs.loc[(runs["dataset"] == row.dataset) & (runs["method"] == row.method), metric]
        ax.plot([row.eps] * len(values), values, "o", ms=3, alpha=0.35, color=colour)
    ax.errorbar(cells["eps"], cells["mean"], yerr=cells["std"], fmt="s-", capsize=4, color=colour, label=label)
    ax.set_xscale("log")
    ax.set_xticks(cells["eps"], [f"{eps:g}" for eps in cells["eps"]], fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel("inexact parameter ε (log scale)")
    ax.set_ylabel(FIG2_METRICS[metric])
    ax.grid(alpha=0.3)
    ax.legend(handles=[Line2D([], [], color=colour, marker="s", label=label),
                       Line2D([], [], color=colour, marker="o", ms=3, alpha=0.35, linestyle="", label="repetitions")],
              fontsize=8)


def fig2_figure(table: pd.DataFrame, runs: pd.DataFrame):
    """Fig. 2 from its frame (:func:`fig2_frame`) and the runs it summarises: one row per metric,
    (a) accuracy, (b) training time and (c) kernel products, one column per dataset, coloured as in
    the paper."""
    datasets = list(dict.fromkeys(table["dataset"]))
    width = max(6.4, 5.2 * len(datasets))
    fig, axes = plt.subplots(len(FIG2_METRICS), len(datasets), figsize=(width, 10.5), squeeze=False,
                             constrained_layout=True)
    for col, dataset in enumerate(datasets):
        cells = table[table["dataset"] == dataset]
        paper_name = cells["paper_dataset"].iloc[0]
        name = dataset if paper_name == dataset else f"{dataset} (paper: {paper_name})"
        for row, metric in enumerate(FIG2_METRICS):
            ax = axes[row][col]
            _fig2_panel(ax, cells[cells["metric"] == metric], runs, metric, FIG2_COLOURS[col % len(FIG2_COLOURS)],
                        f"CCICP-GD on {paper_name}")
            ax.set_title(f"{name}: {METRIC_NAMES[metric]}")
    reps = "/".join(map(str, sorted(set(table["reps"]))))
    fig.suptitle(wrap(f"IKLR (TNNLS) Fig. 2, regenerated: influence of tuning ε on CCICP-GD\n"
                      f"squares and bars: mean ± std over {reps} repetitions; dots: each repetition\n"
                      f"λ by CV per run; training time of the final fit (CV excluded)\n{FIG2_PAPER_SAYS}", width, 10),
                 fontsize=10)
    return fig


def iklr_fig2(*, runs: str, history: str, datasets: dict[str, str], methods: dict[str, float], csv: str, png: str,
              pdf: str) -> None:
    """Fig. 2: CCICP-GD's accuracy and cost against its inner tolerance ε, as ``csv`` and figure."""
    frame = with_kernel_products(pd.read_csv(runs), pd.read_csv(history))
    table = fig2_frame(frame, dict(datasets), dict(methods))
    write_csv_atomic(csv, table)
    save_figure(fig2_figure(table, frame), png, pdf)
