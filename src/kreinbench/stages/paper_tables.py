"""Stage `iklr_table2`: the dataset statistics of IKLR (TNNLS) Table II beside the paper's values.

For each dataset: m (features used), n (rows the split was drawn from), and the extreme
eigenvalues μ_min, μ_max of the TL1 kernel on the training part of the first repetition.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd
import scipy.linalg
from scipy.sparse.linalg import eigsh

from kreinbench.atomic import atomic_path
from kreinbench.data.split import read_split
from kreinbench.kernels import kernel_function, resolve_params

log = logging.getLogger(__name__)

# Up to this size a dense symmetric eigensolver is cheap; above, only the two extreme
# eigenvalues are computed by Lanczos (the kernel matrix itself is still formed densely).
DENSE_LIMIT = 3000

COLUMNS = ["paper_dataset", "dataset", "m", "m_paper", "n", "n_paper", "n_train",
           "mu_min", "mu_min_paper", "mu_max", "mu_max_paper", "note"]


def extreme_eigenvalues(K: np.ndarray, seed: int = 0) -> tuple[float, float]:
    """(smallest, largest) eigenvalue of the symmetric matrix ``K``."""
    n = K.shape[0]
    if n <= DENSE_LIMIT:
        mu = scipy.linalg.eigh(K, eigvals_only=True, driver="evr")
        return float(mu[0]), float(mu[-1])
    # A seeded start vector makes the Lanczos result reproducible.
    v0 = np.random.default_rng(seed).standard_normal(n)
    low = eigsh(K, k=1, which="SA", v0=v0, return_eigenvectors=False, tol=1e-10)[0]
    high = eigsh(K, k=1, which="LA", v0=v0, return_eigenvectors=False, tol=1e-10)[0]
    return float(low), float(high)


def dataset_statistics(split_path: str, kernel_spec: dict) -> dict:
    """m, n, n_train, μ_min and μ_max of the TL1 kernel on the training part of one split file."""
    split = read_split(split_path)
    m = split.X_train.shape[1]
    params = resolve_params(kernel_spec, m)
    K = kernel_function(params)(split.X_train, split.X_train)
    K = np.triu(K) + np.triu(K, 1).T
    mu_min, mu_max = extreme_eigenvalues(K, seed=int(split.attrs["seed"]) % 2**32)
    return {"dataset": str(split.attrs["dataset"]), "m": m, "n": split.y_train.size + split.y_test.size,
            "n_train": split.y_train.size, "mu_min": mu_min, "mu_max": mu_max}


def table2_frame(stats: list[dict], paper: pd.DataFrame) -> pd.DataFrame:
    """Join measured statistics with the paper's rows (by registry dataset name), in the
    paper's row order; datasets the paper lacks come last with empty paper columns."""
    measured = pd.DataFrame(stats)
    paper = paper.rename(columns={"m": "m_paper", "n": "n_paper", "mu_min": "mu_min_paper", "mu_max": "mu_max_paper"})
    table = paper.merge(measured, on="dataset", how="right")
    order = {name: i for i, name in enumerate(paper["dataset"])}
    table["_order"] = [order.get(d, math.inf) for d in table["dataset"]]
    table = table.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)
    table["paper_dataset"] = table["paper_dataset"].fillna("")
    table["note"] = table["note"].fillna("")
    return table[COLUMNS]


def _fmt(value, digits: int = 4) -> str:
    if isinstance(value, float) and math.isnan(value):
        return ""
    if isinstance(value, (float, np.floating)):
        return f"{value:.{digits}g}"
    return str(value)


def table2_markdown(table: pd.DataFrame, kernel_spec: dict) -> str:
    tau = kernel_spec.get("tau", f"{kernel_spec.get('tau_factor', 0.7)}·m")
    lines = [
        f"IKLR (TNNLS) Table II, regenerated: m features, n rows, and the extreme eigenvalues of the TL1 "
        f"kernel max(τ − ‖x − x′‖₁, 0), τ = {tau}, on the training part (repetition 1, [0, 1] min-max "
        f"scaling fitted on it); paper values in parentheses.",
        "",
        "| dataset | m | n | n_train | μ_min | μ_max | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in table.itertuples(index=False):
        def pair(ours, theirs):
            return f"{_fmt(ours)} ({_fmt(theirs)})" if _fmt(theirs) else _fmt(ours)

        name = f"{row.paper_dataset} (`{row.dataset}`)" if row.paper_dataset else f"`{row.dataset}`"
        lines.append(f"| {name} | {pair(row.m, row.m_paper)} | {pair(row.n, row.n_paper)} | {row.n_train} | "
                     f"{pair(row.mu_min, row.mu_min_paper)} | {pair(row.mu_max, row.mu_max_paper)} | {row.note} |")
    return "\n".join(lines) + "\n"


def read_paper_values(path: str) -> pd.DataFrame:
    """The transcribed table (``#`` lines are the citation and comments)."""
    return pd.read_csv(path, comment="#", dtype={"note": str}, keep_default_na=False,
                       na_values={"m": [""], "n": [""], "mu_min": [""], "mu_max": [""]})


def iklr_table2(snakemake) -> None:
    kernel_spec = snakemake.params.kernel
    stats = []
    for path in snakemake.input.splits:
        row = dataset_statistics(path, kernel_spec)
        log.info("%s: m=%d n=%d n_train=%d mu_min=%.6g mu_max=%.6g", row["dataset"], row["m"], row["n"],
                 row["n_train"], row["mu_min"], row["mu_max"])
        stats.append(row)
    table = table2_frame(stats, read_paper_values(snakemake.input.paper))
    with atomic_path(snakemake.output.csv) as tmp:
        table.to_csv(tmp, index=False)
    with atomic_path(snakemake.output.md) as tmp:
        tmp.write_text(table2_markdown(table, kernel_spec))
