"""The `fetch` stage: bring a dataset's raw files into ``data/raw/<dataset>/``.

Each fetched dataset gets a ``manifest.json`` (written last, atomically) listing its files with
their SHA-256; the manifest's presence is what marks the fetch as complete. The files are fetched
into a staging folder and moved into place only when all of them arrived: a failed fetch leaves
no copy behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from importlib import resources
from pathlib import Path

import numpy as np

from kreinbench.atomic import atomic_path, sha256_file, write_text_atomic
from kreinbench.data import synthetic
from kreinbench.data.download import DownloadPolicy, download_file, resolve_mirror
from kreinbench.data.registry import DatasetSpec
from kreinbench.errors import DataError

# The folder inside a dataset's raw directory that a fetch in progress writes to.
STAGING = ".fetching"


def _fetch_package(spec: DatasetSpec, raw_dir: Path, **_) -> list[dict]:
    package = spec.source["package"]
    try:
        root = resources.files(package)
    except ModuleNotFoundError as exc:
        raise DataError(f"dataset {spec.name!r}: package {package!r} is not installed") from exc
    files = []
    for rel in spec.source["files"]:
        src = root.joinpath(rel)
        if not src.is_file():
            raise DataError(f"dataset {spec.name!r}: package {package!r} has no file {rel!r}")
        dest = raw_dir / Path(rel).name
        with resources.as_file(src) as src_path, atomic_path(dest) as tmp:
            shutil.copyfile(src_path, tmp)
        files.append({"file": dest.name, "origin": f"python package {package}: {rel}"})
    return files


def _fetch_local(spec: DatasetSpec, raw_dir: Path, **_) -> list[dict]:
    src = Path(spec.source["path"])
    if not src.is_file():
        raise DataError(f"dataset {spec.name!r}: local file {str(src)!r} does not exist")
    dest = raw_dir / src.name
    with atomic_path(dest) as tmp:
        shutil.copyfile(src, tmp)
        # The workflow planned this job for the file's content then (kreinbench.pipeline.plan.fetch_entry);
        # a file edited since is not what the job's params say: refuse rather than mix the two.
        expected = spec.source.get("sha256")
        if expected is not None and sha256_file(tmp) != expected:
            raise DataError(f"dataset {spec.name!r}: local file {str(src)!r} changed while the workflow ran "
                            f"(sha256 {sha256_file(tmp)}, planned for {expected}): run the command again")
    return [{"file": dest.name, "origin": f"local file {src.resolve()}"}]


def _fetch_synthetic(spec: DatasetSpec, raw_dir: Path, **_) -> list[dict]:
    name = spec.source["generator"]
    if name not in synthetic.GENERATORS:
        raise DataError(f"dataset {spec.name!r}: unknown synthetic generator {name!r}")
    params = spec.source.get("params", {})
    table = synthetic.GENERATORS[name](**params)
    dest = raw_dir / f"{name}.csv"
    with atomic_path(dest) as tmp:
        np.savetxt(tmp, table, delimiter=",", fmt="%.17g")
    return [{"file": dest.name, "origin": f"synthetic generator {name} with {params}"}]


def _fetch_url(spec: DatasetSpec, raw_dir: Path, *, mirror: str | None, policy: DownloadPolicy) -> list[dict]:
    files = []
    for entry in spec.source["files"]:
        got = download_file(raw_dir / entry["name"], sha256=entry["sha256"], urls=list(entry.get("urls", [])),
                            mirror=mirror, mirror_path=entry.get("mirror"), dataset=spec.name, policy=policy)
        files.append({"file": entry["name"], "origin": got["origin"], "pinned": entry["sha256"] is not None})
    return files


_FETCHERS = {"package": _fetch_package, "local": _fetch_local, "synthetic": _fetch_synthetic, "url": _fetch_url}


def fetch_dataset(spec: DatasetSpec, manifest_path: str | Path, *, mirror: str | None = None,
                  policy: DownloadPolicy = DownloadPolicy()) -> dict:
    """Fetch ``spec``'s raw files next to ``manifest_path`` and write the manifest.

    ``mirror`` (else ``$KREINBENCH_MIRROR``) is tried before the canonical URLs of ``url``
    sources; see :func:`kreinbench.data.download.download_file`.
    """
    manifest_path = Path(manifest_path)
    raw_dir = manifest_path.parent
    with _staging(raw_dir) as staging:
        files = _FETCHERS[spec.source["type"]](spec, staging, mirror=resolve_mirror(mirror), policy=policy)
        for entry in files:
            path = staging / entry["file"]
            entry["sha256"] = sha256_file(path)
            entry["size"] = path.stat().st_size
        for entry in files:
            os.replace(staging / entry["file"], raw_dir / entry["file"])
    manifest = {"dataset": spec.name, "source": spec.source, "files": files}
    write_text_atomic(manifest_path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


@contextlib.contextmanager
def _staging(raw_dir: Path):
    """A fresh folder inside ``raw_dir`` that the files are fetched into and then moved from; a
    fetch that fails (or was killed: the next one clears it) leaves ``raw_dir`` as it was, with no
    copy of a file of it, and removes ``raw_dir`` itself if it made it."""
    made = not raw_dir.exists()
    staging = raw_dir / STAGING
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if made:
            shutil.rmtree(raw_dir, ignore_errors=True)
        raise
    staging.rmdir()


def read_manifest(manifest_path: str | Path) -> dict:
    """Read a manifest and check that every file it lists is still there, unchanged."""
    manifest_path = Path(manifest_path)
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["files"]:
        path = manifest_path.parent / entry["file"]
        if not path.is_file():
            raise DataError(f"dataset {manifest['dataset']!r}: raw file {str(path)!r} is missing")
        digest = sha256_file(path)
        if digest != entry["sha256"]:
            raise DataError(
                f"dataset {manifest['dataset']!r}: raw file {str(path)!r} has sha256 {digest}, "
                f"manifest says {entry['sha256']}"
            )
    return manifest
