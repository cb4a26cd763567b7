"""Does CV by APG choose what CV by the paper's solvers chooses?  And how long does each CV take?

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=src:benchmarks python
benchmarks/isvm_cv_choices.py --dataset sonar-uci --reps 1 --variants apg smm spgm``.

Runs :func:`kreinbench.methods.selection.cross_validate` as a paper-isvm fit job does (every σ's noisy-rbf
kernel, the config's grid, folds and seeds), once per variant: ``smm``/``spgm`` (separate fits by
the paper's solver, today's CV) and ``apg`` (``cv_solver="apg"``: the warm-started grid path).
Prints the chosen (σ, C, ρ), the CV accuracy and the CV seconds of each.
"""

from __future__ import annotations

import argparse
import time

from isvm_cv_profile import ROOT, paper_kernels, paper_split

from kreinbench.methods.isvm.indefinite_svm import IndefiniteSVM
from kreinbench.methods.selection import cross_validate
from kreinbench.pipeline.plan import spectrum_kind


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="sonar-uci")
    parser.add_argument("--reps", type=int, nargs="*", default=[1])
    parser.add_argument("--variants", nargs="*", default=["apg", "smm", "spgm"])
    parser.add_argument("--mirror", default=str(ROOT.parent / "shared" / "datasets"))
    args = parser.parse_args()
    for rep in args.reps:
        config, split = paper_split(args.dataset, rep, args.mirror)
        kernels = {f"sigma={s:g}": K for s, K in paper_kernels(config, split).items()}
        grid = config["methods"]["smm"]["grid"]
        for variant in args.variants:
            fixed = {"solver": "smm", "cv_solver": "apg"} if variant == "apg" else {"solver": variant}
            start = time.perf_counter()
            result = cross_validate(lambda p: IndefiniteSVM(**fixed, **p), kernels, split.y_train, grid,
                                    n_folds=config["cv_folds"], seed=int(split.attrs["seed"]),
                                    spectrum_of=lambda est: spectrum_kind(type(est), est.get_params()))
            seconds = time.perf_counter() - start
            print(f"{args.dataset} rep={rep} n={split.y_train.size} cv={variant}: {result.best_instance} "
                  f"{result.best_params} cv_acc={result.best_score:.4f} warnings={result.n_warnings} "
                  f"{seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main()
