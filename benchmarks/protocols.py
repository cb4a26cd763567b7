"""Where a whole run's time went: its wall time and the job seconds per rule and per fitted method.

Usage: .venv/bin/python benchmarks/protocols.py --workdir DIR [--log DIR/run.log] [--name paper-dank]

DIR is a checkout where a config ran whole (``snakemake --cores 2 --configfile … all_paper_targets``
from an empty directory).  The wall time is the span of the Snakemake log's timestamps (``--log``,
default the newest ``DIR/.snakemake/log/*.snakemake.log``); the job seconds are every job's
``benchmark:`` file, the seconds of each fit (its CV, final fit and test) its record.  Prints two
tables (job seconds per rule; fit seconds per method, with its costliest dataset) as Markdown for
the README and docs/protocol-speed.md, and writes them as CSV to
``results/bench/protocol_<name>_{rules,methods}.csv``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
import pipeline_bench

from kreinbench.atomic import write_csv_atomic


def job_seconds(workdir: str | Path) -> pd.DataFrame:
    """rule, dataset and seconds of every finished job (from its ``benchmark:`` file)."""
    rows = []
    for name, record in pipeline_bench.benchmark_records(workdir).items():
        parts = name.split("/")
        rows.append({"rule": parts[0], "dataset": parts[1] if len(parts) > 2 else "", "s": float(record["s"])})
    return pd.DataFrame(rows)


def fit_seconds(workdir: str | Path) -> pd.DataFrame:
    """method, dataset and seconds (CV, final fit and test, from its record) of every fit: a fit
    batch's job seconds are its methods' together, so the per-method cost comes from the records."""
    rows = []
    for path in sorted(Path(workdir, "results", "fits").glob("*/*/rep*.json")):
        record = json.loads(path.read_text())
        rows.append({"method": record["method"], "dataset": record["dataset"],
                     "s": sum(record[key] or 0.0 for key in ("cv_time", "train_time", "test_time"))})
    return pd.DataFrame(rows)


def by_rule(jobs: pd.DataFrame) -> pd.DataFrame:
    table = jobs.groupby("rule").s.agg(jobs="count", job_s="sum", max_s="max").reset_index()
    table["share"] = table.job_s / table.job_s.sum()
    return table.sort_values("job_s", ascending=False, ignore_index=True)


def by_method(fits: pd.DataFrame, job_s: float) -> pd.DataFrame:
    """Per method: fits, their seconds, the longest; its costliest dataset; its share of the run's
    job seconds ``job_s``."""
    table = fits.groupby("method").s.agg(fits="count", fit_s="sum", max_s="max").reset_index()
    worst = fits.groupby(["method", "dataset"]).s.sum().reset_index().sort_values("s").groupby("method").last()
    table["costliest_dataset"] = table.method.map(worst.dataset)
    table["its_fit_s"] = table.method.map(worst.s)
    table["share"] = table.fit_s / job_s
    return table.sort_values("fit_s", ascending=False, ignore_index=True)


def newest_log(workdir: Path) -> Path:
    logs = sorted((workdir / ".snakemake" / "log").glob("*.snakemake.log"))
    if not logs:
        raise SystemExit(f"no Snakemake log under {workdir}/.snakemake/log: give --log")
    return logs[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--log", type=Path)
    parser.add_argument("--name", default="run")
    args = parser.parse_args()
    jobs = job_seconds(args.workdir)
    wall = pipeline_bench.log_wall_seconds(args.log or newest_log(args.workdir))
    rules, methods = by_rule(jobs), by_method(fit_seconds(args.workdir), jobs.s.sum())
    print(f"{args.name}: wall {wall / 60:.1f} min, {len(jobs)} jobs, {jobs.s.sum() / 3600:.2f} h of job time "
          f"({jobs.s.sum() / wall:.2f} jobs running on average)\n")
    print(rules.to_markdown(index=False, floatfmt=".2f"), "\n")
    print(methods.to_markdown(index=False, floatfmt=".2f"))
    out = Path("results/bench")
    write_csv_atomic(out / f"protocol_{args.name}_rules.csv", rules)
    write_csv_atomic(out / f"protocol_{args.name}_methods.csv", methods)


if __name__ == "__main__":
    main()
