"""Snakemake script of rule `dank_clowns`: a thin wrapper around kreinbench.pipeline.stages.dank_figures.dank_clowns."""

from kreinbench.pipeline.stages.dank_figures import dank_clowns
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, dank_clowns)  # noqa: F821 (injected by Snakemake)
