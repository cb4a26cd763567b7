rule fit:
    input:
        unpack(fit_inputs),
    output:
        record=paths.fit_path("{dataset}", "{method}", "{rep}"),
    log:
        paths.log("fit", "{dataset}/{method}/rep{rep}"),
    benchmark:
        paths.benchmark("fit", "{dataset}/{method}/rep{rep}")
    wildcard_constraints:
        # A batched dataset's records are made by its fit_batch_<dataset> rule.
        dataset=plan.unbatched_dataset_pattern(config),
    conda:
        "../envs/kreinbench.yaml"
    threads: job_resources.threads("fit")
    resources:
        mem_mb=job_resources.mem_mb("fit"),
        runtime=job_resources.runtime("fit"),
        gpu=job_resources.gpus("fit"),
    params:
        spec=lambda wildcards: plan.fit_params(config, wildcards.method),
        cv_members=lambda wildcards: plan.cv_members(
            config, wildcards.method, wildcards.dataset
        ),
        cv_folds=config["cv_folds"],
    script:
        "../scripts/fit.py"


# One job per dataset x repetition of the config's `fit_batches` fits all methods of that dataset
# one after another, each writing the record its own `fit` job would: on small datasets a job's
# start (~1 s) was as long as a fit. Named fit_batch_<dataset>, since each has its own methods.
for batch_dataset in plan.batched_datasets(config):
    batch_members = plan.batch_methods(config, batch_dataset)

    rule:
        name:
            f"fit_batch_{plan.rule_suffix(batch_dataset)}"
        input:
            lambda wildcards: plan.fit_batch_inputs(
                config, wildcards.dataset, int(wildcards.rep)
            ),
        output:
            [paths.fit_path("{dataset}", method, "{rep}") for method in batch_members],
        log:
            paths.log("fit_batch", "{dataset}/rep{rep}"),
        benchmark:
            paths.benchmark("fit_batch", "{dataset}/rep{rep}")
        wildcard_constraints:
            dataset=plan.exact_pattern(batch_dataset),
        group:
            "dataset_rep"
        conda:
            "../envs/kreinbench.yaml"
        threads: job_resources.threads("fit_batch")
        resources:
            mem_mb=job_resources.mem_mb("fit_batch"),
            runtime=job_resources.runtime("fit_batch"),
            gpu=job_resources.gpus("fit_batch"),
        params:
            jobs=lambda wildcards: plan.fit_batch_jobs(
                config, wildcards.dataset, int(wildcards.rep)
            ),
            cv_folds=config["cv_folds"],
        script:
            "../scripts/fit_batch.py"
