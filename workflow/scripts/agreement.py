"""Snakemake script of rule `agreement`: a thin wrapper around kreinbench.stages.agreement."""

from kreinbench.stages.agreement import agreement
from kreinbench.stages.runner import run_stage

run_stage(snakemake, agreement)  # noqa: F821 (injected by Snakemake)
