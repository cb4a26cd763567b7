"""Snakemake script of rule `scale_point`: a thin wrapper around kreinbench.pipeline.stages.scale.point."""

from kreinbench.pipeline.stages.runner import run_stage
from kreinbench.pipeline.stages.scale import point

run_stage(snakemake, point)  # noqa: F821 (injected by Snakemake)
