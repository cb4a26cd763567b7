# DANK (JMLR) Table 1, Table 3, Fig. 5, Fig. 7 and Fig. 8 from the tidy records of rule `table`
# (settings: kreinbench.pipeline.plan_dank). Which of them a config asks for (keys papers.dank.<target>),
# and their files: kreinbench.pipeline.paper_targets.
import kreinbench.pipeline.plan_dank as plan_dank


rule dank_table1:
    input:
        runs=paths.RUNS,
        paper="workflow/paper_values/dank_table1.csv",
    output:
        **registry.outputs("dank_table1"),
    log:
        paths.log("dank_table1"),
    benchmark:
        paths.benchmark("dank_table1")
    conda:
        "../envs/kreinbench.yaml"
    params:
        settings=lambda wildcards: plan_dank.table1_settings(config),
    script:
        "../scripts/dank_table1.py"


rule dank_table3:
    input:
        runs=paths.RUNS,
        paper="workflow/paper_values/dank_table3.csv",
    output:
        **registry.outputs("dank_table3"),
    log:
        paths.log("dank_table3"),
    benchmark:
        paths.benchmark("dank_table3")
    conda:
        "../envs/kreinbench.yaml"
    params:
        settings=lambda wildcards: plan_dank.table3_settings(config),
    script:
        "../scripts/dank_table3.py"


# Fig. 5: the paper's Table 1 DANK values (its τ = 0.01) are drawn beside our bars.
rule dank_fig5:
    input:
        runs=paths.RUNS,
        paper="workflow/paper_values/dank_table1.csv",
    output:
        png=report(
            registry.path("dank_fig5", "png"),
            caption="../report/dank_fig5.rst",
            category=registry.category("dank_fig5"),
            subcategory="Figures",
            labels=registry.labels("dank_fig5"),
        ),
        pdf=registry.path("dank_fig5", "pdf"),
    log:
        paths.log("dank_fig5"),
    benchmark:
        paths.benchmark("dank_fig5")
    conda:
        "../envs/kreinbench.yaml"
    params:
        settings=lambda wildcards: plan_dank.fig5_settings(config),
    script:
        "../scripts/dank_fig5.py"


rule dank_fig7:
    input:
        runs=paths.RUNS,
    output:
        png=report(
            registry.path("dank_fig7", "png"),
            caption="../report/dank_fig7.rst",
            category=registry.category("dank_fig7"),
            subcategory="Figures",
            labels=registry.labels("dank_fig7"),
        ),
        pdf=registry.path("dank_fig7", "pdf"),
    log:
        paths.log("dank_fig7"),
    benchmark:
        paths.benchmark("dank_fig7")
    conda:
        "../envs/kreinbench.yaml"
    params:
        settings=lambda wildcards: plan_dank.fig7_settings(config),
    script:
        "../scripts/dank_fig7.py"


rule dank_fig8:
    input:
        runs=paths.RUNS,
    output:
        png=report(
            registry.path("dank_fig8", "png"),
            caption="../report/dank_fig8.rst",
            category=registry.category("dank_fig8"),
            subcategory="Figures",
            labels=registry.labels("dank_fig8"),
        ),
        pdf=registry.path("dank_fig8", "pdf"),
    log:
        paths.log("dank_fig8"),
    benchmark:
        paths.benchmark("dank_fig8")
    conda:
        "../envs/kreinbench.yaml"
    params:
        settings=lambda wildcards: plan_dank.fig8_settings(config),
    script:
        "../scripts/dank_fig8.py"
