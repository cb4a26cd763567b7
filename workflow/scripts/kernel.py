"""Snakemake script of the `kernel_<config kernel>` rules: a thin wrapper around kreinbench.stages.kernel.kernel."""

from kreinbench.stages.kernel import kernel
from kreinbench.stages.runner import run_stage

run_stage(snakemake, kernel)  # noqa: F821 (injected by Snakemake)
