"""Where a paper-isvm fit job's CV spends its time: iterations and seconds per (σ, fold, C, ρ, solver).

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python benchmarks/isvm_cv_profile.py
--dataset pima --folds 0 --solvers smm spgm`` (``--mirror`` defaults to ../shared/datasets).

Builds a fit job's inputs as the pipeline does (registry dataset, the config's split, seed and
noisy-rbf kernels for every σ of workflow/configs/paper-isvm.yaml), then runs the CV fits of
:func:`kreinbench.methods.selection.separate_fit_scores` one at a time (same folds, same shared per-fold
spectrum), timing each.  ``--folds`` restricts to some folds (a fit job runs all 5; its CV time
is about 5× one fold's).  Writes one CSV row per fit to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import yaml

from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import get_dataset
from kreinbench.data.split import make_split
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.linalg.spectrum import compute_spectrum
from kreinbench.methods.isvm.indefinite_svm import IndefiniteSVM
from kreinbench.methods.selection import param_grid, read_only, stratified_folds

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "workflow/configs/paper-isvm.yaml"


def paper_split(name: str, rep: int, mirror: str):
    """The split of ``name``'s repetition ``rep`` as paper-isvm.yaml makes it."""
    config = yaml.safe_load(CONFIG.read_text())
    spec = get_dataset(name)
    options = {**spec.split, **config.get("dataset_options", {}).get(name, {}).get("split", {})}
    with tempfile.TemporaryDirectory() as raw:
        manifest = fetch_dataset(spec, Path(raw) / "manifest.json", mirror=mirror)
        data = parse_dataset(spec, Path(raw), [f["file"] for f in manifest["files"]])
    split = make_split(data, dataset=name, rep=rep, base_seed=config["seed"],
                       test_size=options.get("test_size", 0.2), protocol=options.get("protocol", "random"))
    return config, split


def paper_kernels(config: dict, split) -> dict[float, np.ndarray]:
    spec = config["kernels"]["noisy-rbf"]
    out = {}
    for sigma in spec["sigma"]:
        params = resolve_params({**spec, "sigma": sigma}, split.X_train.shape[1], split_seed=int(split.attrs["seed"]))
        out[sigma] = kernel_matrices(params, split.X_train, split.X_test)[0]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="pima")
    parser.add_argument("--rep", type=int, default=1)
    parser.add_argument("--folds", type=int, nargs="*", default=[0])
    parser.add_argument("--sigmas", type=float, nargs="*")
    parser.add_argument("--solvers", nargs="*", default=["smm", "spgm"])
    parser.add_argument("--mirror", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--out", default="results/bench/isvm_cv_profile.csv")
    args = parser.parse_args()
    config, split = paper_split(args.dataset, args.rep, args.mirror)
    kernels = paper_kernels(config, split)
    y = split.y_train
    folds = stratified_folds(y, config["cv_folds"], int(split.attrs["seed"]))
    grid = param_grid(config["methods"]["smm"]["grid"])
    rows = []
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    for sigma, K in kernels.items():
        if args.sigmas and sigma not in args.sigmas:
            continue
        for j in args.folds:
            tr, va = folds[j]
            K_tr, K_va = K[np.ix_(tr, tr)], K[np.ix_(va, tr)]
            start = time.perf_counter()
            spectrum = read_only(compute_spectrum(K_tr, "full"))
            eig_s = time.perf_counter() - start
            for solver in args.solvers:
                for params in grid:
                    est = IndefiniteSVM(solver=solver, **params)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        start = time.perf_counter()
                        est.fit(K_tr, y[tr], spectrum=spectrum)
                        seconds = time.perf_counter() - start
                    row = {"dataset": args.dataset, "n_fold_train": tr.size, "sigma": sigma, "fold": j,
                           "solver": solver, **params, "n_iter": est.n_iter_, "seconds": seconds,
                           "objective": est.objective_, "accuracy": est.score(K_va, y[va]),
                           "fallbacks": est.n_eigh_fallbacks_, "eig_s": eig_s,
                           "n_neg": int(np.sum(spectrum.eigenvalues < 0))}
                    rows.append(row)
                    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()),
                          flush=True)
                    with open(args.out, "w", newline="") as handle:
                        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
                        writer.writeheader()
                        writer.writerows(rows)


if __name__ == "__main__":
    main()
