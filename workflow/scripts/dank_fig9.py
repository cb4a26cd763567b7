"""Snakemake script of rule `dank_fig9`: a thin wrapper around kreinbench.stages.dank_figures.dank_fig9."""

from kreinbench.stages.dank_figures import dank_fig9
from kreinbench.stages.runner import run_stage

run_stage(snakemake, dank_fig9)  # noqa: F821 (injected by Snakemake)
