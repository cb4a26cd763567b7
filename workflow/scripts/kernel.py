"""Snakemake script of the `kernel_<config kernel>` rules: a thin wrapper around kreinbench.pipeline.stages.kernel.kernel."""

from kreinbench.pipeline.stages.kernel import kernel
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, kernel)  # noqa: F821 (injected by Snakemake)
