"""Snakemake script of rule `iklr_fig_init`: a thin wrapper around kreinbench.pipeline.stages.paper_figures.iklr_fig_init."""

from kreinbench.pipeline.stages.paper_figures import iklr_fig_init
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, iklr_fig_init)  # noqa: F821 (injected by Snakemake)
