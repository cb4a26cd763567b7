"""DANK Fig. 6 / §6.2.3 on a random 2,000-point ijcnn1 subsample: Theorems 7 and 8 for v = 2, 5, 10.

Usage: .venv/bin/python benchmarks/dank_fig6.py [--n 2000] [--seed 0] [--max-iter 2000]

Settings of Table 2 for ijcnn1: Gaussian kernel with 1/(2σ²) = 2, C = 32; η = ‖α_SVM‖²₂ (§6.1.1);
features as shipped (LIBSVM scales them to [−1, 1]).  Prints one row per v with the measured
errors beside Theorem 7's bounds and the trivial ones, and the screening counts of condition (21)
(the paper: 214 SVs, 1,786 non-SVs, 723 screened for v = 10).  Writes results/bench/dank_fig6.csv.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_svmlight_file
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from kreinbench.atomic import atomic_path
from kreinbench.methods.dank_theory import figure6_data

IJCNN1 = Path("/work/shared/datasets/ijcnn1/ijcnn1.trn.bz2")
GAMMA, C = 2.0, 32.0  # Table 2, ijcnn1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-iter", type=int, default=2000)
    args = parser.parse_args()
    X, y = load_svmlight_file(str(IJCNN1), n_features=22)
    idx = np.random.default_rng(args.seed).choice(y.size, args.n, replace=False)
    X, y = X[idx].toarray(), np.where(y[idx] > 0, 1.0, -1.0)
    sq = (X * X).sum(1)
    K = np.exp(-GAMMA * np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0))
    with threadpool_limits(limits=1):
        eta = float(np.sum(SVC(C=C, kernel="precomputed").fit(K, y).dual_coef_ ** 2))
        results = figure6_data(K, y, X, C=C, eta=eta, cluster_counts=(2, 5, 10), random_state=args.seed,
                               max_iter=args.max_iter)
    table = pd.DataFrame([r.summary() for r in results]).assign(n=args.n, eta=eta)
    target = Path("results/bench/dank_fig6.csv")
    with atomic_path(target) as tmp:
        table.to_csv(tmp, index=False)
    print(table.to_string(index=False))
    print(f"\nwritten {target}")


if __name__ == "__main__":
    main()
