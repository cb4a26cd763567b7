import json

import h5py
import numpy as np
import pytest

from kreinbench.data.fetch import fetch_dataset, read_manifest
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import get_dataset, load_registry, spec_from_entry
from kreinbench.data.split import make_split, read_split, repetition_seed, write_split
from kreinbench.errors import DataError


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


@pytest.mark.parametrize("name", sorted(load_registry()))
def test_every_registry_dataset_fetches_and_parses(tmp_path, name):
    spec = get_dataset(name)
    manifest = fetch_dataset(spec, tmp_path / "manifest.json")
    data = parse_dataset(spec, tmp_path, [f["file"] for f in manifest["files"]])
    assert data.X.shape[0] == data.y.size > 100
    assert set(np.unique(data.y)) == {-1.0, 1.0}
    assert read_manifest(tmp_path / "manifest.json")["dataset"] == name


def test_known_sizes_of_bundled_datasets(tmp_path):
    sizes = {"sonar": (208, 60), "monk-2": (432, 6), "heart": (270, 13), "ionosphere": (351, 33),
             "breast-cancer-wdbc": (569, 30)}
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
