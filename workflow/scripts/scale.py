"""Snakemake script of rule `scale`: a thin wrapper around kreinbench.stages.scale.table."""

from kreinbench.stages.runner import run_stage
from kreinbench.stages.scale import table

run_stage(snakemake, table)  # noqa: F821 (injected by Snakemake)
