"""Snakemake script of rule `scale_fig`: a thin wrapper around kreinbench.pipeline.stages.scale.figure."""

from kreinbench.pipeline.stages.runner import run_stage
from kreinbench.pipeline.stages.scale import figure

run_stage(snakemake, figure)  # noqa: F821 (injected by Snakemake)
