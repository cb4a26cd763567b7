"""Stage of rule `agreement`: the cell-by-cell verdicts of a run's paper tables (kreinbench.agreement)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from kreinbench.agreement import judged, markdown, table_cells
from kreinbench.atomic import write_csv_atomic, write_text_atomic
from kreinbench.errors import KreinbenchError


def agreement(*, tables: list[str], explanations: str, csv: str, md: str, title: str,
              stand_ins: dict[str, str] | None = None) -> None:
    """Read the paper tables (CSV, named by their file), judge every cell with a paper value, write
    ``csv`` (every cell) and ``md`` (the counts and the disagreeing cells); rows of offline
    stand-ins (``stand_ins``, kreinbench.plan.stand_ins) are named as such."""
    entries = yaml.safe_load(Path(explanations).read_text()) or []
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "why" in e for e in entries):
        raise KreinbenchError(f"{explanations}: expected a list of {{table, dataset, column, why}} entries")
    frames = [table_cells(Path(path).stem, pd.read_csv(path), stand_ins) for path in tables]
    frames = [frame for frame in frames if not frame.empty] or [table_cells("", pd.DataFrame())]
    cells = judged(pd.concat(frames, ignore_index=True), entries)
    write_csv_atomic(csv, cells)
    write_text_atomic(md, markdown(cells, title))
