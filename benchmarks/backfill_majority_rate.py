"""Add each fit's test-half majority rate to a committed record made before fit records carried it.

Usage: KREINBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/backfill_majority_rate.py paper-iklr [...]

Fit records now carry ``majority_rate`` (the share of the test half's largest class) and
``predicted_majority_share`` (kreinbench.report.collapse); a record made before cannot get the second
without refitting, but the first is a property of the split alone. This rebuilds the run's splits
with the pipeline's own ``split`` rule (the record's config and ``--config`` values, the same
seeds), in a scratch directory, and writes the column into ``records/runs.csv.gz``; the record's
RUN.md says so. Its tables then judge those fits by the base-rate margin (accuracy within a point
of the majority rate) alone. Delete this script once every record is regenerated.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from kreinbench.data.split import read_split
from kreinbench.report.reproduction import run_overrides

ROOT = Path(__file__).resolve().parent.parent
NOTE = ("- `majority_rate` in records/runs.csv.gz was added after the run by benchmarks/backfill_majority_rate.py "
        "(from the run's splits, rebuilt by the split rule with the same seeds); `predicted_majority_share` "
        "is not recorded for this run.")


def split_majority_rates(record: Path, pairs: list[tuple[str, int]], workdir: Path) -> dict[tuple[str, int], float]:
    """The test half's majority rate of each (dataset, repetition) of the record's run."""
    (workdir / "workflow").symlink_to(ROOT / "workflow")
    overrides = run_overrides(record)
    targets = [f"data/splits/{dataset}/rep{rep}.h5" for dataset, rep in pairs]
    subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--snakefile", str(ROOT / "Snakefile"),
                    "--directory", str(workdir), "--configfile", str(ROOT / "workflow/configs" / f"{record.name}.yaml"),
                    *(["--config", *overrides] if overrides else []), "--workflow-profile", "none", "--quiet",
                    "--", *targets], cwd=ROOT, check=True)
    rates = {}
    for (dataset, rep), target in zip(pairs, targets):
        _, counts = np.unique(read_split(workdir / target).y_test, return_counts=True)
        rates[(dataset, rep)] = float(counts.max() / counts.sum())
    return rates


def backfill(record: Path) -> None:
    path = record / "records/runs.csv.gz"
    runs = pd.read_csv(path)
    pairs = sorted(set(zip(runs["dataset"], runs["rep"].astype(int))))
    with tempfile.TemporaryDirectory() as scratch:
        rates = split_majority_rates(record, pairs, Path(scratch))
    majority = [rates[(d, int(r))] for d, r in zip(runs["dataset"], runs["rep"])]
    runs = runs.drop(columns="majority_rate", errors="ignore")
    runs.insert(runs.columns.get_loc("train_accuracy") + 1, "majority_rate", majority)
    runs.to_csv(path, index=False, compression={"method": "gzip", "mtime": 0})
    run_md = record / "RUN.md"
    if NOTE not in run_md.read_text():
        run_md.write_text(run_md.read_text().rstrip("\n") + "\n" + NOTE + "\n")
    print(f"{path}: majority_rate for {len(pairs)} splits")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+", help="names under reproductions/")
    for name in parser.parse_args().records:
        backfill(ROOT / "reproductions" / name)


if __name__ == "__main__":
    main()
