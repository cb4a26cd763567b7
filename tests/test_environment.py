"""kreinbench.pipeline.environment: the record of software and machine that the report carries."""

from pathlib import Path

import pandas as pd

from kreinbench.pipeline import environment as env

CPUINFO = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\n"
MEMINFO = "MemTotal:       16318480 kB\nMemFree:         1000000 kB\n"


def test_cpu_model_and_memory_are_read_from_proc_text():
    assert env.cpu_model(CPUINFO) == "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz"
    assert env.memory_bytes(MEMINFO) == 16318480 * 1024


def test_cpu_model_falls_back_when_cpuinfo_has_no_model_name():
    assert env.cpu_model("processor\t: 0\n")  # platform's answer, never empty


def test_missing_package_is_named_not_an_error():
    assert env.package_version("no-such-distribution-kb") == env.MISSING


def test_record_names_versions_blas_and_machine(tmp_path):
    path = tmp_path / "sub" / "environment.tsv"
    env.write_environment(path)
    facts = pd.read_csv(path, sep="\t", index_col="name")["value"]
    for key in ("python", "kreinbench", "numpy", "scipy", "scikit-learn", "h5py", "snakemake", "blas",
                "cpu_model", "cpu_count", "memory_total", "os"):
        assert isinstance(facts[key], str) and facts[key], key
    import numpy
    assert facts["numpy"] == numpy.__version__
    assert facts["kreinbench"].endswith(f"({Path(env.__file__).resolve().parents[1]})")
    assert "openblas" in facts["blas"].lower() or "mkl" in facts["blas"].lower()
    assert facts["memory_total"].endswith("GiB")
    assert not list(path.parent.glob(".*.tmp"))


def test_values_never_break_the_tsv(tmp_path):
    path = tmp_path / "environment.tsv"
    env.write_environment(path, {"a": "x\ty\n", "b": "z"})
    assert path.read_text() == "name\tvalue\na\tx y\nb\tz\n"


def test_versions_are_the_records_software_part(tmp_path):
    """Rule `environment` reruns when these change (its params): they must be what the record says."""
    path = tmp_path / "environment.tsv"
    env.write_environment(path)
    facts = pd.read_csv(path, sep="\t", index_col="name")["value"]
    versions = env.software_versions()
    assert set(versions) == {"python", *env.PACKAGES, "lock"}
    assert {name: facts[name] for name in versions} == {name: " ".join(v.split()) for name, v in versions.items()}


def test_record_names_the_lock_and_whether_the_installed_packages_are_its(tmp_path):
    from kreinbench.atomic import sha256_file
    from kreinbench.lock import LOCK_NAME

    path = tmp_path / "environment.tsv"
    env.write_environment(path)
    facts = pd.read_csv(path, sep="\t", index_col="name")["value"]
    lock = Path(__file__).resolve().parents[1] / LOCK_NAME
    assert facts["lock"] == f"{LOCK_NAME} sha256:{sha256_file(lock)}"
    assert facts["lock_drift"] == "none"  # this environment was installed from the lock (tests/test_lock.py)
