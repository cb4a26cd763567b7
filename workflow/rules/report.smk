import kreinbench.pipeline.report_index as report_index


# Jobs of a second's work: on a cluster they run where Snakemake runs, not as batch jobs.
localrules:
    environment,
    table_html,
    headline,
    agreement,


rule table:
    input:
        records=plan.all_fits(config),
    output:
        **paths.ACCURACY,
        runs=paths.RUNS,
        history=paths.HISTORY,
    log:
        paths.log("table"),
    benchmark:
        paths.benchmark("table")
    conda:
        "../envs/kreinbench.yaml"
    threads: job_resources.threads("table")
    resources:
        mem_mb=job_resources.mem_mb("table"),
        runtime=job_resources.runtime("table"),
    params:
        methods=plan.table_methods(config),
        labels=plan.method_labels(config, list(config["methods"])),
        cv_folds=config["cv_folds"],
    script:
        "../scripts/table.py"


rule figure:
    input:
        records=plan.convergence_fits(config),
    output:
        png=report(
            paths.CONVERGENCE["png"],
            caption="../report/convergence.rst",
            category="Quick run",
            subcategory="Figures",
            labels={"item": "convergence figure"},
        ),
        pdf=paths.CONVERGENCE["pdf"],
    log:
        paths.log("figure", "convergence"),
    benchmark:
        paths.benchmark("figure", "convergence")
    conda:
        "../envs/kreinbench.yaml"
    threads: job_resources.threads("figure")
    resources:
        mem_mb=job_resources.mem_mb("figure"),
        runtime=job_resources.runtime("figure"),
    params:
        # A function: evaluated only when the config has a convergence figure.
        labels=lambda wildcards: plan.method_labels(
            config, config["figures"]["convergence"]["methods"]
        ),
    script:
        "../scripts/figure.py"


# The software and machine of the run (kreinbench.pipeline.environment), so the report's timings have a
# context; in `all` for every config (final_targets).
rule environment:
    output:
        tsv=report(
            paths.ENVIRONMENT,
            caption="../report/environment.rst",
            category="Environment",
            labels={"item": "software versions and machine"},
        ),
    log:
        paths.log("environment"),
    benchmark:
        paths.benchmark("environment")
    conda:
        "../envs/kreinbench.yaml"
    params:
        # Changed params rerun a job: an upgraded package rewrites the record.
        versions=software_versions(),
    script:
        "../scripts/environment.py"


# Every table's Markdown as HTML: Snakemake's report shows HTML in the page but CSV only as a
# download (kreinbench.report.markdown_html); in `all` beside each Markdown table (rendered_tables).
# Each table in the report is its rendered page, under its paper beside the figures, with the
# caption of what it reproduces (kreinbench.pipeline.report_index).
rule table_html:
    input:
        md=paths.table_path("{table}", "md"),
    output:
        html=report(
            paths.table_path("{table}", "html"),
            caption="../report/table_html.rst",
            category=lambda wildcards: report_index.category(wildcards.table),
            subcategory="Tables",
            labels=lambda wildcards: report_index.label(wildcards.table),
        ),
    log:
        paths.log("table_html", "{table}"),
    benchmark:
        paths.benchmark("table_html", "{table}")
    wildcard_constraints:
        table="[A-Za-z0-9_]+",
    conda:
        "../envs/kreinbench.yaml"
    params:
        caption=lambda wildcards: report_index.caption(
            wildcards.table, config, Path(workflow.basedir) / "workflow/report"
        ),
    script:
        "../scripts/table_html.py"


# The report's first page shows these (workflow/report/workflow.rst includes the fragment).
rule headline:
    input:
        tables=headline_tables(),
    output:
        html=report(
            paths.HEADLINE,
            caption="../report/headline.rst",
            category="Headline",
        ),
    log:
        paths.log("headline"),
    benchmark:
        paths.benchmark("headline")
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/headline.py"


# Every paper-table cell of the run beside the paper's value, with a verdict (kreinbench.report.agreement).
rule agreement:
    input:
        tables=lambda wildcards: paper_table_csvs(),
        explanations="workflow/paper_values/explanations.yaml",
    output:
        **paths.AGREEMENT,
    log:
        paths.log("agreement"),
    benchmark:
        paths.benchmark("agreement")
    conda:
        "../envs/kreinbench.yaml"
    params:
        title="Agreement of this run's paper tables with the papers",
        stand_ins=plan.stand_ins(config),
        quantities=registry.quantities(),
    script:
        "../scripts/agreement.py"
