"""What the workflow computes for a config: kernel instances, fit inputs and final targets.

Pure functions of the (schema-validated) config, so the Snakemake rules stay declarative and
the planning logic is unit-tested.
"""

from __future__ import annotations

import itertools
from typing import Any

from kreinbench.data.registry import dataset_entry, load_registry, spec_from_entry
from kreinbench.errors import KreinbenchError
from kreinbench.methods import ESTIMATORS
from kreinbench.spectrum import KINDS, covering_kind

# Kernel parameters that a config may give as a list (a CV grid, one cached kernel per value).
GRID_PARAMS = ("sigma", "gamma", "coef0")


def _format(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def kernel_instances(config: dict, kernel: str) -> dict[str, dict[str, Any]]:
    """Concrete kernel specs of one config kernel, keyed by instance id (e.g. ``rbf-sigma=0.1``)."""
    spec = config["kernels"][kernel]
    grid = {k: v for k, v in spec.items() if k in GRID_PARAMS and isinstance(v, list)}
    if not grid:
        return {kernel: dict(spec)}
    instances = {}
    for values in itertools.product(*grid.values()):
        concrete = {**spec, **dict(zip(grid, values))}
        suffix = ",".join(f"{k}={_format(float(v))}" for k, v in zip(grid, values))
        instances[f"{kernel}-{suffix}"] = concrete
    return instances


def kernel_instance_spec(config: dict, instance: str) -> dict[str, Any]:
    """The kernel spec of an instance id, searching every config kernel."""
    for kernel in config["kernels"]:
        instances = kernel_instances(config, kernel)
        if instance in instances:
            return instances[instance]
    raise KreinbenchError(f"no kernel instance {instance!r} in the config")


def method_spec(config: dict, method: str) -> dict[str, Any]:
    if method not in config["methods"]:
        raise KreinbenchError(f"unknown method {method!r}; config methods: {sorted(config['methods'])}")
    return config["methods"][method]


def spectrum_kind(estimator_cls, params: dict[str, Any]) -> str | None:
    """The spectrum kind (see :mod:`kreinbench.spectrum`) an estimator with fixed ``params`` needs.

    Estimators declare it in the class attribute ``needs_spectrum``: None/False (no spectrum),
    one of ``"lambda_min"``, ``"negative"``, ``"eigenvalues"``, ``"full"`` (True means
    ``"full"``), or a callable ``params -> kind`` when it depends on the method's fixed params.
    """
    need = estimator_cls.needs_spectrum
    if callable(need):
        need = need(params)
    if need is True:
        return "full"
    if need is None or need is False:
        return None
    if need not in KINDS:
        raise KreinbenchError(f"{estimator_cls.__name__}.needs_spectrum gives unknown kind {need!r} (known: {', '.join(KINDS)})")
    return need


def method_spectrum_kind(config: dict, method: str) -> str | None:
    spec = method_spec(config, method)
    return spectrum_kind(ESTIMATORS[spec["estimator"]], spec.get("params", {}))


def instance_spectrum_kind(config: dict, instance: str) -> str | None:
    """The one spectrum computed for a kernel instance: the cheapest kind serving every method of
    the config that uses the instance, so no decomposition is computed twice or beyond need."""
    return covering_kind(
        method_spectrum_kind(config, method)
        for method, spec in config["methods"].items()
        if instance in kernel_instances(config, spec["kernel"])
    )


def dataset_config_entry(config: dict, name: str) -> dict[str, Any]:
    """A dataset's registry entry with the config's ``custom_datasets`` and ``dataset_options``."""
    return dataset_entry(name, config.get("custom_datasets"), config.get("dataset_options", {}).get(name))


def check_config(config: dict) -> None:
    """Cross-reference checks the JSON schema cannot express; raise naming the culprit."""
    registry = load_registry(config.get("custom_datasets"))
    for name in config["datasets"]:
        if name not in registry:
            raise KreinbenchError(f"config datasets: unknown dataset {name!r}; known: {', '.join(sorted(registry))}")
        spec = spec_from_entry(name, dataset_config_entry(config, name))
        # Every estimator of the pipeline is a binary classifier on labels in {-1, +1}.
        if spec.task != "binary":
            raise KreinbenchError(
                f"config datasets: {name!r} is a {spec.task} dataset; the pipeline's estimators are binary "
                f"classifiers, so only binary datasets can be listed"
            )
    for name in config.get("dataset_options", {}):
        if name not in config["datasets"]:
            raise KreinbenchError(f"config dataset_options.{name}: {name!r} is not in datasets")
    for name, spec in config["methods"].items():
        if spec["kernel"] not in config["kernels"]:
            raise KreinbenchError(
                f"config methods.{name}.kernel: unknown kernel {spec['kernel']!r}; config kernels: {sorted(config['kernels'])}"
            )
        # Instantiating validates the parameter names early (a typo fails here, not in job 57).
        try:
            ESTIMATORS[spec["estimator"]](**spec.get("params", {}))
        except TypeError as exc:
            raise KreinbenchError(f"config methods.{name}.params: {exc}") from exc
    conv = config.get("figures", {}).get("convergence")
    if conv:
        if conv["dataset"] not in config["datasets"]:
            raise KreinbenchError(f"config figures.convergence.dataset {conv['dataset']!r} is not in datasets")
        for method in conv["methods"]:
            if method not in config["methods"]:
                raise KreinbenchError(f"config figures.convergence.methods: unknown method {method!r}")


def split_path(dataset: str, rep: int) -> str:
    return f"data/splits/{dataset}/rep{rep}.h5"


def kernel_path(dataset: str, rep: int, instance: str) -> str:
    return f"results/kernels/{dataset}/rep{rep}/{instance}.h5"


def spectrum_path(dataset: str, rep: int, instance: str) -> str:
    return f"results/spectra/{dataset}/rep{rep}/{instance}.h5"


def fit_path(dataset: str, method: str, rep: int) -> str:
    return f"results/fits/{dataset}/{method}/rep{rep}.json"


def fit_inputs(config: dict, dataset: str, method: str, rep: int) -> dict[str, Any]:
    """Named inputs of one fit job: the split, every kernel instance of the method's grid and,
    when the estimator needs one, their spectra (of the kind :func:`instance_spectrum_kind`)."""
    kernel = method_spec(config, method)["kernel"]
    instances = list(kernel_instances(config, kernel))
    inputs: dict[str, Any] = {
        "split": split_path(dataset, rep),
        "kernels": [kernel_path(dataset, rep, i) for i in instances],
    }
    if method_spectrum_kind(config, method) is not None:
        inputs["spectra"] = [spectrum_path(dataset, rep, i) for i in instances]
    return inputs


def all_fits(config: dict) -> list[str]:
    return [
        fit_path(d, m, r)
        for d in config["datasets"]
        for m in config["methods"]
        for r in range(1, config["repetitions"] + 1)
    ]


def convergence_fits(config: dict) -> list[str]:
    conv = config.get("figures", {}).get("convergence")
    if not conv:
        return []
    return [fit_path(conv["dataset"], m, r) for m in conv["methods"] for r in range(1, config["repetitions"] + 1)]


def iklr_table2_splits(config: dict) -> list[str]:
    """Inputs of rule ``iklr_table2``: the first repetition's split of every config dataset."""
    return [split_path(d, 1) for d in config["datasets"]]


def tl1_kernel_spec(config: dict) -> dict[str, Any]:
    """The config's TL1 kernel (Table II's μ are those of TL1); a clear error if there is none."""
    tl1 = [spec for spec in config["kernels"].values() if spec["type"] == "tl1"]
    if len(tl1) != 1:
        raise KreinbenchError(f"rule iklr_table2 needs exactly one kernel of type tl1 in the config, found {len(tl1)}")
    return tl1[0]
