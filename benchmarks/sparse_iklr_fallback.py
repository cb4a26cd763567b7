"""ℓ1-IKLR (SparseIKLR) on a benchmark dataset: which fits of a CV fold the Newton path finishes, and what the prox-linear hand-over costs.

Usage: KREINBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/sparse_iklr_fallback.py [--dataset svmguide1]
       [--rep 1] [--fold 1]
       > benchmarks/results/sparse_iklr_fallback.md

workflow/configs/benchmark.yaml's protocol: the dataset's repetition split (svmguide1: a stratified
random half of at most 2000 rows, min-max scaled by the training half), the TL1 kernel with τ = 0.7·m, the
pipeline's stratified 5-fold CV (its seed from the split), and the grid λ ∈ {1e-4, …, 1} × μ ∈
{1e-3, 1e-2} that the benchmark's first whole run with ℓ1-IKLR used (257d14e), fitted with the
estimator's defaults (``solver="newton"``, tol 1e-5, max_iter 10 000). One row per grid point:
Newton systems, prox-linear steps (0 where the path finished), the outcome (critical, stopped at
max_iter, or ran away), the relative stationarity reached, the support's size, the validation
accuracy and the CPU seconds (one BLAS thread).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

import pipeline_rows as rows
from kreinbench.data.registry import spec_from_entry
from kreinbench.linalg.kernels import tl1
from kreinbench.methods.selection import stratified_folds
from kreinbench.methods.sparse_iklr import SparseIKLR

GRID = {"lam": [1e-4, 1e-3, 1e-2, 0.1, 1.0], "mu": [1e-3, 1e-2]}


def outcome(model: SparseIKLR) -> str:
    if model.diverged_:
        return "ran away"
    return "critical" if model.stationarity_ <= model.tol else "max_iter"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="svmguide1")
    parser.add_argument("--rep", type=int, default=1)
    parser.add_argument("--fold", type=int, default=1, help="1-based")
    args = parser.parse_args()
    cfg = rows.config("benchmark")
    entry = rows.entry(cfg, args.dataset)
    split = rows.split(rows.parsed(args.dataset, entry), spec_from_entry(args.dataset, entry).split,
                       dataset=args.dataset, rep=args.rep, seed=cfg["seed"], scaler=cfg.get("scaler_fit", "train"))
    K = tl1(split.X_train, tau=rows.tl1_tau(split.X_train, cfg["kernels"]["tl1"]["tau_factor"]))
    train, valid = stratified_folds(split.y_train, cfg["cv_folds"], seed=int(split.attrs["seed"]))[args.fold - 1]
    K_fold, y_fold = K[np.ix_(train, train)], split.y_train[train]
    eigenvalues = np.linalg.eigvalsh(K_fold)
    table = []
    warnings.simplefilter("ignore")  # each outcome is in its row
    with threadpool_limits(1):
        for lam in GRID["lam"]:
            for mu in GRID["mu"]:
                start = time.process_time()
                model = SparseIKLR(lam=lam, mu=mu).fit(K_fold, y_fold)
                seconds = time.process_time() - start
                steps = sum(1 for row in model.history_[1:] if row["step"] > 0)
                table.append({"λ": lam, "μ": mu, "Newton systems": model.n_newton_, "prox-linear steps": steps,
                              "outcome": outcome(model), "stationarity": model.stationarity_,
                              "nonzeros": int(model.support_.size),
                              "validation accuracy": float(model.score(K[np.ix_(valid, train)], split.y_train[valid])),
                              "CPU s": seconds})
    print(rows.header(__doc__))
    print(f"{args.dataset}, repetition {args.rep}, fold {args.fold} of {cfg['cv_folds']}: {train.size} training rows; the fold kernel has "
          f"{int(np.sum(eigenvalues < -1e-10 * eigenvalues[-1]))} negative eigenvalues, ν_min = {eigenvalues[0]:.3g}, ν_max = "
          f"{eigenvalues[-1]:.4g}.\n")
    print(rows.markdown_table(table, list(table[0])))


if __name__ == "__main__":
    main()
