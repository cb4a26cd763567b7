"""Which of W's eigenvalues should Kreĭn Nyström keep for IKLR? Accuracy per truncation rule.

Usage: .venv/bin/python benchmarks/nystrom_truncation.py SPLIT.h5 --n 2000 --m 500 [--lam 1e-4]
       [--test-rows 3000] [--seed 7]

On ``n`` stratified training rows of a split (e.g. the scale study's data/splits/eeg/rep1.h5), one
uniform landmark draw of ``m`` rows and the TL1 kernel (τ = 0.7·d), Kreĭn-feature IKLR
(exact CCCP, fixed λ) is fitted on the features of each truncation of W: a cut at 1e-3·max|λ| and
at 1e-6·max|λ|, at 1e-12·max|λ| (every eigenvalue above round-off), and KreinNystrom's ``rcond="auto"`` (the least
error on held-out rows). Prints, per rule, the kept rank, the held-out error, the test accuracy on
the first ``test-rows`` test rows and the fit's time.
"""

from __future__ import annotations

import argparse
import time

from kreinbench.data.split import read_split
from kreinbench.experiments.scale import training_rows
from kreinbench.linalg.kernels import kernel_function, resolve_params
from kreinbench.linalg.nystrom import KreinNystrom
from kreinbench.methods.iklr.features import KreinLogisticRegression


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("split")
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--m", type=int, required=True)
    parser.add_argument("--lam", type=float, default=1e-4)
    parser.add_argument("--test-rows", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    data = read_split(args.split)
    rows = training_rows(data.y_train, args.n, args.seed)
    X, y = data.X_train[rows], data.y_train[rows]
    X_test, y_test = data.X_test[:args.test_rows], data.y_test[:args.test_rows]
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, X.shape[1])
    kernel = kernel_function(params)
    print(f"{args.split}: n = {args.n}, m = {args.m}, λ = {args.lam:g}, {y_test.size} test rows")
    print("| rule | kept r | held-out error | accuracy | fit s |\n|---|---|---|---|---|")
    auto = KreinNystrom(kernel, n_components=args.m, random_state=args.seed).fit(X)
    for rule in (1e-3, 1e-6, 1e-12, "auto"):
        nystrom = auto if rule == "auto" else KreinNystrom(kernel, n_components=args.m, random_state=args.seed,
                                                           rcond=rule).fit(X)
        start = time.perf_counter()
        model = KreinLogisticRegression(lam=args.lam).fit(nystrom.transform(X), y, eigenvalues=nystrom.eigenvalues_)
        seconds = time.perf_counter() - start
        accuracy = model.score(nystrom.transform(X_test), y_test)
        error = "" if nystrom.heldout_error_ is None else f"{nystrom.heldout_error_:.4f}"
        print(f"| rcond={rule} | {nystrom.eigenvalues_.size} | {error} | {accuracy:.4f} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
