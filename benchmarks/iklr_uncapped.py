"""IKLR Table IV's EEG and ijcnn1-tr rows at the paper's sizes, one repetition: final fits, and
optionally the first CV folds.

Usage: .venv/bin/python benchmarks/iklr_uncapped.py --dataset eeg [--rep 1] [--cv-folds K] [--mirror DIR]
       (measured on 2 cores: ijcnn1-tr's final fits 15 min, with --cv-folds 1 1 h 6 min, 7.2 GB)

paper-iklr caps EEG and ijcnn1-tr at 2000 training points; `--config scale=paper` lifts the caps,
but its whole protocol (a 5-fold CV over 7 λ per method and repetition, 10 repetitions) is beyond
this machine (docs/scale.md). This measures what one repetition's final fits cost at the paper's
sizes (7488 / 17 500 training points, the half split of repetition ``--rep`` as the config makes
it), with λ fixed at what the capped run's CV chose for that repetition (the committed record
reproductions/paper-iklr): the TL1 kernel, the spectral step the eigen split needs (the negative
eigenpairs: a Cholesky certificate first from 5000 rows, else LAPACK ``syevr``), each solver's final
fit on it (CCCP-GD, CCICP-GD, CCICP-SGD, the paper's settings) and its test accuracy on the other
half, with the share of its predictions in one class and whether the fit collapsed
(kreinbench.report.collapse). Prints one JSON line per step (seconds: of the kernels, the spectral
step, each final fit; and the process's peak RSS so far).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from bench_nystrom import load_split, tl1

from kreinbench.experiments.scale import peak_rss_mib
from kreinbench.linalg.kernels import kernel_function
from kreinbench.linalg.spectrum import compute_spectrum
from kreinbench.methods import IKLR
from kreinbench.methods.iklr.estimator import grouped_lambda_path_scores
from kreinbench.methods.selection import stratified_folds
from kreinbench.report.collapse import collapsed, prediction_balance

ROOT = Path(__file__).resolve().parent.parent
SOLVERS = ("ccicp-gd", "ccicp-sgd", "cccp-gd")
CONFIG = ROOT / "workflow/configs/paper-iklr.yaml"
CV_FOLDS = 5


def cv_group(methods: dict, solver: str, dataset: str) -> tuple[list[dict], list]:
    """A solver's CV on ``dataset`` as paper-iklr.yaml runs it: the params of it and of its lock-step
    members there (``cv_with``; a method with ``datasets`` runs on those only), and its λ grid."""
    members = [solver] + [name for name, spec in methods.items()
                          if spec.get("cv_with") == solver and dataset in spec.get("datasets", [dataset])]
    return [methods[name].get("params", {}) for name in members], methods[solver]["grid"]["lam"]


def chosen_lambdas(dataset: str, rep: int) -> dict[str, float]:
    """λ of each solver's final fit in repetition ``rep`` of the committed capped run."""
    runs = pd.read_csv(ROOT / "reproductions/paper-iklr/records/runs.csv.gz")
    rows = runs[(runs.dataset == dataset) & (runs.rep == rep) & runs.method.isin(SOLVERS)]
    return {r.method: json.loads(r.params)["lam"] for r in rows.itertuples()}


def report(step: str, seconds: float, **extra) -> None:
    print(json.dumps({"step": step, "seconds": round(seconds, 2), "peak_rss_mib": round(peak_rss_mib()), **extra}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=("eeg", "ijcnn1-tr"), required=True)
    parser.add_argument("--rep", type=int, default=1)
    parser.add_argument("--cv-folds", type=int, default=0, choices=range(CV_FOLDS + 1),
                        help="run the first K of each solver's 5 CV folds after the final fits")
    parser.add_argument("--mirror", default=os.environ.get("KREINBENCH_MIRROR"))
    args = parser.parse_args()
    lams = chosen_lambdas(args.dataset, args.rep)
    split, _ = load_split(args.dataset, {"max_n": None}, args.mirror, rep=args.rep)
    kernel = kernel_function(tl1(split.X_train.shape[1]))
    start = time.perf_counter()
    K = kernel(split.X_train, split.X_train)
    K_test = kernel(split.X_test, split.X_train)
    report("kernels", time.perf_counter() - start, n_train=int(split.y_train.size), n_test=int(split.y_test.size))
    start = time.perf_counter()
    spectrum = compute_spectrum(K, "negative")
    report("spectrum", time.perf_counter() - start, n_negative=int((spectrum.eigenvalues < 0).sum()), mu_min=float(spectrum.eigenvalues[0]))
    seed = int(split.attrs["seed"]) % 2**32  # the fit stage's random_state (CCICP-SGD's sampling)
    for solver in SOLVERS:
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = IKLR(solver=solver, lam=lams[solver], random_state=seed).fit(K, split.y_train, spectrum=spectrum)
        train_s = time.perf_counter() - start
        start = time.perf_counter()
        predicted = est.predict(K_test)
        test_s = time.perf_counter() - start
        accuracy = float(np.mean(predicted == split.y_test))
        balance = prediction_balance(predicted, split.y_test)
        report(solver, train_s, lam=lams[solver], test_s=round(test_s, 3), accuracy=round(accuracy, 4),
               **{key: round(value, 4) for key, value in balance.items()},
               collapsed=bool(collapsed(accuracy, balance["predicted_majority_share"], balance["majority_rate"])),
               n_iter=int(est.n_iter_), warnings=[str(w.message)[:120] for w in caught])
        del est
    if args.cv_folds:
        del K_test, spectrum
        # The fit stage's folds: stratified, seeded by the split's seed (pipeline.stages.fit).
        folds = stratified_folds(split.y_train, CV_FOLDS, int(split.attrs["seed"]))[:args.cv_folds]
        methods = yaml.safe_load(CONFIG.read_text())["methods"]
        for solver in SOLVERS:
            members, lam_grid = cv_group(methods, solver, args.dataset)
            prototypes = [IKLR(**params, random_state=seed) for params in members]
            parts: dict = {}
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tables = grouped_lambda_path_scores(prototypes, K, split.y_train, folds, lam_grid, seconds=parts)
            report(f"{solver} CV, {args.cv_folds} of {CV_FOLDS} folds", time.perf_counter() - start,
                   n_fold_train=int(folds[0][0].size), parts={k: round(v, 2) for k, v in parts.items()},
                   accuracy=[[round(float(a), 4) for a in row] for row in tables[0]])


if __name__ == "__main__":
    main()
