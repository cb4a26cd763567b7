rule fit:
    input:
        unpack(fit_inputs),
    output:
        record="results/fits/{dataset}/{method}/rep{rep}.json",
    log:
        "logs/fit/{dataset}/{method}/rep{rep}.log",
    benchmark:
        "logs/benchmark/fit/{dataset}/{method}/rep{rep}.tsv"
    conda:
        "../envs/kreinbench.yaml"
    threads: job_resources.threads("fit")
    resources:
        mem_mb=job_resources.mem_mb("fit"),
        runtime=job_resources.runtime("fit"),
    params:
        method=lambda wildcards: plan.fit_params(config, wildcards.method),
        cv_members=lambda wildcards: plan.cv_members(
            config, wildcards.method, wildcards.dataset
        ),
        cv_folds=config["cv_folds"],
    script:
        "../scripts/fit.py"
