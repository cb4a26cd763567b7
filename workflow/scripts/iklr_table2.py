"""Snakemake script of rule `iklr_table2`: a thin wrapper around kreinbench.pipeline.stages.paper_tables.iklr_table2."""

from kreinbench.pipeline.stages.paper_tables import iklr_table2
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, iklr_table2)  # noqa: F821 (injected by Snakemake)
