rule fetch:
    output:
        manifest=paths.manifest_path("{dataset}"),
    log:
        paths.log("fetch", "{dataset}"),
    benchmark:
        paths.benchmark("fetch", "{dataset}")
    priority: job_resources.priority("fetch")
    conda:
        "../envs/kreinbench.yaml"
    threads: job_resources.threads("fetch")
    resources:
        mem_mb=job_resources.mem_mb("fetch"),
        runtime=job_resources.runtime("fetch"),
    params:
        # a local source's sha256 is part of it: editing your CSV reruns what is made from it
        entry=lambda wildcards: plan.canonical(
            plan.fetch_entry(config, wildcards.dataset)
        ),
    script:
        "../scripts/fetch.py"


rule split:
    input:
        manifest=paths.manifest_path("{dataset}"),
    output:
        split=paths.split_path("{dataset}", "{rep}"),
    log:
        paths.log("split", "{dataset}/rep{rep}"),
    benchmark:
        paths.benchmark("split", "{dataset}/rep{rep}")
    priority: job_resources.priority("split")
    conda:
        "../envs/kreinbench.yaml"
    threads: job_resources.threads("split")
    resources:
        mem_mb=job_resources.mem_mb("split"),
        runtime=job_resources.runtime("split"),
    params:
        entry=lambda wildcards: plan.canonical(
            plan.dataset_config_entry(config, wildcards.dataset)
        ),
        seed=config["seed"],
    script:
        "../scripts/split.py"
