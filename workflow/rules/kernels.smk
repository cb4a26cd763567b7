rule kernel:
    input:
        split="data/splits/{dataset}/rep{rep}.h5",
    output:
        kernel="results/kernels/{dataset}/rep{rep}/{instance}.h5",
    log:
        "logs/kernel/{dataset}/rep{rep}/{instance}.log",
    params:
        spec=lambda wildcards: plan.kernel_instance_spec(config, wildcards.instance),
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
    conda:
        "../envs/kreinbench.yaml"
    script:
        "../scripts/spectrum.py"
