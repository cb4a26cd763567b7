"""The DANK (JMLR) targets that do not go through rule ``fit``: Figures 1, 2, 4, 6, 9 and Table 4.

Each is a key of ``papers.dank_figures`` holding its own settings (dataset, σ, C, iterations, …);
``scales.<scale>.papers.dank_figures.<figure>`` overrides some of them at ``--config scale=<scale>``
(e.g. fewer iterations for CI; :func:`kreinbench.pipeline.plan.scaled_config`). ``fig1`` also adds Fig. 2,
which plots the F* of the same fits.
Kept apart from :mod:`kreinbench.pipeline.plan` so the core planning stays small.
"""

from __future__ import annotations

from typing import Any

from kreinbench.data.registry import load_registry
from kreinbench.errors import KreinbenchError
from kreinbench.pipeline.paper_targets import tasks
from kreinbench.pipeline.paths import svr_record_path
from kreinbench.pipeline.plan import canonical, dataset_config_entry

# Fig. 9's panels are the paper's two test functions (kreinbench.data.synthetic), not a choice.
FIG9_DATASETS = ["step-1d", "cherkassky-2d"]


def block(config: dict) -> dict[str, Any]:
    return config.get("papers", {}).get("dank_figures", {})


def settings(config: dict, figure: str) -> dict[str, Any]:
    """``papers.dank_figures.<figure>`` (of the config at its scale); {} when absent."""
    return dict(block(config).get(figure, {}))


def datasets(config: dict, figure: str) -> list[str]:
    spec = settings(config, figure)
    if figure == "fig9":
        return FIG9_DATASETS if spec else []
    return list(spec.get("datasets", [spec["dataset"]] if "dataset" in spec else []))


def entry(config: dict, dataset: str) -> dict[str, Any]:
    """A dataset's registry entry as a job param (parsed by the stage from the fetched raw files)."""
    return canonical(dataset_config_entry(config, dataset))


# Table 4's methods: each repetition fits SVR-CV, then DANK-SVR on its kernel and C.
TABLE4_METHODS = ("svr-cv", "dank")


def table4_records(config: dict) -> list[str]:
    """The fit records of Table 4: each dataset × repetition × method (rule ``dank_svr_rep``)."""
    spec = settings(config, "table4")
    return [svr_record_path(d, m, r) for d in spec["datasets"] for r in range(1, spec["repetitions"] + 1)
            for m in TABLE4_METHODS]


def svr_records(dataset: str, rep: int | str) -> dict[str, str]:
    """The outputs of one rule ``dank_svr_rep`` job: ``{method: its fit record}`` (names with ``_``)."""
    return {m.replace("-", "_"): svr_record_path(dataset, m, rep) for m in TABLE4_METHODS}


def check(config: dict) -> None:
    """Every figure's datasets are registry datasets of the task its estimators need (its target's
    ``task`` in :mod:`kreinbench.pipeline.paper_targets`)."""
    registry = load_registry(config.get("custom_datasets"))
    for figure, task in tasks("dank_figures").items():
        for name in datasets(config, figure):
            if name not in registry:
                raise KreinbenchError(f"config papers.dank_figures.{figure}: unknown dataset {name!r}")
            if registry[name].task != task:
                raise KreinbenchError(f"config papers.dank_figures.{figure}: {name!r} is a {registry[name].task} "
                                      f"dataset, {figure} needs a {task} one")


def figure_params(config: dict, figure: str) -> dict:
    """The params every DANK figure rule shares: its settings at the run's scale, seed and CV folds."""
    return {"settings": settings(config, figure), "seed": config["seed"], "folds": config["cv_folds"]}
