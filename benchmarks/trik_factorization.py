"""TrIK-SVM's LDLᵀ on every TL1 training kernel of a whole benchmark run: plain Bunch–Kaufman against
the rank-revealing factorization that TrIKSVM uses, both against K's eigenvalues.

Usage: .venv/bin/python benchmarks/trik_factorization.py --workdir RUN_DIR > benchmarks/results/trik_factorization.md

RUN_DIR is a finished run of workflow/configs/benchmark.yaml (its ``results/kernels/*/rep*/tl1.h5``:
the training halves, TL1 with τ = 0.7·m). Per kernel: n; Bunch–Kaufman's growth (largest multiplier
|L_ij|) and its pivots within n·ε·max|K_ij| of 0 (TrIKSVM's round-off); the rank-revealing
factorization's rank r and negative eigenvalues of D against K's numerical rank and negative
eigenvalues counted from ``eigvalsh`` with the same tolerance; its growth, max|K − LDLᵀ| / max|K|, and
the seconds of Bunch–Kaufman alone and of the rank-revealing factorization (one BLAS thread; the QR
runs only on the kernels with round-off pivots or growth above 1e6).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

from kreinbench.linalg.cache import read_kernel_part
from kreinbench.methods.isvm.triksvm import diagonal_blocks, rank_revealing_ldl, round_off


def row(path: Path) -> dict:
    K, _ = read_kernel_part(path, "train")
    n = K.shape[0]
    tolerance = round_off(K)
    start = time.perf_counter()
    lu, D, _ = scipy.linalg.ldl(K, lower=True)
    plain = time.perf_counter() - start
    zero_pivots = sum(int(np.sum(np.abs(np.linalg.eigvalsh(D[b, b])) <= tolerance)) for b in diagonal_blocks(D))
    start = time.perf_counter()
    L, D, _, _ = rank_revealing_ldl(K, tolerance)
    seconds = time.perf_counter() - start
    mu, mu_D = np.linalg.eigvalsh(K), np.linalg.eigvalsh(D)
    return {"dataset": path.parent.parent.name, "rep": path.parent.name.removeprefix("rep"), "n": n,
            "BK growth": f"{np.abs(lu).max():.2g}", "BK round-off pivots": zero_pivots,
            "r": L.shape[1], "rank(K)": int(np.sum(np.abs(mu) > tolerance)),
            "negative(D)": int(np.sum(mu_D < -tolerance)), "negative(K)": int(np.sum(mu < -tolerance)),
            "growth": f"{np.abs(L).max():.3g}",
            "residual": f"{np.abs(K - L @ D @ L.T).max() / np.abs(K).max():.1e}", "seconds BK": f"{plain:.2f}",
            "seconds": f"{seconds:.2f}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, required=True)
    paths = sorted((parser.parse_args().workdir / "results" / "kernels").glob("*/rep*/tl1.h5"))
    if not paths:
        raise SystemExit("no results/kernels/*/rep*/tl1.h5 under --workdir: a finished benchmark run is needed")
    with threadpool_limits(1):
        rows = [row(path) for path in paths]
    agree = sum(r["r"] == r["rank(K)"] and r["negative(D)"] == r["negative(K)"] for r in rows)
    print(f"# TrIK-SVM's factorization on {len(rows)} TL1 training kernels\n")
    print(f"Rank and inertia equal K's eigenvalue counts on {agree} of {len(rows)} kernels; largest multiplier "
          f"{max(float(r['growth']) for r in rows):.3g}, largest residual "
          f"{max(float(r['residual']) for r in rows):.1e} (Bunch–Kaufman alone: "
          f"{max(float(r['BK growth']) for r in rows):.2g}); seconds in all: Bunch–Kaufman alone "
          f"{sum(float(r['seconds BK']) for r in rows):.1f}, the rank-revealing factorization "
          f"{sum(float(r['seconds']) for r in rows):.1f}.\n")
    print("| " + " | ".join(rows[0]) + " |")
    print("|" + "---|" * len(rows[0]))
    for r in rows:
        print("| " + " | ".join(str(v) for v in r.values()) + " |")


if __name__ == "__main__":
    main()
