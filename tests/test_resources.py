"""Job resources from the job's size: the cost model against measured peak memory and time of the
real stages, and the retry, floor and thread rules."""

import json
import math
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from kreinbench.data.split import Split, write_split
from kreinbench.pipeline import plan
from kreinbench.pipeline import resources as res

N_TRAIN, N_TEST, N_FEATURES = 1600, 400, 10
CONFIG = {
    "cv_folds": 3,
    "datasets": ["synthetic"],
    "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}, "rbf": {"type": "rbf", "sigma": [0.1, 1.0]}},
    "methods": {"flip-klr": {"estimator": "SpectrumKLR", "kernel": "tl1", "params": {"correction": "flip"},
                             "grid": {"lam": [0.01, 1.0]}},
                "klr-rbf": {"estimator": "KLR", "kernel": "rbf", "grid": {"lam": [0.01, 0.1, 1.0]}}},
}


@pytest.fixture(scope="module")
def split_file(tmp_path_factory):
    rng = np.random.default_rng(3)
    X_train, X_test = rng.random((N_TRAIN, N_FEATURES)), rng.random((N_TEST, N_FEATURES))
    y_train = np.where(X_train[:, 0] + X_train[:, 1] > 1, 1, -1)
    y_test = np.where(X_test[:, 0] + X_test[:, 1] > 1, 1, -1)
    split = Split(X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test,
                  train_index=np.arange(N_TRAIN), test_index=np.arange(N_TEST) + N_TRAIN,
                  attrs={"seed": 5, "dataset": "synthetic", "rep": 1})
    # Where the workflow keeps the split of dataset "synthetic", repetition 1, under a workdir.
    path = tmp_path_factory.mktemp("resources") / "data/splits/synthetic/rep1.h5"
    path.parent.mkdir(parents=True)
    write_split(split, path, provenance={"files": [], "source": "test"})
    return path


# Runs one real stage in a fresh interpreter and prints its peak resident memory beyond what the
# imports already hold, and its CPU time on one thread: what a SLURM job of that stage would need
# (CPU time, not wall time: a machine busy with other work stretches the wall clock, not the work).
MEASURE = """
import json, sys, time
from threadpoolctl import threadpool_limits
from kreinbench.pipeline.stages.kernel import kernel, spectrum
from kreinbench.pipeline.stages.fit import fit
from kreinbench.methods import SpectrumKLR

# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over execve, so a child of a large
# pytest process would report the parent's peak.
def status_kb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])

stage, args = sys.argv[1], json.loads(sys.argv[2])
start_kb, start = status_kb("VmRSS"), time.process_time()
with threadpool_limits(limits=1):
    {"kernel": kernel, "spectrum": spectrum, "fit": fit}[stage](**args)
print(json.dumps({"bytes": (status_kb("VmHWM") - start_kb) * 1024,
                  "seconds": time.process_time() - start}))
"""


def measure(stage: str, job: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", MEASURE, stage, json.dumps(job)], capture_output=True, text=True,
                         timeout=120, env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def measured(split_file):
    """Peak memory and time of the kernel, spectrum and fit stages on the test split."""
    d = split_file.parent
    (d / "spectra").mkdir()
    kernel_path, spectrum_path, record = d / "tl1.h5", d / "spectra/tl1.h5", d / "fit.json"
    return {
        "kernel": measure("kernel", {"split": str(split_file), "specs": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
                                     "kernels": [str(kernel_path)]}),
        "spectrum": measure("spectrum", {"kernel": str(kernel_path), "instance": "tl1", "kind": "full", "seed": 1,
                                         "spectrum": str(spectrum_path)}),
        "fit": measure("fit", {
            "dataset": "synthetic", "method": "flip-klr", "rep": 1, "spec": CONFIG["methods"]["flip-klr"],
            "cv_members": {}, "cv_folds": CONFIG["cv_folds"], "record": str(record),
            "split": str(split_file), "kernels": [str(kernel_path)], "spectra": [str(spectrum_path)]}),
    }


def test_sizes_are_read_from_the_split_and_the_manifest(split_file, tmp_path):
    assert res.split_size(split_file) == res.Size(N_TRAIN, N_TEST, N_FEATURES)
    assert res.split_size(tmp_path / "not-yet.h5") is None
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"files": [{"file": "a", "size": 1000}, {"file": "b", "size": 234}]}))
    assert res.raw_bytes(manifest) == 1234


@pytest.mark.parametrize("stage", ["kernel", "spectrum", "fit"])
def test_memory_model_bounds_the_measured_peak_tightly(stage, split_file, measured):
    size = res.split_size(split_file)
    cost = {"kernel": res.kernel_cost(size), "spectrum": res.spectrum_cost(size),
            "fit": res.fit_cost(size, instances=1, candidates=2, folds=3)}[stage]
    peak = measured[stage]["bytes"]
    # An upper bound (the job is not killed) that is not a gross overestimate (the queue is not
    # asked for memory the job never touches).
    assert 0.3 * cost.memory <= peak <= cost.memory, (stage, peak / 2**20, cost.memory / 2**20)


def test_runtime_request_covers_the_measured_time(measured):
    size = res.Size(N_TRAIN, N_TEST, N_FEATURES)
    for stage, cost in [("kernel", res.kernel_cost(size)), ("spectrum", res.spectrum_cost(size)),
                        ("fit", res.fit_cost(size, instances=1, candidates=2, folds=3))]:
        assert measured[stage]["seconds"] <= res.RUNTIME_SAFETY * cost.seconds + 1.0, stage
    # The O(n^3) stages are where the model's constants matter: within the safety factor of the truth.
    assert measured["spectrum"]["seconds"] >= res.spectrum_cost(size).seconds / res.RUNTIME_SAFETY


def test_cost_formulas_scale_as_documented():
    small, double = res.Size(1000, 500, 10), res.Size(2000, 1000, 10)
    # Kernel memory (n^2 + m n, plus blocks of at most KERNEL_BLOCK_BYTES) and time (n (n + m) d)
    # grow 4x when n and m double.
    big, bigger = res.Size(4000, 2000, 10), res.Size(8000, 4000, 10)
    grow = (res.kernel_cost(bigger).memory - res.KERNEL_BLOCK_BYTES) / (res.kernel_cost(big).memory - res.KERNEL_BLOCK_BYTES)
    assert grow == pytest.approx(4.0)
    assert res.kernel_cost(small).memory == 2 * 8 * (1000**2 + 500 * 1000)
    assert res.kernel_cost(double).seconds == pytest.approx(4.0 * res.kernel_cost(small).seconds)
    # A job of a config kernel with 7 instances computes them one after another.
    assert res.kernel_cost(small, 7).seconds == pytest.approx(7.0 * res.kernel_cost(small).seconds)
    assert res.kernel_cost(small, 7).memory == res.kernel_cost(small).memory
    assert res.spectrum_cost(double).seconds == pytest.approx(8.0 * res.spectrum_cost(small).seconds)
    assert res.spectrum_cost(small).memory == 8 * res.SPECTRUM_COPIES * 1000**2
    # Every grid instance's kernels are held at once; CV fits are on (k-1)/k of n, plus one final fit.
    one = res.fit_cost(small, instances=1, candidates=7, folds=5)
    eight = res.fit_cost(small, instances=8, candidates=56, folds=5)
    assert eight.memory - one.memory == 7 * 8 * (1000**2 + 500 * 1000)
    fit_seconds = res.FIT_NS * 1e-9 * 1000**3
    assert eight.seconds - one.seconds == pytest.approx(49 * 5 * 0.8**3 * fit_seconds)
    assert res.fit_cost(small, instances=1, candidates=1, folds=2).seconds == pytest.approx((2 / 8 + 1) * fit_seconds)


def test_retries_double_memory_and_extend_runtime():
    cost = res.Cost(memory=3 * 2**30, seconds=3600.0)
    first = res.mem_mb(cost, 1)
    assert first == res.BASE_MB + 3 * 1024
    assert [res.mem_mb(cost, a) for a in (2, 3)] == [2 * first, 4 * first]
    minutes = math.ceil(res.RUNTIME_SAFETY * 60)
    assert [res.runtime_min(cost, a) for a in (1, 2)] == [minutes, 2 * minutes]
    # Unknown size (inputs not made yet) or tiny jobs: the floors.
    assert res.mem_mb(None, 1) == res.BASE_MB and res.runtime_min(None, 2) == 2 * res.RUNTIME_FLOOR_MIN
    assert res.runtime_min(res.Cost(memory=0, seconds=1.0), 1) == res.RUNTIME_FLOOR_MIN


def test_blas_threads_grow_with_n_up_to_the_cap():
    threads = [res.blas_threads(res.Size(n, 1, 1)) for n in (10, res.N_PER_THREAD, res.N_PER_THREAD + 1, 10**6)]
    assert threads == [1, 1, 2, res.MAX_THREADS]
    assert res.blas_threads(None) == 1


def test_job_resources_give_snakemake_callables(split_file, tmp_path, monkeypatch):
    jobs = res.JobResources(CONFIG)
    wildcards = SimpleNamespace(dataset="synthetic", rep="1", method="flip-klr")
    # Paths are relative to the workflow's working directory; the files need not exist.
    monkeypatch.chdir(split_file.parents[3])
    fit_input = SimpleNamespace(split="data/splits/synthetic/rep1.h5", kernels=["results/kernels/synthetic/rep1/tl1.h5"])
    n, m = N_TRAIN, N_TEST
    expected = res.BASE_MB + 8 * (n * n + m * n + res.FIT_COPIES * n * n) / 2**20
    assert jobs.mem_mb("fit")(wildcards, fit_input, 1) == math.ceil(expected)
    assert jobs.mem_mb("fit")(wildcards, fit_input, 2) == math.ceil(2 * expected)
    # A fit batch runs its methods one after another: the largest one's memory, the sum of times.
    members = plan.batch_methods(CONFIG, "synthetic")
    costs = [jobs.cost("fit", SimpleNamespace(dataset="synthetic", rep="1", method=m), fit_input) for m in members]
    batch = jobs.cost("fit_batch", wildcards, SimpleNamespace())
    assert len(members) > 1 and batch.memory == max(c.memory for c in costs)
    assert batch.seconds == pytest.approx(sum(c.seconds for c in costs))
    # A spectrum job is sized from the split too, before its kernel file exists.
    spectrum_mb = res.BASE_MB + 8 * res.SPECTRUM_COPIES * n * n / 2**20
    assert jobs.mem_mb("spectrum")(wildcards, SimpleNamespace(kernel="absent.h5"), 1) == math.ceil(spectrum_mb)
    assert jobs.threads("fit")(wildcards) == jobs.threads("spectrum")(wildcards) == jobs.threads("table")(wildcards) == 1
    assert jobs.mem_mb("table")(wildcards, SimpleNamespace(), 1) == res.BASE_MB
    # Before its split exists (Snakemake building the DAG) a kernel job gets the floors.
    other = SimpleNamespace(dataset="synthetic", rep="2", method="flip-klr")
    assert jobs.mem_mb("kernel")(other, SimpleNamespace(), 1) == res.BASE_MB
    assert jobs.runtime("kernel")(other, SimpleNamespace(), 1) == res.RUNTIME_FLOOR_MIN
    manifest = SimpleNamespace(manifest=str(tmp_path / "manifest.json"))
    assert jobs.mem_mb("split")(other, manifest, 1) == res.BASE_MB
    (tmp_path / "manifest.json").write_text(json.dumps({"files": [{"file": "a", "size": 50 * 2**20}]}))
    assert jobs.mem_mb("split")(other, manifest, 1) == res.BASE_MB + res.PARSE_COPIES * 50
    with pytest.raises(ValueError, match="no cost model for rule 'kernal'"):
        jobs.mem_mb("kernal")(other, SimpleNamespace(), 1)


def test_scale_points_are_sized_before_their_split_exists(tmp_path, monkeypatch):
    """A scale point's cost needs only n_train (its wildcard) and m: a dry run plans it."""
    monkeypatch.chdir(tmp_path)  # no split file here
    jobs = res.JobResources(CONFIG)
    point = SimpleNamespace(dataset="ijcnn1", variant="nystrom-iklr-m2000", n_train="49990")
    expected = res.scale_point_cost(res.Size(49990, 0, 0), 2000)
    assert expected.memory > 4e9  # Φ and its copies at n = 49 990, m = 2000
    assert jobs.mem_mb("scale_point")(point, SimpleNamespace(), 1) == res.mem_mb(expected, 1)
    exact = SimpleNamespace(dataset="ijcnn1", variant="iklr", n_train="8000")
    assert jobs.mem_mb("scale_point")(exact, SimpleNamespace(), 1) == res.mem_mb(res.scale_point_cost(res.Size(8000, 0, 0), None), 1)


def test_slurm_profile_keeps_a_paper_scale_group_within_one_node():
    """paper-iklr at ``scale=paper``: ijcnn1-tr's dataset × repetition group (17 500 training and
    17 500 test rows, as its dry run sizes them: its TL1 kernel, spectrum, then CCICP-GD, CCICP-SGD
    and exact CCCP side by side, then CCICP-SGD-I, which starts from CCICP-SGD's fit), sized by
    Snakemake's own group layering under the SLURM profile's ``resources``: within the profile's
    node, where without that constraint the three fits side by side ask for more than 64 GB."""
    from snakemake.resources import GroupResources, Resources

    root = Path(__file__).resolve().parents[1]
    profile = yaml.safe_load((root / "workflow/profiles/slurm/config.yaml").read_text())
    node_mb = int(profile["resources"]["mem_mb"])
    jobs = res.JobResources(yaml.safe_load((root / "workflow/configs/paper-iklr.yaml").read_text()))
    size = res.Size(n_train=17_500, n_test=17_500, n_features=22)

    def job(cost, threads=1):
        return SimpleNamespace(pipe_group=None, resources={
            "mem_mb": res.mem_mb(cost, 1), "runtime": res.runtime_min(cost, 1), "_cores": threads})

    def fit(method):
        return job(jobs.method_cost(size, method), res.blas_threads(size))

    levels = [[job(res.kernel_cost(size))], [job(res.spectrum_cost(size), res.blas_threads(size))],
              [fit("ccicp-gd"), fit("ccicp-sgd"), fit("cccp-gd")], [fit("ccicp-sgd-i")]]

    def group(constraints):
        return GroupResources.basic_layered(levels, Resources.from_mapping(constraints), run_local=False)

    fit_mb = levels[2][0].resources["mem_mb"]
    unconstrained, constrained = group({}), group({"mem_mb": node_mb})
    assert unconstrained["mem_mb"] == 3 * fit_mb > 64_000
    assert constrained["mem_mb"] == 2 * fit_mb <= node_mb < 64_000
    # The price: the third fit runs after the first two.
    assert constrained["runtime"] == unconstrained["runtime"] + levels[2][0].resources["runtime"]
