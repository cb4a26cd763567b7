rule kernel:
    input:
        split="data/splits/{dataset}/rep{rep}.h5",
    output:
        kernel="results/kernels/{dataset}/rep{rep}/{instance}.h5",
    log:
        "logs/kernel/{dataset}/rep{rep}/{instance}.log",
    benchmark:
        "logs/benchmark/kernel/{dataset}/rep{rep}/{instance}.tsv",
    params:
        spec=lambda wildcards: plan.canonical(plan.kernel_instance_spec(config, wildcards.instance)),
    threads: job_resources.threads("kernel")
    resources:
        mem_mb=job_resources.mem_mb("kernel"),
        runtime=job_resources.runtime("kernel"),
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/kernel.py"


rule spectrum:
    input:
        kernel="results/kernels/{dataset}/rep{rep}/{instance}.h5",
    output:
        spectrum="results/spectra/{dataset}/rep{rep}/{instance}.h5",
    log:
        "logs/spectrum/{dataset}/rep{rep}/{instance}.log",
    benchmark:
        "logs/benchmark/spectrum/{dataset}/rep{rep}/{instance}.tsv",
    params:
        kind=lambda wildcards: plan.instance_spectrum_kind(config, wildcards.instance),
        seed=config["seed"],
    threads: job_resources.threads("spectrum")
    resources:
        mem_mb=job_resources.mem_mb("spectrum"),
        runtime=job_resources.runtime("spectrum"),
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/spectrum.py"
