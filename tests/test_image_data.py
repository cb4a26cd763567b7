"""Image datasets: the PGM-archive parser (on archives built here) and the `scaling` split option."""

import io
import json
import tarfile
import zipfile

import numpy as np
import pytest

from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import ParsedData, parse_dataset, read_pgm
from kreinbench.data.registry import get_dataset, load_registry, spec_from_entry
from kreinbench.data.split import make_split, read_split, split_dataset, write_split
from kreinbench.errors import DataError


def pgm_bytes(image, *, comment=False):
    """A binary PGM (P5) file: one byte per sample up to 255, else two bytes big-endian."""
    image = np.asarray(image)
    maxval = 255 if image.max() < 256 else 65535
    remark = "# a header comment\n" if comment else ""
    header = f"P5\n{remark}{image.shape[1]} {image.shape[0]}\n{maxval}\n"
    return header.encode() + image.astype("u1" if maxval == 255 else ">u2").tobytes()


def write_archive(path, members):
    """A zip (``*.zip``) or gzipped tar of ``{name: bytes}``."""
    if path.suffix == ".zip":
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members.items():
                archive.writestr(name, data)
        return
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def image_spec(path, task="multiclass", **label):
    entry = {"task": task, "source": {"type": "local", "path": str(path)}, "parser": {"format": "pgm-archive"},
             "label": label or {"classes": ["s1", "s2"], "others": "drop"},
             "split": {"protocol": "random", "test_size": 0.5, "scaling": "none"}}
    return spec_from_entry("faces", entry)


# Non-square images (3 x 4) catch a transposed raster; s3 is a class the registry entry drops.
IMAGES = {f"faces/{subject}/{subject}_{k}.pgm": np.arange(12).reshape(3, 4) * (k + 1) + 10 * i
          for i, subject in enumerate(["s2", "s1", "s3"]) for k in range(2)}


@pytest.mark.parametrize("archive_name", ["faces.zip", "faces.tar.gz"])
def test_pgm_archive_rows_are_row_major_images_labelled_by_directory(tmp_path, archive_name):
    members = {name: pgm_bytes(image, comment=k == 0) for k, (name, image) in enumerate(IMAGES.items())}
    members["faces/s1/s1_9.pgm.bad"] = b"not an image"
    members["faces/s1/s1.info"] = b"s1_0.pgm\n"
    write_archive(tmp_path / archive_name, members)
    data = parse_dataset(image_spec(tmp_path / archive_name), tmp_path)
    kept = sorted(name for name in IMAGES if "/s3/" not in name)
    np.testing.assert_array_equal(data.X, [IMAGES[name].ravel() for name in kept])
    np.testing.assert_array_equal(data.y, [0, 0, 1, 1])
    assert data.X.shape[1] == len(data.feature_names) == 12 and data.task == "multiclass"


def test_pgm_sixteen_bit_samples_are_big_endian():
    image = np.array([[0, 256, 65535]])
    np.testing.assert_array_equal(read_pgm(pgm_bytes(image), "here"), image)


@pytest.mark.parametrize("members,message", [
    ({"d/s1/a.pgm": b"P2\n1 1\n255\n0"}, r"member 'd/s1/a.pgm': not a binary PGM image"),
    ({"d/s1/a.pgm": b"P5\n4 3\n255\n" + bytes(5)}, r"member 'd/s1/a.pgm': PGM raster has 5 bytes, a 3 x 4 image needs 12"),
    ({"d/s1/a.pgm": b"P5\n4 3\n"}, "PGM header has no maxval"),
    ({"d/s1/a.pgm": pgm_bytes(np.zeros((3, 4))), "d/s2/b.pgm": pgm_bytes(np.zeros((4, 3)))},
     r"member 'd/s2/b.pgm': image is 4 x 3, 'd/s1/a.pgm' is 3 x 4"),
    ({"d/s1/a.txt": b"text"}, r"no \.pgm images"),
])
def test_bad_archives_name_dataset_file_and_member(tmp_path, members, message):
    write_archive(tmp_path / "faces.zip", members)
    with pytest.raises(DataError, match=message) as info:
        parse_dataset(image_spec(tmp_path / "faces.zip"), tmp_path)
    assert "dataset 'faces'" in str(info.value) and "faces.zip" in str(info.value)


def test_unlisted_subject_is_an_error_unless_dropped_and_non_archives_are_refused(tmp_path):
    write_archive(tmp_path / "faces.zip", {"d/s1/a.pgm": pgm_bytes(np.ones((2, 2))), "d/s9/b.pgm": pgm_bytes(np.ones((2, 2)))})
    with pytest.raises(DataError, match=r"member 'd/s9/b.pgm': label 's9' \(the image's directory\) does not map"):
        parse_dataset(image_spec(tmp_path / "faces.zip", classes=["s1", "s2"]), tmp_path)
    (tmp_path / "plain.zip").write_text("P5 but no archive")
    with pytest.raises(DataError, match="plain.zip'.*not a zip or tar archive"):
        parse_dataset(image_spec(tmp_path / "plain.zip"), tmp_path)


# --- the `scaling` split option --------------------------------------------------------------

def test_scaling_none_keeps_raw_values_and_is_recorded(tmp_path):
    X = np.random.default_rng(0).uniform(0, 16, size=(40, 4))
    data = ParsedData(X=X, y=np.tile([1.0, -1.0], 20), feature_names=["a", "b", "c", "d"], label_map={"1": 1, "0": -1})
    raw = split_dataset(data, {"protocol": "random", "scaling": "none"}, dataset="toy", rep=1, base_seed=0)
    scaled = split_dataset(data, {"protocol": "random"}, dataset="toy", rep=1, base_seed=0)
    np.testing.assert_array_equal(raw.train_index, scaled.train_index)
    np.testing.assert_array_equal(raw.X_train, X[raw.train_index])
    np.testing.assert_array_equal(raw.X_test, X[raw.test_index])
    np.testing.assert_allclose(scaled.X_train.min(axis=0), 0.0)
    assert scaled.attrs["scaling"] == "minmax"
    write_split(raw, tmp_path / "rep1.h5", provenance={})
    assert read_split(tmp_path / "rep1.h5").attrs["scaling"] == "none"
    with pytest.raises(DataError, match="dataset 'toy': unknown split.scaling 'zscore' \\(known: minmax, none\\)"):
        make_split(data, dataset="toy", rep=1, base_seed=0, scaling="zscore")


def test_image_datasets_are_not_min_max_scaled():
    registry = load_registry()
    assert {name for name, spec in registry.items() if spec.split.get("scaling") == "none"} == {
        "digits", "digits-3v8", "yale-b"}
    assert registry["yale-b"].needs_download and registry["yale-b"].parser["format"] == "pgm-archive"


def test_bundled_digits_and_the_3_vs_8_task(tmp_path):
    spec = get_dataset("digits-3v8")
    manifest = fetch_dataset(spec, tmp_path / "manifest.json")
    data = parse_dataset(spec, tmp_path, [f["file"] for f in manifest["files"]])
    assert data.X.shape == (357, 64) and np.sum(data.y == 1) == 183 and np.sum(data.y == -1) == 174
    everything = parse_dataset(get_dataset("digits"), tmp_path)
    assert everything.X.shape == (1797, 64) and np.array_equal(np.unique(everything.y), np.arange(10))
    split = split_dataset(data, spec.split, dataset="digits-3v8", rep=1, base_seed=0)
    # Raw pixel intensities 0..16, identical to the parsed rows (no per-pixel rescaling).
    np.testing.assert_array_equal(split.X_train, data.X[split.train_index])
    assert split.X_train.max() == 16 and json.loads(split.attrs["label_map"]) == {"3": 1, "8": -1}
