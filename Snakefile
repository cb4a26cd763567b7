# kreinbench: learning with indefinite kernels. This file only wires the stages together;
# every rule lives in workflow/rules/ and all logic in src/kreinbench/.
from snakemake.utils import min_version

import kreinbench.pipeline.plan as plan

min_version("9.0")


# config.yaml is the default run; a `--configfile` replaces it rather than being merged into it key
# by key (Snakemake's default), so a paper config runs exactly the methods and kernels it lists.
if not workflow.overwrite_configfiles:

    configfile: "config.yaml"


# Every violation of the schema at once (with the near names meant), not only the first.
plan.check_schema(config, f"{workflow.basedir}/workflow/schemas/config.schema.yaml")


# The report's first page: what the run was (datasets, methods, protocol).
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/kernels.smk"
include: "workflow/rules/fit.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/paper_iklr.smk"
include: "workflow/rules/paper_ying.smk"
include: "workflow/rules/paper_dank.smk"
include: "workflow/rules/paper_dank_figures.smk"
include: "workflow/rules/scale.smk"
include: "workflow/rules/benchmark.smk"


onstart:
    run_claim.claim(RUN_CONFIG)


onsuccess:
    print(where_results_are(workflow.dag_settings.targets))


rule all:
    default_target: True
    input:
        rendered_tables(final_targets(), paper_targets(), agreement_targets()),
        headline_targets(),


# Only the papers' tables and figures of the config (with what they need), e.g.
# `snakemake --cores all --configfile workflow/configs/paper-dank.yaml all_paper_targets`.
rule all_paper_targets:
    input:
        rendered_tables(
            paper_targets(), agreement_targets(), ["results/environment.tsv"]
        ),
