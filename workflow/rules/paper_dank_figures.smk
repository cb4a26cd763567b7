# DANK (JMLR) analysis figures and Table 4, which need no `fit` records (settings:
# kreinbench.pipeline.plan_dank_figures). Which of them a config asks for (keys papers.dank_figures.<figure>;
# fig1 also adds Fig. 2), and their files: kreinbench.pipeline.paper_targets.
import kreinbench.pipeline.plan_dank_figures as plan_dank_figures


rule dank_clowns:
    input:
        manifest=lambda wildcards: paths.manifest_path(
            plan_dank_figures.settings(config, "fig1")["dataset"]
        ),
    output:
        panels=paths.CLOWNS,
    log:
        paths.log("dank_clowns"),
    benchmark:
        paths.benchmark("dank_clowns")
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
        panels=paths.CLOWNS,
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
        paths.log("dank_fig1"),
    benchmark:
        paths.benchmark("dank_fig1")
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/dank_fig1.py"


rule dank_fig2:
    input:
        panels=paths.CLOWNS,
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
        paths.log("dank_fig2"),
    benchmark:
        paths.benchmark("dank_fig2")
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/dank_fig2.py"


rule dank_fig4:
    input:
        split=lambda wildcards: paths.split_path(
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
        paths.log("dank_fig4"),
    benchmark:
        paths.benchmark("dank_fig4")
    conda:
        "../envs/kreinbench.yaml"
    params:
        **plan_dank_figures.figure_params(config, "fig4"),
        dataset=lambda wildcards: plan_dank_figures.settings(config, "fig4")["dataset"],
    script:
        "../scripts/dank_fig4.py"


rule dank_fig6:
    input:
        manifest=lambda wildcards: paths.manifest_path(
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
        paths.log("dank_fig6"),
    benchmark:
        paths.benchmark("dank_fig6")
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
        manifests=[paths.manifest_path(d) for d in plan_dank_figures.FIG9_DATASETS],
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
        paths.log("dank_fig9"),
    benchmark:
        paths.benchmark("dank_fig9")
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
        split=paths.split_path("{dataset}", "{rep}"),
    output:
        **plan_dank_figures.svr_records("{dataset}", "{rep}"),
    log:
        paths.log("dank_svr_rep", "{dataset}/rep{rep}"),
    benchmark:
        paths.benchmark("dank_svr_rep", "{dataset}/rep{rep}")
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
        paths.log("dank_table4"),
    benchmark:
        paths.benchmark("dank_table4")
    conda:
        "../envs/kreinbench.yaml"
    params:
        **plan_dank_figures.figure_params(config, "table4"),
        datasets=lambda wildcards: plan_dank_figures.settings(config, "table4")[
            "datasets"
        ],
    script:
        "../scripts/dank_table4.py"
