"""Stages of the scale study (``papers.scale``; plan: :mod:`kreinbench.pipeline.plan_scale`): one point per
job (experiment → its fit record, :mod:`kreinbench.pipeline.fit_records`), then the table of every point and its log-log figure."""

from __future__ import annotations

import logging

import matplotlib.pyplot as plt  # noqa: E402, I001
import pandas as pd

from kreinbench.atomic import write_csv_atomic, write_text_atomic
from kreinbench.data.split import read_split
from kreinbench.errors import KreinbenchError
from kreinbench.experiments.scale import scale_point
from kreinbench.linalg.kernels import resolve_params
from kreinbench.pipeline import fit_records
from kreinbench.pipeline.plan_scale import parse_variant

# kreinbench.report.render selects the Agg backend before pyplot is imported.
from kreinbench.report.render import save_figure, to_markdown

log = logging.getLogger(__name__)

COLUMNS = ["dataset", "n_train", "method", "m", "accuracy", "fit_s", "peak_rss_mib"]


def point(*, split: str, dataset: str, variant: str, n_train: int, kernel: dict, seed: int, lam: float, C: float,
          out: str) -> None:
    """Fit one variant on ``n_train`` rows of the split's training part; its row as JSON in ``out``."""
    data = read_split(split)
    method, m = parse_variant(variant)
    if n_train > data.y_train.size:
        raise KreinbenchError(f"papers.scale.sizes.{dataset}: n_train={n_train} exceeds the split's "
                              f"{data.y_train.size} training rows ({split})")
    params = resolve_params(kernel, data.X_train.shape[1])
    log.info("%s: %s on %d of %d training rows, %d test rows", dataset, variant, n_train, data.y_train.size,
             data.y_test.size)
    row = scale_point(data.X_train, data.y_train, data.X_test, data.y_test, method=method, n_train=n_train,
                      kernel=params, seed=seed, lam=lam, C=C, m=m)
    log.info("accuracy %.4f, fit %.1f s, peak RSS %.0f MiB", row["accuracy"], row["fit_s"], row["peak_rss_mib"])
    fit_records.write(out, {"dataset": dataset, **row})


def scale_frame(points: list[str]) -> pd.DataFrame:
    """Every point's row, by dataset, method, m and n_train."""
    rows = fit_records.read_all(points)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["m"] = frame["m"].astype("Int64")
    return frame.sort_values(["dataset", "method", "m", "n_train"], na_position="first", ignore_index=True)


def table(*, points: list[str], csv: str, md: str) -> None:
    """results/tables/scale.{csv,md}: accuracy, fit time and peak memory of every point."""
    frame = scale_frame(points)
    write_csv_atomic(csv, frame)
    shown = frame.assign(accuracy=frame["accuracy"].map("{:.4f}".format), fit_s=frame["fit_s"].map("{:.2f}".format),
                         peak_rss_mib=frame["peak_rss_mib"].map("{:.0f}".format))
    caption = ("Scale study: test accuracy, fit time (s) and the fitting process's peak resident memory (MiB) "
               "against the training size n; exact methods hold the n × n kernel, Nyström IKLR n × m features.")
    write_text_atomic(md, to_markdown(shown.set_index("dataset"), caption))


def _label(method: str, m) -> str:
    return method if pd.isna(m) else f"{method} (m = {m})"


def figure(*, table_csv: str, png: str, pdf: str) -> None:
    """Fit time, peak memory and accuracy against n (log-log where it is a cost), one column per dataset."""
    frame = pd.read_csv(table_csv, dtype={"m": "Int64"})
    datasets = list(dict.fromkeys(frame["dataset"]))
    fig, axes = plt.subplots(3, len(datasets), figsize=(5.5 * len(datasets), 11), squeeze=False,
                             constrained_layout=True)
    for col, dataset in enumerate(datasets):
        for (method, m), group in frame[frame["dataset"] == dataset].groupby(["method", "m"], dropna=False, sort=False):
            style = {"linestyle": "--" if pd.isna(m) else "-", "marker": "o", "label": _label(method, m)}
            for row, quantity in enumerate(("fit_s", "peak_rss_mib", "accuracy")):
                axes[row, col].plot(group["n_train"], group[quantity], **style)
        axes[0, col].set_title(dataset)
        for row, (label, log_y) in enumerate((("fit time (s)", True), ("peak RSS (MiB)", True), ("test accuracy", False))):
            ax = axes[row, col]
            ax.set_xscale("log")
            if log_y:
                ax.set_yscale("log")
            ax.set_ylabel(label)
            ax.set_xlabel("training size n")
            ax.grid(True, which="both", alpha=0.3)
        axes[0, col].legend(fontsize=8)
    save_figure(fig, png, pdf)
