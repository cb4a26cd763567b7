"""How tables and figures are written: Markdown tables with a caption, figures as PNG and PDF."""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

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


# How a table marks a cell some of whose fits predict (nearly) one class (kreinbench.report.collapse).
COLLAPSE_NOTE = ("⊘k: k of the cell's fits collapsed (≥ 99 % of the test predictions in one class, or the test "
                 "accuracy within a point of the test half's majority rate); such a cell never counts as agreement")


def collapse_mark(row) -> str:
    """" ⊘k" when k > 0 of the row's fits collapsed, else "" (also for rows without the count)."""
    count = getattr(row, "collapsed", None)
    return f" ⊘{int(count)}" if count is not None and not pd.isna(count) and count > 0 else ""


FIT_MARKS_NOTE = ("‡k: k repetitions ran away (diverged: the objective is unbounded below on the indefinite "
                  "kernel); ◇k: k stopped at their iteration limit before their tolerance (ConvergenceWarning); "
                  f"{COLLAPSE_NOTE}")


def fit_marks(row) -> str:
    """" ‡k ◇k ⊘k": the row's fits that ran away, stopped short of their tolerance and collapsed
    (:func:`kreinbench.report.statistics.fit_flags`), each only when k > 0."""
    def mark(symbol: str, name: str) -> str:
        count = getattr(row, name, None)
        return f" {symbol}{int(count)}" if count is not None and not pd.isna(count) and count > 0 else ""
    return mark("‡", "diverged") + mark("◇", "not_converged") + collapse_mark(row)


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


# --- Objective curves (IKLR Fig. 3, MM'17 Fig. 1, the quick run's convergence figure) --------------

# A panel whose objective leaves ±SYMLOG_ABOVE (nats per point; the logistic objective starts at
# ln 2 ≈ 0.69) is drawn on a symmetric log scale, linear within ±1: one run that oscillates in the
# hundreds or runs away to −10⁴ then leaves every other run visible instead of flattening it to 0.
SYMLOG_ABOVE = 10.0
# The relative rise of the objective between two iterations that counts as the objective rising.
RISE_TOLERANCE = 1e-9


# How the last point of a run is marked when its objective ran away or ended above where it began.
RAN_AWAY = {"marker": "X", "color": "black", "ms": 8, "linestyle": ""}
ENDED_ABOVE = {"marker": "^", "color": "darkorange", "markeredgecolor": "black", "ms": 7, "linestyle": ""}
MARK_LEGEND = (("ran_away", RAN_AWAY, "ran away (diverged: ‖α‖ unbounded)"),
               ("ended_above", ENDED_ABOVE, "ended above its start f(α⁰)"))
MARK_STYLES = {key: style for key, style, _ in MARK_LEGEND}


def drawn_mark(marks: dict[str, bool]) -> str | None:
    """The mark a run's last point gets: ran away before ended above; none for a run that did neither."""
    return next((key for key, _, _ in MARK_LEGEND if marks[key]), None)


def objective_marks(curve: pd.Series, diverged: bool) -> dict[str, bool]:
    """What a run's objective did: ``ran_away`` (the fit stopped on a runaway ‖α‖), ``ended_above``
    (its last objective exceeds its first) and ``rose`` (at least one step increased it)."""
    values = curve.to_numpy(dtype=float)
    slack = RISE_TOLERANCE * np.maximum(1.0, np.abs(values[:-1]))
    return {"ran_away": bool(diverged),
            "ended_above": bool(len(values) > 1 and values[-1] > values[0] + slack[0]),
            "rose": bool(np.any(np.diff(values) > slack))}


def reps_text(reps: list) -> str:
    """``1, 3–5, 8`` for the repetitions 1, 3, 4, 5, 8."""
    reps, parts, start = sorted(int(r) for r in reps), [], None
    for i, rep in enumerate(reps):
        start = rep if start is None else start
        if i + 1 == len(reps) or reps[i + 1] != rep + 1:
            parts.append(f"{start}" if start == rep else f"{start}–{rep}")
            start = None
    return ", ".join(parts)


def objective_summary(marks: dict[int, dict[str, bool]]) -> str:
    """One line on what the runs ``{rep: objective_marks}`` of a panel did, naming the repetitions."""
    n = len(marks)
    said = []
    for key, what in (("ran_away", "ran away (diverged)"), ("ended_above", "ended above f(α⁰)"),
                      ("rose", "rose at some iteration")):
        reps = [rep for rep, m in marks.items() if m[key]]
        if reps:
            said.append(f"{len(reps)} of {n} {what}: rep {reps_text(reps)}")
    return "; ".join(said) if said else f"all {n} runs descended"


def objective_scale(ax, values) -> str:
    """Symmetric log y on ``ax`` when ``values`` leave ±SYMLOG_ABOVE; returns the y label's note.

    The linear part (±1, where a logistic objective that descends stays) is given about half the
    axis, with ticks every 0.5, so the runs that behave remain readable beside one that ran away."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if not values.size or np.max(np.abs(values)) <= SYMLOG_ABOVE:
        return "linear scale"
    # The plotted artists' extent (error bars too), so that every drawn part of the axis has ticks.
    limits = ax.dataLim
    low, high = float(values.min()), float(values.max())
    if np.all(np.isfinite(limits.intervaly)) and limits.height > 0:
        low, high = min(low, limits.y0), max(high, limits.y1)
    decades = [k for k in range(1, int(np.ceil(np.log10(max(abs(low), abs(high))))) + 1)]
    ticks = [-(10.0**k) for k in decades if -(10.0**k) >= low * 1.5] + [10.0**k for k in decades if 10.0**k <= high * 1.5]
    ticks += [t for t in (-1.0, -0.5, 0.0, 0.5, 1.0) if low - 0.25 <= t <= high + 0.25]
    ax.set_yscale("symlog", linthresh=1.0, linscale=max(1.0, np.log10(max(abs(low), abs(high))) / 2))
    ax.yaxis.set_major_locator(FixedLocator(sorted(ticks)))
    ax.yaxis.set_major_formatter(FuncFormatter(_objective_tick))
    ax.yaxis.set_minor_locator(NullLocator())
    # A 5 % margin in the scale's own coordinates, so that no point sits on the frame.
    transform = ax.yaxis.get_transform()
    ends = transform.transform(np.array([low, high]))
    pad = 0.05 * (ends[1] - ends[0])
    ax.set_ylim(*transform.inverted().transform(np.array([ends[0] - pad, ends[1] + pad])))
    return "symmetric log scale, linear within ±1"


def _objective_tick(value: float, _position) -> str:
    if abs(value) < 10:
        return f"{value:g}".replace("-", "−")
    return f"{'−' if value < 0 else ''}$10^{{{int(round(np.log10(abs(value))))}}}$"


def wrap(text: str, width_inches: float, fontsize: float = 10.0) -> str:
    """``text`` wrapped, line by line, to about ``width_inches`` of ``fontsize``-point characters."""
    # An average character of matplotlib's default font is about 0.6 em wide.
    chars = max(20, int(width_inches * 72.0 / (0.6 * fontsize)))
    return "\n".join(textwrap.fill(line, chars) if line else line for line in text.split("\n"))
