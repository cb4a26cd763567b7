# IKLR (TNNLS) Table II regenerated: run with workflow/configs/paper-iklr.yaml (or any config
# with a TL1 kernel): `snakemake --cores all iklr_table2 --configfile workflow/configs/paper-iklr.yaml`.
# Table III and Fig. 3 come from the tidy records of rule `table`, so any config can ask for them;
# `all` includes them when the config has a `papers.iklr` key (and `papers.iklr.fig3`).
# Likewise the studies on a few datasets (kreinbench.plan_iklr): Table IV with `papers.iklr.table4`,
# Table V (SPD kernels, workflow/configs/paper-iklr-spd.yaml) with `table5`, Table VII with `table7`,
# Table VI and its figure iklr_fig_init with `table6`, Fig. 2 with `fig2`; and the MM'17 paper's
# Table 2 and Fig. 1 with `papers.iklr_mm17.table2` / `fig1`.
import kreinbench.plan_iklr as plan_iklr

plan_iklr.check_studies(config)


rule iklr_table2:
    input:
        splits=plan.iklr_table2_splits(config),
        paper="workflow/paper_values/iklr_table2.csv",
    output:
        csv="results/tables/iklr_table2.csv",
        md="results/tables/iklr_table2.md",
    log:
        "logs/iklr_table2/iklr_table2.log",
    benchmark:
        "logs/benchmark/iklr_table2/iklr_table2.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        kernel=lambda wildcards: plan.canonical(plan.tl1_kernel_spec(config)),
        stand_ins=plan.stand_ins(config),
    script:
        "../scripts/iklr_table2.py"


rule iklr_table3:
    input:
        runs="results/records/runs.csv",
        paper="workflow/paper_values/iklr_table3.csv",
    output:
        csv="results/tables/iklr_table3.csv",
        md="results/tables/iklr_table3.md",
    log:
        "logs/iklr_table3/iklr_table3.log",
    benchmark:
        "logs/benchmark/iklr_table3/iklr_table3.tsv"
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
        history="results/records/history.csv",
        runs="results/records/runs.csv",
    output:
        png=report(
            "figures/iklr_fig3.png",
            caption="../report/iklr_fig3.rst",
            category="IKLR (TNNLS)",
            subcategory="Figures",
            labels={"item": "Fig. 3"},
        ),
        pdf="figures/iklr_fig3.pdf",
    log:
        "logs/iklr_fig3/iklr_fig3.log",
    benchmark:
        "logs/benchmark/iklr_fig3/iklr_fig3.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=plan.iklr_fig3_datasets(config),
        methods=plan.iklr_fig3_methods(config),
    script:
        "../scripts/iklr_fig3.py"


rule iklr_table7:
    input:
        runs="results/records/runs.csv",
        paper="workflow/paper_values/iklr_table7.csv",
    output:
        csv="results/tables/iklr_table7.csv",
        md="results/tables/iklr_table7.md",
    log:
        "logs/iklr_table7/iklr_table7.log",
    benchmark:
        "logs/benchmark/iklr_table7/iklr_table7.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=lambda wildcards: plan_iklr.study_datasets(config, "table7"),
        methods=lambda wildcards: plan_iklr.study_methods(config, "table7"),
    script:
        "../scripts/iklr_table7.py"


rule iklr_table6:
    input:
        runs="results/records/runs.csv",
        history="results/records/history.csv",
        paper="workflow/paper_values/iklr_table6.csv",
    output:
        csv="results/tables/iklr_table6.csv",
        md="results/tables/iklr_table6.md",
    log:
        "logs/iklr_table6/iklr_table6.log",
    benchmark:
        "logs/benchmark/iklr_table6/iklr_table6.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        datasets=lambda wildcards: plan_iklr.study_datasets(config, "table6"),
        methods=lambda wildcards: plan_iklr.table6_methods(config),
    script:
        "../scripts/iklr_table6.py"


# Table VI's runs as a figure: the spread over repetitions that the table's mean ± std summarises.
rule iklr_fig_init:
    input:
        table="results/tables/iklr_table6.csv",
        runs="results/records/runs.csv",
        history="results/records/history.csv",
    output:
        png=report(
            "figures/iklr_fig_init.png",
            caption="../report/iklr_fig_init.rst",
            category="IKLR (TNNLS)",
            subcategory="Figures",
            labels={"item": "Table VI as a figure"},
        ),
        pdf="figures/iklr_fig_init.pdf",
    log:
        "logs/iklr_fig_init/iklr_fig_init.log",
    benchmark:
        "logs/benchmark/iklr_fig_init/iklr_fig_init.tsv"
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/iklr_fig_init.py"


# Fig. 2: CCICP-GD's test accuracy and training time against ε; the CSV holds the plotted means.
rule iklr_fig2:
    input:
        runs="results/records/runs.csv",
        history="results/records/history.csv",
    output:
        csv=report(
            "results/tables/iklr_fig2.csv",
            caption="../report/iklr_fig2_data.rst",
            category="IKLR (TNNLS)",
            subcategory="Tables",
            labels={"item": "Fig. 2 (plotted values)"},
        ),
        png=report(
            "figures/iklr_fig2.png",
            caption="../report/iklr_fig2.rst",
            category="IKLR (TNNLS)",
            subcategory="Figures",
            labels={"item": "Fig. 2"},
        ),
        pdf="figures/iklr_fig2.pdf",
    log:
        "logs/iklr_fig2/iklr_fig2.log",
    benchmark:
        "logs/benchmark/iklr_fig2/iklr_fig2.tsv"
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
        runs="results/records/runs.csv",
        paper="workflow/paper_values/iklr_table4.csv",
    output:
        csv="results/tables/iklr_table4.csv",
        md="results/tables/iklr_table4.md",
    log:
        "logs/iklr_table4/iklr_table4.log",
    benchmark:
        "logs/benchmark/iklr_table4/iklr_table4.tsv"
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
        runs="results/records/runs.csv",
        paper="workflow/paper_values/iklr_table5.csv",
    output:
        csv="results/tables/iklr_table5.csv",
        md="results/tables/iklr_table5.md",
    log:
        "logs/iklr_table5/iklr_table5.log",
    benchmark:
        "logs/benchmark/iklr_table5/iklr_table5.tsv"
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
        runs="results/records/runs.csv",
        paper="workflow/paper_values/iklr_mm17_table2.csv",
    output:
        csv="results/tables/iklr_mm17_table2.csv",
        md="results/tables/iklr_mm17_table2.md",
    log:
        "logs/iklr_mm17_table2/iklr_mm17_table2.log",
    benchmark:
        "logs/benchmark/iklr_mm17_table2/iklr_mm17_table2.tsv"
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
        history="results/records/history.csv",
        runs="results/records/runs.csv",
    output:
        png=report(
            "figures/iklr_mm17_fig1.png",
            caption="../report/iklr_mm17_fig1.rst",
            category="IKLR (MM'17)",
            subcategory="Figures",
            labels={"item": "Fig. 1"},
        ),
        pdf="figures/iklr_mm17_fig1.pdf",
    log:
        "logs/iklr_mm17_fig1/iklr_mm17_fig1.log",
    benchmark:
        "logs/benchmark/iklr_mm17_fig1/iklr_mm17_fig1.tsv"
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
