"""Every path the workflow writes, defined once: the rules and the planner both take them from here.

Rules keep their paths visible (``output: record=paths.fit_path("{dataset}", "{method}", "{rep}")``):
a path function called with Snakemake's wildcard braces gives the rule's pattern, called with
values the file of one job. Logs and benchmark files are named by the rule and the job's key.
"""

from __future__ import annotations

# The tidy records every table is computed from (rule `table` writes them), and what a run ends
# with: the accuracy table, the agreement with the papers, the report's headline, the environment.
RUNS = "results/records/runs.csv"
HISTORY = "results/records/history.csv"
ACCURACY = {"csv": "results/tables/accuracy.csv", "md": "results/tables/accuracy.md"}
AGREEMENT = {"csv": "results/tables/agreement.csv", "md": "results/tables/agreement.md"}
HEADLINE = "results/report/headline.html"
# The quick run's objective per iteration (rule `figure`, config key figures.convergence).
CONVERGENCE = {"png": "figures/convergence.png", "pdf": "figures/convergence.pdf"}
ENVIRONMENT = "results/environment.tsv"
# DANK's clowns (Figs. 1 and 2 draw their panels from it).
CLOWNS = "results/dank_figures/clowns.npz"


def manifest_path(dataset: str) -> str:
    """The record of a dataset's fetched raw files (sha256 checked)."""
    return f"data/raw/{dataset}/manifest.json"


def split_path(dataset: str, rep: int | str) -> str:
    return f"data/splits/{dataset}/rep{rep}.h5"


def kernel_path(dataset: str, rep: int | str, instance: str) -> str:
    return f"results/kernels/{dataset}/rep{rep}/{instance}.h5"


def spectrum_path(dataset: str, rep: int | str, instance: str) -> str:
    return f"results/spectra/{dataset}/rep{rep}/{instance}.h5"


def fit_path(dataset: str, method: str, rep: int | str) -> str:
    return f"results/fits/{dataset}/{method}/rep{rep}.json"


def table_path(table: str, kind: str) -> str:
    """A rendered table: ``kind`` md (every table rule's), html (rule ``table_html``), csv."""
    return f"results/tables/{table}.{kind}"


def scale_point_path(dataset: str, variant: str, n_train: int | str) -> str:
    """The fit record of one point of the scale study (rule ``scale_point``)."""
    return f"results/scale/{dataset}/{variant}/n{n_train}.json"


def svr_record_path(dataset: str, method: str, rep: int | str) -> str:
    """The fit record of one method of one repetition of DANK Table 4 (rule ``dank_svr_rep``)."""
    return f"results/dank_figures/table4/{dataset}/{method}/rep{rep}.json"


def log(rule: str, key: str | None = None) -> str:
    """The log of rule ``rule``'s job ``key`` (a wildcard pattern; the rule's one job: its name)."""
    return f"logs/{rule}/{key or rule}.log"


def benchmark(rule: str, key: str | None = None) -> str:
    """The ``benchmark:`` file (time and memory) of rule ``rule``'s job ``key``, as :func:`log`."""
    return f"logs/benchmark/{rule}/{key or rule}.tsv"
