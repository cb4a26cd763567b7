"""Parse raw files into a numeric feature matrix and +1/-1 labels, with errors that say where."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kreinbench.data.registry import DatasetSpec
from kreinbench.errors import DataError


@dataclass(frozen=True)
class ParsedData:
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    label_map: dict[str, int]


def _split_line(line: str, delimiter: str | None) -> list[str]:
    cells = line.split(delimiter) if delimiter else line.split()
    return [c.strip() for c in cells]


def parse_delimited(spec: DatasetSpec, path: Path) -> ParsedData:
    """Parse a delimiter-separated text file (``parser.format: delimited``).

    Options under ``parser``: ``delimiter`` (default: any whitespace), ``skip_rows`` (lines to
    ignore at the top), ``missing`` (a token such as ``"?"``; rows containing it are dropped when
    ``missing_policy: drop_rows``, otherwise they are an error).
    """
    opts = spec.parser
    delimiter = opts.get("delimiter")
    skip = int(opts.get("skip_rows", 0))
    missing = opts.get("missing")
    drop_missing = opts.get("missing_policy") == "drop_rows"
    label_map = spec.label_map()
    where = f"dataset {spec.name!r}, file {str(path)!r}"

    lines = path.read_text(errors="strict").splitlines()
    rows: list[list[str]] = []
    line_numbers: list[int] = []
    for number, line in enumerate(lines[skip:], start=skip + 1):
        if not line.strip():
            continue
        cells = _split_line(line, delimiter)
        if missing is not None and missing in cells:
            if drop_missing:
                continue
            raise DataError(f"{where}, line {number}: missing value {missing!r}")
        if rows and len(cells) != len(rows[0]):
            raise DataError(
                f"{where}, line {number}: malformed row with {len(cells)} columns, "
                f"expected {len(rows[0])} (as on line {line_numbers[0]})"
            )
        rows.append(cells)
        line_numbers.append(number)
    if not rows:
        raise DataError(f"{where}: no data rows")

    n_cols = len(rows[0])
    label_col = spec.label["column"] % n_cols
    dropped = {c % n_cols for c in spec.drop_columns}
    feature_cols = [c for c in range(n_cols) if c != label_col and c not in dropped]

    X = np.empty((len(rows), len(feature_cols)))
    y = np.empty(len(rows))
    for i, (cells, number) in enumerate(zip(rows, line_numbers)):
        raw_label = cells[label_col]
        if raw_label not in label_map:
            raise DataError(
                f"{where}, line {number}, column {label_col + 1}: label {raw_label!r} does not map "
                f"(known labels: {sorted(label_map)})"
            )
        y[i] = label_map[raw_label]
        for j, col in enumerate(feature_cols):
            try:
                value = float(cells[col])
            except ValueError:
                raise DataError(
                    f"{where}, line {number}, column {col + 1}: non-numeric cell {cells[col]!r}"
                ) from None
            if not math.isfinite(value):
                raise DataError(f"{where}, line {number}, column {col + 1}: non-finite value {cells[col]!r}")
            X[i, j] = value

    classes = np.unique(y)
    if classes.size < 2:
        raise DataError(f"{where}: only one class ({int(classes[0]):+d}) present; need two")
    names = [f"x{c + 1}" for c in feature_cols]
    return ParsedData(X=X, y=y, feature_names=names, label_map=label_map)


_PARSERS = {"delimited": parse_delimited}


def parse_dataset(spec: DatasetSpec, raw_dir: Path, files: list[str]) -> ParsedData:
    """Parse the dataset's raw file (the first listed file of its manifest)."""
    return _PARSERS[spec.parser["format"]](spec, Path(raw_dir) / files[0])
