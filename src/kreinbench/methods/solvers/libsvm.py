"""The SVM dual by libsvm's SMO (scikit-learn's ``SVC``), on a kernel matrix or an implicit kernel."""

from __future__ import annotations

import warnings

import numpy as np

from kreinbench.linalg.implicit_kernel import is_implicit
from kreinbench.methods.base import ConvergenceWarning, warn_at_caller

# libsvm's cache of kernel rows when it computes the kernel itself (scikit-learn's default is 200 MB;
# at ijcnn1's 49 990 points one row is 0.4 MB).
LIBSVM_CACHE_MB = 1000


def libsvm_dual(K, y_pm: np.ndarray, C: float, *, tol: float = 1e-3,
                max_iter: int = -1) -> tuple[np.ndarray, float, int]:
    """Solve the SVM dual with libsvm; return α (one per training point), b and libsvm's iterations.

    ``K`` is a kernel matrix, or an :class:`~kreinbench.linalg.implicit_kernel.ImplicitKernel` whose
    kernel libsvm computes itself from the features, with its own cache of kernel rows.
    """
    from sklearn.svm import SVC  # noqa: PLC0415 (scikit-learn costs 1.5 s of start-up; only this path needs it)

    if is_implicit(K):
        svc, data = SVC(**K.libsvm_params(), C=C, tol=tol, max_iter=max_iter, cache_size=LIBSVM_CACHE_MB), K.X_rows
    else:
        svc, data = SVC(kernel="precomputed", C=C, tol=tol, max_iter=max_iter), K
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        svc.fit(data, y_pm)
    alpha = np.zeros(y_pm.size)
    # sklearn's dual_coef_ holds y_i α_i, signed so that a positive score means classes_[1] = +1.
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    hit_limit = any("max_iter" in str(w.message) for w in caught)
    if hit_limit:
        warn_at_caller(f"libsvm stopped at max_iter={max_iter} before reaching tol={tol:g}",
                      ConvergenceWarning)
    return alpha, float(svc.intercept_[0]), int(np.asarray(svc.n_iter_).sum())
