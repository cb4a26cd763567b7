"""The benchmark across methods (key ``papers.benchmark``): test accuracy and training time per
dataset × method with the best of each row marked, the average ranks, the Friedman test and
Nemenyi's critical-difference diagram (:mod:`kreinbench.report.ranking`), from rule ``table``'s
tidy runs."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from kreinbench.atomic import atomic_path, write_text_atomic  # noqa: E402
from kreinbench.report.ranking import Friedman, critical_difference_diagram, friedman, ranks  # noqa: E402
from kreinbench.report.render import FIT_MARKS_NOTE, fit_marks, save_figure, scaling_note, to_markdown  # noqa: E402
from kreinbench.report.statistics import fit_flags  # noqa: E402


def cells(runs: pd.DataFrame) -> pd.DataFrame:
    """Per dataset × method: mean and std of the test accuracy, mean training time (the final fit,
    CV excluded) and the fits that ran away, stopped short of their tolerance or collapsed."""
    stats = runs.groupby(["dataset", "method"]).agg(mean=("accuracy", "mean"), std=("accuracy", "std"),
                                                    seconds=("train_time", "mean")).reset_index()
    return stats.merge(fit_flags(runs), on=["dataset", "method"], how="left")


def complete_scores(stats: pd.DataFrame, methods: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """Mean accuracy, datasets × ``methods``, on the datasets where every method has fits (the
    Friedman test's samples), and the datasets left out."""
    scores = stats.pivot(index="dataset", columns="method", values="mean").reindex(columns=methods)
    unfitted = scores.columns[scores.isna().all()].tolist()
    if unfitted:
        raise ValueError(f"benchmark: method(s) {unfitted} have no fit records in the runs")
    incomplete = scores.index[scores.isna().any(axis=1)].tolist()
    return scores.drop(index=incomplete), incomplete


def benchmark_table(stats: pd.DataFrame, scores: pd.DataFrame, labels: dict[str, str]) -> pd.DataFrame:
    """"mean ± std (seconds)" per dataset × method, the best mean of each row in bold (ties: all of
    them), then the average rank and the mean training time of each method."""
    best = scores.max(axis=1)
    text = {}
    for row in stats.itertuples(index=False):
        cell = f"{row.mean:.3f} ± {0.0 if pd.isna(row.std) else row.std:.3f}"
        if row.dataset in best.index and row.mean == best[row.dataset]:
            cell = f"**{cell}**"
        text[(row.dataset, row.method)] = f"{cell} ({row.seconds:.2g} s){fit_marks(row)}"
    table = pd.Series(text).unstack().reindex(columns=scores.columns)
    table.loc["average rank (1 = best)"] = ranks(scores).mean().map("{:.2f}".format)
    table.loc["mean training time (s)"] = stats.groupby("method")["seconds"].mean().reindex(scores.columns).map(
        "{:.3g}".format)
    table.columns = [labels.get(m, m) for m in table.columns]
    return table


def caption(runs: pd.DataFrame, test: Friedman, incomplete: list[str], cv_folds: int) -> str:
    reps = runs["rep"].nunique()
    verdict = ("the methods' average ranks differ" if test.p_value < test.alpha
               else "no difference between the methods' average ranks is shown")
    left_out = f" Left out of the ranks (a method has no fit there): {', '.join(incomplete)}." if incomplete else ""
    return (f"Benchmark across methods: test accuracy, mean ± std over {reps} repetition(s) of a 50/50 stratified "
            f"split ({scaling_note(runs)}), hyper-parameters by {cv_folds}-fold CV on the training half; in "
            "parentheses the training time of the final fit in seconds (CV excluded); bold: the best mean of "
            f"the row. {FIT_MARKS_NOTE.rsplit(';', 1)[0]}: their accuracy enters the ranks as measured. Ranks per "
            "dataset (1 = best, ties averaged) over the "
            f"{test.n_datasets} datasets where every method ran: Friedman χ²_F = {test.chi2:.2f}, Iman–Davenport "
            f"F_F = {test.f:.2f} on ({test.n_methods - 1}, {(test.n_methods - 1) * (test.n_datasets - 1)}) degrees "
            f"of freedom, p = {test.p_value:.2g}: at α = {test.alpha:g} {verdict}. Nemenyi's critical difference "
            f"CD = {test.critical_difference:.2f} (the diagram).{left_out}")


def cd_figure(scores: pd.DataFrame, test: Friedman, labels: dict[str, str]):
    named = scores.rename(columns=lambda m: labels.get(m, m))
    fig, ax = plt.subplots(figsize=(12, 0.35 * len(named.columns) + 1.5))
    critical_difference_diagram(named, test, ax)
    ax.set_title(f"Average ranks over {test.n_datasets} datasets (1 = best); joined: not separated by "
                 f"Nemenyi's test at α = {test.alpha:g} (CD = {test.critical_difference:.2f})", fontsize=9, pad=18)
    fit_names_inside(fig, ax)
    return fig


def fit_names_inside(fig, ax, margin_px: float = 8.0, min_axes_share: float = 0.35) -> None:
    """The diagram draws the method names outside the axes, left and right of the rank scale: make
    room for the longest on each side, widening the figure where the names would leave the rank
    scale less than ``min_axes_share`` of it.  The names are anchored in rank units beyond the
    scale's ends, so their overhang changes with the axes' width: a few rounds reach the fixed point."""
    fig.subplots_adjust(top=0.88, bottom=0.02)
    for _ in range(6):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        box = ax.get_window_extent(renderer)
        boxes = [t.get_window_extent(renderer) for t in ax.texts]
        left = max([box.x0 - b.x0 for b in boxes] + [0.0]) + margin_px
        right = max([b.x1 - box.x1 for b in boxes] + [0.0]) + margin_px
        if min([b.x0 for b in boxes] + [margin_px]) >= 0.5 * margin_px and \
                max([b.x1 for b in boxes] + [0.0]) <= fig.bbox.width - 0.5 * margin_px:
            return
        width_px = max(fig.bbox.width, (left + right) / (1.0 - min_axes_share))
        fig.set_figwidth(width_px / fig.dpi)
        fig.subplots_adjust(left=left / width_px, right=1.0 - right / width_px)


def benchmark(*, runs: str, methods: list[str], labels: dict[str, str], cv_folds: int, alpha: float, csv: str,
              md: str, png: str, pdf: str) -> None:
    """The benchmark table (``csv``, ``md``) and the critical-difference diagram (``png``, ``pdf``)
    of ``methods`` from the tidy ``runs``."""
    frame = pd.read_csv(runs)
    frame = frame[frame["method"].isin(methods)]
    stats = cells(frame)
    scores, incomplete = complete_scores(stats, list(methods))
    test = friedman(scores, alpha=alpha)
    table = benchmark_table(stats, scores, labels)
    with atomic_path(csv) as tmp:
        table.to_csv(tmp)
    write_text_atomic(md, to_markdown(table, caption(frame, test, incomplete, cv_folds)))
    save_figure(cd_figure(scores, test, labels), png, pdf)
