"""Snakemake script of rule `scale`: a thin wrapper around kreinbench.pipeline.stages.scale.table."""

from kreinbench.pipeline.stages.runner import run_stage
from kreinbench.pipeline.stages.scale import table

run_stage(snakemake, table)  # noqa: F821 (injected by Snakemake)
