# Ying, Campbell and Girolami (NIPS'09) Table 3 and Fig. 1 from the tidy records of rule `table`.
# Which of them a config asks for (key papers.ying, and papers.ying.fig1), and their files:
# kreinbench.pipeline.paper_targets; their settings: kreinbench.pipeline.plan_ying.
import kreinbench.pipeline.plan_ying as plan_ying


rule ying_table3:
    input:
        runs=paths.RUNS,
        paper="workflow/paper_values/ying_table3.csv",
    output:
        **registry.outputs("ying_table3"),
    log:
        paths.log("ying_table3"),
    benchmark:
        paths.benchmark("ying_table3")
    conda:
        "../envs/kreinbench.yaml"
    params:
        names=plan.paper_names(config, "ying"),
        datasets=config["datasets"],
        methods=list(plan_ying.methods(config)),
    script:
        "../scripts/ying_table3.py"


rule ying_fig1:
    input:
        history=paths.HISTORY,
        runs=paths.RUNS,
    output:
        png=report(
            registry.path("ying_fig1", "png"),
            caption="../report/ying_fig1.rst",
            category=registry.category("ying_fig1"),
            subcategory="Figures",
            labels=registry.labels("ying_fig1"),
        ),
        pdf=registry.path("ying_fig1", "pdf"),
    log:
        paths.log("ying_fig1"),
    benchmark:
        paths.benchmark("ying_fig1")
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=plan_ying.fig1_datasets(config),
        methods=plan_ying.methods(config),
    script:
        "../scripts/ying_fig1.py"
