"""Snakemake script of rule `dank_fig2`: a thin wrapper around kreinbench.pipeline.stages.dank_figures.dank_fig2."""

from kreinbench.pipeline.stages.dank_figures import dank_fig2
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, dank_fig2)  # noqa: F821 (injected by Snakemake)
