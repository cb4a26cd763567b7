"""The DANK (JMLR) paper targets of a config: Table 1, Table 3, Fig. 5, Fig. 7 and Fig. 8.

Each target is a key of ``papers.dank`` naming the config datasets and methods it summarises;
those methods are ordinary config methods (DANK variants that differ in τ, η or the out-of-sample
extension, restricted to the target's datasets by their own ``datasets`` key), fitted by rule
``fit`` and read back from the tidy records of rule ``table``, as IKLR's studies are
(:mod:`kreinbench.pipeline.plan_iklr`).
"""

from __future__ import annotations

from typing import Any

from kreinbench.errors import KreinbenchError
from kreinbench.methods.dank.estimator import DANK, c2_factor
from kreinbench.pipeline.plan import method_datasets, method_spec, paper_names

# The keys of papers.dank (their targets are in kreinbench.pipeline.paper_targets).
TARGETS = ("table1", "table3", "fig5", "fig7", "fig8")


def target(config: dict, name: str) -> dict[str, Any]:
    """``papers.dank.<name>``; empty when the config has none."""
    return config.get("papers", {}).get("dank", {}).get(name, {})


def _datasets(config: dict, names) -> dict[str, str]:
    """``{ours: the paper's name}`` of the given config datasets, in the given order."""
    paper = paper_names(config, "dank")["datasets"]
    return {d: paper[d] for d in names}


def table1_settings(config: dict) -> dict[str, Any]:
    spec = target(config, "table1")
    return {"datasets": _datasets(config, spec["datasets"]), "svm": spec["svm"], "dank": spec["dank"]}


def table3_settings(config: dict) -> dict[str, Any]:
    """``{"datasets": {ours: paper's}, "columns": {dataset: {paper's column: method}}}``."""
    spec = target(config, "table3")
    return {"datasets": _datasets(config, spec), "columns": {d: dict(cols) for d, cols in spec.items()}}


def fig5_settings(config: dict) -> dict[str, Any]:
    spec = target(config, "fig5")
    return {"datasets": _datasets(config, spec["datasets"]), "with": spec["with"], "without": spec["without"]}


def fig7_settings(config: dict) -> dict[str, Any]:
    spec = target(config, "fig7")
    return {"datasets": _datasets(config, spec["datasets"]), "methods": dict(spec["methods"])}


def dank_params(config: dict, method: str) -> dict[str, Any]:
    """τ and η of a DANK config method, the estimator's defaults filled in."""
    spec = method_spec(config, method)
    if spec["estimator"] != "DANK":
        raise KreinbenchError(f"config method {method!r} is a {spec['estimator']}, the DANK targets need DANK")
    estimator = DANK(**spec.get("params", {}))  # the estimator's own defaults, not a copy of them
    return {"tau": estimator.tau, "eta": estimator.eta}


def fig8_settings(config: dict) -> dict[str, Any]:
    """Fig. 8's methods: ``{"tau": {method: τ}, "eta": {method: k}}`` (η = k·C²) and the baseline
    (η = ‖α_SVM‖²), each curve in increasing τ / k."""
    spec = target(config, "fig8")
    taus = {m: float(dank_params(config, m)["tau"]) for m in spec["tau"]}
    etas = {}
    for m in spec["eta"]:
        eta = dank_params(config, m)["eta"]
        k = c2_factor(eta) if isinstance(eta, str) else None
        if k is None:
            raise KreinbenchError(f"config papers.dank.fig8.eta: method {m!r} has eta={eta!r}, not of the form "
                                  f"'<k>C2' (Fig. 8(b) varies η = k·C²)")
        etas[m] = k
    return {"datasets": _datasets(config, spec["datasets"]), "baseline": spec["baseline"],
            "tau": dict(sorted(taus.items(), key=lambda item: item[1])),
            "eta": dict(sorted(etas.items(), key=lambda item: item[1]))}


def _methods(config: dict, name: str) -> list[str]:
    """Every config method a target names."""
    spec = target(config, name)
    if name == "table1":
        return [spec["svm"], spec["dank"]]
    if name == "fig5":
        return [spec["with"], spec["without"]]
    if name == "fig7":
        return list(spec["methods"].values())
    if name == "fig8":
        return [spec["baseline"], *spec["tau"], *spec["eta"]]
    return []


def check_dank_targets(config: dict) -> None:
    """Every target's datasets and methods exist, each method is fitted on each of its datasets, and
    Fig. 8's curves have one method per τ (per η); a clear error naming the key otherwise."""
    for name in TARGETS:
        spec = target(config, name)
        if not spec:
            continue
        where = f"config papers.dank.{name}"
        pairs = ([(d, m) for d, cols in spec.items() for m in cols.values()] if name == "table3"
                 else [(d, m) for d in spec["datasets"] for m in _methods(config, name)])
        for dataset, method in pairs:
            if dataset not in config["datasets"]:
                raise KreinbenchError(f"{where}: dataset {dataset!r} is not in datasets")
            if method not in config["methods"]:
                raise KreinbenchError(f"{where}: unknown method {method!r}")
            if dataset not in method_datasets(config, method):
                raise KreinbenchError(f"{where}: method {method!r} is not fitted on {dataset!r} "
                                      f"(its methods.{method}.datasets)")
    if target(config, "fig8"):
        settings = fig8_settings(config)
        for key in ("tau", "eta"):
            values = list(settings[key].values())
            if len(set(values)) < len(values):
                raise KreinbenchError(f"config papers.dank.fig8.{key}: two methods have the same {key}")
