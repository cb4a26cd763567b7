"""Does today's code write the records a finished run wrote? Re-fit some of them and compare.

Usage: .venv/bin/python benchmarks/same_records.py --workdir DIR --configfile workflow/configs/paper-iklr.yaml
       [--config offline=true] [--batch dataset/rep ...] dataset/method/rep ...

DIR is a run directory (another commit's run): its splits, kernels and spectra are the inputs.
Each ``dataset/method/rep`` is fitted again by today's fit stage, each ``--batch dataset/rep``
(repeatable) by today's fit batch (its members' leaders read from the batch's own records); the
records go to a scratch directory, never into DIR, and are compared with DIR's, every field but
the timings (``cv_time``, ``train_time``, ``test_time``, and ``elapsed`` in the histories).
Each fit runs with the BLAS threads its pipeline job had (``kreinbench.pipeline.resources``): the summation
order of a product depends on them, and exact CCCP-GD's path at the smallest λ follows round-off.
Exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import yaml
from threadpoolctl import threadpool_limits

from kreinbench.pipeline import paths, plan
from kreinbench.pipeline.resources import JobResources
from kreinbench.pipeline.stages.fit import fit, fit_batch

TIMING = {"train_time", "test_time", "cv_time"}


def comparable(record: dict) -> dict:
    kept = {key: value for key, value in record.items() if key not in TIMING}
    kept["history"] = [{k: v for k, v in step.items() if k != "elapsed"} for step in record["history"]]
    return kept


def differing(ours: Path, theirs: Path) -> list[str]:
    a, b = comparable(json.loads(ours.read_text())), comparable(json.loads(theirs.read_text()))
    return sorted(key for key in a.keys() | b.keys() if a.get(key) != b.get(key))


def job_threads(config: dict, rule: str, **wildcards):
    """The BLAS thread limit of the pipeline's ``rule`` job on these wildcards."""
    return threadpool_limits(limits=JobResources(config).threads(rule)(SimpleNamespace(**wildcards)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--configfile", type=Path, required=True)
    parser.add_argument("--config", action="append", default=[], help="KEY=VALUE as the run got it (offline=true)")
    parser.add_argument("--batch", action="append", default=[], metavar="DATASET/REP")
    parser.add_argument("fits", nargs="*", metavar="DATASET/METHOD/REP")
    args = parser.parse_args()
    config = yaml.safe_load(args.configfile.read_text())
    config.update(dict(pair.split("=", 1) for pair in args.config))
    config = plan.scaled_config(plan.offline_config(config))
    workdir = args.workdir.resolve()
    os.chdir(workdir)  # the plan's paths are relative to the run directory
    failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        for case in args.fits:
            dataset, method, rep = case.split("/")
            ours = Path(scratch) / f"{dataset}-{method}-{rep}.json"
            with job_threads(config, "fit", dataset=dataset, rep=rep):
                fit(dataset=dataset, method=method, rep=int(rep), spec=plan.fit_params(config, method),
                    cv_members=plan.cv_members(config, method, dataset), cv_folds=config["cv_folds"],
                    record=str(ours), **plan.fit_inputs(config, dataset, method, int(rep)))
            diff = differing(ours, Path(paths.fit_path(dataset, method, int(rep))))
            failed += bool(diff)
            print(f"{case}: {'identical' if not diff else 'differs in ' + ', '.join(diff)}")
        for case in args.batch:
            dataset, rep = case.split("/")
            jobs = plan.fit_batch_jobs(config, dataset, int(rep))
            ours = {m: Path(scratch) / f"batch-{dataset}-{m}-{rep}.json" for m in jobs}
            for method, job in jobs.items():
                job["record"] = str(ours[method])
                for key in ("cv_with", "tuned_by"):
                    if key in job:
                        job[key] = str(ours[Path(job[key]).parent.name])
            with job_threads(config, "fit_batch", dataset=dataset, rep=rep):
                fit_batch(jobs=jobs, cv_folds=config["cv_folds"])
            for method in jobs:
                diff = differing(ours[method], Path(paths.fit_path(dataset, method, int(rep))))
                failed += bool(diff)
                print(f"batch {case} {method}: {'identical' if not diff else 'differs in ' + ', '.join(diff)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
