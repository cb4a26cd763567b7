"""Snakemake script of rule `iklr_fig2`: a thin wrapper around kreinbench.pipeline.stages.paper_figures.iklr_fig2."""

from kreinbench.pipeline.stages.paper_figures import iklr_fig2
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, iklr_fig2)  # noqa: F821 (injected by Snakemake)
