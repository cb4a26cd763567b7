"""Peak memory per rule and the split of a run's wall time, from Snakemake's ``benchmark:`` files.

Every rule writes ``logs/benchmark/<rule>/<wildcards>.tsv`` (wall seconds ``s``, ``max_rss`` in MB,
``cpu_time``, …; Snakemake's format).  :func:`job_table` reads them all, with the bytes of the
kernels each job holds (n_train² + n_test·n_train doubles of every kernel file it reads or
writes); :func:`memory_by_rule` gives max_rss / kernel bytes per rule, raw and above the
interpreter's own RSS after its imports; :func:`overhead_split` splits the run's wall time
(Snakemake's log timestamps) into compute, Python start + imports, kernel I/O and scheduling.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import h5py
import numpy as np
import pandas as pd

from kreinbench.errors import KreinbenchError
from kreinbench.linalg import cache
from kreinbench.pipeline import paths, plan

MB = 2**20
# Snakemake's benchmark files give max_rss in MB (2^20 bytes, from psutil's bytes / 1024²).
PEAK_RSS = re.compile(r"peak RSS ([\d.]+) MiB \(([\d.]+) MiB after imports\)")
STARTUP = re.compile(r"stage starts ([\d.]+) s after its process")
TIMESTAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")


def kernel_file_bytes(path: str | Path) -> int:
    """Bytes of the train and test kernels in a kernel cache file, from their shapes (not read)."""
    with h5py.File(path, "r") as h5:
        return sum(int(np.prod(h5[name].shape)) * h5[name].dtype.itemsize for name in ("K_train", "K_test"))


def job_kernel_files(config: dict, rule: str, job: str) -> list[str]:
    """The kernel cache files a job of ``rule`` writes or reads (``job``: its benchmark path below
    the rule: ``sonar/rep0/rbf`` (a config kernel), ``sonar/rep0/rbf-sigma=1`` (an instance),
    ``sonar/ccicp-gd/rep0`` (a fit) or ``sonar/rep0`` (a fit batch)); [] for other rules."""
    if rule == "kernel":
        dataset, rep, kernel = job.split("/")
        return [paths.kernel_path(dataset, int(rep.removeprefix("rep")), instance)
                for instance in plan.kernel_instances(config, kernel)]
    if rule == "spectrum":
        return [f"results/kernels/{job}.h5"]
    if rule == "fit":
        dataset, method, rep = job.split("/")
        return list(plan.fit_inputs(config, dataset, method, int(rep.removeprefix("rep")))["kernels"])
    if rule == "fit_batch":  # its fits one after another: the kernels of the one that reads the most
        dataset, rep = job.split("/")
        jobs = plan.fit_batch_jobs(config, dataset, int(rep.removeprefix("rep")))
        return max((list(job["kernels"]) for job in jobs.values()), key=len)
    return []


def logged_peak_rss(log: Path) -> tuple[float, float]:
    """(peak RSS, RSS after imports) in bytes from a job's log (kreinbench.pipeline.stages.runner), NaN if absent."""
    text = log.read_text() if log.exists() else ""
    found = PEAK_RSS.findall(text)
    return (float(found[-1][0]) * MB, float(found[-1][1]) * MB) if found else (np.nan, np.nan)


def logged_startup(log: Path) -> float:
    """Seconds from a job's process start to its stage (interpreter, Snakemake's preamble, the
    script's imports), as the job logged them (kreinbench.pipeline.stages.runner), NaN if absent."""
    found = STARTUP.findall(log.read_text()) if log.exists() else []
    return float(found[-1]) if found else np.nan


def benchmark_records(workdir: str | Path) -> dict[str, pd.Series]:
    """The record of every benchmark file under ``workdir/logs/benchmark``, by ``rule/job`` (its
    path below that directory, without ``.tsv``)."""
    root = Path(workdir) / "logs" / "benchmark"
    # A rerun rewrites the file: its one row is the last run's.
    records = {str(tsv.relative_to(root).with_suffix("")): pd.read_csv(tsv, sep="\t").iloc[-1]
               for tsv in sorted(root.rglob("*.tsv"))}
    if not records:
        raise KreinbenchError(f"no Snakemake benchmark files under {str(root)!r}: run the workflow there first")
    return records


def job_table(workdir: str | Path, config: dict) -> pd.DataFrame:
    """One row per benchmark file under ``workdir/logs/benchmark``: rule, job, seconds, cpu
    seconds, Snakemake's sampled max_rss, the exact ``peak_rss`` and ``startup_rss`` (after the
    imports) the job logged (bytes), its logged ``startup_s`` (seconds from its process start to
    its stage) and the kernel bytes the job holds at most (NaN for rules without one)."""
    workdir = Path(workdir)
    rows = []
    for name, record in benchmark_records(workdir).items():
        rule, _, job = name.partition("/")
        files = job_kernel_files(config, rule, job)
        log = workdir / "logs" / f"{name}.log"
        peak, startup = logged_peak_rss(log)
        sizes = [kernel_file_bytes(workdir / f) for f in files]
        rows.append({"rule": rule, "job": job, "s": float(record["s"]), "cpu_time": float(record["cpu_time"]),
                     "max_rss": float(record["max_rss"]) * MB, "peak_rss": peak, "startup_rss": startup,
                     "startup_s": logged_startup(log),
                     "mean_load": float(record["mean_load"]),
                     # A kernel job holds its instances one after another, the others all at once.
                     "kernel_bytes": float((max if rule == "kernel" else sum)(sizes)) if sizes else np.nan})
    return pd.DataFrame(rows)


def memory_by_rule(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per rule: jobs, the largest peak RSS, the largest kernel bytes, and the worst job's peak
    RSS / kernel bytes, raw and net of the job's RSS after its imports (the interpreter, numpy,
    scipy, h5py…, before any data).  The peak is the job's logged one, else Snakemake's max_rss."""
    jobs = jobs.assign(peak=jobs.peak_rss.fillna(jobs.max_rss))
    rows = []
    for rule, group in jobs.groupby("rule", sort=True):
        held = group[group.kernel_bytes > 0]
        raw = held.peak / held.kernel_bytes
        net = (held.peak - held.startup_rss) / held.kernel_bytes
        worst = net.idxmax() if net.notna().any() else None
        rows.append({"rule": rule, "jobs": len(group), "peak_rss_MB": group.peak.max() / MB,
                     "startup_rss_MB": group.startup_rss.max() / MB, "sampled_max_rss_MB": group.max_rss.max() / MB,
                     "max_kernel_MB": held.kernel_bytes.max() / MB if len(held) else np.nan,
                     "ratio_raw": raw.max() if len(held) else np.nan, "ratio_net": net.max() if worst is not None else np.nan,
                     "worst_job": group.job[worst] if worst is not None else ""})
    return pd.DataFrame(rows)


def startup_cost(script: str | Path, python: str = sys.executable, repeats: int = 3) -> tuple[float, float]:
    """(median seconds, max RSS bytes) of a fresh interpreter that imports what a rule's
    Snakemake script imports (its ``import``/``from`` lines, after snakemake.script, which every
    script job loads to unpickle its ``snakemake`` object): a job's start-up before any work."""
    imports = [line for line in Path(script).read_text().splitlines() if line.startswith(("import ", "from "))]
    code = "\n".join(["import snakemake.script", *imports, "import resource",
                      "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"])
    times, rss = [], 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout
        times.append(time.perf_counter() - start)
        rss = max(rss, float(out.split()[-1]) * 1024)  # ru_maxrss is in KiB on Linux
    return float(np.median(times)), rss


def log_wall_seconds(log: str | Path) -> float:
    """Seconds between the first and the last timestamp line of a Snakemake log."""
    stamps = [datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
              for line in Path(log).read_text().splitlines() if (m := TIMESTAMP.match(line.strip()))]
    if len(stamps) < 2:
        raise KreinbenchError(f"Snakemake log {str(log)!r} has fewer than two timestamps")
    return (stamps[-1] - stamps[0]).total_seconds()


def kernel_read_seconds(workdir: str | Path, jobs: pd.DataFrame, config: dict) -> float:
    """Seconds to read, once more, every kernel file each job read (fit and spectrum jobs read
    theirs; kernel jobs write theirs, timed as a read too): the run's kernel I/O, roughly."""
    workdir = Path(workdir)
    total = 0.0
    for row in jobs.itertuples():
        for f in job_kernel_files(config, row.rule, row.job):
            start = time.perf_counter()
            cache.read_kernel(workdir / f)
            total += time.perf_counter() - start
    return total


def overhead_split(jobs: pd.DataFrame, *, wall: float, cores: int, startup: dict[str, float], io: float) -> dict:
    """The run's wall time split into compute, Python start + imports, kernel I/O and scheduling.

    Busy core-seconds are the sum of the jobs' wall seconds; of those, each job's start-up and
    ``io`` are overhead, the rest compute.  A job's start-up is the one it logged (``startup_s``:
    measured in the run, under the run's load), else ``startup[rule]`` (a fresh interpreter
    importing the rule's modules, timed afterwards).  Scheduling is what the cores did not spend
    in jobs: wall − busy / cores.  All in wall seconds of the whole run (core-seconds / cores).
    """
    busy = float(jobs.s.sum())
    estimated = jobs.rule.map(lambda rule: startup.get(rule, np.nan)).astype(float)
    logged = jobs.startup_s
    start = float(logged.fillna(estimated).sum())
    parts = {"compute": (busy - start - io) / cores, "python_start": start / cores, "io": io / cores,
             "scheduling": wall - busy / cores}
    overhead = parts["python_start"] + parts["io"] + parts["scheduling"]
    return {"wall": wall, "cores": cores, "jobs": len(jobs), "startups_logged": int(logged.notna().sum()),
            **parts, "overhead": overhead,
            "overhead_share_of_compute": overhead / parts["compute"] if parts["compute"] > 0 else np.inf}
