"""Snakemake script of rule `headline`: a thin wrapper around kreinbench.stages.table_html.headline."""

from kreinbench.stages.runner import run_stage
from kreinbench.stages.table_html import headline

run_stage(snakemake, headline)  # noqa: F821 (injected by Snakemake)
