"""Parse raw files into a numeric feature matrix and labels, with errors that say where.

Formats (``parser.format``): ``delimited`` (CSV/TSV/whitespace, optional header, quoted cells),
``arff`` (numeric attributes), ``libsvm`` (sparse ``label index:value``) and ``pgm-archive`` (a zip
or tar archive of binary PGM images, one row per image). Files ending in ``.gz`` or ``.bz2`` are
decompressed on the fly. Labels become +1/-1 (binary), class indices
0..k-1 (multiclass) or floats (regression).
"""

from __future__ import annotations

import bz2
import csv
import gzip
import math
import re
import shlex
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kreinbench.data.fetch import read_manifest
from kreinbench.data.registry import DatasetSpec, RawFile, spec_from_entry
from kreinbench.errors import DataError


@dataclass(frozen=True)
class ParsedData:
    """Rows of a dataset: features ``X``, labels ``y``, and each row's provided ``part`` (or None)."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    label_map: dict[str, int]
    part: np.ndarray | None = None
    task: str = "binary"


@dataclass(frozen=True)
class _RawTable:
    """One file's rows before label mapping: raw label tokens and numeric features."""

    names: list[str]
    labels: list[str]
    X: np.ndarray
    lines: list[int]
    label_column: int | None = None  # 1-based, for error messages


def _read_lines(path: Path, where: str) -> list[str]:
    opener = {".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix, open)
    try:
        with opener(path, "rt", encoding="utf-8", newline=None) as handle:
            return handle.read().splitlines()
    except UnicodeDecodeError as exc:
        raise DataError(f"{where}: not UTF-8 text ({exc})") from None
    except (OSError, EOFError) as exc:
        raise DataError(f"{where}: cannot read ({exc})") from None


def _to_float(cell: str, where: str, line: int, column: int) -> float:
    try:
        value = float(cell)
    except ValueError:
        raise DataError(f"{where}, line {line}, column {column}: non-numeric cell {cell!r}") from None
    if not math.isfinite(value):
        raise DataError(f"{where}, line {line}, column {column}: non-finite value {cell!r}")
    return value


def _resolve_column(key: int | str, names: list[str] | None, n_cols: int, where: str, what: str) -> int:
    if isinstance(key, str):
        if names is None:
            raise DataError(f"{where}: {what} {key!r} is a column name, but the file has no header row declared: "
                            "set parser.header: true if its first row names the columns")
        if key not in names:
            raise DataError(f"{where}: {what} {key!r} is not a column name (header: {names})")
        return names.index(key)
    if not -n_cols <= key < n_cols:
        raise DataError(f"{where}: {what} {key} is out of range for {n_cols} columns")
    return key % n_cols


def _table_from_rows(spec: DatasetSpec, rows: list[list[str]], lines: list[int], header: list[str] | None,
                     labels: list[str] | None, where: str) -> _RawTable:
    """Split cells into label tokens and float features (``labels`` given: no label column)."""
    if not rows:
        raise DataError(f"{where}: no data rows")
    n_cols = len(rows[0])
    if header is not None and len(header) != n_cols:
        raise DataError(f"{where}: header has {len(header)} columns but line {lines[0]} has {n_cols}")
    label_col = None if labels is not None else _resolve_column(spec.label["column"], header, n_cols, where, "label column")
    dropped = {_resolve_column(c, header, n_cols, where, "drop_columns entry") for c in spec.drop_columns}
    feature_cols = [c for c in range(n_cols) if c != label_col and c not in dropped]
    X = np.empty((len(rows), len(feature_cols)))
    if header is None and spec.parser["format"] == "delimited":
        _refuse_header_row(rows, lines, feature_cols, where)
    for i, (cells, line) in enumerate(zip(rows, lines)):
        X[i] = [_to_float(cells[c], where, line, c + 1) for c in feature_cols]
    names = [header[c] if header else f"x{c + 1}" for c in feature_cols]
    tokens = labels if labels is not None else [cells[label_col] for cells in rows]
    return _RawTable(names=names, labels=tokens, X=X, lines=lines,
                     label_column=None if label_col is None else label_col + 1)


def _refuse_header_row(rows: list[list[str]], lines: list[int], feature_cols: list[int], where: str) -> None:
    """A first row whose feature cells are all non-numeric, above a numeric second row, is a header
    the config did not declare: say so rather than only that a cell is not a number."""
    if len(rows) < 2 or not feature_cols or any(_numeric_key(rows[0][c]) is not None for c in feature_cols):
        return
    if all(_numeric_key(rows[1][c]) is not None for c in feature_cols):
        column = feature_cols[0]
        raise DataError(f"{where}, line {lines[0]}, column {column + 1}: non-numeric cell {rows[0][column]!r}: "
                        f"line {lines[0]} looks like a header row: set parser.header: true")


def _split_cells(line: str, delimiter: str | None, quoted: bool) -> list[str]:
    if quoted:
        # shlex keeps a double-quoted cell containing spaces (e.g. a car name) together.
        cells = shlex.split(line) if delimiter is None else next(csv.reader([line], delimiter=delimiter))
    else:
        cells = line.split(delimiter) if delimiter else line.split()
    return [c.strip() for c in cells]


def _collect_rows(spec: DatasetSpec, text_lines: list[tuple[int, str]], where: str, split_cells,
                  head_rows: int | None) -> tuple[list[list[str]], list[int]]:
    """Non-blank rows as cells, with the row-shape and missing-value checks."""
    missing = spec.parser.get("missing")
    drop_missing = spec.parser.get("missing_policy") == "drop_rows"
    rows: list[list[str]] = []
    numbers: list[int] = []
    for number, line in text_lines:
        if head_rows is not None and len(rows) >= head_rows:
            break
        if not line.strip():
            continue
        cells = split_cells(line)
        if missing is not None and missing in cells:
            if drop_missing:
                continue
            raise DataError(f"{where}, line {number}: missing value {missing!r}")
        if rows and len(cells) != len(rows[0]):
            raise DataError(
                f"{where}, line {number}: malformed row with {len(cells)} columns, "
                f"expected {len(rows[0])} (as on line {numbers[0]})"
            )
        rows.append(cells)
        numbers.append(number)
    return rows, numbers


def _read_labels_file(path: Path, where: str) -> list[str]:
    return [line.strip() for line in _read_lines(path, where) if line.strip()]


def parse_delimited(spec: DatasetSpec, path: Path, raw: RawFile, where: str) -> _RawTable:
    """``parser``: ``delimiter`` (default any whitespace), ``skip_rows``, ``header`` (first row
    after the skipped ones names the columns), ``quoted`` (double-quoted cells may hold the
    delimiter), ``missing`` token with ``missing_policy: drop_rows`` (else a missing value is an
    error)."""
    opts = spec.parser
    delimiter, quoted = opts.get("delimiter"), bool(opts.get("quoted", False))
    numbered = list(enumerate(_read_lines(path, where), start=1))[int(opts.get("skip_rows", 0)):]
    header = None
    if opts.get("header"):
        numbered = [(n, line) for n, line in numbered if line.strip()]
        if not numbered:
            raise DataError(f"{where}: no header row")
        header = _split_cells(numbered[0][1], delimiter, quoted)
        numbered = numbered[1:]
    rows, lines = _collect_rows(spec, numbered, where, lambda line: _split_cells(line, delimiter, quoted), raw.head_rows)
    labels = None
    if raw.labels:
        labels_where = f"dataset {spec.name!r}, file {str(path.parent / raw.labels)!r}"
        labels = _read_labels_file(path.parent / raw.labels, labels_where)
        if len(labels) != len(rows):
            raise DataError(f"{labels_where}: {len(labels)} labels for {len(rows)} rows of {path.name!r}")
    return _table_from_rows(spec, rows, lines, header, labels, where)


def parse_arff(spec: DatasetSpec, path: Path, raw: RawFile, where: str) -> _RawTable:
    """ARFF with numeric attributes and a nominal class attribute; '%' starts a comment."""
    names: list[str] = []
    data_start = None
    text = _read_lines(path, where)
    for number, line in enumerate(text, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        keyword = stripped.split(None, 1)[0].lower()
        if keyword == "@attribute":
            names.append(shlex.split(stripped)[1])
        elif keyword == "@data":
            data_start = number
            break
    if data_start is None:
        raise DataError(f"{where}: no @data section")
    body = [(n, line) for n, line in enumerate(text, start=1) if n > data_start and not line.strip().startswith("%")]
    rows, lines = _collect_rows(spec, body, where, lambda line: _split_cells(line, ",", False), raw.head_rows)
    if rows and len(rows[0]) != len(names):
        raise DataError(f"{where}, line {lines[0]}: {len(rows[0])} values but {len(names)} @attribute lines")
    return _table_from_rows(spec, rows, lines, names, None, where)


def parse_libsvm(spec: DatasetSpec, path: Path, raw: RawFile, where: str) -> _RawTable:
    """LIBSVM sparse format ``label i:v i:v ...`` (1-based indices); ``parser.n_features`` fixes
    the dimension so that train and test files agree."""
    n_features = spec.parser.get("n_features")
    entries: list[list[tuple[int, float]]] = []
    labels: list[str] = []
    lines: list[int] = []
    for number, line in enumerate(_read_lines(path, where), start=1):
        if raw.head_rows is not None and len(labels) >= raw.head_rows:
            break
        tokens = line.split()
        if not tokens:
            continue
        row = []
        for k, token in enumerate(tokens[1:], start=2):
            index, sep, value = token.partition(":")
            if not sep or not index.isdigit() or int(index) < 1:
                raise DataError(f"{where}, line {number}, token {k}: malformed 'index:value' pair {token!r}")
            if n_features is not None and int(index) > n_features:
                raise DataError(f"{where}, line {number}, token {k}: feature index {index} > n_features = {n_features}")
            row.append((int(index) - 1, _to_float(value, where, number, int(index))))
        labels.append(tokens[0])
        entries.append(row)
        lines.append(number)
    if not labels:
        raise DataError(f"{where}: no data rows")
    width = n_features or max((i + 1 for row in entries for i, _ in row), default=0)
    X = np.zeros((len(entries), width))
    for r, row in enumerate(entries):
        for i, value in row:
            X[r, i] = value
    dropped = {c % width for c in spec.drop_columns}
    keep = [c for c in range(width) if c not in dropped]
    return _RawTable(names=[f"x{c + 1}" for c in keep], labels=labels, X=X[:, keep], lines=lines, label_column=1)


def _archive_members(path: Path, where: str, wanted) -> list[tuple[str, bytes]]:
    """(name, bytes) of the regular files of a zip or tar (optionally compressed) archive whose
    name ``wanted(name)`` accepts, sorted by name; the others are never read."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                return sorted((info.filename, archive.read(info)) for info in archive.infolist()
                              if not info.is_dir() and wanted(info.filename))
        if tarfile.is_tarfile(path):
            with tarfile.open(path) as archive:
                return sorted((info.name, archive.extractfile(info).read()) for info in archive
                              if info.isfile() and wanted(info.name))
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError) as exc:
        raise DataError(f"{where}: cannot read the archive ({exc})") from None
    raise DataError(f"{where}: not a zip or tar archive")


# A header field of a netpbm file: whitespace and '#' comments (to the end of the line), then digits.
_PGM_FIELD = re.compile(rb"(?:\s|#[^\n]*\n)*(\d+)")


def read_pgm(data: bytes, where: str) -> np.ndarray:
    """The pixels of a binary PGM (netpbm ``P5``) image as an (height, width) float array.

    Samples are one byte for maxval < 256, else two bytes, most significant first (netpbm).
    """
    if data[:2] != b"P5":
        raise DataError(f"{where}: not a binary PGM image (magic {data[:2]!r}, expected b'P5')")
    fields, pos = [], 2
    for name in ("width", "height", "maxval"):
        match = _PGM_FIELD.match(data, pos)
        if match is None:
            raise DataError(f"{where}: PGM header has no {name}")
        fields.append(int(match.group(1)))
        pos = match.end()
    width, height, maxval = fields
    # Exactly one whitespace byte separates maxval from the raster.
    if not data[pos:pos + 1].isspace() or not 0 < maxval < 65536:
        raise DataError(f"{where}: malformed PGM header (maxval {maxval})")
    dtype = np.dtype("u1" if maxval < 256 else ">u2")
    available, needed = len(data) - pos - 1, width * height * dtype.itemsize
    if available < needed:
        raise DataError(f"{where}: PGM raster has {available} bytes, a {height} x {width} image needs {needed}")
    return np.frombuffer(data, dtype, count=width * height, offset=pos + 1).reshape(height, width).astype(float)


def _member_label(name: str) -> str:
    """The label token of an archive member: its innermost directory ('' at the top level)."""
    parts = name.split("/")
    return parts[-2] if len(parts) > 1 else ""


def parse_pgm_archive(spec: DatasetSpec, path: Path, raw: RawFile, where: str) -> _RawTable:
    """Every ``*.pgm`` member of a zip or tar archive as one row of pixels (row-major); the label
    token is the name of the member's directory (e.g. ``yaleB01`` in the cropped Yale B archive).

    Other members (``.info`` files, images renamed ``.bad``) are ignored; all images must have one
    size. With ``label.others: drop`` images of unlisted classes are not even decompressed: the whole
    cropped Yale B archive as floats would take 0.6 GB.
    """
    mapping = spec.label_map()
    drop_others = spec.label.get("others") == "drop"
    members = _archive_members(path, where, lambda name: name.lower().endswith(".pgm") and (
        not drop_others or _member_label(name) in mapping))
    if not members:
        raise DataError(f"{where}: no .pgm images (of the listed classes) in the archive")
    for name, _ in members:
        if _member_label(name) not in mapping:
            raise DataError(f"{where}, member {name!r}: label {_member_label(name)!r} (the image's directory) "
                            f"does not map (known labels: {sorted(mapping)})")
    images = [read_pgm(data, f"{where}, member {name!r}") for name, data in members]
    first = images[0].shape
    for (name, _), image in zip(members, images):
        if image.shape != first:
            raise DataError(f"{where}, member {name!r}: image is {image.shape[0]} x {image.shape[1]}, "
                            f"{members[0][0]!r} is {first[0]} x {first[1]}")
    X = np.stack([image.ravel() for image in images])
    return _RawTable(names=[f"x{c + 1}" for c in range(X.shape[1])], labels=[_member_label(n) for n, _ in members],
                     X=X, lines=list(range(1, len(members) + 1)))


_PARSERS = {"delimited": parse_delimited, "arff": parse_arff, "libsvm": parse_libsvm, "pgm-archive": parse_pgm_archive}


def _numeric_key(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def _map_labels(spec: DatasetSpec, table: _RawTable, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Labels as numbers and the mask of rows kept (binary ``others: drop`` removes rows)."""
    if spec.task == "regression":
        column = table.label_column or 0
        targets = [_to_float(t, where, n, column) for t, n in zip(table.labels, table.lines)]
        return np.array(targets), np.ones(len(targets), bool)
    mapping = spec.label_map()
    # LIBSVM writes '+1', '1' or '1.0' for the same class: fall back to comparing numbers.
    numeric = {_numeric_key(k): v for k, v in mapping.items() if _numeric_key(k) is not None}
    drop_others = spec.label.get("others") == "drop"
    y = np.empty(len(table.labels))
    keep = np.ones(len(table.labels), bool)
    for i, (token, number) in enumerate(zip(table.labels, table.lines)):
        value = mapping.get(token)
        if value is None and _numeric_key(token) is not None:
            value = numeric.get(_numeric_key(token))
        if value is None:
            if drop_others:
                keep[i] = False
                continue
            column = f", column {table.label_column}" if table.label_column else ""
            raise DataError(f"{where}, line {number}{column}: label {token!r} does not map (known labels: {sorted(mapping)})")
        y[i] = value
    return y, keep


def _dropped_lines(table: _RawTable, raw: RawFile, where: str) -> np.ndarray:
    """Mask of the rows on the file's ``drop_lines`` (registry file option: corrupt records)."""
    dropped = np.isin(table.lines, raw.drop_lines)
    missing = sorted(set(raw.drop_lines) - set(table.lines))
    if missing:
        raise DataError(f"{where}: drop_lines {missing} are not data rows of the file")
    return dropped


def parse_dataset(spec: DatasetSpec, raw_dir: str | Path, files: list[str] | None = None) -> ParsedData:
    """Parse every data file of ``spec`` found in ``raw_dir`` and stack their rows.

    ``files`` (names from the fetch manifest) is checked to contain each file the registry lists.
    Each row keeps the ``part`` (train/test) of its file when the files are a provided split.
    """
    raw_dir = Path(raw_dir)
    tables, parts = [], []
    for raw in spec.raw_files():
        if files is not None and raw.name not in files:
            raise DataError(f"dataset {spec.name!r}: raw file {raw.name!r} is not in the manifest ({files})")
        path = raw_dir / raw.name
        where = f"dataset {spec.name!r}, file {str(path)!r}"
        table = _PARSERS[spec.parser["format"]](spec, path, raw, where)
        y, keep = _map_labels(spec, table, where)
        keep &= ~_dropped_lines(table, raw, where)
        tables.append((table, y, keep, where))
        parts.append(raw.part)
    widths = {t.X.shape[1] for t, *_ in tables}
    if len(widths) > 1:
        raise DataError(f"dataset {spec.name!r}: files have different feature counts {sorted(widths)}")
    X = np.vstack([t.X[keep] for t, _, keep, _ in tables])
    y = np.concatenate([y[keep] for _, y, keep, _ in tables])
    if y.size == 0:
        raise DataError(f"dataset {spec.name!r}: no rows left after label mapping")
    if spec.task != "regression" and np.unique(y).size < 2:
        raise DataError(f"{tables[0][3]}: only one class ({y[0]:+g}) present; need two")
    part = None
    if any(parts):
        part = np.concatenate([np.full(int(keep.sum()), p or "") for p, (_, _, keep, _) in zip(parts, tables)])
    return ParsedData(X=X, y=y, feature_names=tables[0][0].names, label_map=spec.label_map(), part=part, task=spec.task)


def parse_fetched(manifest_path: str, dataset: str, entry: dict) -> ParsedData:
    """Parse the raw files that rule ``fetch`` wrote for ``dataset`` (its ``manifest_path``; no split,
    no scaling): the data of the analyses that use every row (DANK's figures)."""
    spec = spec_from_entry(dataset, entry)
    files = [f["file"] for f in read_manifest(manifest_path)["files"]]
    return parse_dataset(spec, manifest_path.rsplit("/", 1)[0], files)
