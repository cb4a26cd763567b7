"""Stages `kernel` and `spectrum`."""

from __future__ import annotations

import logging
import time

from kreinbench.atomic import sha256_file
from kreinbench.data.split import read_split
from kreinbench.linalg import cache
from kreinbench.linalg.implicit_kernel import ImplicitKernel
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.linalg.spectrum import check_symmetric_kernel, compute_spectrum

log = logging.getLogger(__name__)


def kernel(*, split: str, specs: dict[str, dict], kernels: list[str]) -> None:
    """Every instance of one config kernel on one split (``specs``: spec by instance id), each
    into its own cache file (``kernels``, in the same order), one after another so that the job
    holds one instance's kernels at a time."""
    data = read_split(split)
    split_sha256 = sha256_file(split)
    for (instance, spec), path in zip(specs.items(), kernels, strict=True):
        params = resolve_params(spec, data.X_train.shape[1], split_seed=int(data.attrs["seed"]))
        attrs = {"kernel": params, "instance": instance, "split_sha256": split_sha256}
        if spec.get("storage") == cache.IMPLICIT:
            # Its fits compute the entries they need from the split's features.
            ImplicitKernel(params, data.X_train, name=f"kernel {instance!r}")  # a kernel that cannot be implicit fails here
            n, n_test = data.X_train.shape[0], data.X_test.shape[0]
            cache.write_implicit_kernel(path, (n, n), (n_test, n), attrs)
            log.info("%s: implicit, %d x %d train and %d x %d test entries computed where used", params, n, n,
                     n_test, n)
            continue
        start = time.perf_counter()
        K_train, K_test = kernel_matrices(params, data.X_train, data.X_test)
        log.info("%s: K_train %s, K_test %s in %.2f s", params, K_train.shape, K_test.shape, time.perf_counter() - start)
        cache.write_kernel(path, K_train, K_test, attrs, compression=spec.get("compression"))
        del K_train, K_test


def spectrum(*, kernel: str, instance: str, kind: str, seed: int, spectrum: str) -> None:
    """The ``kind`` of spectrum (:mod:`kreinbench.linalg.spectrum`) of the train kernel of instance
    ``instance`` in cache file ``kernel``, written to ``spectrum``."""
    K_train, attrs = cache.read_kernel_part(kernel, "train", {"instance": instance})
    # Checked here too, so that the error names the file (compute_spectrum does not know it).
    check_symmetric_kernel(K_train, f"train kernel of HDF5 file {kernel!r}")
    start = time.perf_counter()
    result = compute_spectrum(K_train, kind, seed=int(seed))
    log.info("%s spectrum of %d x %d in %.2f s: %s", kind, *K_train.shape, time.perf_counter() - start,
             result.summary())
    cache.write_spectrum_object(spectrum, result, {
        "kernel": attrs["kernel"],
        "instance": instance,
        # the digest of the matrix it decomposes: the fit that reads both checks they belong together
        "kernel_train_sha256": attrs["K_train_sha256"],
    })
