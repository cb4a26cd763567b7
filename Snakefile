# kreinbench: learning with indefinite kernels. This file only wires the stages together;
# every rule lives in workflow/rules/ and all logic in src/kreinbench/.
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/kernels.smk"
include: "workflow/rules/fit.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/paper_iklr.smk"


rule all:
    input:
        final_targets(),
        plan_iklr.study_targets(config),
    default_target: True
