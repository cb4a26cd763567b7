"""One config's run per directory: a run of another config there is refused before any job."""

import pytest
import yaml

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline.run_claim import check_claim, claim, config_identity, reads_only

SMALL = {
    "seed": 3, "repetitions": 1, "cv_folds": 2, "datasets": ["blobs"],
    "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
    "methods": {"ksvm": {"estimator": "KSVM", "kernel": "tl1", "grid": {"C": [1.0]}}},
}


def test_a_directory_claimed_by_one_config_refuses_another(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert config_identity([]) == "config.yaml"
    assert config_identity(["./workflow/configs/../configs/paper-iklr.yaml"]) == "workflow/configs/paper-iklr.yaml"
    check_claim("config.yaml")  # an unclaimed directory
    claim("config.yaml")
    check_claim("config.yaml")
    with pytest.raises(KreinbenchError, match=r"holds the run of config\.yaml .* running workflow/configs/x\.yaml "
                                              r"here would overwrite"):
        check_claim("workflow/configs/x.yaml")
    with pytest.raises(KreinbenchError, match=r"To read them, pass that config") as refused:
        check_claim("workflow/configs/x.yaml", reading=True)
    assert "make clean" not in str(refused.value)
    assert reads_only(["snakemake", "--report", "r.html"]) and reads_only(["snakemake", "--report=r.html"])
    assert not reads_only(["snakemake", "-n"]) and not reads_only(["snakemake", "--cores", "2"])


def test_snakemake_refuses_a_second_config_in_a_run_directory_and_names_both(workflow_copy, snakemake):
    work = workflow_copy(SMALL, "run_claim")
    (work / "other.yaml").write_text(yaml.safe_dump({**SMALL, "seed": 4}))
    dry = snakemake(work, "-n", "--configfile", "other.yaml")
    assert dry.returncode == 0, dry.stderr[-2000:]  # a dry run claims nothing
    run = snakemake(work)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (work / "results/.config").read_text() == "config.yaml\n"
    refused = snakemake(work, "-n", "--configfile", "other.yaml")
    assert refused.returncode != 0
    said = refused.stdout + refused.stderr
    assert "holds the run of config.yaml" in said and "running other.yaml here" in said
    # the same config, with an override, is the same run
    assert snakemake(work, "-n", "--config", "seed=5").returncode == 0
    # a report only reads: it names the config the results are of, and suggests removing nothing
    report = snakemake(work, "--report", "report.html", "--configfile", "other.yaml")
    said = report.stdout + report.stderr
    assert report.returncode != 0 and "--report report.html --configfile config.yaml" in said
    assert "make clean" not in said and not (work / "report.html").exists()
