"""Snakemake script of rule `fit`: a thin wrapper around kreinbench.stages.fit.fit."""

from kreinbench.stages.fit import fit
from kreinbench.stages.runner import run_stage

run_stage(snakemake, fit)  # noqa: F821 (injected by Snakemake)
