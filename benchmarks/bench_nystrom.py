"""Kreĭn Nyström IKLR against its targets (issue "beyond the papers' sizes").

Usage: .venv/bin/python benchmarks/bench_nystrom.py [--mirror DIR] [--repeats 3] [--threads 1]
       [--exact-n 8000]   (about 5 minutes on one core; the data through the mirror, default
       $KREINBENCH_MIRROR, else downloaded)

The data are the scale study's (workflow/configs/scale.yaml, repetition 1, seed 2024): EEG's
random half (7488 training rows, of which the study's seeded 4000) and LIBSVM's provided ijcnn1
parts (49 990 / 91 701), TL1 kernel with τ = 0.7·d, λ = 1e-4, C = 1.

- EEG, n = 4000: NystromIKLR (m = 1000, uniform landmarks) fit against scikit-learn's
  ``SVC(kernel="precomputed")`` fit, the TL1 kernel included in both (Nyström's landmark columns,
  SVC's n × n matrix); medians of interleaved repeats in one process.  Target: ≤ 2×.  Accuracy
  on every test row against exact IKLR (exact CCCP, L-BFGS inner steps, eigen split) on the same
  4000 rows: within 1 point.
- ijcnn1, all 49 990 training rows: NystromIKLR (m = 2000) fit and predict on all 91 701 test
  rows, in a child process each, whose peak RSS (ru_maxrss) is its own.  Targets: ≤ 5 min,
  ≤ 2 GiB, accuracy within 1 point of exact IKLR at ``--exact-n`` training rows (the largest n
  where exact IKLR runs here: the scale study's 8000; also in a child process).

Writes results/bench/nystrom.csv (one row per measurement: task, dataset, n_train, method, m,
seconds, accuracy, peak_rss_mib); benchmarks/summary.py turns it into target rows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from kreinbench.atomic import atomic_path
from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import get_dataset
from kreinbench.data.split import read_split, split_dataset, write_split
from kreinbench.experiments.scale import _test_scores, scale_point, training_rows
from kreinbench.linalg.kernels import kernel_function, resolve_params

SEED, LAM, C = 2024, 1e-4, 1.0  # scale.yaml's seed, λ and C
SPLITS = {"eeg": {"protocol": "random", "test_size": 0.5}, "ijcnn1": None}  # None: the registry's (provided parts)
EEG_N, EEG_M, IJCNN1_M = 4000, 1000, 2000


def load_split(dataset: str, options: dict | None, mirror: str | None, rep: int = 1):
    """Repetition ``rep``'s split of ``dataset`` (the registry's split options updated by ``options``)."""
    spec = get_dataset(dataset)
    with tempfile.TemporaryDirectory() as raw:
        manifest = fetch_dataset(spec, Path(raw) / "manifest.json", mirror=mirror)
        data = parse_dataset(spec, raw, [f["file"] for f in manifest["files"]])
    split = split_dataset(data, {**spec.split, **(options or {})}, dataset=dataset, rep=rep, base_seed=SEED)
    return split, {"files": manifest["files"], "source": manifest["source"]}


def make_split(dataset: str, mirror: str | None, directory: Path) -> Path:
    """Repetition 1's split of ``dataset`` as the scale study makes it, written to ``directory``."""
    split, provenance = load_split(dataset, SPLITS[dataset], mirror)
    path = directory / f"{dataset}.h5"
    write_split(split, path, provenance=provenance)
    return path


def tl1(n_features: int) -> dict:
    """The scale study's TL1 kernel (τ = 0.7·d), resolved for ``n_features`` columns."""
    return resolve_params({"type": "tl1", "tau_factor": 0.7}, n_features)


def child_point(split_path: str, method: str, n_train: int, m: int | None) -> dict:
    """One scale-study point in this process (run as a child: its peak RSS is the point's),
    timed from before the fit to after the last test score."""
    s = read_split(split_path)
    start = time.perf_counter()
    row = scale_point(s.X_train, s.y_train, s.X_test, s.y_test, method=method, n_train=n_train,
                      kernel=tl1(s.X_train.shape[1]), seed=SEED,
                      lam=LAM, C=C, m=m)
    return {**row, "seconds": time.perf_counter() - start}


def in_child(split_path: Path, method: str, n_train: int, m: int | None) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(split_path), method, str(n_train), str(m or 0)],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def eeg_rows(split_path: Path, repeats: int) -> list[dict]:
    from sklearn.svm import SVC  # noqa: PLC0415

    from kreinbench.methods import IKLR, NystromIKLR  # noqa: PLC0415

    s = read_split(split_path)
    rows = training_rows(s.y_train, EEG_N, SEED)
    X, y = s.X_train[rows], s.y_train[rows]
    k = kernel_function(tl1(X.shape[1]))

    def svc():
        return SVC(C=C, kernel="precomputed").fit(k(X, X), y)

    def nystrom():
        return NystromIKLR(kernel=k, n_components=EEG_M, random_state=SEED, lam=LAM).fit(X, y)

    times = {"svc": [], "nystrom-iklr": []}
    fitted = {}
    for _ in range(repeats):  # interleaved: load from other processes hits both alike
        for name, fit in (("svc", svc), ("nystrom-iklr", nystrom)):
            start = time.perf_counter()
            fitted[name] = fit()
            times[name].append(time.perf_counter() - start)
    start = time.perf_counter()
    K = k(X, X)
    fitted["iklr"] = IKLR(lam=LAM, solver="cccp-lbfgs", random_state=SEED).fit(K, y)
    times["iklr"] = [time.perf_counter() - start]
    del K
    out = []
    for name, est in fitted.items():
        scores = est.decision_function(s.X_test) if name == "nystrom-iklr" else _test_scores(est, k, s.X_test, X)
        predicted = np.where(scores >= 0, est.classes_[1], est.classes_[0])
        out.append({"task": "eeg-fit", "dataset": "eeg", "n_train": EEG_N, "method": name,
                    "m": EEG_M if name == "nystrom-iklr" else None, "seconds": float(np.median(times[name])),
                    "accuracy": float(np.mean(predicted == s.y_test)), "peak_rss_mib": None})
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        path, method, n_train, m = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]) or None
        print(json.dumps(child_point(path, method, n_train, m)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=os.environ.get("KREINBENCH_MIRROR"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
    parser.add_argument("--exact-n", type=int, default=8000, help="ijcnn1 training rows of the exact IKLR reference")
    parser.add_argument("--out", default="results/bench/nystrom.csv")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, threadpool_limits(limits=args.threads):
        eeg = make_split("eeg", args.mirror, Path(tmp))
        rows += eeg_rows(eeg, args.repeats)
        ijcnn1 = make_split("ijcnn1", args.mirror, Path(tmp))
        n_all = read_split(ijcnn1).y_train.size
        for method, n_train, m in (("nystrom-iklr", n_all, IJCNN1_M), ("iklr", args.exact_n, None)):
            point = in_child(ijcnn1, method, n_train, m)
            rows.append({"task": "ijcnn1-fit-predict", "dataset": "ijcnn1", "n_train": n_train, "method": method,
                         "m": m, "seconds": point["seconds"], "accuracy": point["accuracy"],
                         "peak_rss_mib": point["peak_rss_mib"]})
    frame = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(args.out) as tmp_out:
        frame.to_csv(tmp_out, index=False)
    print(frame.to_markdown(index=False, floatfmt=".4g"))


if __name__ == "__main__":
    main()
