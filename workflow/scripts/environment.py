"""Snakemake script of rule `environment`: a thin wrapper around kreinbench.environment."""

from kreinbench.environment import environment_stage
from kreinbench.stages.runner import run_stage

run_stage(snakemake, environment_stage)  # noqa: F821 (injected by Snakemake)
