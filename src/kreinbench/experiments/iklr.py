"""IKLR's experiments that are not fit records: Table II's statistics of a split (arrays in, data out)."""

from __future__ import annotations

import numpy as np

from kreinbench.data.split import read_split
from kreinbench.linalg.eigen import extreme_eigenvalues
from kreinbench.linalg.kernels import kernel_function, resolve_params


def dataset_statistics(split_path: str, kernel_spec: dict) -> dict:
    """m, n, n_train, μ_min and μ_max of the TL1 kernel on the training part of one split file."""
    split = read_split(split_path)
    m = split.X_train.shape[1]
    params = resolve_params(kernel_spec, m)
    K = kernel_function(params)(split.X_train, split.X_train)
    K = np.triu(K) + np.triu(K, 1).T
    mu_min, mu_max = extreme_eigenvalues(K, seed=int(split.attrs["seed"]) % 2**32)
    # split files written before the option existed were all fitted on the training part
    return {"dataset": str(split.attrs["dataset"]), "rep": int(split.attrs["rep"]),
            "scaler_fit": str(split.attrs.get("scaler_fit", "train")), "m": m,
            "n": split.y_train.size + split.y_test.size, "n_train": split.y_train.size, "mu_min": mu_min,
            "mu_max": mu_max}
