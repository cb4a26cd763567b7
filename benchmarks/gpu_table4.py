"""IKLR Table IV at the paper's sizes on an array API device: one repetition, CV included.

Usage: KREINBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/gpu_table4.py
       [--namespace torch --device cuda] [--datasets eeg ijcnn1-tr svmguide1 madelon] [--max-n N]
       [--lams 1e-4 ... 10] [--solvers ccicp-gd cccp-gd ccicp-sgd] [--check-n 300]
       [--out benchmarks/results/gpu_table4.md]

For each dataset, repetition 1's split as paper-iklr makes it (whole-set scaling; EEG and
ijcnn1-tr uncapped, 7488 and 17 500 training rows, unless ``--max-n``) and its TL1 kernel (τ = 0.7·m)
are computed on the device (:mod:`kreinbench.linalg.xp_kernels`); then per solver a 5-fold CV over
Table IV's λ grid and the final fit at the chosen λ: CCICP-GD and exact CCCP-GD on the device
(IKLR's array route: its own spectral step, :mod:`kreinbench.linalg.xp_spectrum`), CCICP-SGD on the
CPU (its one-column steps are latency-bound on a GPU: the NumPy route, the kernel copied to the
host). First, ``--check-n`` training rows of the first dataset are fitted on both routes and
their test predictions and decision values compared (the table's header says how many differ). Every time is
wall seconds around a synchronized device (``torch.cuda.synchronize``). Without a GPU,
``--namespace array_api_strict`` runs the same code on the CPU at a small ``--max-n`` and a short
``--lams`` (the strict namespace checks every operation in Python: its times say nothing about a
GPU). Writes a Markdown table (``--out``) and prints it.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import pipeline_rows as rows
from kreinbench.atomic import atomic_path
from kreinbench.data.split import split_dataset
from kreinbench.linalg import xp_kernels
from kreinbench.linalg.arrays import from_numpy, namespace, to_numpy
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.methods import IKLR
from kreinbench.methods.selection import cross_validate
from pipeline_rows import header

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ("eeg", "ijcnn1-tr", "svmguide1", "madelon")
DEVICE_SOLVERS = ("ccicp-gd", "cccp-gd")
HOST_SOLVERS = ("ccicp-sgd",)


def synchronized(xp) -> None:
    """Wait for the device's queued work (PyTorch on CUDA; other namespaces run eagerly here)."""
    if xp.__name__.endswith("torch"):
        import torch  # noqa: PLC0415 (only where torch is the namespace)

        if torch.cuda.is_available():
            torch.cuda.synchronize()


def timed(xp, work):
    synchronized(xp)
    start = time.perf_counter()
    out = work()
    synchronized(xp)
    return out, time.perf_counter() - start


def paper_split(cfg: dict, dataset: str, max_n: int | None):
    """Repetition 1's split of ``dataset`` as paper-iklr makes it, its caps lifted (or ``max_n``)."""
    entry = rows.entry(cfg, dataset)
    split_spec = {**entry["split"], "scaler_fit": cfg.get("scaler_fit", "train"), "max_n": max_n}
    return split_dataset(rows.parsed(dataset, entry), split_spec, dataset=dataset, rep=1, base_seed=cfg["seed"])


def check_routes(split, xp_name: str, device: str | None, check_n: int, lam: float) -> list[str]:
    """Both routes on ``check_n`` training rows: how many test predictions differ and by how much the
    decision values do (round-off differs between a GPU's libraries and LAPACK, and CCICP amplifies
    it: docs/solver-fidelity.md), one line per device solver."""
    X, y = split.X_train[:check_n], split.y_train[:check_n]
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, X.shape[1])
    K, K_test = kernel_matrices(params, X, split.X_test)
    lines = []
    for solver in DEVICE_SOLVERS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            host = IKLR(solver=solver, lam=lam).fit(K, y)
            device_fit = IKLR(solver=solver, lam=lam).fit(from_numpy(K, xp_name, device), from_numpy(y, xp_name, device))
            test = from_numpy(K_test, xp_name, device)
            differ = int(np.sum(host.predict(K_test) != to_numpy(device_fit.predict(test))))
            scores = host.decision_function(K_test)
            gap = float(np.max(np.abs(scores - to_numpy(device_fit.decision_function(test)))))
        lines.append(f"check: {solver} at n = {check_n}, λ = {lam:g}: {differ} of {scores.size} test predictions "
                     f"differ between the NumPy and the device route; max |Δ decision value| {gap:.2e} "
                     f"(decision values up to {float(np.max(np.abs(scores))):.3g})")
        print(lines[-1], flush=True)
    return lines


def one_dataset(cfg: dict, dataset: str, xp_name: str, device: str | None, max_n: int | None, lams: list,
                solvers: list[str]) -> list[dict]:
    split = paper_split(cfg, dataset, max_n)
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1])
    X = from_numpy(split.X_train, xp_name, device)
    xp = namespace(X)
    K, kernel_s = timed(xp, lambda: xp_kernels.kernel(params, X))
    K_test, test_kernel_s = timed(xp, lambda: xp_kernels.kernel(params, from_numpy(split.X_test, xp_name, device), X))
    base = {"dataset": dataset, "n_train": split.y_train.size, "n_test": split.y_test.size,
            "kernel_s": kernel_s + test_kernel_s}
    y = split.y_train
    out = []
    for solver in solvers:
        on_host = solver in HOST_SOLVERS
        kernels = {"tl1": to_numpy(K) if on_host else K}
        labels = y if on_host else from_numpy(y, xp_name, device)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            selection, cv_s = timed(xp, lambda: cross_validate(lambda p: IKLR(solver=solver, **p), kernels, y,
                                                              {"lam": lams}, n_folds=int(cfg["cv_folds"]),
                                                              seed=int(cfg["seed"])))
            model, fit_s = timed(xp, lambda: IKLR(solver=solver, **selection.best_params).fit(kernels["tl1"], labels))
        test = to_numpy(K_test) if on_host else K_test
        predicted, predict_s = timed(xp, lambda: model.predict(test))
        accuracy = float(np.mean(predicted == split.y_test))
        out.append({**base, "solver": solver, "where": "host (NumPy)" if on_host else "device",
                    "spectral_path": model.spectral_path_, "lam": selection.best_params["lam"], "cv_s": cv_s,
                    "fit_s": fit_s, "predict_s": predict_s, "accuracy": accuracy,
                    "stationarity": model.stationarity_, "diverged": model.diverged_})
        print(out[-1], flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--namespace", default="torch", choices=("torch", "cupy", "array_api_strict"))
    parser.add_argument("--device", default=None, help="e.g. cuda (default: the namespace's default)")
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--max-n", type=int, default=None, help="rows before the 50/50 split (default: all)")
    parser.add_argument("--lams", type=float, nargs="+", default=None,
                        help="the CV's λ grid (default: paper-iklr's, Table IV's)")
    parser.add_argument("--solvers", nargs="+", default=list(DEVICE_SOLVERS + HOST_SOLVERS),
                        choices=DEVICE_SOLVERS + HOST_SOLVERS)
    parser.add_argument("--check-n", type=int, default=300)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/gpu_table4.md")
    args = parser.parse_args()
    cfg = rows.config("paper-iklr")
    lams = args.lams or cfg["methods"]["ccicp-gd"]["grid"]["lam"]
    checks = check_routes(paper_split(cfg, args.datasets[0], args.max_n), args.namespace, args.device, args.check_n,
                          lam=0.01)
    columns = ["dataset", "n_train", "solver", "where", "spectral_path", "lam", "kernel_s", "cv_s", "fit_s",
               "predict_s", "accuracy", "stationarity", "diverged"]
    command = ("benchmarks/gpu_table4.py --namespace " + args.namespace + (f" --device {args.device}" if args.device else "")
               + (f" --max-n {args.max_n}" if args.max_n else "") + " --datasets " + " ".join(args.datasets)
               + (" --lams " + " ".join(f"{lam:g}" for lam in args.lams) if args.lams else "")
               + (" --solvers " + " ".join(args.solvers) if args.solvers != list(DEVICE_SOLVERS + HOST_SOLVERS) else ""))
    table = []
    for dataset in args.datasets:
        table += one_dataset(cfg, dataset, args.namespace, args.device, args.max_n, lams, args.solvers)
        # written after each dataset: a run stopped at its time limit keeps the datasets it finished
        text = (header(__doc__) + f"\nThis table: `{command}`\n\n" + "".join(f"- {line}\n" for line in checks) + "\n"
                + rows.markdown_table(table, columns) + "\n")
        with atomic_path(args.out) as tmp:
            Path(tmp).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
