"""μ_min of a positive definite kernel: the Cholesky certificate first against LAPACK syevr.

Usage: .venv/bin/python benchmarks/bench_spectrum.py [--n 3000] [--kinds lambda_min] [--repeats 3] [--threads 1]

From :data:`kreinbench.linalg.eigen.CHOLESKY_FIRST_FROM` rows on, ``compute_spectrum``'s kinds
"lambda_min" and "negative" try a Cholesky factorization first: a certified K has no negative part,
and its μ_min pair comes from Lanczos on K⁻¹ (two triangular solves a step) instead of syevr's
tridiagonalization.  Both routes are timed here on one kernel, side by side, through
``compute_spectrum`` with that threshold set as the tests set it (tests/test_spectrum.py): to n + 1
for ``syevr`` (the route of every size before the change, and of every size below the threshold
now) and to 0 for ``certified``.  Data: seeded uniform points in [0, 1]^20, TL1 kernel with
τ = 0.7·20, positive definite (the kernel eigen.py's measurement of the threshold used).  Times are
medians of interleaved repeats with BLAS threads fixed; ``s_cholesky`` and ``s_mu_max`` (Lanczos for
μ_max, which both routes compute) are timed once beside them, the rest of the certified route is
Lanczos on K⁻¹.  Writes results/bench/spectrum.csv.
"""

from __future__ import annotations

import argparse
import io
import os
import time
from unittest import mock

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from kreinbench.atomic import write_text_atomic
from kreinbench.linalg import eigen
from kreinbench.linalg.kernels import tl1
from kreinbench.linalg.spectrum import compute_spectrum

FEATURES = 20


def positive_definite_tl1(n: int, seed: int) -> np.ndarray:
    X = np.random.default_rng([seed, n]).uniform(size=(n, FEATURES))
    return tl1(X, tau=0.7 * FEATURES)


def routes(K: np.ndarray, kind: str, repeats: int) -> tuple[dict, dict]:
    """Median seconds of ``compute_spectrum(K, kind)`` on each route, and each route's spectrum."""
    n = K.shape[0]
    threshold = {"syevr": n + 1, "certified": 0}
    seconds, spectra = {route: [] for route in threshold}, {}
    for _ in range(repeats):
        for route, first_from in threshold.items():
            with mock.patch.object(eigen, "CHOLESKY_FIRST_FROM", first_from):
                start = time.perf_counter()
                spectra[route] = compute_spectrum(K, kind)
                seconds[route].append(time.perf_counter() - start)
    return {route: float(np.median(t)) for route, t in seconds.items()}, spectra


def once(fn) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--kinds", nargs="+", default=["lambda_min"], choices=["lambda_min", "negative"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/bench/spectrum.csv")
    args = parser.parse_args()
    rows = []
    with threadpool_limits(limits=args.threads):
        K = positive_definite_tl1(args.n, args.seed)
        s_cholesky, R = once(lambda: eigen.cholesky_factor(K))
        if R is None:
            raise SystemExit(f"the TL1 kernel of n = {args.n} points is not positive definite: no certificate to time")
        del R
        s_mu_max, _ = once(lambda: eigen.largest_eigenvalue(K))
        for kind in args.kinds:
            seconds, spectra = routes(K, kind, args.repeats)
            old, new = (float(spectra[r].eigenvalues[0]) for r in ("syevr", "certified"))
            rows.append({"kind": kind, "n": args.n, "s_syevr": seconds["syevr"], "s_certified": seconds["certified"],
                         "speedup": seconds["syevr"] / seconds["certified"], "mu_min_syevr": old, "mu_min_certified": new,
                         "mu_min_rel_diff": abs(new - old) / abs(old), "s_cholesky": s_cholesky, "s_mu_max": s_mu_max,
                         "cholesky_first_from": eigen.CHOLESKY_FIRST_FROM, "threads": args.threads,
                         "repeats": args.repeats,
                         "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")})
            print(f"{kind}, n = {args.n}: syevr {seconds['syevr']:.3g} s, certified {seconds['certified']:.3g} s "
                  f"(Cholesky {s_cholesky:.3g} s) -> {rows[-1]['speedup']:.2f}x; mu_min {old:.12g} vs {new:.12g}",
                  flush=True)
    buffer = io.StringIO()
    pd.DataFrame(rows).to_csv(buffer, index=False)
    write_text_atomic(args.out, buffer.getvalue())
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
