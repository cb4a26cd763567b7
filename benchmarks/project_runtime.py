"""Project the wall time of a whole config's run from a partial run's finished jobs.

Usage: .venv/bin/python benchmarks/project_runtime.py --workdir DIR --configfile workflow/configs/paper-isvm.yaml
       [--config KEY=VALUE ...] [--cores 2] [--out results/bench/runtime_<config>.csv]

DIR is a run directory (a checkout where the config ran, completely or not, e.g. with
``--config repetitions=1``).  ``snakemake --dry-run`` there, with the config as a whole run would
use it (``--config`` as the run would get it, e.g. ``mirror=…``), lists the jobs still to run; each is
estimated from the finished jobs (benchmarks/runtime_projection.py).  Prints a table per rule and
the projected wall time on ``--cores`` cores, and writes it as CSV.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import runtime_projection

from kreinbench.atomic import write_csv_atomic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--configfile", required=True)
    parser.add_argument("--config", nargs="*", default=[])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--out")
    args = parser.parse_args()
    snakemake = Path(sys.executable).with_name("snakemake")
    command = [str(snakemake), "--dry-run", "--nolock", "--cores", str(args.cores), "--configfile", args.configfile]
    if args.config:
        command += ["--config", *args.config]
    dry_run = subprocess.run(command, cwd=args.workdir, capture_output=True, text=True)
    if dry_run.returncode != 0:
        sys.exit(f"snakemake --dry-run failed in {args.workdir}:\n{dry_run.stderr[-3000:]}")
    planned = runtime_projection.planned_jobs(dry_run.stdout + dry_run.stderr)
    table = runtime_projection.project(runtime_projection.measured_jobs(args.workdir), planned)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.0f}"))
    measured, estimated = table.measured_s.sum(), table.estimated_s.sum()
    print(f"\nfinished: {table.measured_jobs.sum()} jobs, {measured / 3600:.2f} h of job time; "
          f"to run: {table.planned_jobs.sum()} jobs, {estimated / 3600:.2f} h estimated "
          f"({table.fallback_jobs.sum()} from their dataset's or rule's mean, not their own signature's; "
          f"{table.unestimated_jobs.sum()} not estimated: no finished job of their rule)")
    print(f"whole run on {args.cores} cores: about {(measured + estimated) / args.cores / 3600:.1f} h")
    out = args.out or f"results/bench/runtime_{Path(args.configfile).stem}.csv"
    write_csv_atomic(out, table)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
