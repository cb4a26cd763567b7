"""Every paper's cross-reference checks, run once before the first job: the datasets and methods
each wanted target names exist and are fitted where it needs them; a clear error naming the config
key otherwise. The papers' own blocks are checked with the rest of the config first
(:func:`kreinbench.pipeline.plan.check_config`)."""

from __future__ import annotations

from kreinbench.pipeline import plan_dank, plan_dank_figures, plan_iklr, plan_scale, plan_ying


def check(config: dict) -> None:
    plan_iklr.check_studies(config)
    plan_ying.check(config)
    plan_dank.check_dank_targets(config)
    plan_dank_figures.check(config)
    plan_scale.check(config)
