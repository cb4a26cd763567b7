"""Snakemake script of rule `agreement`: a thin wrapper around kreinbench.pipeline.stages.agreement."""

from kreinbench.pipeline.stages.agreement import agreement
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, agreement)  # noqa: F821 (injected by Snakemake)
