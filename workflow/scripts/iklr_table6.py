"""Snakemake script of rule `iklr_table6`: a thin wrapper around kreinbench.pipeline.stages.paper_tables.iklr_table6."""

from kreinbench.pipeline.stages.paper_tables import iklr_table6
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, iklr_table6)  # noqa: F821 (injected by Snakemake)
