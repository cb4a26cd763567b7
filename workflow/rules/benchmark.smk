# The benchmark across methods (key papers.benchmark; stage kreinbench.pipeline.stages.benchmark):
# from rule table's tidy runs, every method's accuracy and training time per dataset with the
# average ranks and the Friedman test, and Nemenyi's critical-difference diagram.


rule benchmark:
    input:
        runs=paths.RUNS,
    output:
        csv=registry.path("benchmark", "csv"),
        md=registry.path("benchmark", "md"),
        png=report(
            registry.path("benchmark", "png"),
            caption="../report/benchmark.rst",
            category=registry.category("benchmark"),
            subcategory="Figures",
            labels=registry.labels("benchmark", "critical-difference diagram"),
        ),
        pdf=registry.path("benchmark", "pdf"),
    log:
        paths.log("benchmark"),
    benchmark:
        paths.benchmark("benchmark")
    conda:
        "../envs/kreinbench.yaml"
    threads: job_resources.threads("figure")
    resources:
        mem_mb=job_resources.mem_mb("figure"),
        runtime=job_resources.runtime("figure"),
    params:
        methods=plan.table_methods(config),
        labels=plan.method_labels(config, list(config["methods"])),
        cv_folds=config["cv_folds"],
        alpha=lambda wildcards: (config["papers"]["benchmark"] or {}).get("alpha", 0.05),
    script:
        "../scripts/benchmark.py"
