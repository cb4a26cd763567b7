"""`fit_batches`: a dataset × repetition's fits in one job write the records their own jobs would."""

import json
import re
from pathlib import Path

import pytest

from kreinbench.atomic import sha256_file
from kreinbench.data.split import write_split
from kreinbench.errors import KreinbenchError
from kreinbench.linalg import cache
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.pipeline import paths, plan
from kreinbench.pipeline.stages import fit as fit_stage
from kreinbench.pipeline.stages import kernel as kernel_stage

GRID = {"lam": [0.1, 1.0, 30.0]}
# Listed with every method before the one whose record it reads: the batch must reorder them.
CONFIG = {
    "datasets": ["monk-2", "sonar"],
    "cv_folds": 3,
    "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
    "fit_batches": ["monk-2"],
    "methods": {
        "gd-eps0.1": {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": "ccicp-gd", "eps": 0.1},
                      "grid": GRID, "cv_with": "gd"},
        "flip-tuned": {"estimator": "SpectrumKLR", "kernel": "tl1", "params": {"correction": "flip"},
                       "tuned_by": "klr"},
        "gd": {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": "ccicp-gd"}, "grid": GRID},
        "klr": {"estimator": "KLR", "kernel": "tl1", "grid": GRID},
        "sonar-only": {"estimator": "KLR", "kernel": "tl1", "grid": GRID, "datasets": ["sonar"]},
    },
}
# Timings differ between any two runs; the rest of a record must not.
TIMINGS = {"train_time", "test_time", "cv_time"}


def test_batch_methods_run_each_source_before_its_readers():
    order = plan.batch_methods(CONFIG, "monk-2")
    assert sorted(order) == ["flip-tuned", "gd", "gd-eps0.1", "klr"]
    assert order.index("gd") < order.index("gd-eps0.1") and order.index("klr") < order.index("flip-tuned")


def test_a_batch_reads_its_members_inputs_but_not_its_own_records():
    inputs = plan.fit_batch_inputs(CONFIG, "monk-2", 2)
    assert inputs == [paths.split_path("monk-2", 2), paths.kernel_path("monk-2", 2, "tl1"),
                      paths.spectrum_path("monk-2", 2, "tl1")]
    jobs = plan.fit_batch_jobs(CONFIG, "monk-2", 2)
    assert list(jobs) == plan.batch_methods(CONFIG, "monk-2")
    assert jobs["gd"]["cv_members"] == plan.cv_members(CONFIG, "gd", "monk-2")
    assert jobs["flip-tuned"] == {"dataset": "monk-2", "method": "flip-tuned", "rep": 2,
                                  "spec": plan.fit_params(CONFIG, "flip-tuned"), "cv_members": {},
                                  **plan.fit_inputs(CONFIG, "monk-2", "flip-tuned", 2),
                                  "record": paths.fit_path("monk-2", "flip-tuned", 2)}


def test_rule_fit_leaves_the_batched_datasets_to_their_batches():
    # As Snakemake embeds it in the pattern of rule fit's output.
    pattern = re.compile(f"results/fits/(?P<dataset>{plan.unbatched_dataset_pattern(CONFIG)})/(?P<method>[^/]+)/rep1.json")
    assert not pattern.fullmatch("results/fits/monk-2/gd/rep1.json")
    assert all(pattern.fullmatch(f"results/fits/{name}/gd/rep1.json") for name in ("sonar", "monk-2x", "monk", "x-monk-2"))
    assert plan.unbatched_dataset_pattern({"datasets": ["a"]}) == "[^/]+"
    assert re.fullmatch(plan.exact_pattern("monk-2"), "monk-2") and not re.fullmatch(plan.exact_pattern("a.b"), "axb")
    assert plan.rule_suffix("breast-cancer") == "breast_cancer"


def test_a_batch_of_an_unknown_dataset_is_named():
    with pytest.raises(KreinbenchError, match="config fit_batches.iris: 'iris' is not in datasets"):
        plan.check_config({**CONFIG, "fit_batches": ["iris"]})


def comparable(record: dict) -> dict:
    return {key: value for key, value in record.items() if key not in TIMINGS | {"history"}} | {
        "history": [{k: v for k, v in h.items() if k != "elapsed"} for h in record["history"]]}


def test_a_batch_writes_the_records_of_separate_jobs(load_split, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    split = load_split("monk-2")
    write_split(split, Path(paths.split_path("monk-2", 1)), provenance={})
    params = resolve_params(CONFIG["kernels"]["tl1"], split.X_train.shape[1])
    K, K_test = kernel_matrices(params, split.X_train, split.X_test)
    kernel = Path(paths.kernel_path("monk-2", 1, "tl1"))
    kernel.parent.mkdir(parents=True)
    cache.write_kernel(kernel, K, K_test, {"kernel": {"type": "tl1"}, "instance": "tl1", "split_sha256": sha256_file(paths.split_path("monk-2", 1))})
    kernel_stage.spectrum(kernel=str(kernel), instance="tl1", kind=plan.instance_spectrum_kind(CONFIG, "tl1"), seed=1,
                          spectrum=paths.spectrum_path("monk-2", 1, "tl1"))
    methods = plan.batch_methods(CONFIG, "monk-2")
    records = {m: paths.fit_path("monk-2", m, 1) for m in methods}

    for method in methods:  # one job each, as rule fit runs them
        fit_stage.fit(dataset="monk-2", method=method, rep=1, spec=plan.fit_params(CONFIG, method),
                      cv_members=plan.cv_members(CONFIG, method, "monk-2"), cv_folds=3,
                      **plan.fit_inputs(CONFIG, "monk-2", method, 1), record=records[method])
    separate = {m: json.loads(Path(path).read_text()) for m, path in records.items()}
    for path in records.values():
        Path(path).unlink()

    fit_stage.fit_batch(jobs=plan.fit_batch_jobs(CONFIG, "monk-2", 1), cv_folds=3)
    for method, path in records.items():
        assert comparable(json.loads(Path(path).read_text())) == comparable(separate[method]), method
    assert separate["gd-eps0.1"]["cv_with"] == "gd" and separate["flip-tuned"]["tuned_by"] == "klr"
