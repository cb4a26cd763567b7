"""Peak memory per rule and pipeline overhead of a workflow run, from its Snakemake benchmark files.

Usage: .venv/bin/python benchmarks/bench_pipeline.py [--workdir DIR | --run] [--configfile FILE] [--name pipeline]
       [--cores 2] [--out-dir results/bench]

``--run`` copies the repository's tracked files (``git ls-files``) to a scratch directory and runs
the quick default config there (or ``--configfile``, a path in the repository, e.g.
workflow/configs/bench-memory.yaml), ``snakemake --cores N``; ``--workdir`` analyses a run made
already (its ``logs/benchmark/``, ``.snakemake/log/`` and kernel files).  See
benchmarks/pipeline_bench.py for what is measured.  Writes ``<name>_jobs.csv`` (one row per
job), ``<name>_memory.csv`` (per rule) and ``<name>_overhead.csv`` (one row) to ``--out-dir``,
with the machine's load average at the end of the run.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pipeline_bench
import yaml

from kreinbench.atomic import write_text_atomic
from kreinbench.pipeline import plan

REPO = Path(__file__).resolve().parents[1]


def copy_repository(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files"], cwd=REPO, check=True, capture_output=True, text=True).stdout.split()
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)


def run_workflow(workdir: Path, cores: int, configfile: str | None) -> None:
    snakemake = Path(sys.executable).with_name("snakemake")
    extra = ["--configfile", configfile] if configfile else []
    # Not --quiet: the job timestamps in its log give the wall time.
    subprocess.run([str(snakemake), "--profile", "workflow/profiles/default", "--cores", str(cores), *extra],
                   cwd=workdir, check=True)


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    write_text_atomic(path, buffer.getvalue())


def analyse(workdir: Path, cores: int, out_dir: Path, configfile: str | None, name: str) -> None:
    config = yaml.safe_load((workdir / (configfile or "config.yaml")).read_text())
    config.update(plan.scaled_config(config))
    jobs = pipeline_bench.job_table(workdir, config)
    scripts = {rule: workdir / "workflow" / "scripts" / f"{rule}.py" for rule in jobs.rule.unique()}
    startup = {rule: pipeline_bench.startup_cost(script)[0] for rule, script in scripts.items() if script.exists()}
    memory = pipeline_bench.memory_by_rule(jobs)
    log = max((workdir / ".snakemake" / "log").glob("*.snakemake.log"), key=os.path.getmtime)
    split = pipeline_bench.overhead_split(
        jobs, wall=pipeline_bench.log_wall_seconds(log), cores=cores,
        startup=startup,
        io=pipeline_bench.kernel_read_seconds(workdir, jobs, config))
    split["load_average"] = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    write_csv(jobs, out_dir / f"{name}_jobs.csv")
    write_csv(memory, out_dir / f"{name}_memory.csv")
    write_csv(pd.DataFrame([split]), out_dir / f"{name}_overhead.csv")
    print(memory.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print("\n".join(f"{k}: {v:.4g}" if isinstance(v, float) else f"{k}: {v}" for k, v in split.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--workdir", type=Path, help="a directory where the workflow has run")
    where.add_argument("--run", action="store_true", help="run the quick config in a scratch copy first")
    parser.add_argument("--configfile", help="a config in the repository instead of config.yaml")
    parser.add_argument("--name", default="pipeline", help="prefix of the output CSVs")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--out-dir", type=Path, default=Path("results/bench"))
    args = parser.parse_args()
    if args.workdir is not None:
        analyse(args.workdir, args.cores, args.out_dir, args.configfile, args.name)
        return
    with tempfile.TemporaryDirectory(prefix="kreinbench-pipeline-") as scratch:
        copy_repository(Path(scratch))
        run_workflow(Path(scratch), args.cores, args.configfile)
        analyse(Path(scratch), args.cores, args.out_dir, args.configfile, args.name)


if __name__ == "__main__":
    main()
