"""Snakemake script of rule `dank_clowns`: a thin wrapper around kreinbench.stages.dank_figures.dank_clowns."""

from kreinbench.stages.dank_figures import dank_clowns
from kreinbench.stages.runner import run_stage

run_stage(snakemake, dank_clowns)  # noqa: F821 (injected by Snakemake)
