"""The reproduction record of a whole run: its tables, figures, records, agreement and RUN.md."""

import gzip

import pandas as pd
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline import paper_targets
from kreinbench.report.reproduction import record_run

RULES = pd.DataFrame({"rule": ["fit", "kernel"], "jobs": [10, 2], "job_s": [3600.0, 60.0], "max_s": [400.0, 30.0],
                      "share": [0.98, 0.02]})


# What each paper table's values are, as the pipeline's registry says.
QUANTITIES = paper_targets.quantities()


def finished_run(root):
    tables, records, figures = root / "results/tables", root / "results/records", root / "figures"
    for d in (tables, records, figures):
        d.mkdir(parents=True)
    pd.DataFrame({"dataset": ["sonar"], "paper_dataset": ["sonar"], "method": ["ksvm"], "paper_method": ["KSVM"],
                  "mean": [0.80], "std": [0.02], "paper_mean": [0.60], "paper_std": [0.01]}).to_csv(
        tables / "iklr_table3.csv", index=False)
    (tables / "iklr_table3.md").write_text("| dataset | KSVM |\n")
    (tables / "iklr_table3.html").write_text("<table>")
    (records / "runs.csv").write_text("dataset,method,rep,accuracy\nsonar,ksvm,1,0.8\n")
    (figures / "iklr_fig3.png").write_bytes(b"\x89PNG")
    (figures / "iklr_fig3.pdf").write_bytes(b"%PDF")
    (root / "results/environment.tsv").write_text("name\tvalue\ncpu_model\tAMD EPYC\ncpu_count\t2\n")
    (root / "workflow/configs").mkdir(parents=True)
    (root / "workflow/configs/paper-x.yaml").write_text("seed: 1\n")
    return root


def test_a_whole_run_is_recorded_with_its_agreement_and_how_it_was_made(tmp_path):
    run = finished_run(tmp_path / "run")
    explanations = tmp_path / "explanations.yaml"
    explanations.write_text("[]\n")
    out = tmp_path / "reproductions/paper-x"
    written = record_run(run, out, name="paper-x", commit="abc123", command="snakemake all_paper_targets",
                         wall_seconds=3725.0, rules=RULES, explanations=explanations, quantities=QUANTITIES)
    names = sorted(str(p.relative_to(out)) for p in written)
    assert names == ["RUN.md", "agreement.csv", "agreement.md", "config.yaml", "environment.tsv",
                     "figures/iklr_fig3.png", "records/runs.csv.gz", "tables/iklr_table3.csv", "tables/iklr_table3.md"]
    # the config as it ran, which the drift test rebuilds the tables with
    assert (out / "config.yaml").read_text() == "seed: 1\n"
    with gzip.open(out / "records/runs.csv.gz", "rt") as f:
        assert f.read() == (run / "results/records/runs.csv").read_text()
    assert "| iklr_table3 | 1 | 0 | 0% | 0 | 0 | 1 | 0 |" in (out / "agreement.md").read_text()
    text = (out / "RUN.md").read_text()
    assert "`abc123`" in text and "`snakemake all_paper_targets`" in text and "1 h 2 min 5 s, 12 jobs" in text
    assert "AMD EPYC, 2" in text and "| fit" in text
    # the same run recorded again gives the same bytes
    before = {p: p.read_bytes() for p in written}
    record_run(run, out, name="paper-x", commit="abc123", command="snakemake all_paper_targets", wall_seconds=3725.0,
               rules=RULES, explanations=explanations, quantities=QUANTITIES)
    assert all(p.read_bytes() == content for p, content in before.items())


def test_a_run_without_paper_tables_is_recorded_without_an_agreement(tmp_path):
    # the benchmark across methods: its tables have no paper values to agree with
    run = finished_run(tmp_path / "run")
    for suffix in (".csv", ".md", ".html"):
        (run / "results/tables/iklr_table3").with_suffix(suffix).rename(run / f"results/tables/benchmark{suffix}")
    out = tmp_path / "reproductions/paper-x"
    written = record_run(run, out, name="paper-x", commit="abc123", command="snakemake all_paper_targets",
                         wall_seconds=60.0, rules=RULES, explanations=tmp_path / "none.yaml", quantities=QUANTITIES)
    assert sorted(str(p.relative_to(out)) for p in written) == [
        "RUN.md", "config.yaml", "environment.tsv", "figures/iklr_fig3.png", "records/runs.csv.gz",
        "tables/benchmark.csv", "tables/benchmark.md"]
    assert "agreement" not in (out / "RUN.md").read_text()
    # a paper table among them is still judged
    for suffix in (".csv", ".md"):
        (run / f"results/tables/benchmark{suffix}").rename(run / f"results/tables/iklr_table3{suffix}")
    (tmp_path / "none.yaml").write_text("[]\n")
    record_run(run, out, name="paper-x", commit="abc123", command="snakemake all_paper_targets",
               wall_seconds=60.0, rules=RULES, explanations=tmp_path / "none.yaml", quantities=QUANTITIES)
    assert (out / "agreement.csv").exists() and "agreement.md" in (out / "RUN.md").read_text()


def test_a_directory_without_tables_is_refused(tmp_path):
    with pytest.raises(KreinbenchError, match="holds no table"):
        record_run(tmp_path, tmp_path / "out", name="x", commit="c", command="c", wall_seconds=1.0, rules=RULES,
                   explanations=tmp_path / "e.yaml", quantities=QUANTITIES)


def test_a_resumed_run_records_the_wall_time_of_each_part(tmp_path):
    run = finished_run(tmp_path / "run")
    explanations = tmp_path / "explanations.yaml"
    explanations.write_text("[]\n")
    out = tmp_path / "out"
    record_run(run, out, name="paper-x", commit="abc123", command="snakemake all_paper_targets",
               wall_seconds=[3600.0, 125.0], rules=RULES, explanations=explanations, quantities=QUANTITIES,
               notes=("Table II was made after the run, at the same commit",))
    text = (out / "RUN.md").read_text()
    assert "1 h 2 min 5 s in 2 parts (1 h 0 min 0 s, 0 h 2 min 5 s)" in text and "resumed" in text
    assert "- note: Table II was made after the run, at the same commit\n" in text


LOCK_SHA = "ab" * 32


@pytest.mark.parametrize("drift, says", [
    ("none", "(the installed packages matched it)"),
    ("numpy 2.5.0 installed, 2.4.6", "(the installed packages differed: numpy 2.5.0 installed, 2.4.6)")])
def test_run_md_names_the_lock_the_run_installed_from(tmp_path, drift, says):
    run = finished_run(tmp_path / "run")
    with open(run / "results/environment.tsv", "a") as f:
        f.write(f"lock\trequirements.lock sha256:{LOCK_SHA}\nlock_drift\t{drift}\n")
    out = tmp_path / "out"
    explanations = tmp_path / "explanations.yaml"
    explanations.write_text("[]\n")
    record_run(run, out, name="paper-x", commit="abc123", command="snakemake", wall_seconds=1.0, rules=RULES,
               explanations=explanations, quantities=QUANTITIES)
    text = (out / "RUN.md").read_text()
    assert f"- lock: `requirements.lock` sha256 `{LOCK_SHA}` {says}" in text


def test_run_md_of_a_run_older_than_the_lock_record_names_the_run_directorys_lock(tmp_path):
    import hashlib

    run = finished_run(tmp_path / "run")
    (run / "requirements.lock").write_text("numpy==2.4.6\n")
    explanations = tmp_path / "explanations.yaml"
    explanations.write_text("[]\n")
    record_run(run, tmp_path / "out", name="paper-x", commit="abc123", command="snakemake", wall_seconds=1.0,
               rules=RULES, explanations=explanations, quantities=QUANTITIES)
    digest = hashlib.sha256(b"numpy==2.4.6\n").hexdigest()
    text = (tmp_path / "out/RUN.md").read_text()
    assert f"- lock: `requirements.lock` sha256 `{digest}` (the run directory's" in text
    (run / "requirements.lock").unlink()
    record_run(run, tmp_path / "out", name="paper-x", commit="abc123", command="snakemake", wall_seconds=1.0,
               rules=RULES, explanations=explanations, quantities=QUANTITIES)
    assert "- lock: none recorded\n" in (tmp_path / "out/RUN.md").read_text()
