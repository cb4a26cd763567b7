# The scale study (key papers.scale; plan: kreinbench.pipeline.plan_scale): accuracy, fit time and peak
# memory against the training size, one job per dataset × variant × n (its own process, so its own
# peak memory), gathered into results/tables/scale.{csv,md} and figures/scale.{png,pdf}.
import kreinbench.pipeline.plan_scale as plan_scale


rule scale_point:
    input:
        split=lambda wildcards: paths.split_path(wildcards.dataset, 1),
    output:
        out=paths.scale_point_path("{dataset}", "{variant}", "{n_train}"),
    log:
        paths.log("scale_point", "{dataset}/{variant}/n{n_train}"),
    benchmark:
        paths.benchmark("scale_point", "{dataset}/{variant}/n{n_train}")
    wildcard_constraints:
        variant="[a-z0-9-]+",
        n_train=r"\d+",
    conda:
        "../envs/kreinbench.yaml"
    threads: job_resources.threads("scale_point")
    resources:
        mem_mb=job_resources.mem_mb("scale_point"),
        runtime=job_resources.runtime("scale_point"),
    params:
        kernel=lambda wildcards: plan.canonical(
            config["kernels"][plan_scale.block(config)["kernel"]]
        ),
        seed=config["seed"],
        lam=lambda wildcards: plan_scale.block(config)["lam"],
        C=lambda wildcards: plan_scale.block(config)["C"],
    script:
        "../scripts/scale_point.py"


rule scale:
    input:
        points=plan_scale.points(config),
    output:
        **registry.outputs("scale"),
    log:
        paths.log("scale"),
    benchmark:
        paths.benchmark("scale")
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/scale.py"


rule scale_fig:
    input:
        table_csv=registry.path("scale", "csv"),
    output:
        png=report(
            registry.path("scale_fig", "png"),
            caption="../report/scale_fig.rst",
            category=registry.category("scale_fig"),
            subcategory="Figures",
            labels=registry.labels("scale_fig"),
        ),
        pdf=registry.path("scale_fig", "pdf"),
    log:
        paths.log("scale_fig"),
    benchmark:
        paths.benchmark("scale_fig")
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/scale_fig.py"
