"""The IKLR (TNNLS) studies on a few datasets: Table IV (CCCP-GD vs CCICP-GD vs CCICP-SGD on the
larger sets), Table V (SPD-manifold kernels), Table VI (initializations) with its figure
``iklr_fig_init``, Table VII (CCICP-SGD vs CCICP-SGD-I) and Fig. 2 (the inexact parameter ε); and
the MM'17 version's Table 2 and Fig. 1 (key ``papers.iklr_mm17``), which differ from the TNNLS ones.

Each study is a key of ``papers.iklr`` naming its datasets and the config methods it compares;
those methods are ordinary config methods (usually restricted to the study's datasets by their
own ``datasets`` key), fitted by rule ``fit`` and summarised from the tidy records of rule
``table``, as Table III is. Kept apart from :mod:`kreinbench.pipeline.plan` so the core planning stays small.
"""

from __future__ import annotations

from typing import Any

from kreinbench.errors import KreinbenchError
from kreinbench.methods import ESTIMATORS
from kreinbench.methods.iklr.estimator import SOLVERS
from kreinbench.pipeline.paper_targets import TARGETS
from kreinbench.pipeline.paper_targets import keys as target_keys
from kreinbench.pipeline.paths import split_path
from kreinbench.pipeline.plan import dataset_config_entry, method_datasets, method_spec, paper_names

MM17 = "iklr_mm17"
# The methods of IKLR Fig. 3, in the paper's legend order.
FIG3_METHODS = ("CCCP-GD", "CCICP-GD", "CCICP-SGD")
# Fig. 2 varies ε of CCICP-GD alone (TNNLS §V-D); the paper's CCCP-GD is its ε = 1e-4 end.
FIG2_SOLVER = "ccicp-gd"
# Table V prints μ_min and μ_max of "the" Affine-Invariant kernel; ours come from the kernel that
# the CV of the method the paper calls CCICP-GD chose (σ is a CV parameter, so each Aff-I method
# may use another kernel; the CSV gives μ for every method that records a spectrum).
TABLE5_SPECTRUM_METHOD = "CCICP-GD"
# MM'17 Fig. 1's caption: CCICP (red) and CCCP (blue).
MM17_FIG1_COLOURS = {"CCICP": "tab:red", "CCCP": "tab:blue"}


def table2_splits(config: dict) -> list[str]:
    """Inputs of rule ``iklr_table2``: every repetition's split of every config dataset."""
    return [split_path(d, r) for d in config["datasets"] for r in range(1, config["repetitions"] + 1)]


def tl1_kernel_spec(config: dict) -> dict[str, Any]:
    """The config's TL1 kernel (Table II's μ are those of TL1); a clear error if there is none."""
    tl1 = [spec for spec in config["kernels"].values() if spec["type"] == "tl1"]
    if len(tl1) != 1:
        raise KreinbenchError(f"rule iklr_table2 needs exactly one kernel of type tl1 in the config, found {len(tl1)}")
    return tl1[0]


def fig3_datasets(config: dict) -> list[str]:
    """The datasets of IKLR Fig. 3's panels (``papers.iklr.fig3.datasets``); none: no figure."""
    return config.get("papers", {}).get("iklr", {}).get("fig3", {}).get("datasets", [])


def fig3_methods(config: dict) -> dict[str, str]:
    """The config methods plotted in IKLR Fig. 3, ``{ours: paper's name}`` in the paper's order."""
    ours = {theirs: name for name, theirs in paper_names(config, "iklr")["methods"].items()}
    return {ours[theirs]: theirs for theirs in FIG3_METHODS if theirs in ours}


def study(config: dict, name: str, paper: str = "iklr") -> dict[str, Any]:
    """``papers.<paper>.<name>`` (``datasets`` and ``methods``); empty when the config has none."""
    return config.get("papers", {}).get(paper, {}).get(name, {})


def iklr_setting(config: dict, method: str) -> dict[str, Any]:
    """Solver, α⁽⁰⁾ and ε of an IKLR config method, the estimator's defaults filled in."""
    spec = method_spec(config, method)
    if spec["estimator"] != "IKLR":
        raise KreinbenchError(f"config method {method!r} is a {spec['estimator']}, the IKLR studies need IKLR")
    estimator = ESTIMATORS["IKLR"](**spec.get("params", {}))
    eps = SOLVERS[estimator.solver]["eps"] if estimator.eps is None else estimator.eps
    return {"solver": estimator.solver, "init": estimator.init, "eps": eps}


def table3_datasets(config: dict) -> list[str]:
    """Table III's rows: ``papers.iklr.table3.datasets`` (the paper's 16 small-scale sets; its four
    larger ones serve Table IV only), or else every config dataset."""
    spec = config.get("papers", {}).get("iklr", {}).get("table3", True)
    return list(spec["datasets"]) if isinstance(spec, dict) else list(config["datasets"])


def table3_methods(config: dict) -> list[str]:
    """Table III's columns: the config methods fitted on every Table III dataset (one fitted on
    fewer serves a study, in that study's table)."""
    rows = set(table3_datasets(config))
    return [m for m in config["methods"] if rows <= set(method_datasets(config, m))]


def study_datasets(config: dict, name: str, paper: str = "iklr") -> dict[str, str]:
    """A study's datasets, ``{ours: paper's name}`` in the study's order: the names of
    ``papers.<paper>.datasets``, or the study's own where its ``datasets`` is such a mapping (Table
    VI's copies of monks1 and svmguide1 on their provided train/test files stand in the paper's
    monks1 and guide1-t rows, names that ``papers.iklr.datasets`` gives the random-split ones)."""
    datasets = study(config, name, paper)["datasets"]
    if isinstance(datasets, dict):
        return dict(datasets)
    names = paper_names(config, paper)["datasets"]
    return {d: names[d] for d in datasets}


def study_splits(config: dict, name: str, paper: str = "iklr") -> dict[str, dict[str, Any]]:
    """The split protocol of each of a study's datasets (its registry ``split`` with the config's
    ``dataset_options``), for the table's caption to say which split its runs share."""
    return {d: dataset_config_entry(config, d)["split"] for d in study_datasets(config, name, paper)}


def study_methods(config: dict, name: str, paper: str = "iklr") -> dict[str, str]:
    """A study's methods (Table IV, V, VII, MM'17 Table 2 and Fig. 1), ``{ours: paper's name}``
    (``papers.<paper>.methods``) in the study's order."""
    names = paper_names(config, paper)["methods"]
    return {m: names[m] for m in study(config, name, paper)["methods"]}


def table5_spectrum_method(config: dict) -> str:
    """The Table V method whose runs give the μ_min and μ_max columns (:data:`TABLE5_SPECTRUM_METHOD`)."""
    return next(m for m, theirs in study_methods(config, "table5").items() if theirs == TABLE5_SPECTRUM_METHOD)


def table6_methods(config: dict) -> dict[str, dict[str, str]]:
    """Table VI's methods: ``{ours: {"paper_method": solver as the paper prints it, "init": α⁽⁰⁾}}``."""
    settings = {m: iklr_setting(config, m) for m in study(config, "table6")["methods"]}
    return {m: {"paper_method": s["solver"].upper(), "init": s["init"]} for m, s in settings.items()}


def fig2_methods(config: dict) -> dict[str, float]:
    """Fig. 2's methods, CCICP-GD at several ε: ``{ours: ε}``."""
    settings = {m: iklr_setting(config, m) for m in study(config, "fig2")["methods"]}
    others = [m for m, s in settings.items() if s["solver"] != FIG2_SOLVER]
    if others:
        raise KreinbenchError(f"config papers.iklr.fig2.methods: {', '.join(others)} not {FIG2_SOLVER} "
                              f"(Fig. 2 varies ε of {FIG2_SOLVER} only)")
    return {m: s["eps"] for m, s in settings.items()}


def check_studies(config: dict) -> None:
    """Every study's datasets and methods exist, each method is fitted on each study dataset (and
    on Fig. 3's panels), Table III's rows are config datasets, and
    no two methods of Table VI (or Fig. 2) share a solver and α⁽⁰⁾ (an ε): one cell, one method.
    Fig. 2's methods are CCICP-GD (:func:`fig2_methods`); Table V's μ come from its method the
    paper calls CCICP-GD (:data:`TABLE5_SPECTRUM_METHOD`), and MM'17 Fig. 1's methods have its colours."""
    studies = [(paper, name, study(config, name, paper))
               for paper in ("iklr", MM17) for name in target_keys(paper, comparing=True)]
    # Table III's rows, and Fig. 3's panels with the methods it plots, are checked as studies are.
    studies += [("iklr", "table3", {"datasets": table3_datasets(config)}),
                ("iklr", "fig3", {"datasets": fig3_datasets(config), "methods": list(fig3_methods(config))})]
    for paper, name, spec in studies:
        for dataset in spec.get("datasets", []):
            if dataset not in config["datasets"]:
                raise KreinbenchError(f"config papers.{paper}.{name}.datasets: {dataset!r} is not in datasets")
        for method in spec.get("methods", []):
            missing = [d for d in spec["datasets"] if d not in method_datasets(config, method)]
            if missing:
                raise KreinbenchError(f"config papers.{paper}.{name}: method {method!r} is not fitted on "
                                      f"{', '.join(missing)} (its methods.{method}.datasets)")
    if fig3_datasets(config) and not fig3_methods(config):
        raise KreinbenchError(f"config papers.iklr.fig3: no config method is named one of "
                              f"{', '.join(FIG3_METHODS)} in papers.iklr.methods")
    if TARGETS["iklr_table2"].wanted(config):
        tl1_kernel_spec(config)
    if study(config, "table5") and TABLE5_SPECTRUM_METHOD not in study_methods(config, "table5").values():
        raise KreinbenchError(f"config papers.iklr.table5.methods: none is the paper's {TABLE5_SPECTRUM_METHOD} "
                              f"(papers.iklr.methods), whose Affine-Invariant kernel gives Table V's μ_min and μ_max")
    if study(config, "fig1", MM17):
        unknown = set(study_methods(config, "fig1", MM17).values()) - set(MM17_FIG1_COLOURS)
        if unknown:
            raise KreinbenchError(f"config papers.{MM17}.fig1.methods: {', '.join(sorted(unknown))} not in MM'17 "
                                  f"Fig. 1 (its methods: {', '.join(MM17_FIG1_COLOURS)}; names by papers.{MM17}.methods)")
    cells = {
        "table6": [tuple(v.values()) for v in table6_methods(config).values()] if study(config, "table6") else [],
        "fig2": list(fig2_methods(config).values()) if study(config, "fig2") else [],
    }
    for name, keys in cells.items():
        if len(set(keys)) < len(keys):
            raise KreinbenchError(f"config papers.iklr.{name}.methods: two methods have the same setting "
                                  f"({'solver and init' if name == 'table6' else 'eps'})")
