"""Snakemake script of rule `split`: a thin wrapper around kreinbench.stages.data.split."""

from kreinbench.stages.data import split
from kreinbench.stages.runner import run_stage

run_stage(snakemake, split)  # noqa: F821 (injected by Snakemake)
