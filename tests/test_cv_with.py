"""`cv_with`: several methods' CVs in their leader's fit job, the same as their own CVs."""

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from kreinbench.atomic import sha256_file
from kreinbench.data.split import write_split
from kreinbench.errors import KreinbenchError
from kreinbench.linalg import cache
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.methods import IKLR, SpectrumKLR
from kreinbench.pipeline import paths, plan
from kreinbench.pipeline.stages import fit as fit_stage
from kreinbench.pipeline.stages import kernel as kernel_stage

GRID = {"lam": [0.1, 1.0, 30.0]}
LEADER = {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": "ccicp-gd"}, "grid": GRID}
MEMBERS = {
    "gd-eps0.1": {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": "ccicp-gd", "eps": 0.1}, "grid": GRID,
                  "cv_with": "gd"},
    "gd-uniform": {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": "ccicp-gd", "init": "uniform"},
                   "grid": GRID, "cv_with": "gd"},
}


@pytest.fixture(scope="module")
def files(load_split, tmp_path_factory):
    root = tmp_path_factory.mktemp("cv_with")
    split = load_split("monk-2")
    split_path = root / "rep1.h5"
    write_split(split, split_path, provenance={})
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1])
    K, K_test = kernel_matrices(params, split.X_train, split.X_test)
    kernel = root / "tl1.h5"
    cache.write_kernel(kernel, K, K_test, {"kernel": {"type": "tl1"}, "instance": "tl1", "split_sha256": sha256_file(split_path)})
    spectrum = root / "spectra" / "tl1.h5"
    kernel_stage.spectrum(kernel=str(kernel), instance="tl1", kind=plan.spectrum_kind(IKLR, {}), seed=1,
                          spectrum=str(spectrum))
    return SimpleNamespace(root=root, split=split_path, kernel=kernel, spectrum=spectrum)


def job(files, method, spec, members=None, leader_record=None):
    """The keyword arguments of the fit stage for ``method``'s job."""
    leader = {} if leader_record is None else {"cv_with": str(leader_record)}
    return {"dataset": "monk-2", "method": method, "rep": 1, "spec": spec, "cv_folds": 3, "cv_members": members or {},
            "split": str(files.split), "kernels": [str(files.kernel)], "spectra": [str(files.spectrum)], **leader,
            "record": str(files.root / method / "rep1.json")}


def record(path) -> dict:
    return json.loads(Path(path).read_text())


def test_members_get_the_cv_of_their_own_jobs(files):
    """The leader's job runs every member's CV; each member's record then has the CV scores and
    choice (and so the fit) that its own CV would have given."""
    fit_stage.fit(**job(files, "gd", LEADER, members=MEMBERS))
    leader = record(files.root / "gd" / "rep1.json")
    assert sorted(leader["cv_members"]) == sorted(MEMBERS)
    alone = {}
    for name, spec in MEMBERS.items():
        fit_stage.fit(**job(files, name, spec, leader_record=files.root / "gd" / "rep1.json"))
        alone[name] = {k: v for k, v in spec.items() if k != "cv_with"}
        fit_stage.fit(**job(files, name + "-alone", alone[name]))
        shared, own = record(files.root / name / "rep1.json"), record(files.root / (name + "-alone") / "rep1.json")
        assert shared["cv_with"] == "gd" and shared["cv_scores"] == own["cv_scores"]
        assert (shared["params"], shared["cv_accuracy"]) == (own["params"], own["cv_accuracy"])
        assert shared["accuracy"] == own["accuracy"]
        np.testing.assert_allclose(shared["history"][-1]["objective"], own["history"][-1]["objective"], rtol=1e-12)
    # and the leader's own CV is what it runs alone
    fit_stage.fit(**job(files, "gd-alone", LEADER))
    assert leader["cv_scores"] == record(files.root / "gd-alone" / "rep1.json")["cv_scores"]
    assert leader["cv_members"]["gd-eps0.1"]["scores"] != leader["cv_scores"]


def test_clip_and_shift_get_the_cv_of_their_own_jobs_from_flips_job(files, tmp_path):
    """Flip leads Clip and Shift (their folds' eigendecompositions shared): each member's record
    is the one its own job would write."""
    spectrum = tmp_path / "spectra" / "tl1.h5"
    kernel_stage.spectrum(kernel=str(files.kernel), instance="tl1", kind=plan.spectrum_kind(SpectrumKLR, {}), seed=1,
                          spectrum=str(spectrum))
    here = SimpleNamespace(root=tmp_path, split=files.split, kernel=files.kernel, spectrum=spectrum)
    flip = {"estimator": "SpectrumKLR", "kernel": "tl1", "params": {"correction": "flip"}, "grid": GRID}
    members = {t: {**flip, "params": {"correction": t}, "cv_with": "flip"} for t in ("clip", "shift")}
    fit_stage.fit(**job(here, "flip", flip, members=members))
    for name, spec in members.items():
        fit_stage.fit(**job(here, name, spec, leader_record=tmp_path / "flip" / "rep1.json"))
        fit_stage.fit(**job(here, name + "-alone", {k: v for k, v in spec.items() if k != "cv_with"}))
        shared, own = record(tmp_path / name / "rep1.json"), record(tmp_path / (name + "-alone") / "rep1.json")
        assert shared["cv_scores"] == own["cv_scores"]
        assert (shared["params"], shared["accuracy"]) == (own["params"], own["accuracy"])


def test_a_member_whose_leader_record_lacks_it_is_refused(files):
    fit_stage.fit(**job(files, "lonely", LEADER))
    with pytest.raises(KreinbenchError, match="holds no CV of method 'gd-eps0.1'"):
        fit_stage.fit(**job(files, "gd-eps0.1", MEMBERS["gd-eps0.1"], leader_record=files.root / "lonely" / "rep1.json"))


def config_with(**member_changes) -> dict:
    member = {**MEMBERS["gd-eps0.1"], **member_changes}
    return {"datasets": ["sonar"], "kernels": {"tl1": {"type": "tl1"}, "rbf": {"type": "rbf", "sigma": 1.0}},
            "methods": {"gd": dict(LEADER), "m": member, "sgd": {**LEADER, "params": {"solver": "ccicp-sgd"}},
                        "klr": {"estimator": "KLR", "kernel": "tl1", "grid": GRID}}}


@pytest.mark.parametrize("changes,message", [
    ({"cv_with": "nobody"}, "'nobody' is not another method"),
    ({"grid": {"lam": [1.0]}}, "has grid"),
    ({"kernel": "rbf"}, "has kernel"),
    ({"cv_with": "sgd"}, "cannot share 'sgd'"),
    ({"cv_with": "klr"}, "cannot share 'klr'"),
    ({"tuned_by": "klr"}, "no tuned_by"),
])
def test_bad_cv_with_is_named(changes, message):
    with pytest.raises(KreinbenchError, match=rf"config methods\.m\.cv_with: .*{message}"):
        plan.check_cv_with(config_with(**changes), "m")


def test_members_read_their_leaders_record_and_the_leader_knows_them():
    config = config_with()
    assert plan.fit_inputs(config, "sonar", "m", 3)["cv_with"] == paths.fit_path("sonar", "gd", 3)
    assert list(plan.cv_members(config, "gd", "sonar")) == ["m"]
    assert plan.cv_members(config, "gd", "other") == {} and plan.cv_members(config, "m", "sonar") == {}


def test_the_accuracy_table_shows_the_methods_fitted_on_every_dataset():
    """Study variants (methods with their own `datasets`) stay out of results/tables/accuracy.*;
    a config of such methods only shows them all; an unfitted cell is a dash, not nan."""
    import pandas as pd

    from kreinbench.report.render import to_markdown

    config = {"methods": {"gd": dict(LEADER), "gd-eps0.1": {**MEMBERS["gd-eps0.1"], "datasets": ["sonar"]}}}
    assert plan.table_methods(config) == ["gd"]
    only_studies = {"methods": {"a": {**LEADER, "datasets": ["x"]}, "b": {**LEADER, "datasets": ["y"]}}}
    assert plan.table_methods(only_studies) == ["a", "b"]
    text = to_markdown(pd.DataFrame({"A": ["0.9 ± 0.1", None]}, index=["x", "y"]), "caption")
    assert "| y | – |" in text and "nan" not in text
