"""Stages `table` and `figure`: tidy records -> accuracy table, the objective per iteration figure."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from kreinbench.atomic import atomic_path, write_csv_atomic, write_text_atomic  # noqa: E402
from kreinbench.pipeline import fit_records  # noqa: E402
from kreinbench.report.render import (  # noqa: E402
    FIT_MARKS_NOTE,
    MARK_LEGEND,
    MARK_STYLES,
    drawn_mark,
    fit_marks,
    objective_marks,
    objective_scale,
    objective_summary,
    save_figure,
    to_markdown,
    wrap,
)
from kreinbench.report.statistics import fit_flags  # noqa: E402

RUN_COLUMNS = ["dataset", "method", "label", "estimator", "rep", "split_seed", "scaler_fit", "kernel",
               "kernel_instance", "n_train", "n_test", "accuracy", "train_accuracy", "predicted_majority_share",
               "majority_rate", "cv_accuracy", "train_time", "test_time", "cv_time", "n_iter", "stationarity",
               "diverged", "not_converged", "cv_warnings", "kernel_mu_min", "kernel_mu_max", "rank_F", "params"]


def runs_frame(records: list[dict], labels: dict[str, str]) -> pd.DataFrame:
    """One row per dataset x method x repetition; ``labels``: display name of each method."""
    # Columns a method's record may lack (the kernel's spectrum) stay empty for it.
    rows = [{**{k: r.get(k) for k in RUN_COLUMNS if k not in ("label", "params", "not_converged")},
             "not_converged": not_converged(r), "params": json.dumps(r["params"], sort_keys=True)} for r in records]
    runs = pd.DataFrame(rows, columns=RUN_COLUMNS)
    # From the table job's params, not the fit records: renaming a method reruns no fit.
    runs["label"] = runs["method"].map(labels)
    return runs.sort_values(["dataset", "method", "rep"], ignore_index=True)


def history_frame(records: list[dict]) -> pd.DataFrame:
    """One row per dataset x method x repetition x iteration of the final fit."""
    rows = [{"dataset": r["dataset"], "method": r["method"], "rep": r["rep"], **h} for r in records for h in r["history"]]
    return pd.DataFrame(rows)


def not_converged(record: dict) -> bool:
    """The final fit stopped at its iteration limit short of its tolerance (a ConvergenceWarning;
    a run that ran away is ``diverged``, a RunawayWarning, and not counted here)."""
    return any(w.startswith("ConvergenceWarning:") for w in record.get("warnings") or [])


def accuracy_table(runs: pd.DataFrame, method_order: list[str]) -> pd.DataFrame:
    """Mean ± std of test accuracy per dataset (rows) x method (columns), each cell marked with its
    diverged (‡k), non-converged (◇k) and collapsed (⊘k) fits, and per kernel whose spectrum the
    fits recorded, the mean smallest eigenvalue μ_min of the training kernel with μ_min/μ_max: how
    indefinite the problem is (μ_min < 0) and how much."""
    stats = runs.groupby(["dataset", "method"]).agg(mean=("accuracy", "mean"), std=("accuracy", "std")).reset_index()
    stats = stats.merge(fit_flags(runs), on=["dataset", "method"], how="left")
    stats["cell"] = [f"{row.mean:.3f} ± {0.0 if pd.isna(row.std) else row.std:.3f}{fit_marks(row)}"
                     for row in stats.itertuples(index=False)]
    table = stats.pivot(index="dataset", columns="method", values="cell")
    labels = runs.drop_duplicates("method").set_index("method")["label"]
    table = table[[m for m in method_order if m in table.columns]]
    table.columns = [labels[m] for m in table.columns]
    spectra = runs.dropna(subset=["kernel_mu_min", "kernel_mu_max"]).drop_duplicates(["dataset", "kernel", "rep"])
    for kernel, group in spectra.groupby("kernel", sort=True):
        mu = group.groupby("dataset")[["kernel_mu_min", "kernel_mu_max"]].mean()
        table[f"μ_min ({kernel})"] = pd.Series({d: f"{row.kernel_mu_min:.3g} ({row.kernel_mu_min / row.kernel_mu_max:+.1e})"
                                                 for d, row in mu.iterrows()})
    return table


def table(*, records: list[str], labels: dict[str, str], methods: list[str], cv_folds: int, runs: str,
          history: str, csv: str, md: str) -> None:
    """The tidy ``runs`` and ``history`` of every fit record, and the accuracy table of
    ``methods`` (mean ± std per dataset) as ``csv`` and ``md``."""
    loaded = fit_records.read_all(records)
    frame = runs_frame(loaded, labels)
    reps = frame["rep"].nunique()
    write_csv_atomic(runs, frame)
    with atomic_path(history) as tmp:
        history_frame(loaded).to_csv(tmp, index=False)
    acc = accuracy_table(frame, list(methods))
    with atomic_path(csv) as tmp:
        acc.to_csv(tmp)
    caption = (f"Test accuracy (mean ± std over {reps} repetitions of a 50/50 stratified split; "
               f"hyper-parameters by {cv_folds}-fold CV on the training half). {FIT_MARKS_NOTE}. "
               "μ_min (kernel): the training kernel's smallest eigenvalue, mean over the repetitions, with "
               "μ_min/μ_max in parentheses; negative: the kernel is indefinite.")
    write_text_atomic(md, to_markdown(acc, caption))


def convergence_figure(records: list[dict], labels: dict[str, str]):
    """The objective per outer iteration of each convergence fit (cf. IKLR Fig. 3): one panel per
    method, one line per repetition (its λ in the legend), the last point of a run that ran away
    or ended above its start marked, and each panel's title saying which runs did (or that all
    descended); a panel whose objective leaves ±10 is drawn on a symmetric log scale."""
    methods = list(dict.fromkeys(r["method"] for r in records))
    # Each panel about 5 inches wide, with its legend right of it.
    width = 7.6 * len(methods)
    fig, axes = plt.subplots(1, len(methods), figsize=(width, 4.8), squeeze=False, constrained_layout=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    dataset = records[0]["dataset"]
    for ax, method in zip(axes[0], methods):
        runs = sorted((r for r in records if r["method"] == method), key=lambda r: r["rep"])
        marks, values = {}, []
        for i, r in enumerate(runs):
            hist = pd.DataFrame(r["history"])
            colour = colours[i % len(colours)]
            lam = r["params"].get("lam")
            ax.plot(hist["iteration"], hist["objective"], "-o", ms=3, lw=1.2, color=colour,
                    label=f"rep {r['rep']}" + ("" if lam is None else f", λ = {lam:g}"))
            marks[r["rep"]] = objective_marks(hist["objective"], bool(r.get("diverged")))
            drawn = drawn_mark(marks[r["rep"]])
            if drawn:
                ax.plot(hist["iteration"].iloc[-1], hist["objective"].iloc[-1], **MARK_STYLES[drawn])
            values += hist["objective"].tolist()
        scale = objective_scale(ax, values)
        handles = ax.get_legend_handles_labels()[0]
        handles += [Line2D([], [], **style, label=label) for key, style, label in MARK_LEGEND
                    if any(drawn_mark(m) == key for m in marks.values())]
        ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("outer iteration k (count)")
        ax.set_ylabel(f"objective f(α_k, b_k) (nats per point;\n{scale})")
        ax.set_title(wrap(f"{labels.get(method, method)}: {objective_summary(marks)}", 5.0, 9), fontsize=9)
        ax.grid(alpha=0.3)
    fig.suptitle(wrap(f"Objective per outer iteration on {dataset}: f = mean logistic loss + (λ/2) αᵀKα on the "
                      "training part, λ chosen by CV per repetition (cf. IKLR Fig. 3)", width, 10), fontsize=10)
    return fig


def figure(*, records: list[str], labels: dict[str, str], png: str, pdf: str) -> None:
    """The quick run's convergence figure (:func:`convergence_figure`) from its fit records."""
    save_figure(convergence_figure(fit_records.read_all(records), labels), png, pdf)
