"""Snakemake script of rule `environment`: a thin wrapper around kreinbench.pipeline.environment."""

from kreinbench.pipeline.environment import environment_stage
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, environment_stage)  # noqa: F821 (injected by Snakemake)
