"""Stages `kernel` and `spectrum`."""

from __future__ import annotations

import logging
import time

from kreinbench import cache
from kreinbench.atomic import sha256_file
from kreinbench.data.split import read_split
from kreinbench.kernels import kernel_matrices, resolve_params
from kreinbench.spectrum import check_symmetric_kernel, compute_spectrum

log = logging.getLogger(__name__)


def kernel(snakemake) -> None:
    """Every instance of one config kernel on one split (``params.specs``: spec by instance id), each
    into its own cache file (``output.kernels``, in the same order), one after another so that the
    job holds one instance's kernels at a time."""
    split = read_split(snakemake.input.split)
    split_sha256 = sha256_file(snakemake.input.split)
    for (instance, spec), path in zip(snakemake.params.specs.items(), snakemake.output.kernels, strict=True):
        params = resolve_params(spec, split.X_train.shape[1], split_seed=int(split.attrs["seed"]))
        start = time.perf_counter()
        K_train, K_test = kernel_matrices(params, split.X_train, split.X_test)
        log.info("%s: K_train %s, K_test %s in %.2f s", params, K_train.shape, K_test.shape, time.perf_counter() - start)
        cache.write_kernel(path, K_train, K_test, {"kernel": params, "instance": instance, "split_sha256": split_sha256},
                           compression=spec.get("compression"))
        del K_train, K_test


def spectrum(snakemake) -> None:
    K_train, attrs = cache.read_kernel_part(snakemake.input.kernel, "train", {"instance": snakemake.wildcards.instance})
    # Checked here too, so that the error names the file (compute_spectrum does not know it).
    check_symmetric_kernel(K_train, f"train kernel of HDF5 file {snakemake.input.kernel!r}")
    kind = snakemake.params.kind
    start = time.perf_counter()
    spec = compute_spectrum(K_train, kind, seed=int(snakemake.params.seed))
    log.info("%s spectrum of %d x %d in %.2f s: %s", kind, *K_train.shape, time.perf_counter() - start, spec.summary())
    cache.write_spectrum_object(snakemake.output.spectrum, spec, {
        "kernel": attrs["kernel"],
        "instance": snakemake.wildcards.instance,
        "kernel_sha256": sha256_file(snakemake.input.kernel),
    })
