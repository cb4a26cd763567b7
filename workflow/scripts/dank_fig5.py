"""Snakemake script of rule `dank_fig5`: a thin wrapper around kreinbench.pipeline.stages.paper_dank.dank_fig5."""

from kreinbench.pipeline.stages.paper_dank import dank_fig5
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, dank_fig5)  # noqa: F821 (injected by Snakemake)
