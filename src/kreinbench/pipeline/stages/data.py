"""Stages `fetch` and `split`."""

from __future__ import annotations

import logging

from kreinbench.data.fetch import fetch_dataset, read_manifest
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import spec_from_entry
from kreinbench.data.split import split_dataset, write_split
from kreinbench.errors import DataError

log = logging.getLogger(__name__)


def fetch(*, dataset: str, entry: dict, manifest: str, mirror: str | None = None,
          offline_substitutes: dict | None = None) -> None:
    """Download (or copy from ``mirror``) the raw files of ``dataset`` (its registry ``entry``),
    checked against their sha256, and write their ``manifest``.

    ``mirror`` (a directory laid out like ../shared/datasets or a base URL, tried before the
    canonical URLs; unset: $KREINBENCH_MIRROR) and ``offline_substitutes`` (named in the error when
    the download fails) come from the config, not from rule params: the files are pinned by
    sha256, so where they come from must not make Snakemake rerun the fetch and everything
    downstream."""
    spec = spec_from_entry(dataset, entry)
    try:
        written = fetch_dataset(spec, manifest, mirror=mirror)
    except DataError as err:
        substitute = (offline_substitutes or {}).get(spec.name)
        if substitute is None:
            raise
        raise DataError(f"{err}\nWithout network, add `--config offline=true`: the config's offline_substitutes "
                        f"then puts {substitute['dataset']!r} in {spec.name!r}'s place") from err
    for file in written["files"]:
        log.info("fetched %s (%d bytes, sha256 %s) from %s", file["file"], file["size"], file["sha256"], file["origin"])


def split(*, dataset: str, rep: int, entry: dict, seed: int, manifest: str, split: str) -> None:
    """Parse the raw files of ``dataset`` (listed in its ``manifest``) and write repetition
    ``rep``'s train/test split (its seed derived from the config's ``seed``) to ``split``."""
    spec = spec_from_entry(dataset, entry)
    files = read_manifest(manifest)
    raw_dir = manifest.rsplit("/", 1)[0]
    data = parse_dataset(spec, raw_dir, [f["file"] for f in files["files"]])
    result = split_dataset(data, spec.split, dataset=dataset, rep=rep, base_seed=seed)
    write_split(result, split, provenance={"files": files["files"], "source": files["source"]})
    log.info("%s rep %d (%s split): %d train / %d test points, %d features, seed %d", dataset, rep,
             spec.split["protocol"], result.y_train.size, result.y_test.size, result.X_train.shape[1],
             result.attrs["seed"])
