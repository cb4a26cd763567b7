"""benchmarks/pipeline_bench.py on a hand-made run directory: benchmark files, kernels, a Snakemake log."""

import subprocess
import sys

import numpy as np
import pipeline_bench
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.linalg import cache
from kreinbench.pipeline.stages.runner import PEAK_RSS_FORMAT, STARTUP_FORMAT, process_age_seconds

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
CONFIG = {"datasets": ["sonar"], "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}, "rbf": {"type": "rbf", "sigma": [1, 2]}},
          "methods": {"m": {"estimator": "KLR", "kernel": "tl1", "grid": {"lam": [1.0]}}}, "repetitions": 1}


def bench_file(root, rel, s, rss_mb, cpu, logged=None, started=None):
    path = root / "logs" / "benchmark" / f"{rel}.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{s}\t0:00:01\t{rss_mb}\t1\t1\t1\t0\t0\t1.0\t{cpu}\n")
    if logged:  # the lines kreinbench.pipeline.stages.runner writes at the start and the end of a job
        log = root / "logs" / f"{rel}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("... INFO kreinbench: " + STARTUP_FORMAT % started + "\n... INFO kreinbench: "
                       + PEAK_RSS_FORMAT % logged + "\n")


@pytest.fixture
def run_dir(tmp_path, monkeypatch):
    for instance in ("tl1", "rbf-sigma=1", "rbf-sigma=2"):
        cache.write_kernel(tmp_path / f"results/kernels/sonar/rep0/{instance}.h5", np.eye(100), np.ones((50, 100)), {})
    # The job of config kernel rbf writes both of its instances, one after the other.
    bench_file(tmp_path, "kernel/sonar/rep0/rbf", 2.0, 150.0, 1.5)
    bench_file(tmp_path, "fit/sonar/m/rep0", 6.0, 151.0, 5.0, logged=(152.0, 150.0), started=0.5)
    bench_file(tmp_path, "table/table", 2.0, 90.0, 1.0)
    monkeypatch.setattr(pipeline_bench.plan, "fit_inputs",
                        lambda config, d, m, rep: {"kernels": [f"results/kernels/{d}/rep{rep}/tl1.h5"]})
    return tmp_path


def test_jobs_memory_and_overhead(run_dir):
    jobs = pipeline_bench.job_table(run_dir, CONFIG)
    assert sorted(zip(jobs.rule, jobs.job)) == [("fit", "sonar/m/rep0"), ("kernel", "sonar/rep0/rbf"), ("table", "table")]
    kb = (100 * 100 + 50 * 100) * 8
    assert jobs.set_index("rule").kernel_bytes.fillna(-1).to_dict() == {"fit": kb, "kernel": kb, "table": -1}
    memory = pipeline_bench.memory_by_rule(jobs).set_index("rule")
    # The fit's logged peak (152 MiB, 150 after imports) beats Snakemake's sampled 151 MiB.
    assert memory.loc["fit", "ratio_net"] == pytest.approx(2 * 2**20 / kb)
    assert memory.loc["fit", "ratio_raw"] == pytest.approx(152 * 2**20 / kb)
    # Without a logged peak: the sampled max_rss, and no net ratio.
    assert memory.loc["kernel", "ratio_raw"] == pytest.approx(150 * 2**20 / kb)
    assert np.isnan(memory.loc["kernel", "ratio_net"])
    assert np.isnan(memory.loc["table", "ratio_raw"])
    assert jobs.set_index("rule").startup_s.fillna(-1).to_dict() == {"fit": 0.5, "kernel": -1, "table": -1}
    split = pipeline_bench.overhead_split(jobs, wall=8.0, cores=2, startup={"fit": 1.0, "kernel": 1.0, "table": 1.0}, io=0.0)
    # 10 busy core-seconds on 2 cores in 8 s: 3 s of scheduling; 2.5 of the 10 are start-ups (the
    # fit's logged 0.5 s, the others' estimated 1 s).
    assert (split["compute"], split["python_start"], split["scheduling"], split["startups_logged"]) == (3.75, 1.25, 3.0, 1)
    assert split["overhead_share_of_compute"] == pytest.approx(4.25 / 3.75)


def test_a_processs_age_counts_from_its_start():
    code = ("import time; time.sleep(0.3); from kreinbench.pipeline.stages.runner import process_age_seconds; "
            "print(process_age_seconds())")
    age = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert 0.3 <= age < 30
    assert process_age_seconds() > age  # this test process started before it


def test_wall_seconds_from_log_timestamps(tmp_path):
    log = tmp_path / "run.snakemake.log"
    log.write_text("Building DAG\n[Mon Nov 23 11:27:44 2026]\nrule fetch:\n[Mon Nov 23 11:29:04 2026]\nFinished\n")
    assert pipeline_bench.log_wall_seconds(log) == 80.0
    log.write_text("nothing\n")
    with pytest.raises(KreinbenchError, match="fewer than two timestamps"):
        pipeline_bench.log_wall_seconds(log)


def test_no_benchmark_files_is_an_error_naming_the_directory(tmp_path):
    with pytest.raises(KreinbenchError, match="no Snakemake benchmark files"):
        pipeline_bench.job_table(tmp_path, CONFIG)
