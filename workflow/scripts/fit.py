"""Snakemake script of rule `fit`: a thin wrapper around kreinbench.pipeline.stages.fit.fit."""

from kreinbench.pipeline.stages.fit import fit
from kreinbench.pipeline.stages.runner import run_stage

run_stage(snakemake, fit)  # noqa: F821 (injected by Snakemake)
