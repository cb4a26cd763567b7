"""The split option ``scaler_fit``: the min-max scaler fitted on the training part or the whole data."""

import json
from pathlib import Path

import h5py
import numpy as np
import pytest
import yaml

from kreinbench.data.parse import ParsedData
from kreinbench.data.registry import dataset_entry
from kreinbench.data.split import make_split, split_dataset
from kreinbench.errors import DataError, KreinbenchError
from kreinbench.pipeline.plan import check_config, dataset_config_entry

ROOT = Path(__file__).resolve().parents[1]


def data_with_parts(seed=0):
    """70 rows in a provided train part and 30 in a test part whose features lie far outside the
    train part's range (so a scaler fitted on both parts would show), plus a constant column."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=100), rng.uniform(-3, 5, size=100), np.full(100, 2.5)])
    X[70:, :2] *= 100.0
    part = np.array(["train"] * 70 + ["test"] * 30)
    return ParsedData(X=X, y=np.tile([1.0, -1.0], 50), feature_names=["a", "b", "c"], label_map={"1": 1, "0": -1},
                      part=part)


def pool_scaled(X):
    """Reference: each column of ``X`` mapped affinely onto [0, 1] (a constant column onto 0)."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    return (X - lo) / np.where(hi > lo, hi - lo, 1.0)


def test_whole_scaling_maps_the_pool_exactly_onto_the_unit_box():
    data = data_with_parts()
    split = make_split(data, dataset="toy", rep=1, base_seed=3, parts=["train"], scaler_fit="whole")
    rows = np.concatenate([split.train_index, split.test_index])
    np.testing.assert_array_equal(np.sort(rows), np.arange(70))  # the pool: the train part, every row
    union = np.vstack([split.X_train, split.X_test])
    np.testing.assert_array_equal(union[:, :2].min(axis=0), 0.0)
    np.testing.assert_array_equal(union[:, :2].max(axis=0), 1.0)
    np.testing.assert_array_equal(union[:, 2], 0.0)
    np.testing.assert_allclose(union, pool_scaled(data.X[:70])[rows], rtol=0, atol=1e-15)
    # not the training half's own min-max scaling
    assert not np.allclose(split.X_train, pool_scaled(data.X[split.train_index]))
    assert split.attrs["scaler_fit"] == "whole"


def test_whole_scaling_takes_the_rows_before_the_subsample():
    data = data_with_parts()
    split = make_split(data, dataset="toy", rep=2, base_seed=3, parts=["train"], max_n=20, scaler_fit="whole")
    reference = pool_scaled(data.X[:70])
    np.testing.assert_allclose(split.X_train, reference[split.train_index], rtol=0, atol=1e-15)
    np.testing.assert_allclose(split.X_test, reference[split.test_index], rtol=0, atol=1e-15)
    capped_alone = pool_scaled(data.X[np.concatenate([split.train_index, split.test_index])])
    assert not np.allclose(np.vstack([split.X_train, split.X_test]), capped_alone)


def test_whole_scaling_of_a_provided_split_spans_both_parts():
    data = data_with_parts()
    split = make_split(data, dataset="toy", rep=1, base_seed=0, protocol="provided", scaler_fit="whole")
    reference = pool_scaled(data.X)
    np.testing.assert_allclose(split.X_train, reference[:70], rtol=0, atol=1e-15)
    np.testing.assert_allclose(split.X_test, reference[70:], rtol=0, atol=1e-15)


def test_train_scaling_is_the_training_parts_min_max_bit_for_bit():
    data = data_with_parts()
    default = make_split(data, dataset="toy", rep=4, base_seed=9, max_n=60)
    explicit = split_dataset(data, {"protocol": "random", "max_n": 60, "scaler_fit": "train"}, dataset="toy", rep=4,
                             base_seed=9)
    train = data.X[default.train_index]
    lo, span = train.min(axis=0), train.max(axis=0) - train.min(axis=0)
    span[span == 0] = 1.0
    np.testing.assert_array_equal(default.X_train, (train - lo) / span)
    np.testing.assert_array_equal(default.X_test, (data.X[default.test_index] - lo) / span)
    for name in ("X_train", "X_test", "train_index", "test_index", "y_train"):
        np.testing.assert_array_equal(getattr(explicit, name), getattr(default, name))
    assert default.attrs["scaler_fit"] == explicit.attrs["scaler_fit"] == "train"


def test_scaling_none_ignores_where_the_scaler_would_be_fitted():
    data = data_with_parts()
    split = make_split(data, dataset="toy", rep=1, base_seed=0, scaling="none", scaler_fit="whole")
    np.testing.assert_array_equal(split.X_train, data.X[split.train_index])


@pytest.mark.parametrize("name", ["config.yaml", "workflow/configs/paper-isvm.yaml",
                                  "workflow/configs/paper-iklr-spd.yaml", "workflow/configs/scale.yaml"])
def test_configs_without_the_key_keep_their_split_params(name):
    """A config that does not set scaler_fit passes the split rule the entries it passed before
    (the registry's, updated by dataset_options), so none of its splits is rerun."""
    config = yaml.safe_load((ROOT / name).read_text())
    assert "scaler_fit" not in config
    for dataset in config["datasets"]:
        options = config.get("dataset_options", {}).get(dataset)
        assert dataset_config_entry(config, dataset) == dataset_entry(dataset, config.get("custom_datasets"), options)


def test_config_key_applies_to_every_dataset_unless_its_options_override_it():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config = {**config, "scaler_fit": "whole",
              "dataset_options": {"sonar": {"split": {"scaler_fit": "train", "max_n": 100}}}}
    check_config(config)
    fits = {name: dataset_config_entry(config, name)["split"]["scaler_fit"] for name in config["datasets"]}
    assert fits.pop("sonar") == "train"
    assert fits and set(fits.values()) == {"whole"}
    assert dataset_config_entry(config, "sonar")["split"]["max_n"] == 100


def test_unknown_scaler_fit_is_a_clear_error_naming_the_key():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    with pytest.raises(KreinbenchError, match=r"config: unknown scaler_fit 'both' \(known: train, whole\)"):
        check_config({**config, "scaler_fit": "both"})
    with pytest.raises(KreinbenchError, match=r"dataset 'sonar': unknown split.scaler_fit 'test'"):
        check_config({**config, "dataset_options": {"sonar": {"split": {"scaler_fit": "test"}}}})
    with pytest.raises(DataError, match=r"dataset 'toy': unknown split.scaler_fit 'all'"):
        make_split(data_with_parts(), dataset="toy", rep=1, base_seed=0, scaler_fit="all")


def test_schema_rejects_a_bad_value_and_snakemake_reruns_the_split_when_it_changes(workflow_copy, snakemake):
    config = {"seed": 1, "repetitions": 1, "cv_folds": 2, "datasets": ["blobs"],
              "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
              "methods": {"klr": {"estimator": "KLR", "kernel": "tl1", "grid": {"lam": [1.0]}}}}
    workdir = workflow_copy(config, "scaler_fit")
    target = "data/splits/blobs/rep1.h5"
    bad = snakemake(workdir, "-n", target, "--config", "scaler_fit=both")
    assert bad.returncode != 0 and "scaler_fit" in bad.stdout + bad.stderr
    assert snakemake(workdir, target).returncode == 0
    unchanged = snakemake(workdir, "-n", target)
    assert "Nothing to be done" in unchanged.stdout + unchanged.stderr
    changed = snakemake(workdir, "-n", target, "--config", "scaler_fit=whole")
    assert "rule split:" in changed.stdout + changed.stderr
    assert snakemake(workdir, target, "--config", "scaler_fit=whole").returncode == 0
    with h5py.File(workdir / target) as h5:
        assert h5.attrs["scaler_fit"] == "whole"
        union = np.vstack([h5["X_train"][()], h5["X_test"][()]])
        assert json.loads(h5.attrs["max_n"]) is None
    np.testing.assert_array_equal(union.min(axis=0), 0.0)
    np.testing.assert_array_equal(union.max(axis=0), 1.0)


def test_table_captions_say_where_the_records_splits_fitted_the_scaler():
    """From the fits' records: old records (no scaler_fit) were all scaled by the training part."""
    import pandas as pd

    from kreinbench.report.render import scaling_note

    assert scaling_note(pd.DataFrame({"scaler_fit": ["whole", "whole"]})).endswith("over the whole data set, then split")
    assert scaling_note(pd.DataFrame({"accuracy": [0.9]})).endswith("by the training part's minimum and range")
    mixed = scaling_note(pd.DataFrame({"scaler_fit": ["whole", "train", "whole"]}))
    assert "then split for 2 fits" in mixed and "range for 1 fits" in mixed
