"""Run a stage inside a Snakemake job: log to the rule's log file, bound BLAS threads."""

from __future__ import annotations

import inspect
import logging
import os
import resource
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, get_type_hints

from threadpoolctl import threadpool_limits

from kreinbench.errors import KreinbenchError


def run_stage(snakemake, stage: Callable[..., None]) -> None:
    """Call ``stage`` with the job's files and parameters (:func:`stage_arguments`), logging into
    ``snakemake.log[0]`` and BLAS threads = job threads: the one place a stage meets Snakemake.

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
    # peaks (benchmarks/pipeline_bench.py reads this line).
    after_imports = peak_rss_mib()
    started = process_age_seconds()
    if started is not None:  # the interpreter's start, Snakemake's preamble and the script's imports
        logging.getLogger("kreinbench").info(STARTUP_FORMAT, started)
    try:
        with threadpool_limits(limits=max(1, int(snakemake.threads))):
            stage(**stage_arguments(snakemake, stage))
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


# Where a stage's keyword arguments are looked up in a job, by name.
JOB_PARTS = ("wildcards", "params", "input", "output")


def stage_arguments(snakemake, stage: Callable[..., None]) -> dict[str, Any]:
    """The keyword arguments of ``stage`` from a Snakemake job: each parameter by its name among
    the job's wildcards, params, named input and named output files, which must hold it exactly
    once, or else in the config (values that must not make Snakemake rerun a job when they change,
    as params would: the mirror the raw files come from); a parameter with a default may be
    absent. Files are plain ``str``, lists of files plain lists; a wildcard annotated ``int``
    (``rep``) is converted."""
    hints = get_type_hints(stage)
    arguments = {}
    for name, parameter in inspect.signature(stage).parameters.items():
        found = [part for part in JOB_PARTS if name in getattr(snakemake, part).keys()]
        if len(found) > 1:
            raise TypeError(f"stage {stage.__name__}: {name!r} is in the job's {' and '.join(found)}")
        if not found:
            if name in snakemake.config:
                arguments[name] = snakemake.config[name]
            elif parameter.default is inspect.Parameter.empty:
                raise TypeError(f"stage {stage.__name__}: the job has no {name!r} (wildcard, param, input, output "
                                "or config key)")
            continue
        value = getattr(getattr(snakemake, found[0]), name)
        if found[0] in ("input", "output"):
            value = [str(path) for path in value] if isinstance(value, list) else str(value)
        elif found[0] == "wildcards" and hints.get(name) is int:
            value = int(value)
        arguments[name] = value
    return arguments


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
