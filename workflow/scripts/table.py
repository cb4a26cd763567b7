"""Snakemake script of rule `table`: a thin wrapper around kreinbench.pipeline.stages.report.table."""

from kreinbench.pipeline.stages.report import table
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, table)  # noqa: F821 (injected by Snakemake)
