"""Snakemake script of rule `iklr_table4`: a thin wrapper around kreinbench.pipeline.stages.paper_tables.iklr_table4."""

from kreinbench.pipeline.stages.paper_tables import iklr_table4
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, iklr_table4)  # noqa: F821 (injected by Snakemake)
