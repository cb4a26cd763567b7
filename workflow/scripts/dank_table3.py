"""Snakemake script of rule `dank_table3`: a thin wrapper around kreinbench.pipeline.stages.paper_dank.dank_table3."""

from kreinbench.pipeline.stages.paper_dank import dank_table3
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, dank_table3)  # noqa: F821 (injected by Snakemake)
