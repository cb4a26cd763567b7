"""The split stage's seeded train/test split (kreinbench.data.split.shuffled_split) against
scikit-learn's train_test_split, which it replaces index for index."""

import math
import subprocess
import sys

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from kreinbench.data.split import shuffled_split
from kreinbench.errors import DataError

LABELS = {
    "balanced": np.repeat([0.0, 1.0], 50),
    "imbalanced": np.array([1.0] * 83 + [-1.0] * 17),
    "ties": np.repeat([3.0, 1.0, 2.0, 7.0], [7, 7, 7, 4]),  # equal remainders: random tie breaks
    "many": np.random.default_rng(5).integers(0, 6, size=331).astype(float),
}


@pytest.mark.parametrize("name", sorted(LABELS))
@pytest.mark.parametrize("seed", [0, 1, 397562173, 2**32 - 1])
@pytest.mark.parametrize("stratify", [True, False])
def test_test_size_splits_are_scikit_learns(name, seed, stratify):
    y = LABELS[name]
    idx = np.arange(y.size) * 3 + 1  # row numbers, as the split stage passes them
    for test_size in (0.1, 0.25, 0.5, 0.7):
        n_test = math.ceil(test_size * y.size)
        split = lambda: shuffled_split(y.size, n_train=y.size - n_test, n_test=n_test,  # noqa: E731
                                       labels=y if stratify else None, seed=seed, where="t")
        reference = lambda: train_test_split(idx, test_size=test_size, stratify=y if stratify else None,  # noqa: E731
                                             random_state=seed)
        if stratify and n_test < np.unique(y).size:  # both refuse: a class would miss the test part
            with pytest.raises(DataError, match="cannot stratify"):
                split()
            with pytest.raises(ValueError):
                reference()
            continue
        (train, test), (ref_train, ref_test) = split(), reference()
        np.testing.assert_array_equal(idx[train], ref_train)
        np.testing.assert_array_equal(idx[test], ref_test)


@pytest.mark.parametrize("name", sorted(LABELS))
@pytest.mark.parametrize("stratify", [True, False])
def test_subsamples_are_scikit_learns(name, stratify):
    y = LABELS[name]
    for seed in (3, 12345):
        for keep in (y.size // 4, y.size // 2, y.size - 9):
            kept, _ = shuffled_split(y.size, n_train=keep, n_test=y.size - keep, labels=y if stratify else None,
                                     seed=seed, where="t")
            ref, _ = train_test_split(np.arange(y.size), train_size=keep, stratify=y if stratify else None,
                                      random_state=seed)
            np.testing.assert_array_equal(kept, ref)


def test_splits_that_cannot_be_made_name_the_dataset():
    y = np.array([0.0] * 9 + [1.0])
    with pytest.raises(DataError, match="dataset 'x'.*one row"):
        shuffled_split(10, n_train=5, n_test=5, labels=y, seed=0, where="dataset 'x'")
    with pytest.raises(DataError, match="dataset 'x'.*3 classes"):
        shuffled_split(12, n_train=10, n_test=2, labels=np.repeat([0.0, 1.0, 2.0], 4), seed=0, where="dataset 'x'")
    with pytest.raises(DataError, match="dataset 'x'.*0 train"):
        shuffled_split(10, n_train=0, n_test=10, labels=None, seed=0, where="dataset 'x'")


def test_making_a_split_does_not_import_scikit_learn():
    """The split jobs' start-up: scikit-learn (with pandas and scipy.stats) took most of it."""
    code = """
import sys
import numpy as np
from kreinbench.data.parse import ParsedData
from kreinbench.data.split import make_split
rng = np.random.default_rng(0)
data = ParsedData(X=rng.random((60, 3)), y=np.repeat([0.0, 1.0], 30), feature_names=["a", "b", "c"], label_map={})
make_split(data, dataset="d", rep=1, base_seed=0, max_n=40)
print(sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'pandas')))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_class_of_one_row_is_named_by_its_label():
    labels = np.array([0.0, 0.0, 0.0, 1.0])
    with pytest.raises(DataError, match=r"the class with label 1\.0 has one row") as info:
        shuffled_split(4, n_train=2, n_test=2, labels=labels, seed=0, where="data/splits/toy")
    assert "np." not in str(info.value)
