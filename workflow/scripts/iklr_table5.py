"""Snakemake script of rule `iklr_table5`: a thin wrapper around kreinbench.pipeline.stages.paper_tables.iklr_table5."""

from kreinbench.pipeline.stages.paper_tables import iklr_table5
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, iklr_table5)  # noqa: F821 (injected by Snakemake)
