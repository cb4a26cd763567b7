# IKLR (TNNLS) Table II regenerated: run with workflow/configs/paper-iklr.yaml (or any config
# with a TL1 kernel): `snakemake --cores all iklr_table2 --configfile workflow/configs/paper-iklr.yaml`.


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
        kernel=lambda wildcards: plan.tl1_kernel_spec(config),
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/iklr_table2.py"
