"""kreinbench.pipeline.scheduler_timer: Snakemake's scheduler keeps one re-evaluation timer pending,
not one more per scheduling pass."""

import threading
import time
from types import SimpleNamespace

from snakemake.scheduling.job_scheduler import JobScheduler

from kreinbench.pipeline import scheduler_timer


def wakes(scheduler) -> int:
    count = 0
    while scheduler._open_jobs.acquire(blocking=False):
        count += 1
    return count


def test_the_workflow_installs_it_on_this_snakemake():
    assert scheduler_timer.install()
    assert JobScheduler._schedule_reevalutation is scheduler_timer._schedule_reevaluation_once


def test_passes_in_a_row_leave_one_timer_and_one_wake_up():
    scheduler = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    before = threading.active_count()
    for _ in range(50):  # fifty scheduling passes within one timespan
        scheduler_timer._schedule_reevaluation_once(scheduler, 0.2)
    assert threading.active_count() - before == 1
    time.sleep(0.5)
    assert wakes(scheduler) == 1


def test_the_pass_a_timer_wakes_starts_the_next():
    scheduler = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    scheduler_timer._schedule_reevaluation_once(scheduler, 0.05)
    for _ in range(3):  # each wake-up's pass schedules the next re-evaluation
        assert scheduler._open_jobs.acquire(timeout=2)
        scheduler_timer._schedule_reevaluation_once(scheduler, 0.05)
    assert scheduler._open_jobs.acquire(timeout=2)
