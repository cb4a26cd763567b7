"""Cell-by-cell agreement of a run's paper tables with the papers' values.

Every table a paper target writes (``results/tables/<target>.csv``) holds, beside our value, the
paper's value where the paper prints one.  Each such cell becomes one row of the agreement record:
ours ± std, the paper's ± std, Δ = ours − the paper's, and a status:

* ``collapsed``: an accuracy cell at least half of whose fits predict (nearly) one class
  (:mod:`kreinbench.report.collapse`; the table's ``collapsed`` count): such a fit learned nothing, so the
  cell never agrees, however close its number is to the paper's;
* ``agrees``: accuracy |Δ| ≤ max(2 × paper-std, 0.03) (3 points on tables printed in %); kernel
  eigenvalues (μ_min, μ_max) |Δ| ≤ 5 % of |paper|; relative MSE (DANK Table 4) |Δ| ≤ max(2 ×
  paper-std, 10 % of the paper's value). The bounds are inclusive up to round-off: a Δ that equals
  the bound agrees however its subtraction rounds;
* ``explained``: it disagrees, and the first entry of the explanations file (a YAML list of
  ``{table, dataset, column, why, evidence}``, shell patterns allowed) that matches it says why; or,
  for an eigenvalue whose table gives its range over the repetitions (``mu_min_lo``, ``mu_min_hi``:
  each repetition's own random training half), that range holds the paper's value (the paper's
  half is one more random draw);
* ``unexplained``: it disagrees and nothing explains it;
* ``reported``: times, objectives and the like, listed but not judged (the papers' machines
  differ); ``not run``: the paper's cell has no fit of ours.

The headline counts each fit once: a cell whose fit (our dataset × method, test or training)
already has a cell in an earlier table (MM'17 Table 2 repeats Table III's fits, Table VII Table IV's)
is shown but not ``counted``; so are cells on an offline stand-in for the paper's data.
"""

from __future__ import annotations

import fnmatch
import math
from pathlib import Path

import pandas as pd
import yaml

from kreinbench.errors import KreinbenchError

ACCURACY_SLACK = 0.03
EIGENVALUE_SLACK = 0.05
RELATIVE_MSE_SLACK = 0.10
# What a table's ``metric`` column names, as the quantity judged.
METRIC_QUANTITIES = {"accuracy": "accuracy", "accuracy_percent": "accuracy_percent", "mu_min": "eigenvalue",
                     "mu_max": "eigenvalue"}
ACCURACIES = ("accuracy", "accuracy_percent")
# The headline groups of the quantities judged.
KINDS = {"accuracy": "accuracy", "accuracy_percent": "accuracy", "eigenvalue": "eigenvalue",
         "relative_mse": "relative MSE"}
# (ours, our std, the paper's, the paper's std, the cell's role) column groups a table may carry:
# the test value, and the training value where the paper prints one (DANK Tables 1 and 4).
VALUE_COLUMNS = [("mean", "std", "paper_mean", "paper_std", "test"),
                 ("accuracy", "accuracy_std", "paper_accuracy", None, "test"),
                 ("train_mean", "train_std", "paper_train_mean", "paper_train_std", "training")]
EIGENVALUE_COLUMNS = {"mu_min": "μ_min", "mu_max": "μ_max"}
CELL_COLUMNS = ["table", "dataset", "column", "quantity", "ours", "ours_std", "paper", "paper_std", "diff",
                "criterion", "agrees", "status", "counted", "fit", "reps", "collapsed", "majority_rate", "why"]
# Per cell before judging: which fit it is, and whether its data stand in for the paper's.
CELL_INPUTS = CELL_COLUMNS[:8] + ["fit", "reps", "collapsed", "majority_rate", "stand_in"]
# An eigenvalue's range over the repetitions, where its table has one (not part of the record).
RANGE_COLUMNS = ["range_lo", "range_hi"]
STATUSES = ("agrees", "collapsed", "explained", "unexplained")


def table_cells(name: str, table: pd.DataFrame, stand_ins: dict[str, str] | None = None,
                quantity: str = "accuracy") -> pd.DataFrame:
    """The cells of table ``name`` that have a paper value, one row each (without verdicts): its
    values are a ``quantity`` (kreinbench.pipeline.paper_targets' unit of the table) unless a row's
    ``metric`` names its own. A row of an offline stand-in (``stand_ins``: ours -> the original) is
    named "paper's (ours)"."""
    rows = []
    for _, row in table.iterrows():
        dataset = row.get("paper_dataset", row.get("dataset"))
        stand_in = bool(stand_ins) and row.get("dataset") in stand_ins
        if stand_in:
            dataset = f"{dataset} ({row['dataset']})"
        column = next((row[c] for c in ("paper_method", "column", "method") if c in row and pd.notna(row[c])), "")
        if "init" in row and pd.notna(row["init"]):
            column = f"{column}, α⁽⁰⁾ = {row['init']}"
        ours_names = [row.get(key) for key in ("dataset", "method")]
        fit = "/".join(str(n) for n in ours_names) if all(isinstance(n, str) for n in ours_names) else ""
        fit_facts = {"reps": row.get("reps", math.nan), "collapsed": row.get("collapsed", math.nan),
                     "majority_rate": row.get("majority_rate", math.nan), "stand_in": stand_in}
        metric = row.get("metric")
        row_quantity = METRIC_QUANTITIES.get(metric, metric) if isinstance(metric, str) else quantity
        for ours, ours_std, paper, paper_std, role in VALUE_COLUMNS:
            if ours in row and paper in row and pd.notna(row[paper]):
                rows.append({"table": name, "dataset": dataset,
                             "column": column if role == "test" else f"{column} {role}", "quantity": row_quantity,
                             "ours": row[ours], "ours_std": row.get(ours_std, math.nan), "paper": row[paper],
                             "paper_std": row.get(paper_std, math.nan) if paper_std else math.nan,
                             "fit": f"{fit} ({role})" if fit else "", **fit_facts})
        for eigen, label in EIGENVALUE_COLUMNS.items():
            paper = f"{eigen}_paper"
            if eigen in row and paper in row and pd.notna(row[paper]):
                rows.append({"table": name, "dataset": dataset, "column": label, "quantity": "eigenvalue",
                             "ours": row[eigen], "ours_std": math.nan, "paper": row[paper], "paper_std": math.nan,
                             "fit": "", "reps": math.nan, "collapsed": math.nan, "majority_rate": math.nan,
                             "stand_in": stand_in,
                             **{f"range_{end}": row.get(f"{eigen}_{end}", math.nan) for end in ("lo", "hi")}})
    cells = pd.DataFrame(rows, columns=CELL_INPUTS + RANGE_COLUMNS)
    # a kernel's eigenvalues repeat on every method's row of its dataset
    return cells.drop_duplicates(subset=["table", "dataset", "column", "quantity"], ignore_index=True)


def judged_tables(tables: list[str], explanations: str, quantities: dict[str, str],
                  stand_ins: dict[str, str] | None = None) -> pd.DataFrame:
    """Every cell with a paper value of the paper tables ``tables`` (CSV, named by their file, in
    the order that decides which table counts a fit shown in several) judged, explained by the
    entries of the YAML file ``explanations``; ``quantities``: what each table's values are, by
    table name (kreinbench.pipeline.paper_targets.quantities; a table not named is refused);
    rows of offline stand-ins (``stand_ins``, kreinbench.pipeline.plan.stand_ins) are named as
    such and not counted."""
    entries = yaml.safe_load(Path(explanations).read_text()) or []
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "why" in e for e in entries):
        raise KreinbenchError(f"{explanations}: expected a list of {{table, dataset, column, why}} entries")
    unknown = [Path(path).stem for path in tables if Path(path).stem not in quantities]
    if unknown:
        raise KreinbenchError(f"paper table(s) {', '.join(unknown)}: no quantity to judge them as (a Target's "
                              "quantity in kreinbench.pipeline.paper_targets)")
    frames = [table_cells(Path(path).stem, pd.read_csv(path), stand_ins, quantities[Path(path).stem])
              for path in tables]
    frames = [frame for frame in frames if not frame.empty] or [table_cells("", pd.DataFrame())]
    return judged(pd.concat(frames, ignore_index=True), entries)


def judged(cells: pd.DataFrame, explanations: list[dict]) -> pd.DataFrame:
    """``cells`` with Δ, the criterion, the verdict (True/False, None when not judged), the status,
    whether the headline counts it, and why a cell that does not agree does not."""
    out = cells.copy()
    for name, default in (("fit", ""), ("reps", math.nan), ("collapsed", math.nan), ("majority_rate", math.nan),
                          ("stand_in", False)):
        if name not in out:
            out[name] = default
    out["diff"] = out["ours"] - out["paper"]
    criteria, verdicts, statuses, reasons = [], [], [], []
    for _, cell in out.iterrows():
        criterion, agrees = _verdict(cell)
        status, why = _status(cell, agrees, explanations)
        criteria.append(criterion)
        verdicts.append(False if status == "collapsed" else agrees)
        statuses.append(status)
        reasons.append(why)
    out = out.assign(criterion=criteria, agrees=verdicts, status=statuses, why=reasons)
    out["counted"] = out["agrees"].notna() & ~out["stand_in"].astype(bool) & ~_repeats(out)
    return out[CELL_COLUMNS]


def _repeats(cells: pd.DataFrame) -> pd.Series:
    """Cells whose fit (with its role and quantity) has a cell in an earlier row: the same fit
    shown in a second table."""
    keyed = cells["fit"].fillna("") != ""
    return keyed & cells.assign(kind=cells["quantity"].map(KINDS)).duplicated(subset=["fit", "kind"])


def _verdict(cell) -> tuple[str, bool | None]:
    paper_std = 0.0 if pd.isna(cell["paper_std"]) else float(cell["paper_std"])
    if pd.isna(cell["ours"]):
        return "not run", None
    if cell["quantity"] in ACCURACIES:
        slack = max(2.0 * paper_std, ACCURACY_SLACK * (100.0 if cell["quantity"] == "accuracy_percent" else 1.0))
        return f"|Δ| ≤ {slack:.3g}", _within(cell, slack)
    if cell["quantity"] == "eigenvalue":
        slack = EIGENVALUE_SLACK * abs(float(cell["paper"]))
        return f"|Δ| ≤ {slack:.3g} (5 %)", _within(cell, slack)
    if cell["quantity"] == "relative_mse":
        slack = max(2.0 * paper_std, RELATIVE_MSE_SLACK * abs(float(cell["paper"])))
        return f"|Δ| ≤ {slack:.3g}", _within(cell, slack)
    return "reported", None


def _within(cell, slack: float) -> bool:
    # Δ is a difference of two rounded numbers: a Δ that equals the bound must not fail by round-off.
    scale = max(abs(float(cell["ours"])), abs(float(cell["paper"])), 1.0)
    return bool(abs(cell["diff"]) <= slack + 1e-9 * scale)


def _status(cell, agrees: bool | None, explanations: list[dict]) -> tuple[str, str]:
    if agrees is None:
        return ("not run" if pd.isna(cell["ours"]) else "reported"), ""
    if cell["quantity"] in ACCURACIES and _collapsed(cell):
        rate = float(cell["majority_rate"]) * (100.0 if cell["quantity"] == "accuracy_percent" else 1.0)
        why = (f"{int(cell['collapsed'])} of {int(cell['reps'])} fits predict (nearly) one class "
               f"(the test halves' majority rate: {rate:.3g})")
        explanation = _explanation(cell, explanations)
        return "collapsed", f"{why}; {explanation}" if explanation else why
    if agrees:
        return "agrees", ""
    why = _explanation(cell, explanations) or _within_range(cell)
    return ("explained" if why else "unexplained"), why


def _collapsed(cell) -> bool:
    """At least half of the cell's fits collapsed."""
    count, reps = cell.get("collapsed", math.nan), cell.get("reps", math.nan)
    return not (pd.isna(count) or pd.isna(reps)) and reps > 0 and 2 * count >= reps


def _explanation(cell, explanations: list[dict]) -> str:
    """The ``why`` of the first entry that matches the cell, with the committed evidence it cites."""
    for entry in explanations:
        if all(fnmatch.fnmatchcase(str(cell[key]), str(entry.get(key, "*"))) for key in ("table", "dataset", "column")):
            evidence = entry.get("evidence") or []
            evidence = [evidence] if isinstance(evidence, str) else evidence
            return str(entry["why"]) + (f" (evidence: {', '.join(evidence)})" if evidence else "")
    return ""


def _within_range(cell) -> str:
    low, high = cell.get("range_lo", math.nan), cell.get("range_hi", math.nan)
    if pd.isna(low) or pd.isna(high) or not low <= cell["paper"] <= high:
        return ""
    return (f"the paper's value lies within ours over the repetitions' random training halves [{low:.4g}, "
            f"{high:.4g}]: repetition 1's half is one draw, the paper's another")


SUMMARY_COLUMNS = ["table", "judged", "agree", "collapsed", "explained", "unexplained", "not counted"]


def summary(cells: pd.DataFrame) -> pd.DataFrame:
    """Per table: its judged cells by status, and how many of them the headline does not count
    (a fit another table already shows, or stand-in data). Then the headline, per kind of
    quantity ("all accuracy", "all eigenvalue", "all relative MSE"): the counted cells only."""
    judged_cells = cells[cells["agrees"].notna()]
    rows = [_counts(table, group) | {"not counted": int((~group["counted"].astype(bool)).sum())}
            for table, group in judged_cells.groupby("table", sort=False)]
    counted = judged_cells[judged_cells["counted"].astype(bool)]
    for kind, group in counted.groupby(counted["quantity"].map(KINDS), sort=False):
        rows.append(_counts(f"all {kind}", group) | {"not counted": 0})
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def _counts(table: str, group: pd.DataFrame) -> dict:
    status = group["status"].value_counts()
    return {"table": table, "judged": len(group), "agree": int(status.get("agrees", 0)),
            **{name: int(status.get(name, 0)) for name in STATUSES[1:]}}


def markdown(cells: pd.DataFrame, title: str) -> str:
    """The agreement record as Markdown: the counts per table and the headline, then every cell
    that does not agree (collapsed, explained, unexplained)."""
    lines = [f"# {title}", "",
             f"A cell agrees when |Δ| ≤ max(2 × the paper's std, {ACCURACY_SLACK:g}) for accuracies (3 points in %), "
             f"|Δ| ≤ {EIGENVALUE_SLACK:.0%} of the paper's value for kernel eigenvalues and |Δ| ≤ max(2 × the paper's "
             f"std, {RELATIVE_MSE_SLACK:.0%} of its value) for relative MSE; an accuracy cell at least half of whose "
             "fits predict (nearly) one class (≥ 99 % of the test predictions in one class, or the test accuracy "
             "within a point of the test half's majority rate) is *collapsed* and never agrees. Times and "
             "objectives are listed in agreement.csv but not judged. The *all* rows count each fit once (a cell "
             "that shows a fit another table already shows is not counted) and leave out cells on stand-in data "
             "(*not counted*).", "",
             "| table | cells judged | agree | share | collapsed | explained | unexplained | not counted |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for _, row in summary(cells).iterrows():
        share = f"{row['agree'] / row['judged']:.0%}" if row["judged"] else "–"
        name = f"**{row['table']}**" if row["table"].startswith("all ") else row["table"]
        lines.append(f"| {name} | {row['judged']} | {row['agree']} | {share} | {row['collapsed']} | "
                     f"{row['explained']} | {row['unexplained']} | {row['not counted']} |")
    misses = cells[cells["status"].isin(STATUSES[1:])]
    lines += ["", "## Cells that do not agree", ""]
    if misses.empty:
        lines.append("None.")
        return "\n".join(lines) + "\n"
    lines += ["| table | dataset | column | ours | paper | Δ | status | why |", "|---|---|---|---:|---:|---:|---|---|"]
    for _, cell in misses.iterrows():
        status = cell["status"] if cell["counted"] else f"{cell['status']} (not counted)"
        lines.append(f"| {cell['table']} | {cell['dataset']} | {cell['column']} | {_pm(cell['ours'], cell['ours_std'])} "
                     f"| {_pm(cell['paper'], cell['paper_std'])} | {cell['diff']:+.3g} | {status} | "
                     f"{cell['why'] or '–'} |")
    return "\n".join(lines) + "\n"


def _pm(value, std) -> str:
    return f"{value:.3g}" if pd.isna(std) else f"{value:.3g} ± {std:.2g}"
