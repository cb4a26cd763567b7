"""A method of the user's own, outside kreinbench, benchmarked by one class and one config entry
(`estimator: "module:Class"`; README, "Benchmark a new method")."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.methods import SVM, estimator_class

USER_MODULE = Path(__file__).parent / "user_methods" / "my_methods.py"


def test_estimator_names_and_import_paths_resolve_with_clear_errors():
    assert estimator_class("SVM") is SVM
    assert estimator_class("kreinbench.methods.isvm.svm:SVM") is SVM
    with pytest.raises(KreinbenchError, match=r"config methods.x.estimator: unknown estimator 'Foo'"):
        estimator_class("Foo", "config methods.x.estimator")
    with pytest.raises(KreinbenchError, match="cannot import 'no_such_module:X'"):
        estimator_class("no_such_module:X")
    with pytest.raises(KreinbenchError, match="is not an estimator class"):
        estimator_class("numpy:pi")


def test_user_estimator_runs_in_the_pipeline_beside_a_builtin(workflow_copy):
    config = {
        "seed": 3, "repetitions": 1, "cv_folds": 2, "datasets": ["blobs"],
        "dataset_options": {"blobs": {"split": {"max_n": 80}}},
        "kernels": {"gauss": {"type": "rbf", "convention": "dank", "sigma": [1.0]}},
        "methods": {
            "svm": {"label": "SVM", "estimator": "SVM", "kernel": "gauss", "grid": {"C": [1.0]}},
            "centroid": {"label": "kernel centroid", "estimator": "my_methods:KernelCentroid", "kernel": "gauss"},
        },
    }
    workdir = workflow_copy(config, "user_estimator")
    shutil.copy(USER_MODULE, workdir)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(workdir), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2"], cwd=workdir, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads((workdir / "results/fits/blobs/centroid/rep1.json").read_text())
    assert record["estimator"] == "my_methods:KernelCentroid" and 0.5 < record["accuracy"] <= 1.0
    table = (workdir / "results/tables/accuracy.md").read_text()
    assert "kernel centroid" in table and "SVM" in table


def test_user_estimator_decisions_match_the_centroid_distances():
    sys.path.insert(0, str(USER_MODULE.parent))
    try:
        from my_methods import KernelCentroid
    finally:
        sys.path.remove(str(USER_MODULE.parent))
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(30, 2)), rng.normal(size=(7, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    K, K_cross = X @ X.T, Z @ X.T  # linear kernel: the feature-space means are the class means
    scores = KernelCentroid().fit(K, y).decision_function(K_cross)
    m_pos, m_neg = X[y == 1].mean(0), X[y == -1].mean(0)
    expected = 0.5 * (((Z - m_neg) ** 2).sum(1) - ((Z - m_pos) ** 2).sum(1))
    np.testing.assert_allclose(scores, expected, atol=1e-12)
