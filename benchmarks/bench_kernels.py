"""Benchmark: kernel build and spectral times of kreinbench against the plain scipy references.

For each n, on seeded uniform data with ``--features`` columns (the train kernel n x n):

- kernel build: ``kernel_matrices``'s train kernel (TL1, RBF) against one-shot
  ``cdist`` + ``maximum`` / ``exp`` (the target: within 1.5x of the reference time), with the
  peak memory traced by ``tracemalloc`` (numpy reports its buffers to it) against the kernel's
  bytes (the target: within 3x);
- spectrum: every kind of ``compute_spectrum`` on the TL1 kernel against ``scipy.linalg.eigh``.

Writes ``results/bench/kernels.csv`` (atomically) and prints a summary.  Not run by the tests;
set ``OMP_NUM_THREADS`` to fix the number of BLAS threads.

    python benchmarks/bench_kernels.py --sizes 1000 2000 4000
"""

from __future__ import annotations

import argparse
import io
import time
import tracemalloc

import numpy as np
import pandas as pd
import scipy.linalg
from scipy.spatial.distance import cdist

from kreinbench.atomic import write_text_atomic
from kreinbench.linalg.kernels import kernel_function, resolve_params
from kreinbench.linalg.spectrum import KINDS, compute_spectrum

REFERENCES = {
    "tl1": lambda X, tau: np.maximum(tau - cdist(X, X, "cityblock"), 0.0),
    "rbf": lambda X, sigma: np.exp(-cdist(X, X, "sqeuclidean") / sigma**2),
}


def timed(fn, repeats: int):
    """(result, best wall time, peak traced bytes of the first run)."""
    tracemalloc.start()
    result = fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return result, best, peak


def bench_kernels(X: np.ndarray, repeats: int) -> list[dict]:
    m = X.shape[1]
    rows = []
    for name, spec, ref_arg in (("tl1", {"type": "tl1", "tau_factor": 0.7}, 0.7 * m),
                                ("rbf", {"type": "rbf", "sigma": 2.0}, 2.0)):
        fn = kernel_function(resolve_params(spec, m))
        K, seconds, peak = timed(lambda: fn(X), repeats)
        K_ref, ref_seconds, ref_peak = timed(lambda: REFERENCES[name](X, ref_arg), repeats)
        err = float(np.max(np.abs(K - K_ref)))
        rows.append({"task": "kernel", "variant": name, "seconds": seconds, "reference_seconds": ref_seconds,
                     "peak_bytes": peak, "reference_peak_bytes": ref_peak, "kernel_bytes": K.nbytes,
                     "max_abs_error": err})
    return rows


def bench_spectra(K: np.ndarray, repeats: int) -> list[dict]:
    ref, ref_seconds, ref_peak = timed(lambda: scipy.linalg.eigh(K), repeats)
    rows = []
    for kind in KINDS:
        spec, seconds, peak = timed(lambda: compute_spectrum(K, kind), repeats)
        err = abs(float(spec.eigenvalues[0]) - float(ref[0][0]))
        rows.append({"task": "spectrum", "variant": kind, "seconds": seconds, "reference_seconds": ref_seconds,
                     "peak_bytes": peak, "reference_peak_bytes": ref_peak, "kernel_bytes": K.nbytes,
                     "max_abs_error": err})
    return rows


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--features", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=2, help="timed runs per measurement (best is kept)")
    parser.add_argument("--no-spectrum", action="store_true", help="only the kernel builds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default="results/bench/kernels.csv")
    args = parser.parse_args(argv)

    rows = []
    for n in args.sizes:
        X = np.random.default_rng([args.seed, n]).uniform(size=(n, args.features))
        kernel_rows = bench_kernels(X, args.repeats)
        rows += [{"n": n, **r} for r in kernel_rows]
        if not args.no_spectrum:
            K = kernel_function(resolve_params({"type": "tl1", "tau_factor": 0.7}, args.features))(X)
            rows += [{"n": n, **r} for r in bench_spectra(K, args.repeats)]
        print(f"n = {n} done", flush=True)
    table = pd.DataFrame(rows)
    table["time_ratio"] = table["seconds"] / table["reference_seconds"]
    table["memory_ratio"] = table["peak_bytes"] / table["kernel_bytes"]
    buffer = io.StringIO()
    table.to_csv(buffer, index=False)
    write_text_atomic(args.output, buffer.getvalue())

    kernels = table[table["task"] == "kernel"]
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"\nkernel build: worst time ratio {kernels['time_ratio'].max():.2f} (target <= 1.5), "
          f"worst peak memory {kernels['memory_ratio'].max():.2f} x the kernel's bytes (target <= 3)")
    print(f"written to {args.output}")
    return table


if __name__ == "__main__":
    main()
