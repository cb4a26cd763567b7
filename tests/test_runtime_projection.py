"""benchmarks/runtime_projection.py: a whole run's time from a partial run's benchmark files."""

import pandas as pd
import pytest
import runtime_projection as rp

from kreinbench.errors import KreinbenchError

DRY_RUN = """
rule fit:
    input: data/splits/pima/rep2.h5
    output: results/fits/pima/smm/rep2.json
    log: logs/fit/pima/smm/rep2.log
    benchmark: logs/benchmark/fit/pima/smm/rep2.tsv
    wildcards: dataset=pima, method=smm, rep=2
rule fit:
    benchmark: logs/benchmark/fit/pima/spgm/rep2.tsv
rule fit:
    benchmark: logs/benchmark/fit/sonar/smm/rep2.tsv
rule table:
    benchmark: logs/benchmark/table/table.tsv
rule fit:
    benchmark: logs/benchmark/fit/pima/smm/rep1.tsv
"""


def write_benchmark(root, job, seconds):
    path = root / "logs" / "benchmark" / f"{job}.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame([{"s": seconds, "h:m:s": "0:00:00", "max_rss": 1.0}]).to_csv(path, sep="\t", index=False)


def test_planned_jobs_are_the_dry_runs_benchmark_paths():
    assert rp.planned_jobs(DRY_RUN) == ["fit/pima/smm/rep2", "fit/pima/spgm/rep2", "fit/sonar/smm/rep2",
                                        "table/table", "fit/pima/smm/rep1"]


def test_signature_drops_only_the_repetition():
    assert rp.signature("fit/pima/smm/rep12") == "fit/pima/smm/rep*"
    assert rp.signature("kernel/pima/rep3/tl1") == "kernel/pima/rep*/tl1"
    assert rp.signature("table/report") == "table/report"


def test_projection_uses_signature_then_dataset_then_rule(tmp_path):
    write_benchmark(tmp_path, "fit/pima/smm/rep1", 100.0)
    write_benchmark(tmp_path, "fit/pima/smm/rep3", 200.0)
    write_benchmark(tmp_path, "fit/heart/smm/rep1", 10.0)
    write_benchmark(tmp_path, "split/pima/rep1", 2.0)
    table = rp.project(rp.measured_jobs(tmp_path), rp.planned_jobs(DRY_RUN)).set_index("rule")
    fit = table.loc["fit"]
    # Finished and not planned again: rep3 of pima/smm, heart (rep1 of pima/smm is planned again:
    # counted once, at its own measured time).
    assert fit.measured_jobs == 2 and fit.measured_s == 210.0
    # pima/smm/rep2 by its signature (150), pima/spgm by pima's fits (mean of 100, 200), sonar/smm by
    # all fits (mean 310 / 3), pima/smm/rep1 by its own time.
    assert fit.planned_jobs == 4 and fit.fallback_jobs == 2
    assert fit.estimated_s == pytest.approx(150.0 + 150.0 + 310.0 / 3 + 100.0)
    assert table.loc["table"].unestimated_jobs == 1 and table.loc["table"].estimated_s == 0
    assert table.loc["split"].total_s == 2.0


def test_a_directory_without_benchmarks_is_named(tmp_path):
    with pytest.raises(KreinbenchError, match="no Snakemake benchmark files"):
        rp.measured_jobs(tmp_path)
