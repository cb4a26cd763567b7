"""TrIK-SVM's test accuracy under permutations of the training rows, beside KSVM's (which no order changes).

Usage: .venv/bin/python benchmarks/trik_row_order.py --workdir RUN_DIR [--rep 1] [--permutations 10]
       > benchmarks/results/trik_row_order.md

RUN_DIR is a finished run of workflow/configs/benchmark.yaml (its ``data/splits`` and
``results/kernels/*/rep*/tl1.h5``). K̃ = L|D|Lᵀ depends on the order in which the rows are
eliminated, U|μ|Uᵀ does not: on the four sets whose TL1 kernels are most indefinite (the monks and
spect) and two nearly positive semi-definite ones, TrIK-SVM is fitted at C ∈ {1, 10} on the rows in
the split's order and on ``--permutations`` seeded permutations of them, and scored on the test half.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from kreinbench.data.split import read_split
from kreinbench.linalg.cache import read_kernel
from kreinbench.methods import KSVM, TrIKSVM

DATASETS = ["monks1", "monks2", "monks3", "spect", "breast-cancer", "australian"]


def accuracies(K, K_test, y, y_test, C, permutations):
    """TrIK-SVM's test accuracy on the given order, then on each seeded permutation of the rows."""
    orders = [np.arange(len(y))] + [np.random.default_rng(seed).permutation(len(y)) for seed in range(permutations)]
    return [float(np.mean(TrIKSVM(C=C).fit(K[np.ix_(p, p)], y[p]).predict(K_test[:, p]) == y_test)) for p in orders]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--rep", type=int, default=1)
    parser.add_argument("--permutations", type=int, default=10)
    args = parser.parse_args()
    print(f"# TrIK-SVM and the order of the training rows (repetition {args.rep}, {args.permutations} permutations)\n")
    print("| dataset | negative eigenvalues of K | C | KSVM | TrIK-SVM, split's order | TrIK-SVM, permuted: min–max (mean) "
          "| permutations below KSVM |")
    print("|---|---|---|---|---|---|---|")
    for dataset in DATASETS:
        split = read_split(args.workdir / "data" / "splits" / dataset / f"rep{args.rep}.h5")
        K, K_test, _ = read_kernel(args.workdir / "results" / "kernels" / dataset / f"rep{args.rep}" / "tl1.h5")
        y, y_test = split.y_train, split.y_test
        negative = TrIKSVM().fit(K, y).n_negative_  # K's inertia: the same for every C
        for C in (1.0, 10.0):
            ksvm = float(np.mean(KSVM(C=C).fit(K, y).predict(K_test) == y_test))
            given, *permuted = accuracies(K, K_test, y, y_test, C, args.permutations)
            print(f"| {dataset} | {negative} | {C:g} | {ksvm:.3f} | {given:.3f} | {min(permuted):.3f}–{max(permuted):.3f} "
                  f"({np.mean(permuted):.3f}) | {sum(a < ksvm for a in permuted)} |")


if __name__ == "__main__":
    main()
