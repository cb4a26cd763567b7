"""Stage `fit`: model selection by CV, final fit, test evaluation, one JSON record per job."""

from __future__ import annotations

import inspect
import json
import logging
import time
import warnings
from pathlib import Path

import numpy as np

from kreinbench.atomic import sha256_file
from kreinbench.data.split import read_split
from kreinbench.errors import KreinbenchError
from kreinbench.linalg import cache
from kreinbench.linalg.arrays import from_numpy
from kreinbench.linalg.implicit_kernel import ImplicitKernel, is_implicit
from kreinbench.linalg.kernels import block_rows
from kreinbench.methods import estimator_class
from kreinbench.methods.selection import SelectionResult, cross_validate, cross_validate_group
from kreinbench.pipeline import fit_records
from kreinbench.pipeline.plan import counterpart_instance, spectrum_kind
from kreinbench.report.collapse import prediction_balance

log = logging.getLogger(__name__)

# Fitted attributes (without the trailing underscore) recorded when an estimator has them.
DIAGNOSTICS = ("n_iter", "n_matvecs", "stationarity", "tau", "theorem1_bound", "theorem1_satisfied", "rank_F")


def seeded(estimator_cls, fixed: dict, seed: int) -> dict:
    """``fixed`` with ``random_state`` set to the split's seed when the estimator takes one and the
    config does not fix it: a repetition's random choices (SGD columns, a U(0, 1) α⁽⁰⁾) are then
    reproducible and differ between repetitions, like its split (seeds derive from config ``seed``)."""
    if "random_state" in fixed or "random_state" not in inspect.signature(estimator_cls).parameters:
        return fixed
    return {**fixed, "random_state": seed % 2**32}


def load_kernel(path: str, part: str, instance: str, data, split_sha256: str):
    """The ``part`` ("train" or "test") kernel of a cache file made from the split whose file's
    SHA-256 is ``split_sha256`` (a kernel of another split is refused): its matrix, checked finite
    (in row blocks: no n x n boolean temporary), or, for an implicit kernel, an
    :class:`ImplicitKernel` on the features of ``data``."""
    provenance = {"instance": instance, "split_sha256": split_sha256}
    if cache.kernel_storage(path) == cache.IMPLICIT:
        attrs = cache.read_implicit_kernel(path, provenance)
        params = json.loads(attrs["kernel"])
        name = f"{part} kernel of HDF5 file {path!r}"
        if part == "train":
            return ImplicitKernel(params, data.X_train, name=name)
        return ImplicitKernel(params, data.X_test, data.X_train, name=name)
    K, _ = cache.read_kernel_part(path, part, provenance)
    rows = block_rows(K.shape[1])
    if not all(np.isfinite(K[i:i + rows]).all() for i in range(0, K.shape[0], rows)):
        raise KreinbenchError(f"{part} kernel of HDF5 file {path!r} contains NaN or infinite entries")
    return K


def tuned_selection(record_path: str, dataset: str, rep: int, seed: int, kernel: str) -> SelectionResult:
    """The kernel instance and parameters another method's CV chose on the same split (config key
    ``tuned_by``; e.g. DANK with SVM-CV's σ and C when its own grid search is too expensive): on
    this method's ``kernel``, the instance at the grid point the other chose on its own kernel (Ying
    et al.'s noisy RBF kernel at the σ of an SVM's CV on the clean one)."""
    record = fit_records.read(record_path)
    if record["dataset"] != dataset or record["rep"] != rep or record["split_seed"] != seed:
        raise KreinbenchError(f"fit record {record_path!r} is of {record['dataset']!r} rep {record['rep']} "
                              f"(split seed {record['split_seed']}), not of {dataset!r} rep {rep} (seed {seed})")
    instance = counterpart_instance(record["kernel_instance"], record["kernel"], kernel)
    # No CV of its own: no CV accuracy (recorded as null).
    return SelectionResult(best_instance=instance, best_params=record["params"], best_score=None)


def shared_selection(record_path: str, method: str, dataset: str, rep: int, seed: int) -> SelectionResult:
    """This method's CV as its leader's fit job ran it (config key ``cv_with``; the same folds,
    scores and choice as a CV of its own)."""
    record = fit_records.read(record_path)
    if record["dataset"] != dataset or record["rep"] != rep or record["split_seed"] != seed:
        raise KreinbenchError(f"fit record {record_path!r} is of {record['dataset']!r} rep {record['rep']} "
                              f"(split seed {record['split_seed']}), not of {dataset!r} rep {rep} (seed {seed})")
    shared = record.get("cv_members", {}).get(method)
    if shared is None:
        raise KreinbenchError(f"fit record {record_path!r} holds no CV of method {method!r}: rerun its job "
                              f"(snakemake --forcerun {record_path})")
    return SelectionResult(**shared)


def member_selections(method: str, leader, cv_members: dict, cv_folds: int, lam_grid, kernels, y,
                      seed: int) -> dict[str, SelectionResult]:
    """The CV of the leader ``method`` and of every method whose ``cv_with`` it is, in one lock step."""
    prototypes = {method: leader}
    for name, spec in cv_members.items():
        cls = estimator_class(spec["estimator"], f"config methods.{name}.estimator")
        prototypes[name] = cls(**seeded(cls, dict(spec.get("params", {})), seed))
    return cross_validate_group(prototypes, kernels, y, lam_grid, n_folds=cv_folds, seed=seed)


def select(make, *, method: str, dataset: str, rep: int, spec: dict, cv_members: dict, cv_folds: int,
           train_kernels: dict, data, seed: int, tuned: SelectionResult | None,
           cv_with: str | None) -> tuple[SelectionResult, dict[str, SelectionResult]]:
    """The kernel instance and parameters of the final fit, and the CVs run here for the methods
    whose ``cv_with`` this one is: from the leader's record (``cv_with``), in one lock step with
    the members (``cv_members``), from another method's CV (``tuned_by`` without a grid), none
    (one candidate), or by this method's own CV."""
    members = {}
    if spec.get("cv_with"):
        selection = shared_selection(cv_with, method, dataset, rep, seed)
        log.info("%s on %s rep %d: CV (run with %s) chose %s %s (accuracy %.4f)", method, dataset, rep,
                 spec["cv_with"], selection.best_instance, selection.best_params, selection.best_score)
    elif cv_members:
        members = member_selections(method, make({}), cv_members, cv_folds, spec["grid"]["lam"], train_kernels,
                                    data.y_train, seed)
        selection = members.pop(method)
        log.info("%s on %s rep %d: CV (with %s) chose %s %s (accuracy %.4f)", method, dataset, rep,
                 ", ".join(members), selection.best_instance, selection.best_params, selection.best_score)
    elif tuned is not None and not spec.get("grid"):
        selection = tuned
        log.info("%s on %s rep %d: %s's CV chose %s %s", method, dataset, rep, spec["tuned_by"],
                 selection.best_instance, selection.best_params)
    elif len(train_kernels) == 1 and not spec.get("grid"):
        # One candidate (fixed parameters, e.g. DANK Table 2's C and σ): nothing to choose, so no
        # CV fits; no CV accuracy (recorded as null).
        selection = SelectionResult(best_instance=next(iter(train_kernels)), best_params={}, best_score=None)
    else:
        # On an array API namespace the estimator makes its own spectral step (on the device).
        spectrum_of = None if spec.get("array_api") else (lambda est: spectrum_kind(type(est), est.get_params()))
        selection = cross_validate(make, train_kernels, data.y_train, spec.get("grid", {}),
                                   n_folds=cv_folds, seed=seed, X=data.X_train, spectrum_of=spectrum_of)
        log.info("%s on %s rep %d: CV chose %s %s (accuracy %.4f)", method, dataset, rep,
                 selection.best_instance, selection.best_params, selection.best_score)
    return selection, members


def on_namespace(K, array_api: dict | None):
    """A kernel matrix as the method's ``array_api`` asks (a PyTorch/CuPy array on its device), or as
    it is."""
    if not array_api or is_implicit(K):
        return K
    return from_numpy(K, array_api["namespace"], array_api.get("device"))


def final_fit(estimator, K_train, kernel_path: str, instance: str, data, split_sha256: str, spectrum,
              array_api: dict | None = None) -> dict:
    """Fit ``estimator`` on the chosen instance's train kernel (with its ``spectrum`` where it reads
    one), then its test and training accuracy, times and warnings. The test kernel is read after
    the fit, so that it is not held while the fit allocates (peak memory)."""
    features = (data.X_train,) if type(estimator).needs_features else ()
    test_features = (data.X_test,) if type(estimator).needs_features else ()
    fit_kwargs = {} if spectrum is None else {"spectrum": spectrum}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        estimator.fit(K_train, data.y_train, *features, **fit_kwargs)
        train_time = time.perf_counter() - start
    for w in caught:
        log.warning("%s: %s", w.category.__name__, w.message)
    K_test = on_namespace(load_kernel(kernel_path, "test", instance, data, split_sha256), array_api)
    start = time.perf_counter()
    predicted = estimator.predict(K_test, *test_features)
    test_time = time.perf_counter() - start
    # The estimators' score is this accuracy (KernelClassifierMixin); predicting once also gives
    # the balance of the predictions, which tells a one-class fit from one that learned.
    accuracy = float(np.mean(predicted == data.y_test))
    balance = prediction_balance(predicted, data.y_test)
    # The fitted model on its own training points (DANK Table 1 prints it beside the test accuracy).
    train_accuracy = estimator.score(K_train, data.y_train, *features)
    log.info("test accuracy %.4f (training %.4f; %.1f %% of the predictions in one class, majority rate %.4f), "
             "train %.3f s, test %.4f s", accuracy, train_accuracy, 100 * balance["predicted_majority_share"],
             balance["majority_rate"], train_time, test_time)
    return {"accuracy": accuracy, "train_accuracy": train_accuracy, **balance, "train_time": train_time,
            "test_time": test_time, "warnings": [f"{w.category.__name__}: {w.message}" for w in caught]}


def fit_batch(*, jobs: dict[str, dict], cv_folds: int) -> None:
    """The fits of one dataset × repetition, one after another, each writing its own record as its
    own :func:`fit` job would (``jobs``: per method in running order, its job's arguments, from
    :func:`kreinbench.pipeline.plan.fit_batch_jobs`)."""
    for job in jobs.values():
        fit(**job, cv_folds=cv_folds)


def fit(*, dataset: str, method: str, rep: int, spec: dict, cv_members: dict, cv_folds: int, split: str,
        kernels: list[str], record: str, spectra: list[str] = (), tuned_by: str | None = None,
        cv_with: str | None = None) -> None:
    """Model selection by CV, the final fit and its test accuracy of one method on one dataset ×
    repetition, written as one JSON record to ``record``.

    ``spec`` is the method's config entry (:func:`kreinbench.pipeline.plan.fit_params`), ``cv_members`` the
    methods whose CV runs here (:func:`kreinbench.pipeline.plan.cv_members`); the files are those of
    :func:`kreinbench.pipeline.plan.fit_inputs`: the split, the kernel file of every instance of the method's
    grid, their spectra where the estimator reads one, and the record of the method whose CV this
    one takes (``tuned_by``) or shares (``cv_with``).
    """
    estimator_cls = estimator_class(spec["estimator"], f"config methods.{method}.estimator")
    fixed = dict(spec.get("params", {}))
    data = read_split(split)
    split_sha256 = sha256_file(split)
    seed = int(data.attrs["seed"])
    fixed = seeded(estimator_cls, fixed, seed)

    tuned = tuned_selection(tuned_by, dataset, rep, seed, spec["kernel"]) if spec.get("tuned_by") else None
    # The train kernels of every instance for CV (only the chosen one when another method's CV chose
    # it); the test kernel of the chosen one only, read after the final fit, so that no test kernel
    # is held while the fits allocate (peak memory).
    paths = {Path(path).name.removesuffix(".h5"): str(path) for path in kernels}
    if tuned is not None:
        paths = {tuned.best_instance: paths[tuned.best_instance]}
    train_kernels = {instance: on_namespace(load_kernel(path, "train", instance, data, split_sha256),
                                            spec.get("array_api"))
                     for instance, path in paths.items()}

    def make(params):
        return estimator_cls(**fixed, **params)

    start = time.perf_counter()
    selection, members = select(make, method=method, dataset=dataset, rep=rep, spec=spec, cv_members=cv_members,
                                cv_folds=cv_folds, train_kernels=train_kernels, data=data, seed=seed, tuned=tuned,
                                cv_with=cv_with)
    cv_time = time.perf_counter() - start

    best = selection.best_instance
    kind = None if spec.get("array_api") else spectrum_kind(estimator_cls, fixed)
    spectrum = None
    if kind is not None:
        spectrum_paths = {Path(p).name.removesuffix(".h5"): str(p) for p in spectra}
        # A spectrum of another matrix (its kernel file rebuilt since) is refused.
        spectrum = cache.read_spectrum_object(spectrum_paths[best], {
            "instance": best, "kernel_train_sha256": cache.train_kernel_digest(paths[best])}, kind)
    try:
        estimator = make(selection.best_params)
    except TypeError as exc:
        raise KreinbenchError(f"method {method!r}: parameters {selection.best_params} (from "
                              f"{spec.get('tuned_by') or 'its grid'}) do not fit {spec['estimator']}: {exc}") from exc
    # The train kernel's extreme eigenvalues, where the method reads its spectrum (Ying Table 3).
    eigenvalues = {f"kernel_{k}": v for k, v in (spectrum.summary() if spectrum else {}).items()
                   if k in ("mu_min", "mu_max")}
    outcome = final_fit(estimator, train_kernels[best], paths[best], best, data, split_sha256, spectrum,
                        spec.get("array_api"))
    result = {
        "dataset": dataset,
        "method": method,
        "estimator": spec["estimator"],
        "rep": rep,
        "split_seed": seed,
        "kernel": spec["kernel"],
        "kernel_instance": best,
        "fixed_params": fixed,
        "params": selection.best_params,
        # Splits made before scaler_fit existed were all scaled by the training part.
        "scaler_fit": str(data.attrs.get("scaler_fit", "train")),
        "n_train": int(data.y_train.size),
        "n_test": int(data.y_test.size),
        "accuracy": outcome["accuracy"],
        "train_accuracy": outcome["train_accuracy"],
        "predicted_majority_share": outcome["predicted_majority_share"],
        "majority_rate": outcome["majority_rate"],
        "tuned_by": spec.get("tuned_by"),
        "cv_with": spec.get("cv_with"),
        # The CV this job ran for the methods whose cv_with it is (read by their fit jobs).
        "cv_members": {name: vars(chosen) for name, chosen in members.items()},
        "train_time": outcome["train_time"],
        "test_time": outcome["test_time"],
        "cv_time": cv_time,
        "cv_accuracy": selection.best_score,
        "cv_folds": cv_folds,
        "cv_scores": selection.scores,
        "cv_warnings": selection.n_warnings,
        **{name: getattr(estimator, f"{name}_", None) for name in DIAGNOSTICS},
        "diverged": bool(getattr(estimator, "diverged_", False)),
        **eigenvalues,
        "warnings": outcome["warnings"],
        "history": estimator.history_,
    }
    fit_records.write(record, result)
