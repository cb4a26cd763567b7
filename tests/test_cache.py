import h5py
import numpy as np
import pytest

from kreinbench.errors import CacheMismatchError
from kreinbench.linalg import cache
from kreinbench.linalg.spectrum import COVERS, compute_spectrum


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


@pytest.mark.parametrize("compression", [None, "gzip", "lzf"])
def test_compressed_float32_kernel_round_trip(tmp_path, compression):
    rng = np.random.default_rng(0)
    K = rng.normal(size=(40, 40)).astype(np.float32)
    K = K + K.T
    K_test = rng.normal(size=(9, 40)).astype(np.float32)
    path = tmp_path / "k.h5"
    cache.write_kernel(path, K, K_test, {"instance": "x"}, compression=compression)
    K2, K_test2, attrs = cache.read_kernel(path, {"instance": "x"})
    assert K2.dtype == np.float32 and attrs["dtype"] == "float32"
    np.testing.assert_array_equal(K2, K)
    np.testing.assert_array_equal(K_test2, K_test)
    with h5py.File(path) as h5:
        assert h5["K_train"].compression == compression and h5["K_train"].chunks is not None


def test_shape_attributes_that_disagree_with_the_data_are_refused(tmp_path):
    path = tmp_path / "k.h5"
    cache.write_kernel(path, np.eye(3), np.ones((2, 3)), {})
    with h5py.File(path, "r+") as h5:
        h5.attrs["shape_train"] = (4, 4)
    with pytest.raises(CacheMismatchError, match="corrupt"):
        cache.read_kernel(path)


def _indefinite(n=80, seed=1):
    A = np.random.default_rng(seed).normal(size=(n, n))
    return (A + A.T) / 2


@pytest.mark.parametrize("kind", ["full", "negative", "eigenvalues", "lambda_min"])
def test_spectrum_objects_round_trip_and_serve_only_what_they_cover(tmp_path, kind):
    K = _indefinite()
    spec = compute_spectrum(K, kind)
    path = tmp_path / "s.h5"
    cache.write_spectrum_object(path, spec, {"instance": "x"})
    back = cache.read_spectrum_object(path, {"instance": "x"}, kind)
    assert back.kind == kind and back.summary() == spec.summary()
    np.testing.assert_array_equal(back.eigenvalues, spec.eigenvalues)
    if spec.eigenvectors is not None:
        np.testing.assert_array_equal(back.eigenvectors, spec.eigenvectors)
    with h5py.File(path) as h5:
        assert h5.attrs["kind"] == kind and h5.attrs["mu_min"] == spec.eigenvalues[0]
    for other in ("full", "negative", "eigenvalues", "lambda_min"):
        if other in COVERS[kind]:
            assert cache.read_spectrum_object(path, None, other).kind == other
        else:
            with pytest.raises(CacheMismatchError, match=f"holds a '{kind}' spectrum, but a '{other}'"):
                cache.read_spectrum_object(path, None, other)


def test_full_spectrum_file_serves_the_negative_part(tmp_path):
    K = _indefinite()
    path = tmp_path / "s.h5"
    cache.write_spectrum_object(path, compute_spectrum(K, "full"), {})
    served = cache.read_spectrum_object(path, None, "negative")
    direct = compute_spectrum(K, "negative")
    np.testing.assert_allclose(served.eigenvalues, direct.eigenvalues, rtol=1e-10)
    assert served.summary()["negative_mass"] == pytest.approx(direct.summary()["negative_mass"], rel=1e-10)


def test_bit_flip_is_detected_by_the_checksum_and_the_corrupt_file_deleted(tmp_path):
    """A flipped bit inside the data leaves a readable HDF5 file: the stored SHA-256 catches it,
    the file is deleted (the next run rebuilds it) and the error says so."""
    path = tmp_path / "k.h5"
    K = np.random.default_rng(1).normal(size=(60, 60))
    cache.write_kernel(path, K, np.ones((5, 60)), {})
    raw = bytearray(path.read_bytes())
    offset = raw.find(K[30].tobytes()[:16])
    assert offset > 0
    raw[offset + 3] ^= 0x10
    path.write_bytes(bytes(raw))
    with h5py.File(path) as h5:  # still a valid HDF5 file
        assert h5["K_train"].shape == (60, 60)
    with pytest.raises(CacheMismatchError, match="K_train whose content does not match its checksum.*deleted.*same"):
        cache.read_kernel(path)
    assert not path.exists()


def test_truncated_file_is_deleted_with_the_rebuild_hint(tmp_path):
    path = tmp_path / "s.h5"
    cache.write_spectrum(path, np.arange(50.0), np.eye(50), {})
    path.write_bytes(path.read_bytes()[:2000])
    with pytest.raises(CacheMismatchError, match="unreadable or incomplete.*running the same snakemake command"):
        cache.read_spectrum(path)
    assert not path.exists()
