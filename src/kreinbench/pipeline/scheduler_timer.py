"""One re-evaluation timer at a time in Snakemake's job scheduler (a workaround for Snakemake 9).

Snakemake's scheduler (``snakemake.scheduling.job_scheduler.JobScheduler``) ends every scheduling
pass that finds jobs ready by starting a ``threading.Timer`` of the job rate limiter's timespan
(``--max-jobs-per-timespan``, by default 100/1s, so always set) that wakes it for another pass. It
starts one whatever timers are already pending, so a pass caused by anything else (a job's end)
adds a timer chain (timer, pass, timer, ...) that lasts while jobs are ready. Measured on paper-dank
at 3e29d99 (2 cores): the main process held 150-180 threads with two jobs running, its CPU rose from
0.3 to 0.85 of a core over the run, 26 CPU minutes of the 66-minute default-scale run, a fifth of the
machine; on a 10 000-job workflow the threads exhaust the process (snakemake/snakemake#3804, open).

:func:`install` replaces the timer start by one that leaves a timer pending at most: a pass that
finds one pending starts none, and the pending one clears its mark before it wakes the scheduler,
so the pass it causes starts the next. The scheduler is still woken once per timespan, and by every
job's end, so no job that the rate limiter held back waits longer than before. Measured on the quick
config at 27d45fb (199 jobs, 2 idle cores, one run each): the main process's CPU 28 s → 10 s, its
threads at most 156 → 9, wall time 3 min 42 s → 3 min 26 s, and ``benchmarks/same_run.py`` found
the 262 result files identical.
"""

from __future__ import annotations

import threading

PENDING = "_kreinbench_reevaluation_pending"


def _schedule_reevaluation_once(self, delay) -> None:
    if getattr(self, PENDING, False):
        return
    setattr(self, PENDING, True)

    def wake() -> None:
        setattr(self, PENDING, False)
        self._open_jobs.release()

    timer = threading.Timer(delay, wake)
    timer.daemon = True
    timer.start()


def install() -> bool:
    """Patch Snakemake's scheduler where it has the method this replaces (its name is spelled so
    upstream); False, and nothing changed, where it has not (a Snakemake without the bug)."""
    try:
        from snakemake.scheduling.job_scheduler import JobScheduler
    except ImportError:
        return False
    if not hasattr(JobScheduler, "_schedule_reevalutation"):
        return False
    JobScheduler._schedule_reevalutation = _schedule_reevaluation_once
    return True
