"""Stage of rule `agreement`: the cell-by-cell verdicts of a run's paper tables (kreinbench.report.agreement)."""

from __future__ import annotations

from kreinbench.atomic import write_csv_atomic, write_text_atomic
from kreinbench.report.agreement import judged_tables, markdown


def agreement(*, tables: list[str], explanations: str, csv: str, md: str, title: str, quantities: dict[str, str],
              stand_ins: dict[str, str] | None = None) -> None:
    """Judge every cell with a paper value of the paper tables (CSV, named by their file; what
    their values are: ``quantities``); write ``csv`` (every cell) and ``md`` (the counts and the
    disagreeing cells)."""
    cells = judged_tables(tables, explanations, quantities, stand_ins)
    write_csv_atomic(csv, cells)
    write_text_atomic(md, markdown(cells, title))
