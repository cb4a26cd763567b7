"""Snakemake script of rule `spectrum`: a thin wrapper around kreinbench.pipeline.stages.kernel.spectrum."""

from kreinbench.pipeline.stages.kernel import spectrum
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, spectrum)  # noqa: F821 (injected by Snakemake)
