"""Snakemake script of rules `fit_batch_<dataset>`: a thin wrapper around kreinbench.pipeline.stages.fit.fit_batch."""

from kreinbench.pipeline.stages.fit import fit_batch
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, fit_batch)  # noqa: F821 (injected by Snakemake)
