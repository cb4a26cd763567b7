"""Snakemake script of rule `benchmark`: a thin wrapper around kreinbench.pipeline.stages.benchmark.benchmark."""

from kreinbench.pipeline.stages.benchmark import benchmark
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, benchmark)  # noqa: F821 (injected by Snakemake)
