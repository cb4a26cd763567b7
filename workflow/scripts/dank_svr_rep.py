"""Snakemake script of rule `dank_svr_rep`: a thin wrapper around kreinbench.pipeline.stages.dank_table4.dank_svr_rep."""

from kreinbench.pipeline.stages.dank_table4 import dank_svr_rep
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, dank_svr_rep)  # noqa: F821 (injected by Snakemake)
