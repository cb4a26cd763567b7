"""Cell-by-cell agreement of a run's paper tables with the papers' values.

Every table a paper target writes (``results/tables/<target>.csv``) holds, beside our value, the
paper's value where the paper prints one.  Each such cell becomes one row of the agreement record:
ours ± std, the paper's ± std, Δ = ours − the paper's, and a verdict:

* accuracy: |Δ| ≤ max(2 × paper-std, 0.03) (3 points on tables printed in %);
* eigenvalues of the kernel (μ_min, μ_max): |Δ| ≤ 5 % of |paper|;
* anything else (times, objectives, relative MSE) is listed but not judged: the papers' machines
  and scales differ from ours.

A disagreeing cell is explained by the first entry of the explanations file (a YAML list of
``{table, dataset, column, why}``, shell patterns allowed) that matches it; else, for an eigenvalue
whose table gives its range over the repetitions (``mu_min_lo``, ``mu_min_hi``: each repetition's
own random training half), by that range when it holds the paper's value (the paper's half is one
more random draw); else it is marked unexplained.
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
# Tables whose accuracies are printed in % (ours converted to the paper's unit).
PERCENT_TABLES = {"dank_table1", "dank_table3"}
# Tables whose values are a relative mean squared error (DANK's Table 4): reported, not judged.
MSE_TABLES = {"dank_table4"}
# What a table's ``metric`` column names, as the quantity judged.
METRIC_QUANTITIES = {"accuracy": "accuracy", "accuracy_percent": "accuracy_percent", "mu_min": "eigenvalue",
                     "mu_max": "eigenvalue"}
# (ours, our std, the paper's, the paper's std) column groups a table may carry.
VALUE_COLUMNS = [("mean", "std", "paper_mean", "paper_std"), ("accuracy", "accuracy_std", "paper_accuracy", None)]
EIGENVALUE_COLUMNS = {"mu_min": "μ_min", "mu_max": "μ_max"}
CELL_COLUMNS = ["table", "dataset", "column", "quantity", "ours", "ours_std", "paper", "paper_std", "diff",
                "criterion", "agrees", "why"]
# An eigenvalue's range over the repetitions, where its table has one (not part of the record).
RANGE_COLUMNS = ["range_lo", "range_hi"]


def table_cells(name: str, table: pd.DataFrame, stand_ins: dict[str, str] | None = None) -> pd.DataFrame:
    """The cells of table ``name`` that have a paper value, one row each (without verdicts). A row
    of an offline stand-in (``stand_ins``: ours -> the original) is named "paper's (ours)"."""
    rows = []
    for _, row in table.iterrows():
        dataset = row.get("paper_dataset", row.get("dataset"))
        if stand_ins and row.get("dataset") in stand_ins:
            dataset = f"{dataset} ({row['dataset']})"
        column = next((row[c] for c in ("paper_method", "column", "method") if c in row and pd.notna(row[c])), "")
        if "init" in row and pd.notna(row["init"]):
            column = f"{column}, α⁽⁰⁾ = {row['init']}"
        for ours, ours_std, paper, paper_std in VALUE_COLUMNS:
            if ours in row and paper in row and pd.notna(row[paper]):
                rows.append({"table": name, "dataset": dataset, "column": column,
                             "quantity": _quantity(name, row.get("metric")), "ours": row[ours],
                             "ours_std": row.get(ours_std, math.nan),
                             "paper": row[paper], "paper_std": row.get(paper_std, math.nan) if paper_std else math.nan})
                break
        for eigen, label in EIGENVALUE_COLUMNS.items():
            paper = f"{eigen}_paper"
            if eigen in row and paper in row and pd.notna(row[paper]):
                rows.append({"table": name, "dataset": dataset, "column": label, "quantity": "eigenvalue",
                             "ours": row[eigen], "ours_std": math.nan, "paper": row[paper], "paper_std": math.nan,
                             **{f"range_{end}": row.get(f"{eigen}_{end}", math.nan) for end in ("lo", "hi")}})
    cells = pd.DataFrame(rows, columns=CELL_COLUMNS[:8] + RANGE_COLUMNS)
    # a kernel's eigenvalues repeat on every method's row of its dataset
    return cells.drop_duplicates(subset=["table", "dataset", "column", "quantity"], ignore_index=True)


def _quantity(table: str, metric) -> str:
    if isinstance(metric, str):
        return METRIC_QUANTITIES.get(metric, metric)
    if table in MSE_TABLES:
        return "relative_mse"
    return "accuracy_percent" if table in PERCENT_TABLES else "accuracy"


def judged_tables(tables: list[str], explanations: str, stand_ins: dict[str, str] | None = None) -> pd.DataFrame:
    """Every cell with a paper value of the paper tables ``tables`` (CSV, named by their file)
    judged, explained by the entries of the YAML file ``explanations``; rows of offline stand-ins
    (``stand_ins``, kreinbench.plan.stand_ins) are named as such."""
    entries = yaml.safe_load(Path(explanations).read_text()) or []
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "why" in e for e in entries):
        raise KreinbenchError(f"{explanations}: expected a list of {{table, dataset, column, why}} entries")
    frames = [table_cells(Path(path).stem, pd.read_csv(path), stand_ins) for path in tables]
    frames = [frame for frame in frames if not frame.empty] or [table_cells("", pd.DataFrame())]
    return judged(pd.concat(frames, ignore_index=True), entries)


def judged(cells: pd.DataFrame, explanations: list[dict]) -> pd.DataFrame:
    """``cells`` with Δ, the criterion, the verdict (True/False, None when not judged) and, for a
    disagreeing cell, the first matching explanation ("" when none matches)."""
    out = cells.copy()
    out["diff"] = out["ours"] - out["paper"]
    criteria, verdicts, reasons = [], [], []
    for _, cell in out.iterrows():
        criterion, agrees = _verdict(cell)
        criteria.append(criterion)
        verdicts.append(agrees)
        reasons.append(_explanation(cell, explanations) or _within_range(cell) if agrees is False else "")
    return out.assign(criterion=criteria, agrees=verdicts, why=reasons)[CELL_COLUMNS]


def _verdict(cell) -> tuple[str, bool | None]:
    paper_std = 0.0 if pd.isna(cell["paper_std"]) else float(cell["paper_std"])
    if pd.isna(cell["ours"]):
        return "not run", None
    if cell["quantity"] in ("accuracy", "accuracy_percent"):
        slack = max(2.0 * paper_std, ACCURACY_SLACK * (100.0 if cell["quantity"] == "accuracy_percent" else 1.0))
        return f"|Δ| ≤ {slack:.3g}", bool(abs(cell["diff"]) <= slack)
    if cell["quantity"] == "eigenvalue":
        slack = EIGENVALUE_SLACK * abs(float(cell["paper"]))
        return f"|Δ| ≤ {slack:.3g} (5 %)", bool(abs(cell["diff"]) <= slack)
    return "reported", None


def _explanation(cell, explanations: list[dict]) -> str:
    for entry in explanations:
        if all(fnmatch.fnmatchcase(str(cell[key]), str(entry.get(key, "*"))) for key in ("table", "dataset", "column")):
            return str(entry["why"])
    return ""


def _within_range(cell) -> str:
    low, high = cell.get("range_lo", math.nan), cell.get("range_hi", math.nan)
    if pd.isna(low) or pd.isna(high) or not low <= cell["paper"] <= high:
        return ""
    return (f"the paper's value lies within ours over the repetitions' random training halves [{low:.4g}, "
            f"{high:.4g}]: repetition 1's half is one draw, the paper's another")


def summary(cells: pd.DataFrame) -> pd.DataFrame:
    """Per table and overall: cells judged, cells that agree, and disagreeing cells left unexplained."""
    judged_cells = cells[cells["agrees"].notna()]
    rows = []
    for table, group in list(judged_cells.groupby("table", sort=False)) + [("all", judged_cells)]:
        agree = int((group["agrees"] == True).sum())  # noqa: E712 (object column of True/False)
        rows.append({"table": table, "judged": len(group), "agree": agree,
                     "unexplained": int(((group["agrees"] == False) & (group["why"] == "")).sum())})  # noqa: E712
    return pd.DataFrame(rows, columns=["table", "judged", "agree", "unexplained"])


def markdown(cells: pd.DataFrame, title: str) -> str:
    """The agreement record as Markdown: the counts per table, then every disagreeing cell."""
    lines = [f"# {title}", "",
             f"A cell agrees when |Δ| ≤ max(2 × the paper's std, {ACCURACY_SLACK:g}) for accuracies (3 points in %) "
             f"and |Δ| ≤ {EIGENVALUE_SLACK:.0%} of the paper's value for kernel eigenvalues; times, objectives and "
             "errors are listed in agreement.csv but not judged.", "",
             "| table | cells judged | agree | share | unexplained |", "|---|---:|---:|---:|---:|"]
    for _, row in summary(cells).iterrows():
        share = f"{row['agree'] / row['judged']:.0%}" if row["judged"] else "–"
        name = f"**{row['table']}**" if row["table"] == "all" else row["table"]
        lines.append(f"| {name} | {row['judged']} | {row['agree']} | {share} | {row['unexplained']} |")
    misses = cells[cells["agrees"] == False]  # noqa: E712
    lines += ["", "## Cells that disagree", ""]
    if misses.empty:
        lines.append("None.")
        return "\n".join(lines) + "\n"
    lines += ["| table | dataset | column | ours | paper | Δ | why |", "|---|---|---|---:|---:|---:|---|"]
    for _, cell in misses.iterrows():
        lines.append(f"| {cell['table']} | {cell['dataset']} | {cell['column']} | {_pm(cell['ours'], cell['ours_std'])} "
                     f"| {_pm(cell['paper'], cell['paper_std'])} | {cell['diff']:+.3g} | {cell['why'] or 'unexplained'} |")
    return "\n".join(lines) + "\n"


def _pm(value, std) -> str:
    return f"{value:.3g}" if pd.isna(std) else f"{value:.3g} ± {std:.2g}"
