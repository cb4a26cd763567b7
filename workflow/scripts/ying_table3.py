"""Snakemake script of rule `ying_table3`: a thin wrapper around kreinbench.pipeline.stages.paper_ying.ying_table3."""

from kreinbench.pipeline.stages.paper_ying import ying_table3
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, ying_table3)  # noqa: F821 (injected by Snakemake)
