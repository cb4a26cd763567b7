"""DANK Fig. 6 / §6.2.3 on a random 2,000-point ijcnn1 subsample: Theorems 7 and 8 for v = 2, 5, 10.

Usage: .venv/bin/python benchmarks/dank_fig6.py [--n 2000] [--seed 0] [--max-iter 2000]

Settings of Table 2 for ijcnn1: Gaussian kernel with 1/(2σ²) = 2, C = 32; η = ‖α_SVM‖²₂ (§6.1.1);
features as shipped (LIBSVM scales them to [−1, 1]).  Prints one row per v with the measured
errors beside Theorem 7's bounds and the trivial ones, and the screening counts of condition (21)
(the paper: 214 SVs, 1,786 non-SVs, 723 screened for v = 10).  Writes results/bench/dank_fig6.csv.
The same experiment is the pipeline's rule ``dank_fig6`` (kreinbench.pipeline.stages.dank_figures), with the figure.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file
from threadpoolctl import threadpool_limits

from kreinbench.atomic import atomic_path
from kreinbench.experiments.dank import fig6_table, figure6_experiment, subsample

IJCNN1 = Path("/work/shared/datasets/ijcnn1/ijcnn1.trn.bz2")
GAMMA, C = 2.0, 32.0  # Table 2, ijcnn1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-iter", type=int, default=2000)
    args = parser.parse_args()
    X, y = load_svmlight_file(str(IJCNN1), n_features=22)
    X, y = subsample(X.toarray(), np.where(y > 0, 1.0, -1.0), args.n, args.seed)
    with threadpool_limits(limits=1):
        results, eta = figure6_experiment(X, y, gamma=GAMMA, C=C, clusters=(2, 5, 10), seed=args.seed,
                                          max_iter=args.max_iter)
    table = fig6_table(results, eta, args.n)
    target = Path("results/bench/dank_fig6.csv")
    with atomic_path(target) as tmp:
        table.to_csv(tmp, index=False)
    print(table.to_string(index=False))
    print(f"\nwritten {target}")


if __name__ == "__main__":
    main()
