import os
import sys
from pathlib import Path

import kreinbench.pipeline.paper_checks as paper_checks
import kreinbench.pipeline.paper_targets as registry
import kreinbench.pipeline.paths as paths
import kreinbench.pipeline.plan as plan
import kreinbench.pipeline.run_claim as run_claim
import kreinbench.pipeline.scheduler_timer as scheduler_timer
from kreinbench.pipeline.resources import JobResources, check_resource_variables
from kreinbench.pipeline.environment import software_versions

# Snakemake's scheduler adds a re-evaluation timer chain at every extra scheduling pass, each lasting
# while jobs are ready (its main process then takes a growing share of a core): one pending timer
# instead (scheduler_timer's docstring).
scheduler_timer.install()

# `--config offline=true`: datasets with no offline source are replaced by their
# `offline_substitutes`; then `--config scale=small`: the config's `scales.small` (fewer
# repetitions, n capped) applies.
config.update(plan.offline_config(config))
config.update(plan.scaled_config(config))
plan.check_config(config)
paper_checks.check(config)
# The SLURM profile's partition and account come from environment variables: refuse to start
# without them (a dry run too). Checked where jobs are planned and submitted, not again in each
# job on the cluster.
if workflow.is_main_process:
    check_resource_variables(
        {
            name: getattr(value, "raw", value)
            for name, value in (
                workflow.resource_settings.default_resources or {}
            ).items()
        },
        os.environ,
    )
# One config's run per directory: another config's run here is refused before any job.
RUN_CONFIG = run_claim.config_identity(workflow.overwrite_configfiles)
run_claim.check_claim(RUN_CONFIG, reading=run_claim.reads_only(sys.argv))
# mem_mb, runtime (minutes) and threads of every job from its size (kreinbench.pipeline.resources).
job_resources = JobResources(config)


wildcard_constraints:
    dataset="[^/]+",
    method="[^/]+",
    instance="[^/]+",
    rep=r"\d+",


def final_targets():
    # A config of the scale study only fits no methods: no accuracy table.
    targets = rules_table_outputs() if config["methods"] else []
    if plan.convergence_fits(config):
        targets += list(paths.CONVERGENCE.values())
    # The environment record is cheap and every report shows it.
    return targets + [paths.ENVIRONMENT]


def paper_targets():
    """Every paper table and figure the config's `papers` asks for (rule all_paper_targets)."""
    return registry.wanted(config)


def paper_table_csvs():
    """The CSV tables among the paper targets: what rule agreement judges cell by cell."""
    return registry.judged_csvs(config)


def agreement_targets():
    """results/tables/agreement.{csv,md} when the config has paper tables."""
    return list(paths.AGREEMENT.values()) if paper_table_csvs() else []


def where_results_are(targets):
    """The end of a successful run: the tables and figures the run's ``targets`` (rule names or
    files; none: rule all) made or found up to date, and how to get the report (printed by the
    Snakefile's onsuccess).  Tables of this config that another target makes are not listed: they
    may be left from an earlier run and were not checked by this one."""
    targets = set(targets) or {"all"}
    wanted = []
    if "all" in targets:
        wanted += final_targets() + paper_targets() + agreement_targets()
    if "all_paper_targets" in targets:
        wanted += paper_targets() + agreement_targets()
    wanted += [t for t in targets if "/" in t]
    made = [
        t
        for t in dict.fromkeys(wanted)
        if Path(t).exists() and (t.endswith(".md") or t.endswith(".png"))
    ]
    tables = [t for t in made if t.endswith(".md")]
    figures = [t for t in made if t.endswith(".png")]
    lines = ["", "Results of this run:"]
    lines += [f"  tables:  {', '.join(tables)}"] if tables else []
    lines += [f"  figures: {', '.join(figures)}"] if figures else []
    lines += [
        "  (each table also as .csv and .html beside it; tidy records in results/records/)",
        "  report:  .venv/bin/snakemake --report report.html  (add this run's --configfile)",
    ]
    return "\n".join(lines)


def headline_tables():
    """The tables the report's first page shows: accuracy (when the config fits methods) and the
    agreement with the papers (when it has paper tables)."""
    return [
        t
        for t in final_targets() + agreement_targets()
        if t.endswith(("accuracy.md", "agreement.md"))
    ]


def headline_targets():
    return [paths.HEADLINE] if headline_tables() else []


def rendered_tables(*target_lists):
    """The targets of ``target_lists``, plus results/tables/<name>.html beside every Markdown table."""
    targets = [t for targets in target_lists for t in targets]
    return targets + [
        t.removesuffix(".md") + ".html"
        for t in targets
        if t.startswith("results/tables/") and t.endswith(".md")
    ]


def rules_table_outputs():
    return [
        *paths.ACCURACY.values(),
        paths.RUNS,
        paths.HISTORY,
    ]


def fit_inputs(wildcards):
    return plan.fit_inputs(
        config, wildcards.dataset, wildcards.method, int(wildcards.rep)
    )
