# IKLR (TNNLS) Table II regenerated: run with workflow/configs/paper-iklr.yaml (or any config
# with a TL1 kernel): `snakemake --cores all iklr_table2 --configfile workflow/configs/paper-iklr.yaml`.
# Table III and Fig. 3 come from the tidy records of rule `table`, so any config can ask for them;
# `all` includes them when the config has a `papers.iklr` key (and `papers.iklr.fig3`).


rule iklr_table2:
    input:
        splits=plan.iklr_table2_splits(config),
        paper="workflow/paper_values/iklr_table2.csv",
    output:
        csv="results/tables/iklr_table2.csv",
        md="results/tables/iklr_table2.md",
    log:
        "logs/iklr_table2/iklr_table2.log",
    params:
        kernel=lambda wildcards: plan.canonical(plan.tl1_kernel_spec(config)),
    conda:
        "../envs/kreinbench.yaml"
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
    params:
        names=plan.paper_names(config, "iklr"),
        datasets=config["datasets"],
        methods=list(config["methods"]),
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/iklr_table3.py"


rule iklr_fig3:
    input:
        history="results/records/history.csv",
        runs="results/records/runs.csv",
    output:
        png="figures/iklr_fig3.png",
        pdf="figures/iklr_fig3.pdf",
    log:
        "logs/iklr_fig3/iklr_fig3.log",
    params:
        datasets=plan.iklr_fig3_datasets(config),
        methods=plan.iklr_fig3_methods(config),
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/iklr_fig3.py"
