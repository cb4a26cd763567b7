"""Snakemake script of rule `table_html`: a thin wrapper around kreinbench.pipeline.stages.table_html.table_html."""

from kreinbench.pipeline.stages.runner import run_stage
from kreinbench.pipeline.stages.table_html import table_html

run_stage(snakemake, table_html)  # noqa: F821 (injected by Snakemake)
