"""Snakemake script of rule `dank_fig8`: a thin wrapper around kreinbench.pipeline.stages.paper_dank.dank_fig8."""

from kreinbench.pipeline.stages.paper_dank import dank_fig8
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, dank_fig8)  # noqa: F821 (injected by Snakemake)
