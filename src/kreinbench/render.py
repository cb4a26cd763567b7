"""How tables and figures are written: Markdown tables with a caption, figures as PNG and PDF."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from kreinbench.atomic import atomic_path  # noqa: E402


def to_markdown(table: pd.DataFrame, caption: str, index_name: str = "dataset") -> str:
    header = f"| {index_name} | " + " | ".join(table.columns) + " |"
    rule = "|---|" + "---|" * len(table.columns)
    # a method not fitted on a dataset: a dash, not "nan"
    lines = [f"| {idx} | " + " | ".join("–" if pd.isna(v) else str(v) for v in row) + " |"
             for idx, row in zip(table.index, table.values)]
    return "\n".join([caption, "", header, rule, *lines]) + "\n"


def save_figure(fig, *paths: str) -> None:
    """Write ``fig`` atomically to each path, in the format its extension names; close it."""
    for out in paths:
        with atomic_path(out) as tmp:
            fig.savefig(tmp, format=out.rsplit(".", 1)[1], dpi=150)
    plt.close(fig)


# How a table marks a cell some of whose fits predict (nearly) one class (kreinbench.collapse).
COLLAPSE_NOTE = ("⊘k: k of the cell's fits collapsed (≥ 99 % of the test predictions in one class, or the test "
                 "accuracy within a point of the test half's majority rate); such a cell never counts as agreement")


def collapse_mark(row) -> str:
    """" ⊘k" when k > 0 of the row's fits collapsed, else "" (also for rows without the count)."""
    count = getattr(row, "collapsed", None)
    return f" ⊘{int(count)}" if count is not None and not pd.isna(count) and count > 0 else ""


# How the splits of a table's fits scaled the features (the runs' ``scaler_fit``).
SCALER_NOTES = {"whole": "features min-max scaled to [0, 1] over the whole data set, then split",
                "train": "features min-max scaled to [0, 1] by the training part's minimum and range"}


def scaling_note(runs: pd.DataFrame) -> str:
    """Where the min-max scaler of the splits of ``runs`` was fitted, for a caption; records made
    before ``scaler_fit`` was recorded were all fitted on the training part."""
    where = runs["scaler_fit"].fillna("train") if "scaler_fit" in runs else pd.Series("train", index=runs.index)
    counts = where.value_counts()
    if len(counts) == 1:
        return SCALER_NOTES.get(counts.index[0], f"scaler fitted on {counts.index[0]}")
    return "; ".join(f"{SCALER_NOTES.get(w, w)} for {n} fits" for w, n in counts.items())
