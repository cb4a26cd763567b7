"""Snakemake script of rule `dank_fig4`: a thin wrapper around kreinbench.pipeline.stages.dank_figures.dank_fig4."""

from kreinbench.pipeline.stages.dank_figures import dank_fig4
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, dank_fig4)  # noqa: F821 (injected by Snakemake)
