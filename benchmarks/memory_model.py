"""The planner's memory and runtime requests against what whole runs measured.

Usage: .venv/bin/python benchmarks/memory_model.py --run DIR LOG [LOG ...] [--run DIR LOG ...]
--out benchmarks/results/memory_model.md

Each `--run` is a run directory and the Snakemake logs of its parts. A job's request is what
Snakemake printed for it (`mem_mib`, `runtime` in minutes, from `kreinbench.pipeline.resources`),
its peak is the `peak RSS` its own log ends with (`getrusage`, the whole process: interpreter and
imports included) and its CPU seconds are its `benchmark:` file's `cpu_time` (all its threads;
wall seconds would count the time a run was paused or shared the cores). A peak above its request
is a job that a cluster would kill (SLURM enforces `--mem`), as is a job past its runtime; a
request far above the peak queues the job for a node it does not need.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd

from kreinbench.atomic import atomic_path
from pipeline_rows import header

JOB = re.compile(r"^(?:local)?rule (\w+):$")
PEAK = re.compile(r"peak RSS ([\d.]+) MiB")


def requests(log: Path) -> list[dict]:
    """Each job of a Snakemake log: its rule, log file and requested MiB and minutes."""
    jobs, current = [], None
    for line in log.read_text(errors="replace").splitlines():
        if (match := JOB.match(line)):
            # the per-dataset batch rules (fit_batch_<dataset>) are one rule of the planner
            current = {"rule": re.sub(r"^fit_batch_\w+$", "fit_batch", match.group(1))}
        elif current is not None and line.strip().startswith("log: "):
            current["log"] = line.strip().removeprefix("log: ").split(",")[0].strip()
        elif current is not None and line.strip().startswith("resources: "):
            fields = dict(part.split("=", 1) for part in line.strip().removeprefix("resources: ").split(", "))
            if "log" in current and "mem_mib" in fields:
                jobs.append({**current, "asked_mib": float(fields["mem_mib"]), "asked_min": float(fields["runtime"])})
            current = None
    return jobs


def measured(run: Path, job: dict) -> dict | None:
    """The job's peak RSS (MiB) and seconds, or None when it did not finish in this run."""
    log = run / job["log"]
    peaks = PEAK.findall(log.read_text(errors="replace")) if log.exists() else []
    bench = run / "logs" / "benchmark" / Path(job["log"]).relative_to("logs").with_suffix(".tsv")
    if not peaks or not bench.exists():
        return None
    cpu_seconds = float(pd.read_csv(bench, sep="\t")["cpu_time"].iloc[-1])
    return {**job, "peak_mib": float(peaks[-1]), "cpu_seconds": cpu_seconds}


def jobs_of(runs: list[list[str]]) -> pd.DataFrame:
    rows = []
    for run, *logs in runs:
        seen = {}
        for log in logs:
            for job in requests(Path(log)):
                seen[job["log"]] = job  # a job rerun in a later part: its last request
        rows += [row | {"run": Path(run).name} for job in seen.values() if (row := measured(Path(run), job))]
    frame = pd.DataFrame(rows)
    frame["memory_ratio"] = frame.peak_mib / frame.asked_mib
    frame["runtime_ratio"] = frame.cpu_seconds / (60.0 * frame.asked_min)
    return frame


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    grouped = frame.groupby("rule")
    return pd.DataFrame({
        "jobs": grouped.size(),
        "asked MiB (max)": grouped.asked_mib.max().round(0),
        "peak MiB (max)": grouped.peak_mib.max().round(0),
        "peak / asked (max)": grouped.memory_ratio.max().round(2),
        "peak / asked (median)": grouped.memory_ratio.median().round(2),
        "over the request": grouped.memory_ratio.apply(lambda r: int((r > 1.0).sum())),
        "CPU s / asked s (max)": grouped.runtime_ratio.max().round(2),
    }).sort_values("jobs", ascending=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", nargs="+", action="append", required=True, metavar="DIR LOG")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    frame = jobs_of(args.run)
    worst = frame.sort_values("memory_ratio", ascending=False).head(5)
    slow = frame.sort_values("runtime_ratio", ascending=False).head(5)
    text = "\n\n".join([
        header(__doc__),
        "Runs: " + ", ".join(f"{name} ({count} jobs)" for name, count in frame.groupby("run").size().items()),
        summary(frame).to_markdown(),
        "The jobs nearest their memory request:",
        worst[["run", "rule", "log", "asked_mib", "peak_mib", "memory_ratio"]].round(2).to_markdown(index=False),
        "The jobs nearest their runtime request:",
        slow[["run", "rule", "log", "asked_min", "cpu_seconds", "runtime_ratio"]].round(2).to_markdown(index=False),
    ]) + "\n"
    with atomic_path(args.out) as tmp:
        Path(tmp).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
