"""Snakemake script of rule `dank_table4`: a thin wrapper around kreinbench.pipeline.stages.dank_table4.dank_table4."""

from kreinbench.pipeline.stages.dank_table4 import dank_table4
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, dank_table4)  # noqa: F821 (injected by Snakemake)
