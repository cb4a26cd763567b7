"""The SLURM profile against a real one-node SLURM, run with README's command in a copy that has
what a clone has (the `profiles` link, through which Snakemake loads workflow/profiles/default by
itself): it keeps the SLURM profile's settings, refuses to start without the partition and account
variables, jobs go through sbatch, a job killed for exceeding its memory is retried with twice as
much, and the tables equal those of a local run.

tests/cluster/start_slurm.sh installs (apt-get, as root) and starts munged, slurmctld and slurmd
under a scratch directory; the fixture stops them by PID afterwards, also when the test fails.
The only skip: start_slurm.sh exit status 3, i.e. this machine cannot install the packages.
Memory is enforced with task/cgroup where a cgroup v1 memory controller is writable (as on the
2-core Debian 12 VMs this ran on), so a job above its request ends as OUT_OF_MEMORY; elsewhere
with OverMemoryKill, which SLURM records as FAILED (start_slurm.sh, MEMORY_KILL below).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from kreinbench.pipeline.resources import BASE_MB, JobResources

pytestmark = pytest.mark.cluster  # Snakemake through a real SLURM

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = Path(__file__).resolve().parent / "cluster"

# One dataset, one repetition, one kernel, two methods: with the profile's groups, three SLURM
# jobs: fetch + split, then kernel + spectrum + two fits, then table.
TINY_CONFIG = {
    "seed": 11,
    "repetitions": 1,
    "cv_folds": 3,
    "datasets": ["blobs"],
    "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
    "methods": {
        "flip-klr": {"label": "Flip + KLR (TL1)", "estimator": "SpectrumKLR", "kernel": "tl1",
                     "params": {"correction": "flip"}, "grid": {"lam": [0.01, 1.0]}},
        "ccicp-gd": {"label": "IKLR CCICP-GD (TL1)", "estimator": "IKLR", "kernel": "tl1",
                     "params": {"solver": "ccicp-gd"}, "grid": {"lam": [0.1, 1.0]}},
    },
}

RULES = ("fetch", "split", "kernel", "spectrum", "fit", "table", "figure")

# The data group's memory request doubles on a retry, as the workflow's own requests do
# (kreinbench.pipeline.resources.mem_mb): attempt 1's 200 MB is below what the job's two Python processes
# alone occupy (about 290 MB, resources.BASE_MB), so SLURM kills it for memory; attempt 2 asks
# for 400 MB and completes.
FAILING_DATA_GROUP = [f"{rule}:mem_mb=200 * 2 ** (attempt - 1)" for rule in ("fetch", "split")]
# A guard against a run that hangs (Snakemake can wait forever on a job the executor lost), not
# the expected time: the SLURM run takes about 4 min on a 2-core machine under a load of 12.
TIMEOUT = 420


def readme_slurm_command() -> list[str]:
    """The arguments of README's SLURM command ('Running on a cluster'), without the program."""
    section = (ROOT / "README.md").read_text().split("## Running on a cluster", 1)[1]
    line = next(line for line in section.splitlines() if line.startswith(".venv/bin/snakemake "))
    return shlex.split(line)[1:]


def readme_profile_options() -> list[str]:
    """The README command's profile option and its value (its target and config are a paper's)."""
    argv = readme_slurm_command()
    at = next(i for i, arg in enumerate(argv) if arg in ("--profile", "--workflow-profile"))
    return argv[at:at + 2]


def with_job_resources(workdir: Path) -> None:
    """Give every rule of the copied workflow its threads and resources from kreinbench.pipeline.resources
    (the lines the rule files are to carry); rule files that already carry them stay as they are."""
    common = workdir / "workflow/rules/common.smk"
    text = common.read_text()
    if "JobResources" not in text:
        common.write_text("from kreinbench.pipeline.resources import JobResources\n" + text
                          + "\n\njob_resources = JobResources(config)\n")
    for smk in (workdir / "workflow/rules").glob("*.smk"):
        text = smk.read_text()
        if "job_resources." in text:
            continue
        for rule in RULES:
            text = re.sub(
                rf"^rule {rule}:\n",
                f"rule {rule}:\n"
                f"    threads: job_resources.threads({rule!r})\n"
                f"    resources:\n"
                f"        mem_mb=job_resources.mem_mb({rule!r}),\n"
                f"        runtime=job_resources.runtime({rule!r}),\n",
                text, flags=re.M)
        smk.write_text(text)


def workflow_copy(base: Path, name: str) -> Path:
    work = base / name
    work.mkdir()
    shutil.copy(ROOT / "Snakefile", work)
    shutil.copytree(ROOT / "workflow", work / "workflow")
    # As in a clone: through this link Snakemake loads profiles/default by itself, on top of a --profile.
    (work / "profiles").symlink_to(os.readlink(ROOT / "profiles"))
    (work / "config.yaml").write_text(yaml.safe_dump(TINY_CONFIG, sort_keys=False))
    with_job_resources(work)
    return work


def snakemake(workdir: Path, env: dict, *args: str, nice: bool = False) -> subprocess.CompletedProcess:
    # timeout -k: Snakemake waiting on a job the executor lost can ignore SIGTERM.
    command = ["timeout", "-k", "10", str(TIMEOUT), sys.executable, "-m", "snakemake", *args]
    return subprocess.run(["nice", "-n", "19", *command] if nice else command,
                          cwd=workdir, env=env, capture_output=True, text=True)


def resolved_settings(workdir: Path, argv: list[str], monkeypatch) -> dict:
    """The settings Snakemake runs with for this command line in ``workdir``, from its own
    argument parsing (command line, then every profile it loads)."""
    from snakemake.cli import parse_args

    monkeypatch.chdir(workdir)
    settings = vars(parse_args(argv)[1])
    # Resource values are parsed into objects; compare them by the text they were given as.
    return {key: {name: getattr(v, "raw", v) for name, v in value.items()} if hasattr(value, "items") else value
            for key, value in settings.items()}


@pytest.mark.parametrize("option", ["as README writes it", "--profile"])
def test_the_documented_command_keeps_every_slurm_setting(tmp_path, monkeypatch, option):
    """README's command runs with each setting of the SLURM profile as the profile alone gives it
    (retries: 2 above all), although Snakemake finds workflow/profiles/default through the
    `profiles` link; so does the same command with --profile, which loads both profiles."""
    work = workflow_copy(tmp_path, "settings")
    argv = readme_slurm_command()
    if option == "--profile":
        argv = ["--profile" if arg == "--workflow-profile" else arg for arg in argv]
    effective = resolved_settings(work, argv, monkeypatch)
    alone = resolved_settings(work, ["--workflow-profile", "none", "--profile", "workflow/profiles/slurm"], monkeypatch)
    profile = yaml.safe_load((ROOT / "workflow/profiles/slurm/config.yaml").read_text())
    for key in profile:
        dest = key.replace("-", "_")
        assert effective[dest] == alone[dest], (key, effective[dest], alone[dest])
    assert (effective["executor"], effective["retries"]) == ("slurm", 2)


def test_a_local_command_keeps_the_local_settings(tmp_path, monkeypatch):
    """A plain command gets the default profile through the link (its scheduler) and no retries."""
    effective = resolved_settings(workflow_copy(tmp_path, "local"), ["--cores", "1"], monkeypatch)
    assert (effective["executor"], effective["retries"], effective["scheduler"]) == (None, 0, "greedy")


@pytest.mark.parametrize("variable, value", [("KREINBENCH_SLURM_PARTITION", None), ("KREINBENCH_SLURM_ACCOUNT", "")])
def test_refuses_to_start_without_the_cluster_variables(tmp_path, variable, value):
    """README's command (a dry run) stops before planning any job, naming the variable that is
    unset or empty, instead of submitting every job to partition '${KREINBENCH_SLURM_PARTITION}'."""
    env = {**os.environ, "KREINBENCH_SLURM_PARTITION": "ci", "KREINBENCH_SLURM_ACCOUNT": "kreinbench"}
    if value is None:
        del env[variable]
    else:
        env[variable] = value
    result = snakemake(workflow_copy(tmp_path, "unset"), env, *readme_slurm_command(), "--dry-run")
    output = result.stdout + result.stderr
    state = "not set" if value is None else "empty"
    assert result.returncode == 1, output[-2000:]
    assert f"environment variable {variable} is {state}" in output and "KreinbenchError" in output, output[-2000:]
    assert "Job stats" not in output


def read_pid(pidfile: Path) -> int | None:
    return int(pidfile.read_text()) if pidfile.exists() else None


@pytest.fixture(scope="module")
def slurm():
    """A running one-node SLURM: its scratch directory; every daemon stopped by PID afterwards."""
    # Not under pytest's 0700 tmp tree: munged runs as user munge and must reach its socket.
    scratch = Path(tempfile.mkdtemp(prefix="kreinbench-slurm-"))
    pidfiles = [scratch / "slurmd.pid", scratch / "slurmctld.pid", scratch / "munge/munged.pid"]
    pids = []
    try:
        start = subprocess.run(["timeout", "-k", "5", "600", str(CLUSTER / "start_slurm.sh"), str(scratch)],
                               capture_output=True, text=True)
        if start.returncode == 3:
            pytest.skip("!!! SLURM TEST SKIPPED: this machine cannot install slurm-wlm and munge "
                        f"(needs root and apt-get): {start.stderr.strip()[-500:]} !!!")
        assert start.returncode == 0, start.stderr[-3000:]
        pids = [read_pid(p) for p in pidfiles]
        assert all(pid and Path(f"/proc/{pid}").exists() for pid in pids), f"a daemon did not stay up: {pids}"
        yield scratch
    finally:
        pids = pids or [read_pid(p) for p in pidfiles]  # start failed half-way: stop what did start
        stop = subprocess.run([str(CLUSTER / "stop_slurm.sh"), str(scratch)], capture_output=True, text=True)
        alive = [pid for pid in pids if pid and Path(f"/proc/{pid}").exists()]
        shutil.rmtree(scratch, ignore_errors=True)
        assert stop.returncode == 0 and not alive, f"daemons left running: {alive}; {stop.stderr}"


@pytest.fixture(scope="module")
def runs(slurm, tmp_path_factory):
    """The tiny config run through the SLURM profile and, at the same time, locally."""
    base = tmp_path_factory.mktemp("slurm")
    local_dir, slurm_dir = workflow_copy(base, "local"), workflow_copy(base, "slurm")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    slurm_env = {**env, "SLURM_CONF": str(slurm / "slurm.conf"),
                 "KREINBENCH_SLURM_PARTITION": "ci", "KREINBENCH_SLURM_ACCOUNT": "kreinbench"}
    with ThreadPoolExecutor(2) as pool:
        # niced: the SLURM jobs' latency, not the local run, bounds the test's time.
        # Plain commands, as a user types them: the local one gets workflow/profiles/default by itself.
        local = pool.submit(snakemake, local_dir, env, "--cores", "1", nice=True)
        # No slurmdbd here, so no sacct: poll with squeue (jobs stay listed for MinJobAge = 600 s),
        # and poll early, since these jobs take seconds.
        remote = pool.submit(snakemake, slurm_dir, slurm_env, *readme_profile_options(), "--verbose",
                             "--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "2",
                             "--set-resources", *FAILING_DATA_GROUP)
        local, remote = local.result(), remote.result()
    assert local.returncode == 0, local.stderr[-3000:]
    assert remote.returncode == 0, remote.stderr[-5000:]
    return local_dir, slurm_dir, remote.stdout + remote.stderr


def completed_jobs(slurm: Path) -> list[dict[str, str]]:
    """slurmctld's job completion records (jobcomp/filetxt), one dict of fields per job."""
    return [dict(field.split("=", 1) for field in line.split() if "=" in field)
            for line in (slurm / "jobcomp.log").read_text().splitlines()]


def test_every_job_went_through_sbatch(slurm, runs):
    _, slurm_dir, log = runs
    sbatch_calls = re.findall(r"sbatch call: sbatch .*", log)
    submitted = (slurm / "slurmctld.log").read_text().count("_slurm_rpc_submit_batch_job")
    jobs = completed_jobs(slurm)
    # fetch + split twice (killed, retried), kernel_tl1 + spectrum + 2 fits once, table once.
    assert len(sbatch_calls) == submitted == len(jobs) == 4, sbatch_calls
    assert all(job["Partition"] == "ci" and job["Account"] == "kreinbench" for job in jobs)
    groups = [re.search(r"--comment (\S+)", call).group(1) for call in sbatch_calls]
    assert groups == ["rule_data_fetch_split"] * 2 + ["rule_dataset_rep_fit_kernel_tl1_spectrum", "rule_table"]
    # Only the second-long local rules (the environment record, the HTML table, the headline) and the target
    # pseudo-rule `all` ran on the submit host.
    assert sorted(re.findall(r"^localrule (\w+):", log, flags=re.M)) == ["all", "environment", "headline",
                                                                          "table_html"]
    assert (slurm_dir / "results/tables/accuracy.csv").exists()


# How SLURM ends a job above its memory request, and what the job's SLURM log then says, by the
# enforcement start_slurm.sh could set up (see there).
MEMORY_KILL = {"cgroup": ("OUT_OF_MEMORY", "oom-kill event"), "jobacct": ("FAILED", "exceeded memory limit")}


def test_job_killed_for_memory_is_retried_with_twice_the_memory(slurm, runs):
    """SLURM kills the data group's first attempt for memory; the retry (the SLURM profile's
    retries in effect under README's command) asks for twice the memory and completes."""
    _, slurm_dir, _ = runs
    enforcement = (slurm / "memory_enforcement").read_text().strip()
    state, message = MEMORY_KILL[enforcement]
    jobs = completed_jobs(slurm)
    data_group = [(job["JobState"], re.search(r"mem=(\d+)M", job["Tres"]).group(1)) for job in jobs[:2]]
    assert data_group == [(state, "200"), ("COMPLETED", "400")], (enforcement, jobs[:2])
    # The killed attempt's SLURM log is kept and says why it died.
    killed = slurm_dir / "logs/slurm/group_data_fetch_split" / f"{jobs[0]['JobId']}.log"
    assert message in killed.read_text()
    assert all(job["JobState"] == "COMPLETED" for job in jobs[1:])


def test_group_job_is_sized_from_the_split(runs, monkeypatch):
    """The kernels-spectra-fits group asks SLURM for what kreinbench.pipeline.resources gives for the real
    n: its widest step, the two fits side by side (memory and one core each)."""
    _, slurm_dir, log = runs
    call = next(c for c in re.findall(r"sbatch call: sbatch .*", log) if "rule_dataset_rep" in c)
    fit_mb = JobResources(TINY_CONFIG).mem_mb("fit")
    wildcards = SimpleNamespace(dataset="blobs", rep="1", method="flip-klr")
    monkeypatch.chdir(slurm_dir)  # where the split is, as Snakemake evaluates it
    expected = 2 * fit_mb(wildcards, SimpleNamespace(kernels=["tl1"]), 1)
    assert expected > 2 * BASE_MB  # sized from n, not the floor
    assert f" --mem {expected} " in call and " --cpus-per-task=2" in call, call


def test_tables_equal_a_local_run(runs):
    local_dir, slurm_dir, _ = runs
    for name in ("tables/accuracy.csv", "tables/accuracy.md"):
        assert (slurm_dir / "results" / name).read_bytes() == (local_dir / "results" / name).read_bytes(), name
    # Wall-clock times differ between any two runs; everything else must be identical.
    timings = ["train_time", "test_time", "cv_time", "elapsed"]
    for name in ("records/runs.csv", "records/history.csv"):
        here, there = (pd.read_csv(d / "results" / name) for d in (local_dir, slurm_dir))
        assert len(here) > 0
        pd.testing.assert_frame_equal(here.drop(columns=timings, errors="ignore"),
                                      there.drop(columns=timings, errors="ignore"), check_exact=True)
