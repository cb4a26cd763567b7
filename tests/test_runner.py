"""run_stage, the one place a stage meets Snakemake: its arguments from the job, its errors, its log."""

import logging
from types import SimpleNamespace

import pytest
from snakemake.iocontainers import InputFiles, OutputFiles, Params, Wildcards

from kreinbench.errors import DataError
from kreinbench.pipeline.stages.runner import run_stage, stage_arguments


def snakemake_job(tmp_path, *, wildcards=None, params=None, input=None, output=None, config=None):
    """A job as Snakemake's script preamble gives it to a stage script."""
    return SimpleNamespace(wildcards=Wildcards(fromdict=wildcards or {}), params=Params(fromdict=params or {}),
                           input=InputFiles(fromdict=input or {}), output=OutputFiles(fromdict=output or {}),
                           config=config or {}, log=[str(tmp_path / "job.log")], threads=1)


def stage(*, dataset: str, rep: int, grid: dict, split: str, kernels: list[str], record: str, mirror: str | None = None,
          note: str = "default"):
    return locals()


def test_a_stage_gets_each_argument_by_name_from_the_job(tmp_path):
    job = snakemake_job(tmp_path, wildcards={"dataset": "sonar", "rep": "3"}, params={"grid": {"lam": [1.0]}},
                        input={"split": "data/splits/sonar/rep3.h5", "kernels": ["a.h5", "b.h5"]},
                        output={"record": "results/fits/sonar/m/rep3.json"}, config={"mirror": "/data", "seed": 1})
    arguments = stage_arguments(job, stage)
    assert arguments == {"dataset": "sonar", "rep": 3, "grid": {"lam": [1.0]}, "split": "data/splits/sonar/rep3.h5",
                         "kernels": ["a.h5", "b.h5"], "record": "results/fits/sonar/m/rep3.json", "mirror": "/data"}
    assert type(arguments["split"]) is str and all(type(k) is str for k in arguments["kernels"])
    assert stage(**arguments)["note"] == "default"


def test_a_name_the_job_holds_twice_or_not_at_all_is_a_bug_named(tmp_path):
    parts = {"wildcards": {"dataset": "sonar", "rep": "1"}, "params": {"grid": {}},
             "input": {"split": "s", "kernels": []}, "output": {"record": "r"}}
    twice = snakemake_job(tmp_path, **{**parts, "params": {"grid": {}, "dataset": "x"}})
    with pytest.raises(TypeError, match="stage stage: 'dataset' is in the job's wildcards and params"):
        stage_arguments(twice, stage)
    with pytest.raises(TypeError, match="stage stage: the job has no 'record'"):
        stage_arguments(snakemake_job(tmp_path, **{**parts, "output": {}}), stage)


def test_a_diagnosed_error_shows_its_line_and_leaves_the_traceback_to_the_log(tmp_path, capsys, monkeypatch):
    """A KreinbenchError ends the job with its one line on stderr (the traceback in the log); any
    other exception, a bug, keeps its traceback."""
    # run_stage takes over the root logger, as in a job: on a copy of its handler list here
    monkeypatch.setattr(logging.getLogger(), "handlers", list(logging.getLogger().handlers))
    job = snakemake_job(tmp_path)
    log = tmp_path / "job.log"

    def diagnosed():
        raise DataError("data/raw/toy/toy.csv: row 3 has 2 fields, the header 3")

    with pytest.raises(SystemExit) as exit_info:
        run_stage(job, diagnosed)
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("kreinbench error: data/raw/toy/toy.csv: row 3 has 2 fields") and "Traceback" not in err
    assert str(log) in err and "Traceback" in log.read_text()

    def bug():
        raise ZeroDivisionError("division by zero")

    with pytest.raises(ZeroDivisionError):
        run_stage(job, bug)
