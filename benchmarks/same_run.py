"""Did two runs of one config (e.g. at two commits) write the same results? Timings aside.

Usage: .venv/bin/python benchmarks/same_run.py BEFORE_DIR AFTER_DIR

BEFORE_DIR and AFTER_DIR are two run directories, or two ``reproductions/`` records (a record
holds no fit records or kernels: its tidy ``records/*.csv.gz`` are compared instead, as tables;
``RUN.md`` is its timings). Compares every file under each run directory's results/ (a record's
own files) that both have, by kind:
fit records (``results/fits/**.json``) field by field without their timings (``cv_time``,
``train_time``, ``test_time``, the histories' ``elapsed``); CSV tables cell by cell without timing
columns (a name with ``time``, ``seconds``, ``elapsed``, ``speedup`` or ending in ``_s``) and without the rows
of a long table whose ``metric`` (or the agreement's ``quantity``) is such a name; kernels, spectra and splits (HDF5) array by
array; every other file byte for byte, except HTML and Markdown renderings of tables whose CSV is
compared (they print the timings) and ``environment.tsv`` (the machine and the paths of the run,
not a result). Lists the files only one run has, then
every difference; exits 1 if any shared file differs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np
import pandas as pd

TIMING_FIELDS = {"cv_time", "train_time", "test_time"}


def comparable_record(path: Path) -> dict:
    record = json.loads(path.read_text())
    kept = {key: value for key, value in record.items() if key not in TIMING_FIELDS}
    if "history" in kept:
        kept["history"] = [{k: v for k, v in step.items() if k != "elapsed"} for step in kept["history"]]
    return kept


def timing_column(name: str) -> bool:
    """A column of times, or of a ratio of times (Ying Table 3's ``speedup``: the paper's seconds over ours)."""
    name = name.lower()
    return any(word in name for word in ("time", "seconds", "elapsed", "speedup")) or name.endswith("_s")


def same_csv(a: Path, b: Path) -> bool:
    left, right = pd.read_csv(a), pd.read_csv(b)
    if list(left.columns) != list(right.columns):
        return False
    kept = [c for c in left.columns if not timing_column(c)]
    for names in ("metric", "quantity"):
        if names in left.columns:
            # a long table (IKLR Tables IV, VI, VII, Fig. 2: metric; the agreement: quantity) names its timings in a column
            left, right = (frame[~frame[names].astype(str).map(timing_column)] for frame in (left, right))
            left, right = left.reset_index(drop=True), right.reset_index(drop=True)
    return left[kept].equals(right[kept])


def same_hdf5(a: Path, b: Path) -> bool:
    with h5py.File(a, "r") as left, h5py.File(b, "r") as right:
        names: list[str] = []
        left.visit(names.append)
        other: list[str] = []
        right.visit(other.append)
        if sorted(names) != sorted(other):
            return False
        return all(not isinstance(left[n], h5py.Dataset) or np.array_equal(left[n][()], right[n][()])
                   for n in names)


def same(a: Path, b: Path, relative: Path) -> bool:
    if relative.parts[0] == "fits" and a.suffix == ".json":
        return comparable_record(a) == comparable_record(b)
    if a.name.endswith((".csv", ".csv.gz")):
        return same_csv(a, b)
    if a.suffix == ".h5":
        return same_hdf5(a, b)
    return a.read_bytes() == b.read_bytes()


def skipped(relative: Path, shared: set[Path]) -> bool:
    rendering = relative.suffix in {".md", ".html"} and relative.with_suffix(".csv") in shared
    return rendering or relative.name in {"environment.tsv", "RUN.md"}


def results_root(side: Path) -> Path:
    """A run directory's results/, or a record itself."""
    return side / "results" if (side / "results").is_dir() else side


def main() -> int:
    before, after = (results_root(Path(arg)) for arg in sys.argv[1:3])
    files = {side: {p.relative_to(side) for p in side.rglob("*") if p.is_file()} for side in (before, after)}
    shared = files[before] & files[after]
    for side, other in ((before, after), (after, before)):
        for relative in sorted(files[side] - files[other]):
            print(f"only in {side}: {relative}")
    compared = sorted(p for p in shared if not skipped(p, shared))
    differ = [p for p in compared if not same(before / p, after / p, p)]
    for relative in differ:
        print(f"differs: {relative}")
    kinds = pd.Series([p.parts[0] if len(p.parts) > 1 else p.name for p in compared]).value_counts()
    print(f"{len(compared)} shared files compared ({', '.join(f'{k} {v}' for k, v in kinds.items())}); "
          f"{len(differ)} differ; {len(shared) - len(compared)} skipped (renderings of compared tables, environment.tsv, RUN.md)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
