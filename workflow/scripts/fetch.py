"""Snakemake script of rule `fetch`: a thin wrapper around kreinbench.stages.data.fetch."""

from kreinbench.stages.data import fetch
from kreinbench.stages.runner import run_stage

run_stage(snakemake, fetch)  # noqa: F821 (injected by Snakemake)
