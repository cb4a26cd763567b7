"""Snakemake script of rule `ying_fig1`: a thin wrapper around kreinbench.pipeline.stages.paper_ying.ying_fig1."""

from kreinbench.pipeline.stages.paper_ying import ying_fig1
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, ying_fig1)  # noqa: F821 (injected by Snakemake)
