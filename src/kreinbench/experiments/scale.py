"""The scale study: one method on one training size, timed, in one process.

:func:`scale_point` subsamples the training rows (seeded, stratified), fits one method and returns a
tidy row: dataset-free columns ``n_train``, ``method``, ``m`` (landmarks, Nyström only),
``accuracy`` (on the whole test part), ``fit_s`` and ``peak_rss_mib`` (the process's peak resident
memory, so one point per process: one Snakemake job each).  The exact methods build the n × n
kernel; Nyström IKLR never does (O(n·m)).
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

from kreinbench.data.split import shuffled_split
from kreinbench.errors import KreinbenchError
from kreinbench.linalg.kernels import block_rows, kernel_function

METHODS = ("nystrom-iklr", "iklr", "ksvm", "svc")


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (ru_maxrss: KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def training_rows(y: np.ndarray, n_train: int, seed: int) -> np.ndarray:
    """``n_train`` rows of the training part, stratified by class, seeded (all rows when n_train = n)."""
    if not 2 <= n_train <= y.size:
        raise KreinbenchError(f"scale study: n_train={n_train} must be between 2 and the {y.size} training rows")
    if n_train == y.size:
        return np.arange(y.size)
    kept, _ = shuffled_split(y.size, n_train=n_train, n_test=y.size - n_train, labels=y, seed=seed,
                             where="scale study")
    return np.sort(kept)


def _test_scores(estimator, kernel, X_test, X_train) -> np.ndarray:
    """Decision values on the test rows, the cross-kernel made in row blocks (no n_test × n temporary)."""
    rows = block_rows(X_train.shape[0])
    return np.concatenate([estimator.decision_function(kernel(X_test[i:i + rows], X_train))
                           for i in range(0, X_test.shape[0], rows)])


def scale_point(X_train, y_train, X_test, y_test, *, method: str, n_train: int, kernel: dict, seed: int,
                lam: float = 0.1, C: float = 1.0, m: int | None = None) -> dict:
    """Fit ``method`` on ``n_train`` of the training rows with fixed ``lam`` (IKLR) or ``C`` (SVMs),
    score it on every test row; returns the row of the study's table."""
    if method not in METHODS:
        raise KreinbenchError(f"scale study: unknown method {method!r}; known: {', '.join(METHODS)}")
    if (method == "nystrom-iklr") != (m is not None):
        raise KreinbenchError(f"scale study: m (landmarks) is for nystrom-iklr only, got method={method!r}, m={m!r}")
    rows = training_rows(np.asarray(y_train), n_train, seed)
    X, y = np.asarray(X_train)[rows], np.asarray(y_train)[rows]
    k = kernel_function(kernel)
    # Each method imports only its own code, before the clock starts: scikit-learn's import alone
    # takes about 1.5 s, as long as a whole fit at the study's smallest sizes.
    if method == "nystrom-iklr":
        from kreinbench.methods import NystromIKLR as model  # noqa: PLC0415
    elif method == "svc":
        from sklearn.svm import SVC as model  # noqa: PLC0415
    elif method == "ksvm":
        import sklearn.svm  # noqa: F401, PLC0415 (KSVM's libsvm, which it imports on its first fit)

        from kreinbench.methods import KSVM as model  # noqa: PLC0415
    else:
        from kreinbench.methods import IKLR as model  # noqa: PLC0415
    start = time.perf_counter()
    if method == "nystrom-iklr":
        est = model(kernel=k, n_components=m, random_state=seed, lam=lam).fit(X, y)
        fit_s = time.perf_counter() - start
        scores = est.decision_function(X_test)
    else:
        K = k(X, X)
        if method == "svc":
            est = model(C=C, kernel="precomputed").fit(K, y)
        elif method == "ksvm":
            est = model(C=C).fit(K, y)
        else:
            # Exact CCCP with L-BFGS inner steps and the eigen split: the algorithm NystromIKLR runs
            # on its features, so the two differ by the kernel approximation only (CCICP-GD's 20
            # outer steps stop far from a stationary point at a fixed lam; the shift split's exact
            # subproblem can be unbounded: kreinbench.methods.iklr.estimator.SOLVERS).
            est = model(lam=lam, solver="cccp-lbfgs", random_state=seed).fit(K, y)
        fit_s = time.perf_counter() - start
        del K
        scores = _test_scores(est, k, np.asarray(X_test), X)
    predicted = np.where(scores >= 0, est.classes_[1], est.classes_[0])
    return {"n_train": int(n_train), "method": method, "m": m, "accuracy": float(np.mean(predicted == y_test)),
            "fit_s": fit_s, "peak_rss_mib": peak_rss_mib()}
