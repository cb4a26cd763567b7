"""Bad input: every case fails with an error naming the culprit (file, dataset, parameter, config
key) and leaves no partial output behind.

This file adds the cases not covered elsewhere.  Existing ones, not repeated here: raw rows,
registry entries, parsers and split options (test_data.py), downloads (test_download.py), cache
attribute mismatch / truncation / non-square writes (test_cache.py), non-square, non-symmetric and
NaN kernels in the eigensolver (test_spectrum.py), kernel specs and features (test_kernels.py,
test_spd.py), unknown dataset in the config (test_pipeline.py), per-estimator parameters
(test_iklr.py, test_svm.py, test_tdcasvm.py, test_indefinite_svm.py, test_dank*.py).
"""

from __future__ import annotations

import bz2
import copy
import gzip
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from kreinbench.atomic import sha256_file
from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import spec_from_entry
from kreinbench.data.split import write_split
from kreinbench.errors import DataError, KreinbenchError
from kreinbench.linalg import cache
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.methods import ESTIMATORS
from kreinbench.pipeline import plan
from kreinbench.pipeline.stages import data as data_stage
from kreinbench.pipeline.stages import fit as fit_stage
from kreinbench.pipeline.stages import kernel as kernel_stage

ROOT = Path(__file__).resolve().parents[1]


def leftovers(directory: Path) -> list[str]:
    """Every file under ``directory`` (temporaries included)."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())


# --- kernel / spectrum / fit stages on bad cache files ----------------------------------------

@pytest.fixture(scope="module")
def stage_files(load_split, tmp_path_factory):
    """A split file, its TL1 kernel file and the stage arguments around them."""
    root = tmp_path_factory.mktemp("stages")
    split = load_split("monk-2")
    split_path = root / "data/splits/monk-2/rep1.h5"
    write_split(split, split_path, provenance={})
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1])
    K, K_test = kernel_matrices(params, split.X_train, split.X_test)
    return SimpleNamespace(root=root, split=split_path, K=K, K_test=K_test, params=params)


def spectrum_job(kernel_path: Path, out_dir: Path, instance="tl1"):
    """The keyword arguments of the spectrum stage."""
    return {"kernel": str(kernel_path), "instance": instance, "kind": "full", "seed": 1,
            "spectrum": str(out_dir / f"{instance}.h5")}


def fit_job(files, kernel_path: Path, out_dir: Path, estimator="KLR", instance="tl1"):
    """The keyword arguments of the fit stage."""
    return {"dataset": "monk-2", "method": "m", "rep": 1, "cv_folds": 2, "cv_members": {},
            "spec": {"estimator": estimator, "kernel": "tl1", "grid": {"lam": [1.0]}},
            "split": str(files.split), "kernels": [str(kernel_path)], "spectra": [], "record": str(out_dir / "rep1.json")}


def write_kernel_file(path: Path, K, K_test, instance="tl1", split_sha256="x"):
    cache.write_kernel(path, K, K_test, {"kernel": {"type": "tl1"}, "instance": instance, "split_sha256": split_sha256})
    return path


@pytest.mark.parametrize("damage,message", [
    ("nan", "contains NaN"),
    ("asymmetric", "is not symmetric"),
    ("other-instance", "was made for instance='rbf-sigma=1'"),
    ("truncated", "unreadable or incomplete"),
])
def test_spectrum_stage_refuses_a_bad_kernel_file_naming_it(stage_files, tmp_path, damage, message):
    K = stage_files.K.copy()
    if damage == "nan":
        K[3, 5] = K[5, 3] = np.nan
    if damage == "asymmetric":
        K[3, 5] += 1.0
    path = write_kernel_file(tmp_path / "in" / "tl1.h5", K, stage_files.K_test,
                             instance="rbf-sigma=1" if damage == "other-instance" else "tl1")
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    out = tmp_path / "out"
    with pytest.raises(KreinbenchError, match=message) as info:
        kernel_stage.spectrum(**spectrum_job(path, out))
    assert str(path) in str(info.value)
    assert not out.exists() or leftovers(out) == []


@pytest.mark.parametrize("damage,message", [
    ("nan-train", "contains NaN"),
    ("nan-test", "contains NaN"),
    ("other-instance", "was made for instance='rbf-sigma=1'"),
    ("other-split", "was made for split_sha256='0+'"),
])
def test_fit_stage_refuses_a_bad_kernel_file_naming_it(stage_files, tmp_path, damage, message):
    K, K_test = stage_files.K.copy(), stage_files.K_test.copy()
    if damage == "nan-train":
        K[0, 0] = np.nan
    if damage == "nan-test":
        K_test[2, 7] = np.inf
    split_sha256 = "0" * 64 if damage == "other-split" else sha256_file(stage_files.split)
    path = write_kernel_file(tmp_path / "in" / "tl1.h5", K, K_test, split_sha256=split_sha256,
                             instance="rbf-sigma=1" if damage == "other-instance" else "tl1")
    out = tmp_path / "out"
    with pytest.raises(KreinbenchError, match=message) as info:
        fit_stage.fit(**fit_job(stage_files, path, out))
    assert str(path) in str(info.value)
    assert not out.exists() or leftovers(out) == []


def test_fit_stage_refuses_a_spectrum_of_another_matrix(stage_files, tmp_path):
    """A kernel file rebuilt after its spectrum was computed (a touched or copied cache): the
    spectrum no longer decomposes the matrix the fit reads, and the fit says so."""
    path = write_kernel_file(tmp_path / "in" / "tl1.h5", stage_files.K, stage_files.K_test,
                             split_sha256=sha256_file(stage_files.split))
    spectra = tmp_path / "spectra"
    kernel_stage.spectrum(**spectrum_job(path, spectra))
    write_kernel_file(path, 2.0 * stage_files.K, 2.0 * stage_files.K_test, split_sha256=sha256_file(stage_files.split))
    job = {**fit_job(stage_files, path, tmp_path / "out", estimator="IKLR"), "spectra": [str(spectra / "tl1.h5")]}
    job["spec"] = {**job["spec"], "params": {"solver": "ccicp-gd"}}
    with pytest.raises(KreinbenchError, match="kernel_train_sha256") as info:
        fit_stage.fit(**job)
    assert "tl1.h5" in str(info.value)
    assert not (tmp_path / "out").exists() or leftovers(tmp_path / "out") == []


def test_kernel_stage_refuses_a_truncated_split_file(stage_files, tmp_path):
    split = tmp_path / "rep1.h5"
    split.write_bytes(stage_files.split.read_bytes()[:700])
    with pytest.raises(DataError, match="unreadable or incomplete") as info:
        kernel_stage.kernel(split=str(split), specs={"tl1": {"type": "tl1"}}, kernels=[str(tmp_path / "out" / "tl1.h5")])
    assert str(split) in str(info.value)
    assert not (tmp_path / "out").exists() or leftovers(tmp_path / "out") == []


# --- raw files the parsers cannot read --------------------------------------------------------

def local_spec(path: Path, fmt="delimited", **extra):
    entry = {"task": "binary", "source": {"type": "local", "path": str(path)},
             "parser": {"format": fmt, **extra}, "label": {"column": -1, "positive": ["1"], "negative": ["0"]},
             "split": {"protocol": "random", "test_size": 0.5}}
    if fmt == "libsvm":
        entry["label"] = {"column": 0, "positive": ["1"], "negative": ["-1"]}
    return spec_from_entry("toy", entry)


CSV = "".join(f"{i},{i % 3},{i % 2}\n" for i in range(40)).encode()


def truncated_gzip() -> bytes:
    return gzip.compress(CSV * 20)[:-30]


def truncated_bz2() -> bytes:
    return bz2.compress(CSV * 20)[:-30]


@pytest.mark.parametrize("name,content,fmt,message", [
    ("toy.svm", b"", "libsvm", "no data rows"),
    ("toy.arff", b"", "arff", "no @data section"),
    ("toy.csv.gz", b"", "delimited", "cannot read|no data rows"),
    ("toy.csv.gz", truncated_gzip(), "delimited", "cannot read"),
    ("toy.csv.bz2", truncated_bz2(), "delimited", "cannot read"),
    ("toy.csv.gz", CSV, "delimited", "cannot read"),  # not gzip at all
    ("toy.csv", b"\xff\xfe\x00garbage\x81\n", "delimited", "not UTF-8"),
])
def test_unreadable_raw_files_name_dataset_and_file(tmp_path, name, content, fmt, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(DataError, match=message) as info:
        parse_dataset(local_spec(tmp_path / name, fmt), tmp_path)
    assert "dataset 'toy'" in str(info.value) and name in str(info.value)


def test_split_stage_on_an_empty_raw_file_writes_no_split(tmp_path):
    (tmp_path / "toy.csv").write_bytes(b"")
    entry = {"task": "binary", "source": {"type": "local", "path": str(tmp_path / "toy.csv")},
             "parser": {"format": "delimited", "delimiter": ","}, "label": {"column": -1, "positive": ["1"], "negative": ["0"]},
             "split": {"protocol": "random", "test_size": 0.5}}
    manifest = tmp_path / "data/raw/toy/manifest.json"
    fetch_dataset(spec_from_entry("toy", entry), manifest)
    out = tmp_path / "data/splits/toy"
    with pytest.raises(DataError, match="no data rows") as info:
        data_stage.split(dataset="toy", rep=1, entry=entry, seed=0, manifest=str(manifest), split=str(out / "rep1.h5"))
    assert "dataset 'toy'" in str(info.value) and "toy.csv" in str(info.value)
    assert not out.exists() or leftovers(out) == []


# --- estimators: every registered one, the same bad inputs ------------------------------------

# Per estimator: its regularization parameter, its tolerance parameter, whether it has a solver
# choice, and how to build a small kernel it accepts.
REGULARIZER = {"IKLR": "lam", "KLR": "lam", "SpectrumKLR": "lam", "SVM": "C", "KSVM": "C", "TrIKSVM": "C", "TDCASVM": "C",
               "IndefiniteSVM": "C", "DANK": "C", "SimilarityFeatures": "C",
               "KreinRLS": "lam", "SparseIKLR": "lam"}
TOLERANCE = {"IKLR": "eps", "KLR": "tol", "SpectrumKLR": "tol", "SVM": "tol", "KSVM": "tol", "TrIKSVM": "tol", "TDCASVM": "tol",
             "IndefiniteSVM": "tol", "DANK": "tol", "SimilarityFeatures": "tol",
             "KreinRLS": "tol", "SparseIKLR": "tol"}


def test_the_catalogue_covers_every_registered_estimator():
    assert set(REGULARIZER) == set(TOLERANCE) == set(ESTIMATORS)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    X_test = rng.normal(size=(7, 3))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    K_test = np.exp(-((X_test[:, None] - X[None]) ** 2).sum(-1))
    return SimpleNamespace(X=X, y=y, X_test=X_test, K=K, K_test=K_test)


def fit(name, params, K, y, X):
    est = ESTIMATORS[name](**params)
    args = (X,) if ESTIMATORS[name].needs_features else ()
    return est, lambda: est.fit(K, y, *args)


def fitted_attributes(est) -> list[str]:
    return [a for a in vars(est) if a.endswith("_") and not a.startswith("_")]


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("case,message", [
    ("non-square", r"K must be a square \(n, n\) kernel matrix, got shape \(30, 29\)"),
    ("nan", "K contains NaN"),
    ("three-classes", "Only binary classification is supported: y has 3 classes"),
    ("short-y", r"y must have shape \(30,\)"),
    ("regularizer-zero", "parameter {reg} must be > 0, got 0"),
    ("regularizer-negative", "parameter {reg} must be > 0, got -1"),
    ("tolerance-negative", "parameter {tol} must be >= 0|parameter {tol} must be > 0"),
    ("solver", "parameter solver='newton-raphson' is not one of"),
])
def test_bad_fit_input_names_the_culprit_and_leaves_the_estimator_unfitted(problem, name, case, message):
    K, y, X, params = problem.K, problem.y, problem.X, {}
    if case == "non-square":
        K = K[:, :-1]
    elif case == "nan":
        K = K.copy()
        K[4, 2] = K[2, 4] = np.nan
    elif case == "three-classes":
        y = y.copy()
        y[:3] = 5
    elif case == "short-y":
        y = y[:-1]
    elif case.startswith("regularizer"):
        params[REGULARIZER[name]] = 0 if case.endswith("zero") else -1
    elif case == "tolerance-negative":
        params[TOLERANCE[name]] = -1e-3
    elif case == "solver":
        if "solver" not in ESTIMATORS[name]().get_params():
            # No solver choice: the config check names the method and the stray parameter.
            config = {"datasets": ["blobs"], "kernels": {"k": {"type": "rbf"}},
                      "methods": {"m": {"estimator": name, "kernel": "k", "params": {"solver": "newton-raphson"}}}}
            with pytest.raises(KreinbenchError, match="config methods.m.params: .*'solver'"):
                plan.check_config(config)
            return
        params["solver"] = "newton-raphson"
    est, run = fit(name, params, K, y, X)
    with pytest.raises(KreinbenchError, match=message.format(reg=REGULARIZER[name], tol=TOLERANCE[name])):
        run()
    assert fitted_attributes(est) == []


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("case", ["columns", "vector", "nan"])
def test_bad_cross_kernel_is_named(problem, name, case):
    est, run = fit(name, {}, problem.K, problem.y, problem.X)
    run()
    K_cross = {"columns": problem.K_test[:, :-1], "vector": problem.K_test[0],
               "nan": np.where(np.eye(7, 30, dtype=bool), np.nan, problem.K_test)}[case]
    args = (problem.X_test,) if ESTIMATORS[name].needs_features else ()
    message = {"nan": "K_cross contains NaN", "columns": r"K_cross must have shape \(n_test, 30\)",
               "vector": r"Expected a 2-d K_cross of shape \(n_test, 30\), got 1-d"}[case]
    with pytest.raises(KreinbenchError, match=message):
        est.decision_function(K_cross, *args)


# --- config errors, as `snakemake -n` reports them --------------------------------------------

BASE = {
    "seed": 1, "repetitions": 1, "cv_folds": 2, "datasets": ["blobs"],
    "kernels": {"rbf": {"type": "rbf", "sigma": 1.0}},
    "methods": {"klr": {"estimator": "KLR", "kernel": "rbf", "grid": {"lam": [1.0]}}},
    "figures": {"convergence": {"dataset": "blobs", "methods": ["klr"]}},
}


def bad_config(change):
    config = copy.deepcopy(BASE)
    change(config)
    return config


CONFIG_CASES = {
    "unknown-key": (lambda c: c.update(methds={}), r"config: unknown key 'methds' \(did you mean 'methods'\?\)"),
    "wrong-type": (lambda c: c.update(repetitions="two"), r"config repetitions: 'two' is not of type 'integer'"),
    "unknown-estimator": (lambda c: c["methods"]["klr"].update(estimator="KRR"),
                          r"config methods\.klr\.estimator: 'KRR' is not valid under any of the given schemas"),
    "unknown-kernel-type": (lambda c: c["kernels"]["rbf"].update(type="gauss"), r"config kernels\.rbf\.type: 'gauss' is not one of"),
    "unknown-kernel-name": (lambda c: c["methods"]["klr"].update(kernel="rbff"),
                            r"config methods.klr.kernel: unknown kernel 'rbff' \(did you mean 'rbf'\?\)"),
    "unknown-method-name": (lambda c: c["figures"]["convergence"].update(methods=["klrr"]),
                            r"config figures.convergence.methods: unknown method 'klrr' \(did you mean 'klr'\?\)"),
    "unknown-dataset": (lambda c: c.update(datasets=["blobs", "sonarr"]),
                        r"config datasets: unknown dataset 'sonarr' \(did you mean 'sonar' or 'sonar-uci'\?\)"),
    "unknown-figure-dataset": (lambda c: c["figures"]["convergence"].update(dataset="sonar"),
                               "config figures.convergence.dataset 'sonar' is not in datasets"),
    "empty-methods": (lambda c: c.update(methods={}), "config methods: no method to fit"),
    "empty-datasets": (lambda c: c.update(datasets=[]), r"config datasets: \[\] should be non-empty"),
    "unknown-estimator-param": (lambda c: c["methods"]["klr"].update(params={"lamda": 1.0}),
                                "config methods.klr.params: .*'lamda'"),
    "invalid-estimator-param": (lambda c: c["methods"]["klr"].update(params={"tol": -1.0}),
                                "config methods.klr.params: parameter tol"),
    "unknown-grid-key": (lambda c: c["methods"]["klr"].update(grid={"lamda": [1.0]}),
                         "config methods.klr.grid.lamda: .*'lamda'"),
    "invalid-grid-value": (lambda c: c["methods"]["klr"].update(grid={"lam": [1.0, -0.1]}),
                           "config methods.klr.grid.lam: parameter lam"),
}


@pytest.mark.workflow
@pytest.mark.parametrize("case", list(CONFIG_CASES))
def test_bad_config_is_refused_by_a_dry_run_naming_the_key(tmp_path, case):
    change, message = CONFIG_CASES[case]
    shutil.copy(ROOT / "Snakefile", tmp_path)
    shutil.copytree(ROOT / "workflow", tmp_path / "workflow")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(bad_config(change), sort_keys=False))
    before = set(leftovers(tmp_path))
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    out = result.stdout + result.stderr
    assert result.returncode != 0, out[-2000:]
    assert re.search(message, out), out[-3000:]
    for top in ("data", "results", "logs", "figures"):
        assert not (tmp_path / top).exists()
    assert {f for f in set(leftovers(tmp_path)) - before if not f.startswith(".snakemake")} == set()


@pytest.mark.workflow
def test_every_config_error_is_reported_in_one_dry_run(tmp_path):
    """A first try hears of all of them: unknown keys and bad values (the schema), misspelled
    datasets, kernels and methods (plan.check_config), each with the near name meant."""
    def change(c):
        c.update(datasets=["blobs", "sonarr"], papres={}, repetitions="two")
        c["methods"]["klr"]["kernel"] = "rbff"
        c["figures"]["convergence"]["methods"] = ["klrr"]

    shutil.copy(ROOT / "Snakefile", tmp_path)
    shutil.copytree(ROOT / "workflow", tmp_path / "workflow")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(bad_config(change), sort_keys=False))
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    out = result.stdout + result.stderr
    assert result.returncode != 0
    for message in ["5 problems:", "- config: unknown key 'papres' (did you mean 'papers'?)",
                    "- config repetitions: 'two' is not of type 'integer'",
                    "- config datasets: unknown dataset 'sonarr' (did you mean 'sonar' or 'sonar-uci'?)",
                    "- config methods.klr.kernel: unknown kernel 'rbff' (did you mean 'rbf'?)",
                    "- config figures.convergence.methods: unknown method 'klrr' (did you mean 'klr'?)"]:
        assert message in out, out[-3000:]
    # once the schema is satisfied, every cross-check's problem comes in one error too
    with pytest.raises(KreinbenchError) as info:
        plan.check_config(bad_config(lambda c: (change(c), c.pop("papres"), c.update(repetitions=1))))
    assert str(info.value).startswith("3 problems:\n") and "unknown method 'klrr' (did you mean 'klr'?)" in str(info.value)


@pytest.mark.workflow
def test_the_base_config_of_the_dry_runs_is_valid(tmp_path):
    """Control: without the change, the same dry run succeeds (so each case fails for its change)."""
    shutil.copy(ROOT / "Snakefile", tmp_path)
    shutil.copytree(ROOT / "workflow", tmp_path / "workflow")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(BASE, sort_keys=False))
    result = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]


# --- a user's own CSV ---------------------------------------------------------------------------

HEADED_CSV = "x1,x2,x3,label\n" + "".join(f"{i / 10},{i % 3},{i % 5},{'yes' if i % 2 else 'no'}\n" for i in range(12))


def own_csv_spec(path: Path, label_column: int | str = -1, **parser):
    return spec_from_entry("mydata", {
        "task": "binary", "source": {"type": "local", "path": str(path)},
        "parser": {"format": "delimited", "delimiter": ",", **parser},
        "label": {"column": label_column, "positive": ["yes"], "negative": ["no"]},
        "split": {"protocol": "random", "test_size": 0.5}})


def test_a_header_row_without_header_true_is_named_with_the_option_to_set(tmp_path):
    (tmp_path / "mydata.csv").write_text(HEADED_CSV)
    with pytest.raises(DataError, match=r"dataset 'mydata', file .*mydata\.csv', line 1, column 1: non-numeric cell "
                                        r"'x1': line 1 looks like a header row: set parser\.header: true"):
        parse_dataset(own_csv_spec(tmp_path / "mydata.csv"), tmp_path)
    data = parse_dataset(own_csv_spec(tmp_path / "mydata.csv", header=True), tmp_path)
    assert data.feature_names == ["x1", "x2", "x3"] and data.X.shape == (12, 3)


def test_a_label_column_named_without_header_true_says_to_set_it(tmp_path):
    (tmp_path / "mydata.csv").write_text(HEADED_CSV)
    with pytest.raises(DataError, match=r"label column 'label' is a column name, but the file has no header row "
                                        r"declared: set parser\.header: true"):
        parse_dataset(own_csv_spec(tmp_path / "mydata.csv", label_column="label"), tmp_path)


def test_a_bad_cell_in_a_data_row_gets_no_header_hint(tmp_path):
    """Only a first row that is text where the next row is numbers is taken for a header."""
    rows = HEADED_CSV.splitlines()[1:]
    rows[4] = rows[4].replace("0.4,", "n/a,")
    for text, line in (("\n".join(rows) + "\n", 5), ("a,1,2,yes\n" + "\n".join(rows) + "\n", 1)):
        (tmp_path / "mydata.csv").write_text(text)
        with pytest.raises(DataError, match=rf"line {line}, column 1: non-numeric cell '[^']*'$"):
            parse_dataset(own_csv_spec(tmp_path / "mydata.csv"), tmp_path)


def package_spec(files):
    return spec_from_entry("pkg", {
        "task": "binary", "source": {"type": "package", "package": "kreinbench", "files": files},
        "parser": {"format": "delimited"}, "label": {"column": -1, "positive": ["1"], "negative": ["0"]},
        "split": {"protocol": "random", "test_size": 0.5}})


def test_a_failed_fetch_leaves_no_copy_and_no_manifest_in_data_raw(tmp_path):
    raw = tmp_path / "data/raw"
    # the first file is copied before the second is found missing
    with pytest.raises(DataError, match="package 'kreinbench' has no file 'data/absent.csv'"):
        fetch_dataset(package_spec(["data/registry.yaml", "data/absent.csv"]), raw / "pkg/manifest.json")
    assert leftovers(tmp_path) == [] and not (raw / "pkg").exists()
    with pytest.raises(DataError, match="does not exist"):
        fetch_dataset(own_csv_spec(tmp_path / "nowhere.csv"), raw / "mydata/manifest.json")
    assert leftovers(tmp_path) == [] and not (raw / "mydata").exists()


def test_a_failed_refetch_leaves_the_earlier_complete_fetch_as_it_was(tmp_path):
    manifest = tmp_path / "data/raw/pkg/manifest.json"
    fetch_dataset(package_spec(["data/registry.yaml"]), manifest)
    before = {p: p.read_bytes() for p in manifest.parent.iterdir()}
    (manifest.parent / ".fetching").mkdir()  # what a killed fetch left: cleared by the next one
    (manifest.parent / ".fetching/registry.yaml").write_text("half")
    with pytest.raises(DataError, match="has no file 'data/absent.csv'"):
        fetch_dataset(package_spec(["data/registry.yaml", "data/absent.csv"]), manifest)
    assert {p: p.read_bytes() for p in manifest.parent.iterdir()} == before
