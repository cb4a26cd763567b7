"""What the workflow computes for a config: kernel instances, fit inputs and final targets.

Pure functions of the (schema-validated) config, so the Snakemake rules stay declarative and
the planning logic is unit-tested.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

from kreinbench.atomic import sha256_file
from kreinbench.data.registry import check_scaler_fit, dataset_entry, load_registry, spec_from_entry
from kreinbench.errors import KreinbenchError, did_you_mean, raise_together
from kreinbench.linalg.spectrum import KINDS, covering_kind
from kreinbench.methods import ON_IMPLICIT_KERNEL, estimator_class
from kreinbench.methods.base import KernelModel
from kreinbench.pipeline.paths import fit_path, kernel_path, spectrum_path, split_path

# Kernel parameters that a config may give as a list (a CV grid, one cached kernel per value).
GRID_PARAMS = ("sigma", "gamma", "coef0")


def _format(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def canonical(value: Any) -> Any:
    """``value`` with the keys of every mapping in it sorted: the form of a job's params.

    Snakemake's params trigger compares repr() of each param, and a dict's repr follows its key
    order, so without this reordering keys in the config would rerun jobs whose work is unchanged.
    """
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    return value


def kernel_instances(config: dict, kernel: str) -> dict[str, dict[str, Any]]:
    """Concrete kernel specs of one config kernel, keyed by instance id (e.g. ``rbf-sigma=0.1``)."""
    spec = config["kernels"][kernel]
    # In GRID_PARAMS order, not the config's: instance ids (file names) ignore key order.
    grid = {k: spec[k] for k in GRID_PARAMS if isinstance(spec.get(k), list)}
    if not grid:
        return {kernel: dict(spec)}
    instances = {}
    for values in itertools.product(*grid.values()):
        concrete = {**spec, **dict(zip(grid, values))}
        suffix = ",".join(f"{k}={_format(float(v))}" for k, v in zip(grid, values))
        instances[f"{kernel}-{suffix}"] = concrete
    return instances


def kernel_grid(config: dict, kernel: str) -> dict[str, list]:
    """The kernel parameters of a config kernel given as lists (its instances' grid), in
    ``GRID_PARAMS`` order."""
    spec = config["kernels"][kernel]
    return {k: list(spec[k]) for k in GRID_PARAMS if isinstance(spec.get(k), list)}


def counterpart_instance(instance: str, source_kernel: str, kernel: str) -> str:
    """The instance of config kernel ``kernel`` at the grid point of ``instance``, an instance of
    ``source_kernel`` (the ids of :func:`kernel_instances`, e.g. ``rbf-sigma=2`` ->
    ``noisy-rbf-sigma=2``): where a ``tuned_by`` method on another kernel with the same grid
    (:func:`check_tuned_by`) chose its instance."""
    if instance == source_kernel:
        return kernel
    prefix = f"{source_kernel}-"
    if not instance.startswith(prefix):
        raise KreinbenchError(f"kernel instance {instance!r} is not an instance of kernel {source_kernel!r}")
    return f"{kernel}-{instance.removeprefix(prefix)}"


def method_spec(config: dict, method: str) -> dict[str, Any]:
    if method not in config["methods"]:
        raise KreinbenchError(f"unknown method {method!r}; config methods: {sorted(config['methods'])}")
    return config["methods"][method]


# Keys of a method's spec that no fit job reads: its display name, and the datasets it is fitted on
# (which say which jobs exist, not what one computes).
NOT_FIT_PARAMS = ("label", "datasets")


def fit_params(config: dict, method: str) -> dict[str, Any]:
    """The method spec as param of its fit jobs: canonical and without what no fit reads
    (:data:`NOT_FIT_PARAMS`), so that renaming a method reruns only the jobs that show its label
    (:func:`method_labels`), and adding a dataset to it (or a config's offline stand-in for one of
    them) reruns no fit of the others."""
    return canonical({k: v for k, v in method_spec(config, method).items() if k not in NOT_FIT_PARAMS})


def table_methods(config: dict) -> list[str]:
    """The columns of results/tables/accuracy.*: the methods fitted on every dataset of the config.
    Variants fitted on a few datasets for a study (their ``datasets``) have their own tables; a
    config of such methods only (paper-dank) shows them all."""
    every = [name for name, spec in config["methods"].items() if "datasets" not in spec]
    return every or list(config["methods"])


def method_labels(config: dict, methods: list[str]) -> dict[str, str]:
    """The display name of each method in tables and figures: its ``label``, else its name."""
    return {method: method_spec(config, method).get("label", method) for method in methods}


def spectrum_kind(estimator_cls, params: dict[str, Any]) -> str | None:
    """The spectrum kind (see :mod:`kreinbench.linalg.spectrum`) an estimator with fixed ``params`` needs.

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
    """The spectrum a method's fits read from the pipeline: none on an array API namespace (the fit
    computes its own spectral step there, on the namespace's device)."""
    spec = method_spec(config, method)
    if spec.get("array_api"):
        return None
    return spectrum_kind(estimator_class(spec["estimator"]), spec.get("params", {}))


def instance_spectrum_kind(config: dict, instance: str) -> str | None:
    """The one spectrum computed for a kernel instance: the cheapest kind serving every method of
    the config that uses the instance, so no decomposition is computed twice or beyond need."""
    return covering_kind(
        method_spectrum_kind(config, method)
        for method, spec in config["methods"].items()
        if instance in kernel_instances(config, spec["kernel"])
    )


def dataset_config_entry(config: dict, name: str) -> dict[str, Any]:
    """A dataset's registry entry with the config's ``custom_datasets`` and ``dataset_options``,
    its split taking the config's ``scaler_fit`` unless its own options set one.

    Only a config that sets ``scaler_fit`` changes the entry (the split rule's params), so the
    splits of configs without it are not rerun."""
    options = config.get("dataset_options", {}).get(name)
    if "scaler_fit" in config:
        check_scaler_fit(config["scaler_fit"], "config", key="scaler_fit")
        options = options or {}
        options = {**options, "split": {"scaler_fit": config["scaler_fit"], **options.get("split", {})}}
    return dataset_entry(name, config.get("custom_datasets"), options)


def fetch_entry(config: dict, name: str) -> dict[str, Any]:
    """The params of dataset ``name``'s fetch job: its entry (:func:`dataset_config_entry`) with,
    for a ``local`` source, the file's sha256 as it is now, so that editing the file reruns the fetch
    and everything made from it. By content, not time stamp: a copy laid anew with the same bytes
    reruns nothing. (url and package sources are pinned by their registry checksums.)"""
    entry = dataset_config_entry(config, name)
    source = entry.get("source", {})
    if source.get("type") == "local":
        path = Path(source.get("path", ""))
        entry = {**entry, "source": {**source, "sha256": sha256_file(path) if path.is_file() else None}}
    return entry


def check_config(config: dict) -> None:
    """Cross-reference checks the JSON schema cannot express; every problem found is raised in one
    error, each naming its culprit (and the name meant, where one is close)."""
    problems = name_problems(config)
    registry = load_registry(config.get("custom_datasets"))
    for name in config["datasets"]:
        if name in registry:
            _collect(problems, check_binary, config, name)
    if not config["methods"] and "scale" not in config.get("papers", {}):
        problems.append("config methods: no method to fit; only a config of the scale study (papers.scale) "
                        "may have none")
    # The cross-checks between methods look up each other's kernels: an unknown one is named above.
    kernels_known = all(spec["kernel"] in config["kernels"] for spec in config["methods"].values())
    for name, spec in config["methods"].items():
        for check in (check_tuned_by, check_cv_with, check_implicit_kernel, check_array_api) if kernels_known else ():
            _collect(problems, check, config, name)
        _collect(problems, check_estimator_values, name, spec)
    _collect(problems, check_papers, config)
    raise_together(problems)


def _collect(problems: list[str], check, *args) -> None:
    try:
        check(*args)
    except KreinbenchError as exc:
        problems.append(str(exc))


def name_problems(config: dict) -> list[str]:
    """Every dataset, kernel and method name the config uses but does not define (or the registry
    does not know), with the near name meant. Also run beside the schema's errors, so a first try
    hears of every misspelling at once: a part the schema found malformed is skipped here."""
    problems: list[str] = []
    try:
        registry = load_registry(config.get("custom_datasets"))
    except (KreinbenchError, TypeError, AttributeError):
        registry = None  # a malformed custom_datasets entry: the schema or the registry says which
    datasets = config.get("datasets") if isinstance(config.get("datasets"), list) else []
    for name in datasets if registry is not None else []:
        if name not in registry:
            problems.append(f"config datasets: unknown dataset {name!r}{did_you_mean(name, registry)}; "
                            f"known: {', '.join(sorted(registry))}")
    kernels = config.get("kernels") if isinstance(config.get("kernels"), dict) else {}
    methods = config.get("methods") if isinstance(config.get("methods"), dict) else {}
    conv = config.get("figures", {}).get("convergence") if isinstance(config.get("figures"), dict) else None
    conv = conv if isinstance(conv, dict) else {}
    # (where, name used, the names defined, what is wrong), as each message has named it
    uses = [(f"config {key}.{name}: ", name, datasets, f"{name!r} is not in datasets")
            for key in ("dataset_options", "fit_batches") for name in config.get(key) or []]
    for name, spec in methods.items():
        if isinstance(spec, dict):
            if "kernel" in spec:
                uses.append((f"config methods.{name}.kernel: ", spec["kernel"], kernels,
                             f"unknown kernel {spec['kernel']!r}"))
            uses += [(f"config methods.{name}.datasets: ", d, datasets, f"{d!r} is not in datasets")
                     for d in spec.get("datasets") or []]
    if "dataset" in conv:
        uses.append(("config figures.convergence.dataset ", conv["dataset"], datasets,
                     f"{conv['dataset']!r} is not in datasets"))
    uses += [("config figures.convergence.methods: ", m, methods, f"unknown method {m!r}")
             for m in conv.get("methods") or []]
    for where, name, known, wrong in uses:
        if name not in known:
            listing = f"; config kernels: {sorted(known)}" if known is kernels else ""
            problems.append(f"{where}{wrong}{did_you_mean(name, known)}{listing}")
    return problems


def check_binary(config: dict, name: str) -> None:
    """Every estimator of the pipeline is a binary classifier on labels in {-1, +1}."""
    spec = spec_from_entry(name, dataset_config_entry(config, name))
    if spec.task != "binary":
        raise KreinbenchError(
            f"config datasets: {name!r} is a {spec.task} dataset; the pipeline's estimators are binary "
            f"classifiers, so only binary datasets can be listed"
        )


def check_schema(config: dict, schema_path: str | Path) -> None:
    """The config against its JSON schema, every violation in one error, each naming its key (an
    unknown key with the known ones it is close to), with :func:`name_problems` beside them."""
    import jsonschema  # only the workflow's start needs it, not every job that imports plan
    import yaml

    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    problems = [line for error in errors for line in _schema_problem(error)]
    if problems:
        raise_together(problems + [p for p in name_problems(config) if p not in problems])


def _schema_problem(error) -> list[str]:
    where = "config " + ".".join(str(p) for p in error.absolute_path) if error.absolute_path else "config"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        return [f"{where}: unknown key {key!r}{did_you_mean(key, known)}; known: {', '.join(known)}"
                for key in error.instance if key not in known]
    choices = [c for s in [error.schema, *error.schema.get("anyOf", []), *error.schema.get("oneOf", [])]
               for c in s.get("enum", []) if isinstance(c, str)]
    return [f"{where}: {error.message}{did_you_mean(error.instance, choices) if choices else ''}"]


def check_estimator_values(name: str, spec: dict) -> None:
    """Every value an estimator of method ``name`` will be built with, checked as its ``fit`` would
    check it (:meth:`~kreinbench.methods.base.Estimator.check_params`), before the first job: a
    misspelled or invalid parameter or grid value fails here, naming its config key, not at the
    fit stage hours later."""
    cls = estimator_class(spec["estimator"], f"config methods.{name}.estimator")
    params = spec.get("params", {})
    settings = [(f"config methods.{name}.params", params)]
    settings += [(f"config methods.{name}.grid.{key}", {**params, key: value})
                 for key, values in spec.get("grid", {}).items() for value in values]
    for where, values in settings:
        try:
            estimator = cls(**values)
        except TypeError as exc:  # an unknown keyword
            raise KreinbenchError(f"{where}: {exc}") from exc
        check = getattr(estimator, "check_params", None)
        if check is not None:
            try:
                check()
            except KreinbenchError as exc:
                raise KreinbenchError(f"{where}: {exc}") from exc


def check_array_api(config: dict, name: str) -> None:
    """A method with ``array_api`` (its fits on PyTorch, CuPy or the strict namespace) must take such
    arrays with its fixed parameters, on a kernel matrix."""
    spec = config["methods"][name]
    if not spec.get("array_api"):
        return
    where = f"config methods.{name}.array_api"
    estimator = estimator_class(spec["estimator"], f"config methods.{name}.estimator")(**spec.get("params", {}))
    if not getattr(estimator, "takes_array_api", lambda: False)():
        raise KreinbenchError(f"{where}: {spec['estimator']} with params {spec.get('params', {})} runs on NumPy only "
                              "(on an array API namespace: IKLR with solver ccicp-gd, ccicp-gd-mm17 or cccp-gd)")
    if config["kernels"][spec["kernel"]].get("storage") == "implicit":
        raise KreinbenchError(f"{where}: kernel {spec['kernel']!r} has storage: implicit; an array API fit takes "
                              "the kernel matrix")


def check_implicit_kernel(config: dict, name: str) -> None:
    """A method on a kernel with ``storage: implicit`` must take one (its blocks computed where it
    uses them); its CV hands each fold an implicit kernel on the fold's rows
    (:func:`kreinbench.linalg.implicit_kernel.fold_kernels`)."""
    spec = config["methods"][name]
    kernel = config["kernels"][spec["kernel"]]
    where = f"config methods.{name}"
    if kernel.get("storage") != "implicit":
        if spec["estimator"] in ON_IMPLICIT_KERNEL:
            raise KreinbenchError(f"{where}: {spec['estimator']} fits on rows: its kernel {spec['kernel']!r} must "
                                  "have storage: implicit (the fit takes the rows and the kernel's parameters from it)")
        return
    estimator = estimator_class(spec["estimator"], f"{where}.estimator")(**spec.get("params", {}))
    if not getattr(estimator, "takes_implicit_kernel", lambda kind: False)(kernel["type"]):
        raise KreinbenchError(f"{where}: {spec['estimator']} with params {spec.get('params', {})} needs the kernel "
                              f"matrix, but kernel {spec['kernel']!r} has storage: implicit (methods that take an "
                              "implicit kernel: SVM on rbf or sigmoid, DANK with n_clusters, "
                              "RandomFeaturesIKLR or RandomFeaturesSpectrumKLR on dog)")


def check_tuned_by(config: dict, name: str) -> None:
    """``methods.<name>.tuned_by: <other>`` takes the kernel instance the other method's CV chose on
    the same split, and its parameters too unless this one has a grid of its own (then CV over that
    grid on the chosen instance), so the other must exist, tune by CV itself, use the same kernel
    or one with the same grid (its instance at the chosen grid point is taken,
    :func:`counterpart_instance`: Ying et al.'s σ chosen by an SVM's CV on the clean RBF kernel,
    then the noisy kernel at that σ) and be fitted on every dataset of this one."""
    spec = config["methods"][name]
    other = spec.get("tuned_by")
    if other is None:
        return
    where = f"config methods.{name}.tuned_by"
    if other not in config["methods"]:
        raise KreinbenchError(f"{where}: unknown method {other!r}{did_you_mean(other, config['methods'])}")
    if "tuned_by" in config["methods"][other] and "grid" not in config["methods"][other]:
        raise KreinbenchError(f"{where}: {other!r} is itself tuned_by another method without a grid of its "
                              "own; name the one that runs the CV")
    theirs, ours = config["methods"][other]["kernel"], spec["kernel"]
    if kernel_grid(config, theirs) != kernel_grid(config, ours):
        raise KreinbenchError(f"{where}: {other!r} uses kernel {theirs!r} with grid {kernel_grid(config, theirs)}, "
                              f"{name!r} uses {ours!r} with grid {kernel_grid(config, ours)}; the chosen kernel "
                              "instance must be one of both, or the kernels must have the same grid")
    missing = [d for d in method_datasets(config, name) if d not in method_datasets(config, other)]
    if missing:
        raise KreinbenchError(f"{where}: {other!r} is not fitted on {', '.join(missing)}")


def check_cv_with(config: dict, name: str) -> None:
    """``methods.<name>.cv_with: <leader>`` runs this method's CV in the leader's fit job (IKLR: in
    one lock step, :func:`kreinbench.methods.iklr.estimator.grouped_lambda_path_scores`; Flip/Clip/Shift KLR:
    on the folds' shared eigendecompositions), so both must be
    estimators that can share it, on the same kernel and grid, and the leader must be fitted on
    every dataset of this one and run its CV itself."""
    spec = config["methods"][name]
    leader = spec.get("cv_with")
    if leader is None:
        return
    where = f"config methods.{name}.cv_with"
    if leader not in config["methods"] or leader == name:
        raise KreinbenchError(f"{where}: {leader!r} is not another method of the config")
    other = config["methods"][leader]
    if "cv_with" in other or "tuned_by" in other or "tuned_by" in spec:
        raise KreinbenchError(f"{where}: the CV is shared only between methods that run their own (no tuned_by), "
                              f"led by one that is not itself cv_with another")
    for key in ("kernel", "grid"):
        if other.get(key) != spec.get(key):
            raise KreinbenchError(f"{where}: {leader!r} has {key} {other.get(key)!r}, {name!r} has "
                                  f"{spec.get(key)!r}; a shared CV needs the same")
    mine, theirs = (estimator_class(s["estimator"], f"config methods.{n}.estimator")(**s.get("params", {}))
                    for n, s in ((name, spec), (leader, other)))
    if not (isinstance(theirs, KernelModel) and theirs.groups_lambda_paths_with(mine)
            and set(spec.get("grid", {})) == {"lam"}):
        raise KreinbenchError(f"{where}: {name!r} cannot share {leader!r}'s CV: it needs a λ grid and estimators "
                              "that share one (IKLR with the same split and lock-step solver, CCICP-GD or "
                              "CCICP-SGD; Flip, Clip and Shift KLR)")
    missing = [d for d in method_datasets(config, name) if d not in method_datasets(config, leader)]
    if missing:
        raise KreinbenchError(f"{where}: {leader!r} is not fitted on {', '.join(missing)}")


def cv_members(config: dict, method: str, dataset: str) -> dict[str, dict]:
    """The methods whose CV on ``dataset`` runs in ``method``'s fit job (their ``cv_with``), by
    name, with their :func:`fit_params`."""
    return {name: fit_params(config, name) for name, spec in config["methods"].items()
            if spec.get("cv_with") == method and dataset in method_datasets(config, name)}


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
    tuned_by = method_spec(config, method).get("tuned_by")
    if tuned_by:
        # The other method's record names the kernel instance and parameters its CV chose.
        inputs["tuned_by"] = fit_path(dataset, tuned_by, rep)
    cv_with = method_spec(config, method).get("cv_with")
    if cv_with:
        # The leader's record holds this method's CV.
        inputs["cv_with"] = fit_path(dataset, cv_with, rep)
    return inputs


def batched_datasets(config: dict) -> list[str]:
    """The datasets whose fits of one repetition run in one job (config ``fit_batches``).

    On small datasets a fit takes about as long as a job's start (the interpreter, Snakemake's
    script preamble, numpy, scipy and h5py: about a second), so one job per method doubled their
    cost; one job per dataset × repetition still writes one record per method."""
    return list(config.get("fit_batches", []))


def batch_methods(config: dict, dataset: str) -> list[str]:
    """The methods of ``dataset``'s fit batch in the order they run: each method whose record a
    ``cv_with`` or ``tuned_by`` reads comes before the methods that read it."""
    methods = [m for m in config["methods"] if dataset in method_datasets(config, m)]

    # A method after the one whose record it reads, which may itself read another's (a tuned_by
    # source with a grid of its own); a stable sort keeps the config's order otherwise.
    def depth(method: str) -> int:
        spec = method_spec(config, method)
        source = spec.get("cv_with") or spec.get("tuned_by")
        return 0 if source is None else 1 + depth(source)

    return sorted(methods, key=depth)


def unbatched_dataset_pattern(config: dict) -> str:
    """The ``dataset`` wildcard's pattern of rule ``fit``: any dataset but the batched ones."""
    batched = batched_datasets(config)
    if not batched:
        return "[^/]+"
    # Snakemake embeds the pattern in the whole path's: a name ends where "/" (or the path) does.
    return f"(?!(?:{'|'.join(map(re.escape, batched))})(?![^/]))[^/]+"


def exact_pattern(name: str) -> str:
    """A wildcard pattern matching ``name`` only."""
    return re.escape(name)


def rule_suffix(name: str) -> str:
    """``name`` as part of a rule name (a Python identifier)."""
    return re.sub(r"\W", "_", name)


def fit_batch_jobs(config: dict, dataset: str, rep: int) -> dict[str, dict[str, Any]]:
    """Per method of ``dataset``'s batch (in :func:`batch_methods` order), the arguments its own fit
    job would give the fit stage (:func:`kreinbench.pipeline.stages.fit.fit`) but ``cv_folds``: its
    :func:`fit_params`, :func:`cv_members`, :func:`fit_inputs` and record."""
    return {method: {"dataset": dataset, "method": method, "rep": rep, "spec": fit_params(config, method),
                     "cv_members": cv_members(config, method, dataset), **fit_inputs(config, dataset, method, rep),
                     "record": fit_path(dataset, method, rep)}
            for method in batch_methods(config, dataset)}


def fit_batch_inputs(config: dict, dataset: str, rep: int) -> list[str]:
    """The files a fit batch reads: its members' inputs but the records it writes itself."""
    own = {fit_path(dataset, method, rep) for method in batch_methods(config, dataset)}
    files = []
    for method in batch_methods(config, dataset):
        for value in fit_inputs(config, dataset, method, rep).values():
            files += value if isinstance(value, list) else [value]
    return [f for f in dict.fromkeys(files) if f not in own]


def method_datasets(config: dict, method: str) -> list[str]:
    """The datasets a method is fitted on: its ``datasets`` (a study on a few datasets, e.g. IKLR
    Table VI's initializations) or else every config dataset."""
    return method_spec(config, method).get("datasets", config["datasets"])


def all_fits(config: dict) -> list[str]:
    return [
        fit_path(d, m, r)
        for d in config["datasets"]
        for m in config["methods"]
        if d in method_datasets(config, m)
        for r in range(1, config["repetitions"] + 1)
    ]


def convergence_fits(config: dict) -> list[str]:
    conv = config.get("figures", {}).get("convergence")
    if not conv:
        return []
    return [fit_path(conv["dataset"], m, r) for m in conv["methods"] for r in range(1, config["repetitions"] + 1)]


# `--config scale=NAME` picks the overrides ``scales.NAME`` of the config; this scale is the
# config as written.
FULL_SCALE = "full"


def scaled_config(config: dict) -> dict:
    """The config at its ``scale``: repetitions at most ``scales[scale].repetitions``, the
    settings of ``scales[scale]``'s ``dataset_options``, ``kernels``, ``methods`` and ``papers`` in
    place of the config's, key by key (a null removes the key: ``split: {max_n: null}`` lifts a
    cap, ``methods: {m: null}`` drops a method), then every dataset's n capped at
    ``scales[scale].max_n`` (a ``split.max_n`` it already has is kept if smaller).

    A scaled run writes the same paths as the full one: Snakemake sees the changed split
    parameters and repetitions and reruns what they affect, so the two never mix silently.
    """
    name = config.get("scale", FULL_SCALE)
    if name == FULL_SCALE:
        return config
    if name not in config.get("scales", {}):
        raise KreinbenchError(f"config scale {name!r}: no scales.{name} in the config (known: "
                              f"{', '.join([FULL_SCALE, *config.get('scales', {})])})")
    scale = config["scales"][name]
    scaled = {**config, "repetitions": min(config["repetitions"], scale.get("repetitions", config["repetitions"]))}
    for key in SCALED_BLOCKS:
        if key in scale:
            scaled[key] = _overridden(config.get(key, {}), scale[key])
    if "max_n" in scale:
        options = {}
        for dataset in config["datasets"]:
            entry = scaled.get("dataset_options", {}).get(dataset, {})
            split = entry.get("split", {})
            cap = min(scale["max_n"], split.get("max_n", scale["max_n"]))
            options[dataset] = {**entry, "split": {**split, "max_n": cap}}
        scaled["dataset_options"] = options
    return scaled


# The blocks of a config that a scale overrides key by key.
SCALED_BLOCKS = ("dataset_options", "kernels", "methods", "papers")


def _overridden(settings: dict, overrides: dict) -> dict:
    """``settings`` with each leaf of ``overrides`` in place of its own (nested dicts merged, a
    None removes the key); an override of a block ``settings`` lacks (a figure the config does not
    ask for) adds nothing."""
    merged = dict(settings)
    for key, value in overrides.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict):
            if isinstance(merged.get(key), dict):
                merged[key] = _overridden(merged[key], value)
        else:
            merged[key] = value
    return merged


def offline_config(config: dict) -> dict:
    """The config with ``offline_substitutes`` applied when ``offline`` is true (``--config offline=true``).

    A paper dataset whose published file is in no offline mirror (IKLR's LIBSVM ``splice``) is
    replaced, everywhere the config names it, by the closest source that is (``splice-uci``, the
    same UCI sequences), with the substitute's own ``options`` (its dataset_options). Its rows
    keep the paper's name (``papers.<paper>.datasets``), so every table shows the substitute as
    ``dataset`` beside the paper's ``paper_dataset``: the difference is stated where it matters.
    """
    if not stand_ins(config):
        return config
    substitutes = config["offline_substitutes"]
    for original, sub in substitutes.items():
        if original not in config["datasets"]:
            raise KreinbenchError(f"config offline_substitutes.{original}: {original!r} is not in datasets")
        if sub["dataset"] in config["datasets"]:
            raise KreinbenchError(f"config offline_substitutes.{original}: its substitute {sub['dataset']!r} is "
                                  f"already in datasets")
    rename = {original: sub["dataset"] for original, sub in substitutes.items()}

    def renamed(node):
        if isinstance(node, str):
            return rename.get(node, node)
        if isinstance(node, list):
            return [renamed(item) for item in node]
        if isinstance(node, dict):
            return {rename.get(key, key): renamed(value) for key, value in node.items()}
        return node

    options = {name: entry for name, entry in config.get("dataset_options", {}).items() if name not in rename}
    options.update({sub["dataset"]: sub.get("options", {}) for sub in substitutes.values()})
    papers = {}
    for paper, spec in config.get("papers", {}).items():
        papers[paper] = renamed({key: value for key, value in spec.items() if key != "datasets"})
        if "datasets" in spec:  # the paper's row names: the substitute stands in the original's row
            rows = {rename.get(ours, ours): theirs for ours, theirs in spec["datasets"].items()}
            rows.update({sub: spec["datasets"].get(original, original) for original, sub in rename.items()})
            papers[paper]["datasets"] = rows
    return {**config, "datasets": renamed(config["datasets"]), "methods": renamed(config["methods"]),
            "dataset_options": options, "papers": papers, "figures": renamed(config.get("figures", {})),
            "fit_batches": renamed(config.get("fit_batches", []))}


def stand_ins(config: dict) -> dict[str, str]:
    """``{substitute: original}`` of the offline substitutes in use (:func:`offline_config`)."""
    if config.get("offline") not in (True, "true"):
        return {}
    return {sub["dataset"]: original for original, sub in config.get("offline_substitutes", {}).items()}


def paper_names(config: dict, paper: str) -> dict[str, dict[str, str]]:
    """The names of the config's datasets and methods in a paper's tables and figures:
    ``{"datasets": {ours: paper's}, "methods": {ours: paper's}}`` from ``papers.<paper>``, a name
    the mapping leaves out standing for itself; entries for datasets or methods the config does
    not list are ignored.
    """
    spec = config.get("papers", {}).get(paper, {})
    return {
        kind: {name: spec.get(kind, {}).get(name, name) for name in config[kind]}
        for kind in ("datasets", "methods")
    }


def check_papers(config: dict) -> None:
    """No two of our datasets (methods) stand for one row (column) of a paper; each paper's own
    targets are checked by its planner (:mod:`kreinbench.pipeline.paper_checks`)."""
    for paper in config.get("papers", {}):
        names = paper_names(config, paper)
        for kind, mapping in names.items():
            seen: dict[str, str] = {}
            for ours, theirs in mapping.items():
                if theirs in seen:
                    raise KreinbenchError(f"config papers.{paper}.{kind}: {seen[theirs]!r} and {ours!r} are both "
                                          f"the paper's {theirs!r}; a paper's row or column is one of ours")
                seen[theirs] = ours
