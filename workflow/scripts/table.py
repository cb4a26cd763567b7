"""Snakemake script of rule `table`: a thin wrapper around kreinbench.stages.report.table."""

from kreinbench.stages.report import table
from kreinbench.stages.runner import run_stage

run_stage(snakemake, table)  # noqa: F821 (injected by Snakemake)
