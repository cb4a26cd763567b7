"""Snakemake script of rule `scale_point`: a thin wrapper around kreinbench.stages.scale.point."""

from kreinbench.stages.runner import run_stage
from kreinbench.stages.scale import point

run_stage(snakemake, point)  # noqa: F821 (injected by Snakemake)
