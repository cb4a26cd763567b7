"""How long a whole run of a config takes, projected from the jobs of a partial run that finished.

A paper config at full scale runs for hours on 2 cores (longer than one session on the machines
this project is developed on).  Its jobs repeat per repetition, so one repetition, or any subset of
the jobs, measures what the rest cost: every job writes ``logs/benchmark/<rule>/<job>.tsv`` with
its wall seconds ``s``.  A job still to run (from ``snakemake --dry-run``: its ``benchmark:`` line)
is estimated by the mean of the finished jobs of the same *signature*, its benchmark path with
the repetition left out (``fit/pima/smm/rep*``); failing that, of the same rule and dataset
(``fit/pima``), then of the same rule.  Jobs no finished job of their rule describes are counted as
unestimated, not guessed.  The wall time on ``cores`` cores is then about the job-seconds divided
by ``cores``, since the fit jobs, which dominate, are single-threaded and many.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pipeline_bench

BENCHMARK_LINE = re.compile(r"^\s+benchmark: logs/benchmark/(.+)\.tsv$")
REPETITION = re.compile(r"^rep\d+$")
COLUMNS = ("measured_jobs", "measured_s", "planned_jobs", "estimated_s", "fallback_jobs", "unestimated_jobs")


def planned_jobs(dry_run: str) -> list[str]:
    """The jobs (``rule/job`` benchmark paths) that a ``snakemake --dry-run`` output would run."""
    return [match.group(1) for line in dry_run.splitlines() if (match := BENCHMARK_LINE.match(line))]


def measured_jobs(workdir: str | Path) -> pd.Series:
    """Wall seconds of every finished job of a run directory, indexed by ``rule/job``."""
    records = pipeline_bench.benchmark_records(workdir)
    return pd.Series({job: float(record["s"]) for job, record in records.items()}, name="s", dtype=float)


def signature(job: str) -> str:
    """A job's benchmark path with its repetition component replaced by ``rep*``."""
    return "/".join("rep*" if REPETITION.match(part) else part for part in job.split("/"))


def rule_and_dataset(job: str) -> str:
    """``rule/dataset`` of a job's benchmark path (``rule/<first wildcard>``)."""
    return "/".join(job.split("/")[:2])


def rule(job: str) -> str:
    return job.split("/")[0]


def _estimates(measured: pd.Series) -> list[dict[str, float]]:
    """Mean seconds by signature, by rule/dataset, by rule: the fallbacks in order."""
    jobs = measured.index.to_series()
    return [measured.groupby(jobs.map(key).to_numpy()).mean().to_dict() for key in (signature, rule_and_dataset, rule)]


def project(measured: pd.Series, planned: list[str]) -> pd.DataFrame:
    """Per rule: finished jobs and their seconds, jobs to run with their estimated seconds, how many
    of those had no finished job of their own signature (``fallback_jobs``: estimated from their
    dataset or rule), and the jobs to run that nothing estimates.  A planned job that finished
    already (e.g. rerun on a changed parameter) counts once, at its measured time."""
    by_signature, by_dataset, by_rule = _estimates(measured)
    planned_set = set(planned)
    rows: dict[str, dict[str, float]] = {}

    def row(job: str) -> dict[str, float]:
        return rows.setdefault(rule(job), dict.fromkeys(COLUMNS, 0.0))

    for job, seconds in measured.items():
        if job not in planned_set:
            row(job)["measured_jobs"] += 1
            row(job)["measured_s"] += seconds
    for job in planned:
        row(job)["planned_jobs"] += 1
        estimate = measured.get(job, by_signature.get(signature(job)))
        if estimate is None:
            estimate = by_dataset.get(rule_and_dataset(job), by_rule.get(rule(job)))
            row(job)["fallback_jobs"] += estimate is not None
        if estimate is None:
            row(job)["unestimated_jobs"] += 1
        else:
            row(job)["estimated_s"] += estimate
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("rule").reset_index()
    for column in ("measured_jobs", "planned_jobs", "fallback_jobs", "unestimated_jobs"):
        table[column] = table[column].astype(int)
    table["total_s"] = table.measured_s + table.estimated_s
    return table.sort_values("total_s", ascending=False, ignore_index=True)
