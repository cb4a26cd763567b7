"""The Indefinite SVM (Ying, Campbell and Girolami) targets of a config: Table 3 and Fig. 1, read
from the tidy records of rule ``table`` (key ``papers.ying``; its targets are in
:mod:`kreinbench.pipeline.paper_targets`)."""

from __future__ import annotations

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline.plan import paper_names


def fig1_datasets(config: dict) -> dict[str, str]:
    """The panels of Ying et al.'s Fig. 1 (``papers.ying.fig1.datasets``), ``{ours: paper's name}``."""
    names = paper_names(config, "ying")["datasets"]
    return {d: names.get(d, d) for d in config.get("papers", {}).get("ying", {}).get("fig1", {}).get("datasets", [])}


def methods(config: dict) -> dict[str, str]:
    """The columns of Ying et al.'s Table 3 and the curves of Fig. 1, ``{ours: paper's name}``: the
    config methods ``papers.ying.methods`` names (the paper's solvers, not the SVM whose CV on the
    clean kernel chooses σ), or every config method when it names none."""
    names = paper_names(config, "ying")["methods"]
    named = config.get("papers", {}).get("ying", {}).get("methods", {})
    return {m: names[m] for m in names if m in named} or names


def check(config: dict) -> None:
    """Fig. 1's panels are config datasets."""
    for dataset in fig1_datasets(config):
        if dataset not in config["datasets"]:
            raise KreinbenchError(f"config papers.ying.fig1.datasets: {dataset!r} is not in datasets")
