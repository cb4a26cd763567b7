import h5py
import numpy as np
import pytest

from kreinbench import cache
from kreinbench.errors import CacheMismatchError


def test_kernel_round_trip_with_attributes(tmp_path):
    K = np.array([[2.0, 1.0], [1.0, 2.0]])
    K_test = np.ones((3, 2))
    path = tmp_path / "k.h5"
    cache.write_kernel(path, K, K_test, {"kernel": {"type": "tl1", "tau": 1.4}, "instance": "tl1"})
    K2, K_test2, attrs = cache.read_kernel(path, {"kernel": {"type": "tl1", "tau": 1.4}})
    np.testing.assert_array_equal(K2, K)
    np.testing.assert_array_equal(K_test2, K_test)
    assert list(attrs["shape_train"]) == [2, 2] and attrs["dtype"] == "float64"
    with h5py.File(path) as h5:
        assert h5["K_train"].chunks is not None


def test_mismatched_attributes_are_refused_naming_file_and_key(tmp_path):
    path = tmp_path / "k.h5"
    cache.write_kernel(path, np.eye(2), np.ones((1, 2)), {"kernel": {"type": "tl1", "tau": 1.4}})
    with pytest.raises(CacheMismatchError, match=r"k\.h5.*kernel="):
        cache.read_kernel(path, {"kernel": {"type": "tl1", "tau": 2.0}})


def test_truncated_file_is_refused(tmp_path):
    path = tmp_path / "k.h5"
    cache.write_kernel(path, np.eye(50), np.ones((5, 50)), {})
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(CacheMismatchError, match="unreadable or incomplete"):
        cache.read_kernel(path)


def test_non_square_train_kernel_is_refused_and_nothing_written(tmp_path):
    path = tmp_path / "k.h5"
    with pytest.raises(CacheMismatchError, match="not square"):
        cache.write_kernel(path, np.ones((2, 3)), np.ones((1, 3)), {})
    assert not list(tmp_path.iterdir())


def test_failed_write_leaves_no_file(tmp_path, monkeypatch):
    path = tmp_path / "s.h5"

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(h5py.Group, "create_dataset", boom)
    with pytest.raises(RuntimeError):
        cache.write_spectrum(path, np.ones(2), np.eye(2), {})
    assert not list(tmp_path.iterdir())
