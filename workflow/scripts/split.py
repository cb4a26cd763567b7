"""Snakemake script of rule `split`: a thin wrapper around kreinbench.pipeline.stages.data.split."""

from kreinbench.pipeline.stages.data import split
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, split)  # noqa: F821 (injected by Snakemake)
