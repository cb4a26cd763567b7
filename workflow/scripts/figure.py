"""Snakemake script of rule `figure`: a thin wrapper around kreinbench.stages.report.figure."""

from kreinbench.stages.report import figure
from kreinbench.stages.runner import run_stage

run_stage(snakemake, figure)  # noqa: F821 (injected by Snakemake)
