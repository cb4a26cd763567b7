"""Snakemake script of rule `iklr_mm17_fig1`: a thin wrapper around kreinbench.pipeline.stages.paper_figures.iklr_mm17_fig1."""

from kreinbench.pipeline.stages.paper_figures import iklr_mm17_fig1
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, iklr_mm17_fig1)  # noqa: F821 (injected by Snakemake)
