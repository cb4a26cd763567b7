import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import get_dataset
from kreinbench.data.split import make_split
from kreinbench.linalg.kernels import kernel_matrices, resolve_params

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"
# The benchmark tooling (benchmarks/pipeline_bench.py, runtime_projection.py) is tested too.
sys.path.insert(0, str(ROOT / "benchmarks"))


# The fixtures through which a test runs Snakemake. A test that uses one (directly or through
# another fixture) is marked `workflow`, as are the tests that start Snakemake themselves (marked
# where they are): `make test-fast` leaves out the markers `workflow`, `cluster` and `slow`.
WORKFLOW_FIXTURES = {"snakemake", "run_workflow", "workflow_copy"}


def pytest_collection_modifyitems(items):
    for item in items:
        if WORKFLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.workflow)


@pytest.fixture(scope="session")
def workflow_copy(tmp_path_factory):
    """``make(config, name)``: a new directory holding the Snakefile, workflow/ and ``config``
    as config.yaml, where Snakemake runs without touching the repository's results."""
    def make(config, name="workflow"):
        work = tmp_path_factory.mktemp(name)
        shutil.copy(ROOT / "Snakefile", work)
        shutil.copytree(ROOT / "workflow", work / "workflow")
        (work / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        return work

    return make


@pytest.fixture(scope="session")
def snakemake():
    """``run(workdir, *args)``: Snakemake on 2 cores in ``workdir``, output captured."""
    def run(workdir, *args):
        return subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", *args], cwd=workdir,
                              capture_output=True, text=True, timeout=600)

    return run


@pytest.fixture(scope="session")
def run_workflow(workflow_copy, snakemake):
    """``run(config, name)``: a workflow copy with ``config``, run to completion (asserted)."""
    def run(config, name):
        workdir = workflow_copy(config, name)
        result = snakemake(workdir)
        assert result.returncode == 0, result.stderr[-3000:]
        return workdir

    return run


@pytest.fixture(scope="session")
def load_split(tmp_path_factory):
    """Fetch, parse and split a registry dataset (cached per session); ``parts`` restricts the rows
    to provided parts first (IKLR Table II's 50/50 split of the monks training files)."""
    cache = {}

    def load(name, rep=1, seed=0, max_n=None, parts=None):
        key = (name, rep, seed, max_n, None if parts is None else tuple(parts))
        if key not in cache:
            spec = get_dataset(name)
            raw = tmp_path_factory.mktemp(name)
            # Datasets that need a download come from the raw copies beside the repository.
            manifest = fetch_dataset(spec, raw / "manifest.json", mirror=str(SHARED_DATASETS))
            data = parse_dataset(spec, raw, [f["file"] for f in manifest["files"]])
            cache[key] = make_split(data, dataset=name, rep=rep, base_seed=seed, test_size=0.5, max_n=max_n, parts=parts)
        return cache[key]

    return load


@pytest.fixture(scope="session")
def tl1_monk2(load_split):
    """Indefinite TL1 kernel (tau = 0.7 m) on the training half of KEEL monk-2 and its test cross-kernel."""
    split = load_split("monk-2")
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1])
    K, K_test = kernel_matrices(params, split.X_train, split.X_test)
    return K, K_test, split.y_train, split.y_test


@pytest.fixture(scope="session")
def rbf_heart(load_split):
    """PSD RBF kernel (sigma = 1) on the training half of KEEL heart."""
    split = load_split("heart")
    params = resolve_params({"type": "rbf", "sigma": 1.0}, split.X_train.shape[1])
    K, K_test = kernel_matrices(params, split.X_train, split.X_test)
    return K, K_test, split.y_train, split.y_test


def klr_objective_and_gradient(K, y_pm, lam, alpha, b):
    """Independent implementation of f(α, b) and its gradient for the tests."""
    n = y_pm.size
    m = K @ alpha + b
    f = np.mean(np.logaddexp(0.0, -y_pm * m)) + 0.5 * lam * alpha @ K @ alpha
    s = 1.0 / (1.0 + np.exp(np.clip(y_pm * m, -700, 700)))
    u = y_pm * s / n
    return f, K @ (lam * alpha - u), -u.sum()


def reversed_keys(value):
    """``value`` with the keys of every mapping in it in reverse order."""
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in reversed(value)}
    if isinstance(value, list):
        return [reversed_keys(item) for item in value]
    return value
