"""CV over the λ grid against a single fit, at the quick config's settings (what the fit stage does).

Usage: .venv/bin/python benchmarks/bench_cv.py [--datasets sonar breast-cancer-wdbc] [--methods ccicp-gd klr-rbf flip-klr]
       [--repeats 3] [--threads 1]

For each dataset (repetition 1 of the pipeline's split, from config.yaml) and method (its
estimator, fixed params, 7-value λ grid and 5 folds from config.yaml; an RBF σ grid is cut to its
``sigma = 1`` instance: the target is about the λ grid), times, interleaved, medians of
``--repeats``:

- ``cv_path``: :func:`kreinbench.methods.selection.cross_validate` as the fit stage calls it (the
  estimator's λ path: shared spectral step / eigendecomposition, IKLR lock step, KLR warm starts);
- ``cv_plain``: the same with ``paths=False`` (every fold and λ fitted on its own: before);
- ``single``: one fit at the λ CV chose with the cached spectrum given (the stage's ``train_time``);
- ``single_own``: the same fit computing its own spectral step (the estimator alone).

Writes results/bench/cv.csv with ``ratio_path`` = cv_path / single, ``ratio_plain``,
``ratio_path_own`` = cv_path / single_own, whether path and plain scores are identical, and the
load average.
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
import warnings
from pathlib import Path

import pandas as pd
import yaml
from bench_iklr import median_times
from threadpoolctl import threadpool_limits

from kreinbench.atomic import write_text_atomic
from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import spec_from_entry
from kreinbench.data.split import split_dataset
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.linalg.spectrum import compute_spectrum
from kreinbench.methods import ESTIMATORS
from kreinbench.methods.selection import cross_validate
from kreinbench.pipeline import plan

CONFIG = Path(__file__).resolve().parents[1] / "config.yaml"


def pipeline_split(config: dict, dataset: str, rep: int = 1):
    spec = spec_from_entry(dataset, plan.dataset_config_entry(config, dataset))
    with tempfile.TemporaryDirectory() as raw:
        manifest = fetch_dataset(spec, Path(raw) / "manifest.json", mirror=config.get("mirror"))
        data = parse_dataset(spec, raw, [f["file"] for f in manifest["files"]])
    return split_dataset(data, spec.split, dataset=dataset, rep=rep, base_seed=config["seed"])


def instance_spec(config: dict, kernel: str) -> dict:
    instances = plan.kernel_instances(config, kernel)
    return next((s for s in instances.values() if s.get("sigma") == 1), next(iter(instances.values())))


def bench(config: dict, dataset: str, method: str, repeats: int) -> dict:
    split = pipeline_split(config, dataset)
    spec = config["methods"][method]
    params = resolve_params(instance_spec(config, spec["kernel"]), split.X_train.shape[1], split_seed=int(split.attrs["seed"]))
    K, _ = kernel_matrices(params, split.X_train, split.X_test)
    y, seed = split.y_train, int(split.attrs["seed"])
    cls, fixed = ESTIMATORS[spec["estimator"]], dict(spec.get("params", {}))
    kind = plan.spectrum_kind(cls, fixed)
    given = {"spectrum": compute_spectrum(K, kind, seed=config["seed"])} if kind else {}
    make = lambda p: cls(**fixed, **p)  # noqa: E731
    cv = lambda paths: cross_validate(make, {"k": K}, y, spec["grid"], n_folds=config["cv_folds"], seed=seed,  # noqa: E731
                                      paths=paths)
    best = cv(True)
    lam = best.best_params["lam"]
    fns = {"cv_path": lambda: cv(True), "cv_plain": lambda: cv(False),
           "single": lambda: make({"lam": lam}).fit(K, y, **given), "single_own": lambda: make({"lam": lam}).fit(K, y)}
    t, results = median_times(fns, repeats)
    same = [r["cv_accuracy"] for r in results["cv_path"].scores] == [r["cv_accuracy"] for r in results["cv_plain"].scores]
    return {"dataset": dataset, "method": method, "estimator": spec["estimator"], "n_train": int(y.size),
            "n_lams": len(spec["grid"]["lam"]), "folds": config["cv_folds"], "best_lam": lam, **t,
            "ratio_path": t["cv_path"] / t["single"], "ratio_plain": t["cv_plain"] / t["single"],
            "ratio_path_own": t["cv_path"] / t["single_own"], "same_scores": same,
            "load_average": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["sonar", "breast-cancer-wdbc"])
    parser.add_argument("--methods", nargs="+", default=["ccicp-gd", "klr-rbf", "flip-klr"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default="results/bench/cv.csv")
    args = parser.parse_args()
    config = yaml.safe_load(CONFIG.read_text())
    rows = []
    # The paper's CCICP-GD ends at k_max far from stationarity by design; its warning would
    # repeat for every timed fit.
    with threadpool_limits(limits=args.threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dataset in args.datasets:
            for method in args.methods:
                rows.append(bench(config, dataset, method, args.repeats))
                print(f"{dataset} {method} done", flush=True)
    frame = pd.DataFrame(rows)
    frame["threads"] = args.threads
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    write_text_atomic(args.out, buffer.getvalue())
    print(frame.to_string(index=False, float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
