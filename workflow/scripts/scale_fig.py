"""Snakemake script of rule `scale_fig`: a thin wrapper around kreinbench.stages.scale.figure."""

from kreinbench.stages.runner import run_stage
from kreinbench.stages.scale import figure

run_stage(snakemake, figure)  # noqa: F821 (injected by Snakemake)
