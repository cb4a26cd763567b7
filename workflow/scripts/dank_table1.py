"""Snakemake script of rule `dank_table1`: a thin wrapper around kreinbench.pipeline.stages.paper_dank.dank_table1."""

from kreinbench.pipeline.stages.paper_dank import dank_table1
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, dank_table1)  # noqa: F821 (injected by Snakemake)
