"""Snakemake script of rule `figure`: a thin wrapper around kreinbench.pipeline.stages.report.figure."""

from kreinbench.pipeline.stages.report import figure
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, figure)  # noqa: F821 (injected by Snakemake)
