"""Snakemake script of rule `spectrum`: a thin wrapper around kreinbench.stages.kernel.spectrum."""

from kreinbench.stages.kernel import spectrum
from kreinbench.stages.runner import run_stage

run_stage(snakemake, spectrum)  # noqa: F821 (injected by Snakemake)
