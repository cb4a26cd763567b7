rule fit:
    input:
        unpack(fit_inputs),
    output:
        record="results/fits/{dataset}/{method}/rep{rep}.json",
    log:
        "logs/fit/{dataset}/{method}/rep{rep}.log",
    params:
        method=lambda wildcards: plan.method_spec(config, wildcards.method),
        cv_folds=config["cv_folds"],
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/fit.py"
