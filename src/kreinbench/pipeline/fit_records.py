"""The one format of a fit's record: a flat JSON object per fitted model, one file each, named by
its ``dataset`` and ``method`` (and, where a job fits several, the repetition ``rep`` or the
training size ``n_train`` that tells them apart). Rule ``fit`` writes them
(``results/fits/<dataset>/<method>/rep<rep>.json``), as do DANK Table 4's repetitions (one per
method, ``results/dank_figures/table4/``) and the scale study's points (``results/scale/``); the
tables read them back with :func:`read_all`. A numpy scalar is written as the number it holds.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kreinbench.atomic import write_text_atomic
from kreinbench.errors import KreinbenchError

IDENTITY = ("dataset", "method")


def _number(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def write(path: str | Path, record: dict) -> None:
    """``record`` as the fit record ``path`` (atomically); an error naming the path if it lacks
    :data:`IDENTITY`."""
    missing = [key for key in IDENTITY if key not in record]
    if missing:
        raise KreinbenchError(f"fit record {path}: no {', '.join(missing)}")
    write_text_atomic(path, json.dumps(record, indent=1, default=_number) + "\n")


def read(path: str | Path) -> dict:
    """One fit record; an error naming the file if it is not one (a truncated or foreign file)."""
    try:
        record = json.loads(Path(path).read_text())
    except json.JSONDecodeError as error:
        raise KreinbenchError(f"fit record {path}: not JSON ({error}); delete it to refit") from None
    if not isinstance(record, dict) or any(key not in record for key in IDENTITY):
        raise KreinbenchError(f"fit record {path}: not a fit record (a JSON object with {', '.join(IDENTITY)})")
    return record


def read_all(paths) -> list[dict]:
    return [read(path) for path in paths]
