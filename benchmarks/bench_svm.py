"""Benchmark of the SVM family: IndefiniteSVM (SMM/SPGM) at Ying et al.'s sizes, KSVM and TDCASVM vs SVC.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_svm.py``
(about a minute).  Prints a table and writes ``results/bench/svm.csv``.

Kernels follow Ying et al. §5: Gaussian kernel K on the training points, K₀ = K − 0.1(E + Eᵀ)/2
with E standard normal, at the training sizes of Table 3 (80% of each dataset).  The points
are seeded synthetic Gaussian data, not the UCI/USPS sets, and C = ρ = 1 (Ying's CV-chosen
values are not published), so iteration counts differ from the paper's runs; the comparison is
of the order of magnitude of the time per fit.

It also writes ``results/bench/smo.csv`` (``--smo-out``): seconds per iteration of TDCASVM's SMO,
compiled by numba (:func:`kreinbench.methods.solvers.smo.smo_solve`), against the NumPy loop it
replaced (``smo_reference`` of tests/reference.py, which tests/test_svm.py holds the compiled loop
to, bit for bit), on TDCASVM's first two DC subproblems (the first from α = 0, the second
warm-started with its linear term) of an indefinite TL1 kernel of seeded Gaussian points
(n = ``--smo-n``, default 800, C = 1): medians of interleaved repeats, and whether both loops took
the same iterations to the same iterates, bit for bit (``same_iterates``).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import os
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.linalg
from sklearn.svm import SVC

from kreinbench.atomic import write_text_atomic
from kreinbench.linalg.kernels import tl1
from kreinbench.linalg.spectrum import compute_spectrum, eigendecompose
from kreinbench.methods.iklr.tdcasvm import TDCASVM
from kreinbench.methods.isvm.indefinite_svm import IndefiniteSVM, RankOneProxyProducts, _proxy_products_eigh
from kreinbench.methods.isvm.svm import KSVM
from kreinbench.methods.solvers.smo import smo_solve

# Ying et al. NIPS'09 Table 3: dataset, size, SMM seconds, SPGM seconds.
YING_TABLE3 = [
    ("Sonar", 208, 0.74, 5.12),
    ("Ionosphere", 351, 5.47, 28.93),
    ("Heart", 270, 3.54, 12.05),
    ("Diabetes", 768, 39.93, 345.48),
    ("Breast-cancer", 683, 5.71, 50.13),
    ("USPS-35", 1200, 23.22, 236.00),
]


def ying_kernel(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    sq = (X * X).sum(1)
    K = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0) / 10.0)
    E = rng.normal(size=(n, n))
    return K, K - 0.1 * (E + E.T) / 2, y


# TDCASVM's SMO against the NumPy loop: TL1 (τ = 0.7·d) on d = 5 Gaussian features, indefinite as
# in tests/test_svm.py's bit-for-bit test, at n = 800 (about 5000 SMO iterations per subproblem).
SMO_N, SMO_FEATURES, SMO_C, SMO_REPEATS = 800, 5, 1.0, 3


def numpy_smo_loop():
    """The NumPy SMO loop that the numba one replaced, as the tests keep it (tests/reference.py)."""
    path = Path(__file__).resolve().parents[1] / "tests" / "reference.py"
    spec = importlib.util.spec_from_file_location("kreinbench_tests_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.smo_reference


def smo_per_iteration(n: int, seed: int, repeats: int = SMO_REPEATS) -> dict:
    """Seconds per SMO iteration, compiled vs NumPy, on TDCASVM's first two DC subproblems (as
    ``TDCASVM._solve`` sets them up: Q + ρI with ρ = −λ_min + tol, linear term −1 − ρα, warm start α)."""
    smo_reference = numpy_smo_loop()
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, SMO_FEATURES))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    K = tl1(X, tau=0.7 * SMO_FEATURES)
    spectrum = compute_spectrum(K, "lambda_min")
    rho = max(-float(spectrum.eigenvalues[0]), 0.0) + float(spectrum.negative_tolerance())
    Q_conv = (y[:, None] * K) * y[None, :] + rho * np.eye(n)
    tol = TDCASVM().inner_tol
    first = smo_solve(Q_conv, -np.ones(n), y, SMO_C, tol=tol)  # also loads numba's cached machine code
    problems = [(-np.ones(n), None), (-1.0 - rho * first.alpha, first.alpha)]
    loops = {
        "compiled": lambda p, a0: smo_solve(Q_conv, p, y, SMO_C, alpha0=a0, tol=tol),
        "numpy": lambda p, a0: smo_reference(Q_conv, p, y, SMO_C, alpha0=a0, tol=tol),
    }
    seconds, results = {name: [] for name in loops}, {}
    for _ in range(repeats):  # interleaved: load from other processes hits both alike
        for name, loop in loops.items():
            start = time.perf_counter()
            results[name] = [loop(p, a0) for p, a0 in problems]
            seconds[name].append(time.perf_counter() - start)
    compiled, numpy_loop = results["compiled"], results["numpy"]
    iterations = sum(r.n_iter for r in compiled)
    numpy_iterations = sum(r[2] for r in numpy_loop)
    same = iterations == numpy_iterations and all(
        np.array_equal(c.alpha, r[0]) and np.array_equal(c.gradient, r[1]) for c, r in zip(compiled, numpy_loop))
    s_compiled, s_numpy = float(np.median(seconds["compiled"])), float(np.median(seconds["numpy"]))
    return {"n": n, "C": SMO_C, "rho": rho, "lambda_min": float(spectrum.eigenvalues[0]), "subproblems": len(problems),
            "iterations": iterations, "iterations_numpy": numpy_iterations, "same_iterates": same,
            "s_compiled": s_compiled, "s_numpy": s_numpy, "us_per_iter_compiled": 1e6 * s_compiled / iterations,
            "us_per_iter_numpy": 1e6 * s_numpy / numpy_iterations,
            "speedup": (s_numpy / numpy_iterations) / (s_compiled / iterations), "repeats": repeats,
            "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")}


def write_csv(rows: list[dict], out: str) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    write_text_atomic(out, buffer.getvalue())
    print(f"wrote {out}")


def timed(fn, repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/bench/svm.csv")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smo-out", default="results/bench/smo.csv")
    parser.add_argument("--smo-n", type=int, default=SMO_N)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    smo = smo_per_iteration(args.smo_n, args.seed)
    print(f"SMO n={smo['n']}: compiled {smo['us_per_iter_compiled']:.3g} us/iteration, NumPy loop "
          f"{smo['us_per_iter_numpy']:.3g} us/iteration ({smo['iterations']} iterations, same iterates: "
          f"{smo['same_iterates']}) -> {smo['speedup']:.1f}x", flush=True)
    write_csv([smo], args.smo_out)
    rows = []
    for name, size, ying_smm, ying_spgm in YING_TABLE3:
        n = int(round(0.8 * size))
        K, K0, y = ying_kernel(n, args.seed)
        spectrum = eigendecompose(K0)
        # One evaluation of K(α)v, vᵀK₀v and the negative part of M = K₀ + vvᵀ/(4ρ): the per-iteration
        # kernel of both solvers (evr-subset: LAPACK's negative eigenpairs of M alone, for comparison).
        v = y * np.random.default_rng(args.seed + 1).uniform(0.0, 1.0, n)
        rank_one = RankOneProxyProducts(spectrum)
        reps = 3
        t_rank_one = timed(lambda: rank_one(v, 0.25), reps)
        t_evd = timed(lambda: _proxy_products_eigh(K0, v, 0.25), reps)
        t_evr_neg = timed(lambda: scipy.linalg.eigh(K0 + 0.25 * np.outer(v, v), driver="evr",
                                                    subset_by_value=(-np.inf, 0.0)), reps)
        row = {"dataset": name, "n_train": n, "lambda_min": spectrum.eigenvalues[0],
               "lambda_max": spectrum.eigenvalues[-1],
               "ms_products_rank_one": 1e3 * t_rank_one, "ms_products_eigh_evd": 1e3 * t_evd,
               "ms_negpart_eigh_evr_subset": 1e3 * t_evr_neg}
        t_spec = timed(lambda: eigendecompose(K0))
        for solver, eig in (("smm", "rank-one"), ("smm", "eigh"), ("spgm", "rank-one")):
            est = IndefiniteSVM(solver=solver, C=1.0, rho=1.0, eigensolver=eig)
            t = timed(lambda: est.fit(K0, y, spectrum=spectrum))
            key = f"{solver}_{eig.replace('-', '_')}"
            row[f"s_{key}"] = t
            row[f"iter_{key}"] = est.n_iter_
            row[f"f_{key}"] = est.objective_
        row["s_eigendecompose_K0"] = t_spec
        row["s_ying_smm"], row["s_ying_spgm"] = ying_smm, ying_spgm
        row["speedup_smm_vs_ying"] = ying_smm / (row["s_smm_rank_one"] + t_spec)
        row["s_svc"] = timed(lambda: SVC(kernel="precomputed", C=1.0).fit(K, y))
        row["s_ksvm"] = timed(lambda: KSVM(C=1.0).fit(K0, y, spectrum=spectrum))
        tdca = TDCASVM(C=1.0)
        row["s_tdcasvm"] = timed(lambda: tdca.fit(K0, y, spectrum=spectrum))
        row["iter_tdcasvm"] = tdca.n_iter_
        rows.append(row)
        print(f"{name:13s} n={n:4d}  products: rank-one {row['ms_products_rank_one']:6.2f} ms, eigh evd "
              f"{row['ms_products_eigh_evd']:7.2f} ms, evr-subset {row['ms_negpart_eigh_evr_subset']:7.2f} ms | "
              f"SMM rank-one {row['s_smm_rank_one']:6.3f} s ({row['iter_smm_rank_one']} it) + eig(K0) {t_spec:.3f} s, "
              f"SMM eigh {row['s_smm_eigh']:6.2f} s, SPGM {row['s_spgm_rank_one']:6.3f} s "
              f"({row['iter_spgm_rank_one']} it) | Ying SMM {ying_smm} s SPGM {ying_spgm} s -> "
              f"{row['speedup_smm_vs_ying']:.0f}x | SVC {row['s_svc']:.3f} s, KSVM {row['s_ksvm']:.3f} s, "
              f"TDCASVM {row['s_tdcasvm']:.3f} s ({row['iter_tdcasvm']} it)", flush=True)
    write_csv(rows, args.out)


if __name__ == "__main__":
    main()
