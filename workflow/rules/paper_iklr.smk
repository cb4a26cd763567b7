# IKLR (TNNLS) and its MM'17 version: Table II from the first splits and the config's TL1 kernel;
# Tables III-VII, Figs. 2-3 and MM'17 Table 2 / Fig. 1 from the tidy records of rule `table`
# (settings: kreinbench.pipeline.plan_iklr). Which of them a config asks for, and their files:
# kreinbench.pipeline.paper_targets (keys papers.iklr.<table> and papers.iklr_mm17.<table>).
import kreinbench.pipeline.plan_iklr as plan_iklr


rule iklr_table2:
    input:
        splits=plan_iklr.table2_splits(config),
        paper="workflow/paper_values/iklr_table2.csv",
    output:
        **registry.outputs("iklr_table2"),
    log:
        paths.log("iklr_table2"),
    benchmark:
        paths.benchmark("iklr_table2")
    conda:
        "../envs/kreinbench.yaml"
    params:
        kernel=lambda wildcards: plan.canonical(plan_iklr.tl1_kernel_spec(config)),
        stand_ins=plan.stand_ins(config),
    script:
        "../scripts/iklr_table2.py"


rule iklr_table3:
    input:
        runs=paths.RUNS,
        paper="workflow/paper_values/iklr_table3.csv",
    output:
        **registry.outputs("iklr_table3"),
    log:
        paths.log("iklr_table3"),
    benchmark:
        paths.benchmark("iklr_table3")
    conda:
        "../envs/kreinbench.yaml"
    params:
        names=plan.paper_names(config, "iklr"),
        datasets=plan_iklr.table3_datasets(config),
        methods=plan_iklr.table3_methods(config),
    script:
        "../scripts/iklr_table3.py"


rule iklr_fig3:
    input:
        history=paths.HISTORY,
        runs=paths.RUNS,
    output:
        png=report(
            registry.path("iklr_fig3", "png"),
            caption="../report/iklr_fig3.rst",
            category=registry.category("iklr_fig3"),
            subcategory="Figures",
            labels=registry.labels("iklr_fig3"),
        ),
        pdf=registry.path("iklr_fig3", "pdf"),
    log:
        paths.log("iklr_fig3"),
    benchmark:
        paths.benchmark("iklr_fig3")
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=plan_iklr.fig3_datasets(config),
        methods=plan_iklr.fig3_methods(config),
    script:
        "../scripts/iklr_fig3.py"


rule iklr_table7:
    input:
        runs=paths.RUNS,
        paper="workflow/paper_values/iklr_table7.csv",
    output:
        **registry.outputs("iklr_table7"),
    log:
        paths.log("iklr_table7"),
    benchmark:
        paths.benchmark("iklr_table7")
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=lambda wildcards: plan_iklr.study_datasets(config, "table7"),
        methods=lambda wildcards: plan_iklr.study_methods(config, "table7"),
    script:
        "../scripts/iklr_table7.py"


rule iklr_table6:
    input:
        runs=paths.RUNS,
        history=paths.HISTORY,
        paper="workflow/paper_values/iklr_table6.csv",
    output:
        **registry.outputs("iklr_table6"),
    log:
        paths.log("iklr_table6"),
    benchmark:
        paths.benchmark("iklr_table6")
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=lambda wildcards: plan_iklr.study_datasets(config, "table6"),
        methods=lambda wildcards: plan_iklr.table6_methods(config),
        splits=lambda wildcards: plan_iklr.study_splits(config, "table6"),
    script:
        "../scripts/iklr_table6.py"


# Table VI's runs as a figure: the spread over repetitions that the table's mean ± std summarises.
rule iklr_fig_init:
    input:
        table=registry.path("iklr_table6", "csv"),
        runs=paths.RUNS,
        history=paths.HISTORY,
    output:
        png=report(
            registry.path("iklr_fig_init", "png"),
            caption="../report/iklr_fig_init.rst",
            category=registry.category("iklr_fig_init"),
            subcategory="Figures",
            labels=registry.labels("iklr_fig_init"),
        ),
        pdf=registry.path("iklr_fig_init", "pdf"),
    log:
        paths.log("iklr_fig_init"),
    benchmark:
        paths.benchmark("iklr_fig_init")
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/iklr_fig_init.py"


# Fig. 2: CCICP-GD's test accuracy and training time against ε; the CSV holds the plotted means.
rule iklr_fig2:
    input:
        runs=paths.RUNS,
        history=paths.HISTORY,
    output:
        csv=report(
            registry.path("iklr_fig2", "csv"),
            caption="../report/iklr_fig2_data.rst",
            category=registry.category("iklr_fig2"),
            subcategory="Tables",
            labels=registry.labels("iklr_fig2", "plotted values"),
        ),
        png=report(
            registry.path("iklr_fig2", "png"),
            caption="../report/iklr_fig2.rst",
            category=registry.category("iklr_fig2"),
            subcategory="Figures",
            labels=registry.labels("iklr_fig2"),
        ),
        pdf=registry.path("iklr_fig2", "pdf"),
    log:
        paths.log("iklr_fig2"),
    benchmark:
        paths.benchmark("iklr_fig2")
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=lambda wildcards: plan_iklr.study_datasets(config, "fig2"),
        methods=lambda wildcards: plan_iklr.fig2_methods(config),
    script:
        "../scripts/iklr_fig2.py"


# Table IV: CCCP-GD, CCICP-GD and CCICP-SGD on the four larger sets (accuracy, training and test time).
rule iklr_table4:
    input:
        runs=paths.RUNS,
        paper="workflow/paper_values/iklr_table4.csv",
    output:
        **registry.outputs("iklr_table4"),
    log:
        paths.log("iklr_table4"),
    benchmark:
        paths.benchmark("iklr_table4")
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=lambda wildcards: plan_iklr.study_datasets(config, "table4"),
        methods=lambda wildcards: plan_iklr.study_methods(config, "table4"),
    script:
        "../scripts/iklr_table4.py"


# Table V: SVM and KLR on the Log-Euclidean kernel vs the indefinite methods on the Affine-Invariant one.
rule iklr_table5:
    input:
        runs=paths.RUNS,
        paper="workflow/paper_values/iklr_table5.csv",
    output:
        **registry.outputs("iklr_table5"),
    log:
        paths.log("iklr_table5"),
    benchmark:
        paths.benchmark("iklr_table5")
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=lambda wildcards: plan_iklr.study_datasets(config, "table5"),
        methods=lambda wildcards: plan_iklr.study_methods(config, "table5"),
        spectrum_method=lambda wildcards: plan_iklr.table5_spectrum_method(config),
    script:
        "../scripts/iklr_table5.py"


# MM'17 Table 2: Table III's builder on MM'17's datasets, methods (its CCICP) and values.
rule iklr_mm17_table2:
    input:
        runs=paths.RUNS,
        paper="workflow/paper_values/iklr_mm17_table2.csv",
    output:
        **registry.outputs("iklr_mm17_table2"),
    log:
        paths.log("iklr_mm17_table2"),
    benchmark:
        paths.benchmark("iklr_mm17_table2")
    conda:
        "../envs/kreinbench.yaml"
    params:
        names=lambda wildcards: plan.paper_names(config, plan_iklr.MM17),
        datasets=lambda wildcards: list(
            plan_iklr.study_datasets(config, "table2", plan_iklr.MM17)
        ),
        methods=lambda wildcards: list(
            plan_iklr.study_methods(config, "table2", plan_iklr.MM17)
        ),
    script:
        "../scripts/iklr_mm17_table2.py"


# MM'17 Fig. 1: Fig. 3's builder with MM'17's CCICP (red) and CCCP (blue).
rule iklr_mm17_fig1:
    input:
        history=paths.HISTORY,
        runs=paths.RUNS,
    output:
        png=report(
            registry.path("iklr_mm17_fig1", "png"),
            caption="../report/iklr_mm17_fig1.rst",
            category=registry.category("iklr_mm17_fig1"),
            subcategory="Figures",
            labels=registry.labels("iklr_mm17_fig1"),
        ),
        pdf=registry.path("iklr_mm17_fig1", "pdf"),
    log:
        paths.log("iklr_mm17_fig1"),
    benchmark:
        paths.benchmark("iklr_mm17_fig1")
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=lambda wildcards: list(
            plan_iklr.study_datasets(config, "fig1", plan_iklr.MM17)
        ),
        methods=lambda wildcards: plan_iklr.study_methods(
            config, "fig1", plan_iklr.MM17
        ),
    script:
        "../scripts/iklr_mm17_fig1.py"
