"""Run a stage inside a Snakemake job: log to the rule's log file, bound BLAS threads."""

from __future__ import annotations

import logging
import os
import resource
import sys
import traceback
from pathlib import Path
from typing import Callable

from threadpoolctl import threadpool_limits

from kreinbench.errors import KreinbenchError


def run_stage(snakemake, stage: Callable[..., None]) -> None:
    """Call ``stage(snakemake)`` with logging into ``snakemake.log[0]`` and BLAS threads = job threads.

    Exceptions are logged with their traceback and re-raised, so Snakemake marks the job failed
    (and, since stages write atomically, no partial output remains).
    """
    handler = logging.FileHandler(snakemake.log[0], mode="w")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    # The process's peak RSS, exact (the kernel's high-water mark), after the imports and at the
    # end: Snakemake's benchmark max_rss samples once a second, then every 30 s, and misses short
    # peaks (kreinbench.pipeline_bench reads this line).
    after_imports = peak_rss_mib()
    started = process_age_seconds()
    if started is not None:  # the interpreter's start, Snakemake's preamble and the script's imports
        logging.getLogger("kreinbench").info(STARTUP_FORMAT, started)
    try:
        with threadpool_limits(limits=max(1, int(snakemake.threads))):
            stage(snakemake)
    except KreinbenchError as exc:
        # A diagnosed problem (bad data, a bad parameter, a corrupt cache): its one line is what the
        # user needs, so the job's output shows that line and the traceback goes to the log only.
        logging.getLogger("kreinbench").error("stage failed:\n%s", traceback.format_exc())
        print(f"kreinbench error: {exc}\n(traceback in {snakemake.log[0]})", file=sys.stderr)
        raise SystemExit(1) from None
    except Exception:
        logging.getLogger("kreinbench").error("stage failed:\n%s", traceback.format_exc())
        raise
    logging.getLogger("kreinbench").info(PEAK_RSS_FORMAT, peak_rss_mib(), after_imports)


PEAK_RSS_FORMAT = "peak RSS %.1f MiB (%.1f MiB after imports)"
STARTUP_FORMAT = "stage starts %.2f s after its process"


def process_age_seconds() -> float | None:
    """Seconds since this process started (Linux: its start time in /proc/self/stat against the
    uptime; 10 ms resolution), None where /proc is missing."""
    try:
        stat = Path("/proc/self/stat").read_text()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except OSError:
        return None
    # Field 22, counted after the parenthesized command name (which may hold spaces).
    start_ticks = int(stat.rsplit(")", 1)[1].split()[19])
    return max(uptime - start_ticks / os.sysconf("SC_CLK_TCK"), 0.0)


def peak_rss_mib() -> float:
    """This process's peak resident set size so far, MiB: VmHWM of its address space, which starts
    afresh at exec.  (``ru_maxrss`` does not: it keeps the high-water mark of the Snakemake process
    the job was forked from.)  ``ru_maxrss`` only where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
