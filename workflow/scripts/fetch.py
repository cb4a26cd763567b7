"""Snakemake script of rule `fetch`: a thin wrapper around kreinbench.pipeline.stages.data.fetch."""

from kreinbench.pipeline.stages.data import fetch
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, fetch)  # noqa: F821 (injected by Snakemake)
