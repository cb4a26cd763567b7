"""Snakemake script of rule `ying_fig1`: a thin wrapper around kreinbench.stages.paper_ying.ying_fig1."""

from kreinbench.stages.paper_ying import ying_fig1
from kreinbench.stages.runner import run_stage

run_stage(snakemake, ying_fig1)  # noqa: F821 (injected by Snakemake)
