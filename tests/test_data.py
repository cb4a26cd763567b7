import bz2
import gzip
import json
import re
from pathlib import Path

import h5py
import numpy as np
import pytest
import yaml
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from kreinbench.data import synthetic
from kreinbench.data.fetch import fetch_dataset, read_manifest
from kreinbench.data.parse import ParsedData, parse_dataset
from kreinbench.data.registry import get_dataset, load_registry, spec_from_entry
from kreinbench.data.split import make_split, read_split, split_dataset, write_split
from kreinbench.errors import DataError, KreinbenchError
from kreinbench.linalg import eigen
from kreinbench.pipeline.plan import check_config, dataset_config_entry
from kreinbench.pipeline.stages import paper_tables

ROOT = Path(__file__).resolve().parents[1]


def csv_spec(path, **label):
    entry = {
        "task": "binary",
        "source": {"type": "local", "path": str(path)},
        "parser": {"format": "delimited", "delimiter": ",", "missing": "?"},
        "label": {"column": -1, "positive": ["a"], "negative": ["b"], **label},
        "split": {"protocol": "random", "test_size": 0.5},
    }
    return spec_from_entry("toy", entry)


def parse_text(tmp_path, text, **label):
    path = tmp_path / "toy.csv"
    path.write_text(text)
    spec = csv_spec(path, **label)
    return parse_dataset(spec, tmp_path, ["toy.csv"])


EMBEDDED = sorted(name for name, spec in load_registry().items() if spec.source["type"] in {"package", "synthetic"})


@pytest.mark.parametrize("name", EMBEDDED)
def test_every_embedded_dataset_fetches_and_parses_offline(tmp_path, name):
    spec = get_dataset(name)
    manifest = fetch_dataset(spec, tmp_path / "manifest.json")
    data = parse_dataset(spec, tmp_path, [f["file"] for f in manifest["files"]])
    assert data.X.shape[0] == data.y.size > 100
    if spec.task == "binary":
        assert set(np.unique(data.y)) == {-1.0, 1.0}
    assert read_manifest(tmp_path / "manifest.json")["dataset"] == name


def test_known_sizes_of_bundled_datasets(tmp_path):
    sizes = {"sonar": (208, 60), "monk-2": (432, 6), "heart": (270, 13), "ionosphere": (351, 33),
             "breast-cancer-wdbc": (569, 30), "wisconsin": (683, 9), "haberman-keel": (306, 3)}
    for name, shape in sizes.items():
        spec = get_dataset(name)
        manifest = fetch_dataset(spec, tmp_path / name / "manifest.json")
        assert parse_dataset(spec, tmp_path / name, [f["file"] for f in manifest["files"]]).X.shape == shape


def test_manifest_detects_a_changed_raw_file(tmp_path):
    fetch_dataset(get_dataset("heart"), tmp_path / "manifest.json")
    (tmp_path / "heart.dat").write_text("tampered\n")
    with pytest.raises(DataError, match="sha256"):
        read_manifest(tmp_path / "manifest.json")


@pytest.mark.parametrize("text,message", [
    ("1,2,a\n3,b\n", "line 2: malformed row"),
    ("1,2,a\n3,x,b\n", "line 2, column 2: non-numeric cell 'x'"),
    ("1,2,a\n3,nan,b\n", "line 2, column 2: non-finite"),
    ("1,2,a\n3,?,b\n", "line 2: missing value"),
    ("1,2,a\n3,4,c\n", "line 2, column 3: label 'c' does not map"),
    ("1,2,a\n3,4,a\n", "only one class"),
    ("", "no data rows"),
])
def test_bad_rows_name_dataset_file_and_line(tmp_path, text, message):
    with pytest.raises(DataError, match=message) as info:
        parse_text(tmp_path, text)
    assert "dataset 'toy'" in str(info.value) and "toy.csv" in str(info.value)


def test_unknown_dataset_and_parser_are_clear_errors():
    with pytest.raises(DataError, match="unknown dataset 'nope'"):
        get_dataset("nope")
    with pytest.raises(DataError, match="unknown parser format 'xls'"):
        spec_from_entry("x", {"task": "binary", "source": {"type": "local"}, "parser": {"format": "xls"},
                              "label": {"positive": [1], "negative": [0]}, "split": {"protocol": "random"}})


def test_scaling_is_fitted_on_the_training_half_only(load_split):
    split = load_split("sonar")
    np.testing.assert_allclose(split.X_train.min(axis=0), 0.0)
    np.testing.assert_allclose(split.X_train.max(axis=0), 1.0)
    # The test half is scaled with the training statistics, so it leaves [0, 1] somewhere.
    assert split.X_test.min() < 0.0 or split.X_test.max() > 1.0


def test_test_points_do_not_influence_training_features(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.repeat(["a", "b"], 30)

    def split_of(X):
        rows = "\n".join(",".join([*map(str, x.tolist()), label]) for x, label in zip(X, y))
        return make_split(parse_text(tmp_path, rows), dataset="toy", rep=1, base_seed=5, test_size=0.5)

    first = split_of(X)
    moved = X.copy()
    moved[first.test_index] *= 1000.0  # push every test point far away
    second = split_of(moved)
    np.testing.assert_array_equal(second.test_index, first.test_index)
    np.testing.assert_array_equal(first.X_train, second.X_train)
    assert not np.array_equal(first.X_test, second.X_test)


def test_splits_are_seeded_stratified_and_differ_between_repetitions(load_split):
    a, b, c = load_split("heart", rep=1), load_split("heart", rep=1), load_split("heart", rep=2)
    np.testing.assert_array_equal(a.X_train, b.X_train)
    assert not np.array_equal(a.X_train, c.X_train)
    for s in (a, c):
        assert abs(np.mean(s.y_train == 1) - np.mean(s.y_test == 1)) < 0.01
        assert s.y_train.size == s.y_test.size == 135


def test_split_file_round_trip_with_provenance(tmp_path, load_split):
    split = load_split("ionosphere")
    path = tmp_path / "rep1.h5"
    write_split(split, path, provenance={"files": [{"sha256": "abc"}]})
    back = read_split(path)
    np.testing.assert_array_equal(back.X_test, split.X_test)
    assert back.attrs["seed"] == split.attrs["seed"]
    with h5py.File(path) as h5:
        assert json.loads(h5.attrs["provenance"])["files"][0]["sha256"] == "abc"
    assert not list(tmp_path.glob(".*.tmp"))


def test_truncated_split_file_is_a_clear_error(tmp_path, load_split):
    path = tmp_path / "rep1.h5"
    write_split(load_split("ionosphere"), path, provenance={})
    path.write_bytes(path.read_bytes()[:500])
    with pytest.raises(DataError, match="rep1.h5"):
        read_split(path)


# --- registry -------------------------------------------------------------------------------

def test_datasets_without_offline_copy_are_marked_as_needing_download():
    registry = load_registry()
    assert {n for n, s in registry.items() if s.needs_download} == {
        "splice", "usps-3v5", "covtype", "pyrim", "space_ga", "triazines", "mg", "yale-b"}
    assert {s.task for s in registry.values()} == {"binary", "multiclass", "regression"}


def url_entry(**changes):
    entry = {
        "task": "binary",
        "source": {"type": "url", "files": [
            {"name": "a.train", "part": "train", "sha256": "ab" * 32, "urls": ["http://x/a.train"]},
            {"name": "a.test", "part": "test", "sha256": None, "urls": ["http://x/a.test"]}]},
        "parser": {"format": "delimited"},
        "label": {"column": 0, "positive": ["1"], "negative": ["0"]},
        "split": {"protocol": "provided"},
    }
    for key, value in changes.items():
        entry[key] = value
    return entry


@pytest.mark.parametrize("changes,message", [
    ({"task": "ranking"}, "unknown task 'ranking'"),
    ({"source": {"type": "ftp"}}, "unknown source type 'ftp'"),
    ({"split": {"protocol": "kfold"}}, "unknown split protocol 'kfold'"),
    ({"split": {"protocol": "random", "parts": ["valid"]}}, r"split.parts \['valid'\] name no file part"),
    ({"source": {"type": "url", "files": [{"name": "a", "sha256": "xyz", "urls": ["u"]}]}}, "is not 64 lowercase hex"),
    ({"source": {"type": "url", "files": [{"name": "a", "urls": ["u"]}]}}, "needs 'sha256'"),
    ({"source": {"type": "url", "files": [{"name": "a", "sha256": None, "urls": ["u"]}]}},
     "protocol 'provided' needs files with part 'train' and part 'test'"),
    ({"source": {"type": "url", "files": [{"name": "a", "sha256": None, "urls": ["u"], "labels": "b"}]}},
     "labels file 'b' is not among"),
    ({"task": "multiclass", "label": {"column": 0, "classes": ["1"]}}, "at least two labels"),
])
def test_bad_registry_entries_are_clear_errors(changes, message):
    with pytest.raises(DataError, match=message) as info:
        spec_from_entry("bad", url_entry(**changes))
    assert "dataset 'bad'" in str(info.value)


# --- parsers --------------------------------------------------------------------------------

def spec_of(tmp_path, name, task="binary", **entry):
    base = {"task": task, "source": {"type": "local", "path": str(tmp_path / name)},
            "parser": {"format": "delimited"}, "label": {"column": -1, "positive": ["1"], "negative": ["0"]},
            "split": {"protocol": "random", "test_size": 0.5}}
    return spec_from_entry("toy", {**base, **entry})


@pytest.mark.parametrize("suffix,opener", [("", open), (".bz2", bz2.open)])
def test_libsvm_parser_agrees_with_scikit_learn(tmp_path, suffix, opener):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 7)) * (rng.random((40, 7)) < 0.4)
    X[:, 6] = 0.0  # a trailing all-zero feature: only n_features keeps it
    y = rng.choice([-1.0, 1.0], size=40)
    plain = tmp_path / "plain.svm"
    dump_svmlight_file(X, y, str(plain), zero_based=False)
    with opener(tmp_path / f"toy.svm{suffix}", "wb") as out:
        out.write(plain.read_bytes())
    spec = spec_of(tmp_path, f"toy.svm{suffix}", parser={"format": "libsvm", "n_features": 7},
                   label={"column": 0, "positive": ["1"], "negative": ["-1"]})
    data = parse_dataset(spec, tmp_path)
    X_ref, y_ref = load_svmlight_file(str(plain), n_features=7)
    np.testing.assert_array_equal(data.X, X_ref.toarray())
    np.testing.assert_array_equal(data.y, y_ref)


def test_libsvm_bad_pair_names_line_and_token(tmp_path):
    (tmp_path / "toy.svm").write_text("1 1:0.5 2:1\n-1 1:0.5 2-1\n")
    spec = spec_of(tmp_path, "toy.svm", parser={"format": "libsvm"},
                   label={"column": 0, "positive": ["1"], "negative": ["-1"]})
    with pytest.raises(DataError, match="toy.svm', line 2, token 3: malformed 'index:value' pair '2-1'"):
        parse_dataset(spec, tmp_path)


def test_arff_parser_reads_attribute_names_and_class(tmp_path):
    (tmp_path / "toy.arff").write_text(
        "% comment\n@relation toy\n@attribute 'a b' numeric\n@ATTRIBUTE c NUMERIC\n@attribute Class {0,1}\n"
        "@data\n1.5,2,1\n% skipped\n-3,4e1,0\n")
    spec = spec_of(tmp_path, "toy.arff", parser={"format": "arff"},
                   label={"column": "Class", "positive": ["1"], "negative": ["0"]})
    data = parse_dataset(spec, tmp_path)
    np.testing.assert_array_equal(data.X, [[1.5, 2.0], [-3.0, 40.0]])
    np.testing.assert_array_equal(data.y, [1.0, -1.0])
    assert data.feature_names == ["a b", "c"]


def test_arff_without_data_section_is_an_error(tmp_path):
    (tmp_path / "toy.arff").write_text("@relation toy\n@attribute a numeric\n")
    spec = spec_of(tmp_path, "toy.arff", parser={"format": "arff"})
    with pytest.raises(DataError, match="no @data section"):
        parse_dataset(spec, tmp_path)


def test_gzipped_tsv_with_header_named_label_and_dropped_id(tmp_path):
    with gzip.open(tmp_path / "toy.tsv.gz", "wt") as out:
        out.write("id\tf1\tf2\ttarget\nr1\t1\t2\t0\nr2\t3\t4\t1\nr3\t5\t6\t2\n")
    spec = spec_of(tmp_path, "toy.tsv.gz", parser={"format": "delimited", "delimiter": "\t", "header": True},
                   drop_columns=["id"], label={"column": "target", "positive": ["1", "2"], "negative": ["0"]})
    data = parse_dataset(spec, tmp_path)
    np.testing.assert_array_equal(data.X, [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(data.y, [-1, 1, 1])
    assert data.feature_names == ["f1", "f2"]
    bad = spec_of(tmp_path, "toy.tsv.gz", parser={"format": "delimited", "delimiter": "\t", "header": True},
                  label={"column": "outcome", "positive": ["1"], "negative": ["0"]})
    with pytest.raises(DataError, match="label column 'outcome' is not a column name"):
        parse_dataset(bad, tmp_path)


def test_quoted_names_missing_rows_and_regression_targets(tmp_path):
    (tmp_path / "cars.data").write_text(
        '18.0   8   307.0\t"chevrolet chevelle malibu"\n25.0   4   ?\t"ford pinto"\n15.5 6 250.0\t"amc x"\n')
    spec = spec_of(tmp_path, "cars.data", task="regression", drop_columns=[-1], label={"column": 0},
                   parser={"format": "delimited", "quoted": True, "missing": "?", "missing_policy": "drop_rows"})
    data = parse_dataset(spec, tmp_path)
    np.testing.assert_array_equal(data.X, [[8, 307.0], [6, 250.0]])
    np.testing.assert_array_equal(data.y, [18.0, 15.5])
    assert data.label_map == {} and data.task == "regression"


def test_separate_labels_file_and_head_rows(tmp_path):
    (tmp_path / "f.data").write_text("1 2 \n3 4 \n5 6 \n7 8 \n")
    (tmp_path / "f.labels").write_text("1\n-1\n1\n-1\n")
    entry = {"task": "binary", "source": {"type": "url", "files": [
        {"name": "f.data", "labels": "f.labels", "head_rows": 3, "sha256": None, "urls": ["u"]},
        {"name": "f.labels", "sha256": None, "urls": ["u"]}]},
        "parser": {"format": "delimited"}, "label": {"positive": ["1"], "negative": ["-1"]},
        "split": {"protocol": "random"}}
    with pytest.raises(DataError, match="4 labels for 3 rows"):
        parse_dataset(spec_from_entry("toy", entry), tmp_path)
    entry["source"]["files"][0]["head_rows"] = None
    data = parse_dataset(spec_from_entry("toy", entry), tmp_path)
    np.testing.assert_array_equal(data.X, [[1, 2], [3, 4], [5, 6], [7, 8]])
    np.testing.assert_array_equal(data.y, [1, -1, 1, -1])


def test_drop_lines_removes_the_listed_records_and_rejects_lines_that_are_no_rows(tmp_path):
    (tmp_path / "f.csv").write_text("# header comment\n1,2,1\n3,4000,-1\n5,6,1\n7,8,-1\n")

    def entry(drop):
        return {"task": "binary", "source": {"type": "url", "files": [
            {"name": "f.csv", "drop_lines": drop, "sha256": None, "urls": ["u"]}]},
            "parser": {"format": "delimited", "delimiter": ",", "skip_rows": 1},
            "label": {"column": -1, "positive": ["1"], "negative": ["-1"]}, "split": {"protocol": "random"}}

    data = parse_dataset(spec_from_entry("toy", entry([3])), tmp_path)
    np.testing.assert_array_equal(data.X, [[1, 2], [5, 6], [7, 8]])
    np.testing.assert_array_equal(data.y, [1, 1, -1])
    with pytest.raises(DataError, match=r"dataset 'toy', file .*f.csv.*: drop_lines \[1, 9\] are not data rows"):
        parse_dataset(spec_from_entry("toy", entry([1, 3, 9])), tmp_path)
    with pytest.raises(DataError, match="drop_lines must be a list of 1-based line numbers"):
        spec_from_entry("toy", entry([0]))


def test_other_classes_dropped_or_rejected_and_multiclass_codes(tmp_path):
    (tmp_path / "digits.csv").write_text("0,3\n1,5\n2,7\n3,3\n4,5\n")
    csv = {"format": "delimited", "delimiter": ","}
    keep = spec_of(tmp_path, "digits.csv", parser=csv, label={"column": -1, "positive": ["3"], "negative": ["5"], "others": "drop"})
    data = parse_dataset(keep, tmp_path)
    np.testing.assert_array_equal(data.X[:, 0], [0, 1, 3, 4])
    np.testing.assert_array_equal(data.y, [1, -1, 1, -1])
    strict = spec_of(tmp_path, "digits.csv", parser=csv, label={"column": -1, "positive": ["3"], "negative": ["5"]})
    with pytest.raises(DataError, match="line 3, column 2: label '7' does not map"):
        parse_dataset(strict, tmp_path)
    multi = spec_of(tmp_path, "digits.csv", task="multiclass", parser=csv, label={"column": -1, "classes": ["7", "3", "5"]})
    np.testing.assert_array_equal(parse_dataset(multi, tmp_path).y, [1, 2, 0, 1, 2])


# --- split protocols ------------------------------------------------------------------------

def parsed(y, part=None, task="binary", n_features=2, seed=0):
    X = np.random.default_rng(seed).normal(size=(len(y), n_features))
    return ParsedData(X=X, y=np.asarray(y, float), feature_names=["a", "b"][:n_features], label_map={"1": 1, "0": -1},
                      part=None if part is None else np.asarray(part), task=task)


def test_provided_split_uses_the_files_parts_and_train_statistics():
    part = np.array(["train"] * 30 + ["test"] * 20)
    data = parsed(np.tile([1, -1], 25), part=part)
    split = make_split(data, dataset="toy", rep=1, base_seed=0, protocol="provided")
    np.testing.assert_array_equal(split.train_index, np.arange(30))
    np.testing.assert_array_equal(split.test_index, np.arange(30, 50))
    lo, hi = data.X[:30].min(axis=0), data.X[:30].max(axis=0)
    np.testing.assert_allclose(split.X_test, (data.X[30:] - lo) / (hi - lo))


def test_parts_restrict_a_random_split_to_the_training_file():
    part = np.array(["train"] * 40 + ["test"] * 60)
    data = parsed(np.tile([1, -1], 50), part=part)
    split = split_dataset(data, {"protocol": "random", "parts": ["train"], "test_size": 0.5}, dataset="toy", rep=2,
                          base_seed=1)
    assert split.y_train.size == split.y_test.size == 20
    assert np.all(np.concatenate([split.train_index, split.test_index]) < 40)
    assert json.loads(split.attrs["parts"]) == ["train"]
    with pytest.raises(DataError, match="has no provided train/test parts"):
        split_dataset(parsed([1, -1] * 5), {"protocol": "random", "parts": ["train"]}, dataset="toy", rep=1, base_seed=0)


def test_per_class_subsample_and_cap_are_seeded_and_stratified():
    y = np.array([1] * 700 + [-1] * 900 + [0] * 50)
    data = parsed(y)
    data = ParsedData(X=data.X, y=y.astype(float), feature_names=data.feature_names, label_map={}, task="multiclass")
    with pytest.raises(DataError, match="per_class = 600 but class 0 has only 50 rows"):
        make_split(data, dataset="toy", rep=1, base_seed=0, per_class=600)
    binary = parsed(np.array([1] * 700 + [-1] * 900))
    a = make_split(binary, dataset="toy", rep=1, base_seed=0, test_size=0.2, per_class=600)
    b = make_split(binary, dataset="toy", rep=1, base_seed=0, test_size=0.2, per_class=600)
    c = make_split(binary, dataset="toy", rep=2, base_seed=0, test_size=0.2, per_class=600)
    np.testing.assert_array_equal(a.train_index, b.train_index)
    assert not np.array_equal(a.train_index, c.train_index)
    y_all = np.concatenate([a.y_train, a.y_test])
    assert np.sum(y_all == 1) == np.sum(y_all == -1) == 600 and a.y_test.size == 240
    capped = make_split(binary, dataset="toy", rep=1, base_seed=0, max_n=400)
    assert capped.y_train.size + capped.y_test.size == 400
    assert abs(np.mean(np.concatenate([capped.y_train, capped.y_test]) == 1) - 700 / 1600) < 0.01
    assert capped.attrs["subsample_seed"] != capped.attrs["seed"] and json.loads(capped.attrs["max_n"]) == 400


def test_regression_and_multiclass_sets_split():
    y = np.linspace(0.0, 1.0, 101)
    reg = make_split(parsed(y, task="regression"), dataset="toy", rep=1, base_seed=0)
    assert reg.y_train.size == 50 and reg.y_test.size == 51
    np.testing.assert_array_equal(np.sort(np.concatenate([reg.y_train, reg.y_test])), y)
    multi = parsed(np.repeat([0, 1, 2], 20), task="multiclass")
    split = make_split(multi, dataset="toy", rep=1, base_seed=0)
    assert [int(np.sum(split.y_train == k)) for k in range(3)] == [10, 10, 10]


def test_unknown_split_option_is_an_error():
    with pytest.raises(DataError, match=r"unknown split option\(s\) \['folds'\]"):
        split_dataset(parsed([1, -1] * 5), {"protocol": "random", "folds": 3}, dataset="toy", rep=1, base_seed=0)


# --- synthetic sets -------------------------------------------------------------------------

def test_step_function_values_follow_the_formula():
    s, w = 3.0, 2.0
    k = np.arange(-3, 3)
    # Mid-period the tanh term vanishes: g = s (k + 1/2); at x = w k it is -1/2: g = s k.
    np.testing.assert_allclose(synthetic.step_value(w * (k + 0.5)), s * (k + 0.5))
    np.testing.assert_allclose(synthetic.step_value(w * k.astype(float)), s * k, atol=1e-12)
    # Continuous across the period boundary (the left limit also equals s k).
    np.testing.assert_allclose(synthetic.step_value(w * k - 1e-9), s * k, atol=1e-6)
    table = synthetic.step_function(n_samples=50, seed=3)
    assert table.shape == (50, 2) and table[:, 0].min() >= -5 and table[:, 0].max() <= 5


def test_cherkassky_function_values():
    # On u = 1/2 the second factor vanishes: g = 42.659 * 0.1.
    np.testing.assert_allclose(synthetic.cherkassky_value(np.full(3, 0.5), np.array([0.0, 0.3, 1.0])), 4.2659)
    u, v = 0.9, 0.2
    g1 = 0.4**4 - 10 * 0.4**2 * 0.3**2 + 5 * 0.3**4
    np.testing.assert_allclose(synthetic.cherkassky_value(np.array(u), np.array(v)), 42.659 * (0.1 + 0.4 * (g1 + 0.05)))
    table = synthetic.cherkassky(n_samples=400, seed=0)
    assert table.shape == (400, 3) and table[:, :2].min() >= 0 and table[:, :2].max() <= 1


def test_clowns_classes_are_the_head_and_the_parabola():
    table = synthetic.clowns(n_samples=4000, sigma=0.5, seed=1)
    head, parabola = table[table[:, 2] == 1, :2], table[table[:, 2] == -1, :2]
    np.testing.assert_allclose(head.mean(axis=0), [0.0, 6.0], atol=0.05)
    np.testing.assert_allclose(head.std(axis=0), [0.5, 0.5], atol=0.03)
    residual = parabola[:, 1] - parabola[:, 0] ** 2
    assert abs(residual.mean()) < 0.1 and abs(residual.std() - 1.0) < 0.05
    np.testing.assert_array_equal(synthetic.clowns(seed=2), synthetic.clowns(seed=2))


# --- config checks and the Table II stage ---------------------------------------------------

def test_config_refuses_non_binary_datasets_and_stray_options():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    check_config(config)
    with pytest.raises(KreinbenchError, match="'wine' is a multiclass dataset"):
        check_config({**config, "datasets": [*config["datasets"], "wine"]})
    with pytest.raises(KreinbenchError, match="dataset_options.monks1: 'monks1' is not in datasets"):
        check_config({**config, "dataset_options": {"monks1": {"split": {"max_n": 10}}}})
    assert dataset_config_entry({**config, "dataset_options": {"sonar": {"split": {"max_n": 10}}}}, "sonar")["split"] == {
        "protocol": "random", "test_size": 0.5, "max_n": 10}


@pytest.mark.parametrize("n", [40, 300])
def test_extreme_eigenvalues_dense_and_subset_agree_with_numpy(monkeypatch, n):
    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n))
    K = (A + A.T) / 2
    reference = np.linalg.eigvalsh(K)
    monkeypatch.setattr(eigen, "DENSE_LIMIT", 100)  # n = 300 takes the LAPACK-subset and Lanczos path
    np.testing.assert_allclose(eigen.extreme_eigenvalues(K), (reference[0], reference[-1]), rtol=1e-8)


def test_paper_values_and_table_join():
    paper = paper_tables.read_paper_values(str(ROOT / "workflow/paper_values/iklr_table2.csv"))
    assert len(paper) == 20 and paper.loc[paper["paper_dataset"] == "madelon", "mu_max"].item() == 27015
    assert set(paper["dataset"]) <= set(load_registry())
    stats = [{"dataset": "blobs", "rep": 1, "m": 2, "n": 400, "n_train": 200, "mu_min": -1.0, "mu_max": 5.0},
             {"dataset": "monks1", "rep": 2, "m": 6, "n": 124, "n_train": 62, "mu_min": -2.5, "mu_max": 90.0},
             {"dataset": "monks1", "rep": 1, "m": 6, "n": 124, "n_train": 62, "mu_min": -2.0, "mu_max": 93.0},
             {"dataset": "blobs", "rep": 2, "m": 2, "n": 400, "n_train": 200, "mu_min": -0.5, "mu_max": 6.0}]
    stats = [{**row, "scaler_fit": "whole"} for row in stats]
    table = paper_tables.table2_frame(paper_tables.over_repetitions(stats), paper)
    assert list(table["dataset"]) == ["monks1", "blobs"]
    assert table.loc[0, "mu_max_paper"] == 94.077 and np.isnan(table.loc[1, "mu_max_paper"])
    # repetition 1's values, and the range over both repetitions
    assert table.loc[0, ["mu_min", "mu_min_lo", "mu_min_hi", "mu_max_lo", "mu_max_hi"]].tolist() == [-2, -2.5, -2, 90, 93]
    assert table.loc[1, ["mu_min", "mu_max", "repetitions"]].tolist() == [-1, 5, 2]
    markdown = paper_tables.table2_markdown(table, {"type": "tl1", "tau_factor": 0.7})
    assert "[0, 1] min-max scaling fitted on every row the split is drawn from)" in markdown
    assert "| monks1 (`monks1`) | 6 (6) | 124 (124) | 62 | -2 (-2.094) [-2.5, -2] | 93 (94.08) [90, 93] |" in markdown
    with pytest.raises(KreinbenchError, match="no repetition-1 split of dataset 'monks1'"):
        paper_tables.over_repetitions(stats[1:2])


def test_the_datasets_page_lists_every_registry_dataset():
    page = (ROOT / "docs/datasets.md").read_text()
    section = page.split("\n## Kernels and spectra\n")[0]
    listed = set(re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE))
    assert listed == set(load_registry(None))
