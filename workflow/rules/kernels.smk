# One job per config kernel and split computes every instance of that kernel (e.g. the seven σ of
# an RBF grid) into its own cache file: a job's start (interpreter, Snakemake's preamble, numpy,
# scipy and h5py: about half a second) is most of what a small kernel costs, and one job per
# instance multiplied it. The rules are named kernel_<config kernel>. A profile's `groups:` names
# rules exactly, so these carry their group themselves, as do spectrum (between them and the
# fit_batch_<dataset> rules, which carry it too) and the SLURM profile's fit: a dataset x
# repetition's jobs in one cluster job; groups do nothing in a local run.
for kernel_name in config["kernels"]:
    kernel_specs = plan.kernel_instances(config, kernel_name)

    rule:
        name:
            f"kernel_{kernel_name}"
        input:
            split=paths.split_path("{dataset}", "{rep}"),
        output:
            kernels=[
                paths.kernel_path("{dataset}", "{rep}", instance)
                for instance in kernel_specs
            ],
        log:
            paths.log("kernel", f"{{dataset}}/rep{{rep}}/{kernel_name}"),
        benchmark:
            paths.benchmark("kernel", f"{{dataset}}/rep{{rep}}/{kernel_name}")
        priority: job_resources.priority("kernel")
        group:
            "dataset_rep"
        conda:
            "../envs/kreinbench.yaml"
        threads: job_resources.threads("kernel")
        resources:
            mem_mb=job_resources.mem_mb("kernel", kernel=kernel_name),
            runtime=job_resources.runtime(
                "kernel", instances=len(kernel_specs), kernel=kernel_name
            ),
        params:
            specs={
                instance: plan.canonical(spec)
                for instance, spec in kernel_specs.items()
            },
        script:
            "../scripts/kernel.py"


rule spectrum:
    input:
        kernel=paths.kernel_path("{dataset}", "{rep}", "{instance}"),
    output:
        spectrum=paths.spectrum_path("{dataset}", "{rep}", "{instance}"),
    log:
        paths.log("spectrum", "{dataset}/rep{rep}/{instance}"),
    benchmark:
        paths.benchmark("spectrum", "{dataset}/rep{rep}/{instance}")
    priority: job_resources.priority("spectrum")
    group:
        "dataset_rep"
    conda:
        "../envs/kreinbench.yaml"
    threads: job_resources.threads("spectrum")
    resources:
        mem_mb=job_resources.mem_mb("spectrum"),
        runtime=job_resources.runtime("spectrum"),
    params:
        kind=lambda wildcards: plan.instance_spectrum_kind(config, wildcards.instance),
        seed=config["seed"],
    script:
        "../scripts/spectrum.py"
