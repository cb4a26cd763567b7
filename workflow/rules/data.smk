rule fetch:
    output:
        manifest="data/raw/{dataset}/manifest.json",
    log:
        "logs/fetch/{dataset}.log",
    benchmark:
        "logs/benchmark/fetch/{dataset}.tsv"
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
        manifest="data/raw/{dataset}/manifest.json",
    output:
        split="data/splits/{dataset}/rep{rep}.h5",
    log:
        "logs/split/{dataset}/rep{rep}.log",
    benchmark:
        "logs/benchmark/split/{dataset}/rep{rep}.tsv"
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
