# DANK (JMLR) analysis figures and Table 4, which need no `fit` records (settings:
# kreinbench.pipeline.plan_dank_figures). Which of them a config asks for (keys papers.dank_figures.<figure>;
# fig1 also adds Fig. 2), and their files: kreinbench.pipeline.paper_targets.
import kreinbench.pipeline.plan_dank_figures as plan_dank_figures


rule dank_clowns:
    input:
        manifest=lambda wildcards: plan_dank_figures.manifest(
            plan_dank_figures.settings(config, "fig1")["dataset"]
        ),
    output:
        panels="results/dank_figures/clowns.npz",
    log:
        "logs/dank_clowns/dank_clowns.log",
    benchmark:
        "logs/benchmark/dank_clowns/dank_clowns.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        **plan_dank_figures.figure_params(config, "fig1"),
        dataset=lambda wildcards: plan_dank_figures.settings(config, "fig1")["dataset"],
        entry=lambda wildcards: plan_dank_figures.entry(
            config, plan_dank_figures.settings(config, "fig1")["dataset"]
        ),
    script:
        "../scripts/dank_clowns.py"


rule dank_fig1:
    input:
        panels="results/dank_figures/clowns.npz",
        paper="workflow/paper_values/dank_fig2.csv",
    output:
        png=report(
            registry.path("dank_fig1", "png"),
            caption="../report/dank_fig1.rst",
            category=registry.category("dank_fig1"),
            subcategory="Figures",
            labels=registry.labels("dank_fig1"),
        ),
        pdf=registry.path("dank_fig1", "pdf"),
    log:
        "logs/dank_fig1/dank_fig1.log",
    benchmark:
        "logs/benchmark/dank_fig1/dank_fig1.tsv"
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/dank_fig1.py"


rule dank_fig2:
    input:
        panels="results/dank_figures/clowns.npz",
        paper="workflow/paper_values/dank_fig2.csv",
    output:
        png=report(
            registry.path("dank_fig2", "png"),
            caption="../report/dank_fig2.rst",
            category=registry.category("dank_fig2"),
            subcategory="Figures",
            labels=registry.labels("dank_fig2"),
        ),
        pdf=registry.path("dank_fig2", "pdf"),
    log:
        "logs/dank_fig2/dank_fig2.log",
    benchmark:
        "logs/benchmark/dank_fig2/dank_fig2.tsv"
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/dank_fig2.py"


rule dank_fig4:
    input:
        split=lambda wildcards: plan.split_path(
            plan_dank_figures.settings(config, "fig4")["dataset"], 1
        ),
    output:
        png=report(
            registry.path("dank_fig4", "png"),
            caption="../report/dank_fig4.rst",
            category=registry.category("dank_fig4"),
            subcategory="Figures",
            labels=registry.labels("dank_fig4"),
        ),
        pdf=registry.path("dank_fig4", "pdf"),
    log:
        "logs/dank_fig4/dank_fig4.log",
    benchmark:
        "logs/benchmark/dank_fig4/dank_fig4.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        **plan_dank_figures.figure_params(config, "fig4"),
        dataset=lambda wildcards: plan_dank_figures.settings(config, "fig4")["dataset"],
    script:
        "../scripts/dank_fig4.py"


rule dank_fig6:
    input:
        manifest=lambda wildcards: plan_dank_figures.manifest(
            plan_dank_figures.settings(config, "fig6")["dataset"]
        ),
        paper="workflow/paper_values/dank_fig6.csv",
    output:
        csv=report(
            registry.path("dank_fig6", "csv"),
            caption="../report/dank_fig6_data.rst",
            category=registry.category("dank_fig6"),
            subcategory="Tables",
            labels=registry.labels("dank_fig6", "plotted values"),
        ),
        png=report(
            registry.path("dank_fig6", "png"),
            caption="../report/dank_fig6.rst",
            category=registry.category("dank_fig6"),
            subcategory="Figures",
            labels=registry.labels("dank_fig6"),
        ),
        pdf=registry.path("dank_fig6", "pdf"),
    log:
        "logs/dank_fig6/dank_fig6.log",
    benchmark:
        "logs/benchmark/dank_fig6/dank_fig6.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        **plan_dank_figures.figure_params(config, "fig6"),
        dataset=lambda wildcards: plan_dank_figures.settings(config, "fig6")["dataset"],
        entry=lambda wildcards: plan_dank_figures.entry(
            config, plan_dank_figures.settings(config, "fig6")["dataset"]
        ),
    script:
        "../scripts/dank_fig6.py"


rule dank_fig9:
    input:
        manifests=[
            plan_dank_figures.manifest(d) for d in plan_dank_figures.FIG9_DATASETS
        ],
        paper="workflow/paper_values/dank_fig9.csv",
    output:
        csv=report(
            registry.path("dank_fig9", "csv"),
            caption="../report/dank_fig9_data.rst",
            category=registry.category("dank_fig9"),
            subcategory="Tables",
            labels=registry.labels("dank_fig9", "plotted values"),
        ),
        png=report(
            registry.path("dank_fig9", "png"),
            caption="../report/dank_fig9.rst",
            category=registry.category("dank_fig9"),
            subcategory="Figures",
            labels=registry.labels("dank_fig9"),
        ),
        pdf=registry.path("dank_fig9", "pdf"),
    log:
        "logs/dank_fig9/dank_fig9.log",
    benchmark:
        "logs/benchmark/dank_fig9/dank_fig9.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        **plan_dank_figures.figure_params(config, "fig9"),
        datasets=plan_dank_figures.FIG9_DATASETS,
        entries={
            d: plan_dank_figures.entry(config, d)
            for d in plan_dank_figures.FIG9_DATASETS
        },
    script:
        "../scripts/dank_fig9.py"


rule dank_svr_rep:
    input:
        split="data/splits/{dataset}/rep{rep}.h5",
    output:
        record="results/dank_figures/table4/{dataset}/rep{rep}.json",
    log:
        "logs/dank_svr_rep/{dataset}/rep{rep}.log",
    benchmark:
        "logs/benchmark/dank_svr_rep/{dataset}/rep{rep}.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        **plan_dank_figures.figure_params(config, "table4"),
    script:
        "../scripts/dank_svr_rep.py"


rule dank_table4:
    input:
        records=lambda wildcards: plan_dank_figures.table4_records(config),
        paper="workflow/paper_values/dank_table4.csv",
    output:
        **registry.outputs("dank_table4"),
    log:
        "logs/dank_table4/dank_table4.log",
    benchmark:
        "logs/benchmark/dank_table4/dank_table4.tsv"
    conda:
        "../envs/kreinbench.yaml"
    params:
        **plan_dank_figures.figure_params(config, "table4"),
        datasets=lambda wildcards: plan_dank_figures.settings(config, "table4")[
            "datasets"
        ],
    script:
        "../scripts/dank_table4.py"
