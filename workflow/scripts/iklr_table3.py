"""Snakemake script of rule `iklr_table3`: a thin wrapper around kreinbench.pipeline.stages.paper_tables.iklr_table3."""

from kreinbench.pipeline.stages.paper_tables import iklr_table3
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, iklr_table3)  # noqa: F821 (injected by Snakemake)
