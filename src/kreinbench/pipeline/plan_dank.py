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
from kreinbench.pipeline.paper_targets import TARGETS
from kreinbench.pipeline.paper_targets import keys as target_keys
from kreinbench.pipeline.plan import method_datasets, method_spec, paper_names


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


def _named(value) -> list[str]:
    """The method names of a block's value: a name, a list of names, or a mapping to names."""
    if isinstance(value, str):
        return [value]
    return list(value.values()) if isinstance(value, dict) else list(value)


def _pairs(config: dict, name: str) -> list[tuple[str, str]]:
    """Every (dataset, method) a target needs fitted: each of its block's ``compares`` keys' methods on
    each of its datasets, or, where the block maps each dataset to its methods (``compares`` "*"),
    those."""
    spec = target(config, name)
    compares = next(t.compares for t in TARGETS.values() if t.paper == "dank" and t.key == name)
    if compares == ("*",):
        return [(d, m) for d, methods in spec.items() for m in _named(methods)]
    return [(d, m) for d in spec["datasets"] for key in compares for m in _named(spec[key])]


def check_dank_targets(config: dict) -> None:
    """Every target's datasets and methods exist, each method is fitted on each of its datasets, and
    Fig. 8's curves have one method per τ (per η); a clear error naming the key otherwise."""
    for name in target_keys("dank", comparing=True):
        if not target(config, name):
            continue
        where = f"config papers.dank.{name}"
        for dataset, method in _pairs(config, name):
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
