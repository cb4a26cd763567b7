rule fetch:
    output:
        manifest="data/raw/{dataset}/manifest.json",
    log:
        "logs/fetch/{dataset}.log",
    params:
        entry=dataset_registry_entry,
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/fetch.py"


rule split:
    input:
        manifest="data/raw/{dataset}/manifest.json",
    output:
        split="data/splits/{dataset}/rep{rep}.h5",
    log:
        "logs/split/{dataset}/rep{rep}.log",
    params:
        entry=dataset_registry_entry,
        seed=config["seed"],
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/split.py"
