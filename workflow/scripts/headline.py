"""Snakemake script of rule `headline`: a thin wrapper around kreinbench.pipeline.stages.table_html.headline."""

from kreinbench.pipeline.stages.runner import run_stage
from kreinbench.pipeline.stages.table_html import headline

run_stage(snakemake, headline)  # noqa: F821 (injected by Snakemake)
