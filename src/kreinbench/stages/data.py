"""Stages `fetch` and `split`."""

from __future__ import annotations

import logging

from kreinbench.data.fetch import fetch_dataset, read_manifest
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import spec_from_entry
from kreinbench.data.split import split_dataset, write_split
from kreinbench.errors import DataError

log = logging.getLogger(__name__)


def fetch(snakemake) -> None:
    spec = spec_from_entry(snakemake.wildcards.dataset, snakemake.params.entry)
    # The mirror (a directory laid out like ../shared/datasets or a base URL, tried before the
    # canonical URLs; unset: $KREINBENCH_MIRROR) is read from the config, not passed as a rule
    # parameter: the files are pinned by sha256, so where they come from must not make Snakemake
    # rerun the fetch and everything downstream.
    try:
        manifest = fetch_dataset(spec, snakemake.output.manifest, mirror=snakemake.config.get("mirror"))
    except DataError as err:
        substitute = snakemake.config.get("offline_substitutes", {}).get(spec.name)
        if substitute is None:
            raise
        raise DataError(f"{err}\nWithout network, add `--config offline=true`: the config's offline_substitutes "
                        f"then puts {substitute['dataset']!r} in {spec.name!r}'s place") from err
    for entry in manifest["files"]:
        log.info("fetched %s (%d bytes, sha256 %s) from %s", entry["file"], entry["size"], entry["sha256"], entry["origin"])


def split(snakemake) -> None:
    dataset, rep = snakemake.wildcards.dataset, int(snakemake.wildcards.rep)
    spec = spec_from_entry(dataset, snakemake.params.entry)
    manifest = read_manifest(snakemake.input.manifest)
    raw_dir = snakemake.input.manifest.rsplit("/", 1)[0]
    data = parse_dataset(spec, raw_dir, [f["file"] for f in manifest["files"]])
    result = split_dataset(data, spec.split, dataset=dataset, rep=rep, base_seed=snakemake.params.seed)
    write_split(result, snakemake.output.split, provenance={"files": manifest["files"], "source": manifest["source"]})
    log.info("%s rep %d (%s split): %d train / %d test points, %d features, seed %d", dataset, rep,
             spec.split["protocol"], result.y_train.size, result.y_test.size, result.X_train.shape[1],
             result.attrs["seed"])
