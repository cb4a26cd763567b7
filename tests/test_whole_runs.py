"""benchmarks/whole_runs.py: the README's and docs' whole-run tables are the ledger's, and a run is
measured from its own logs and benchmark files."""

import subprocess

import pandas as pd
import pytest
import whole_runs


def test_the_readme_and_docs_tables_are_rendered_from_the_ledger():
    for path, text in whole_runs.render().items():
        assert path.read_text() == text, (f"{path.name}'s whole-run table differs from benchmarks/results/whole_runs.csv:"
                                          " add the run to the ledger (benchmarks/whole_runs.py add) and render")


def test_every_config_in_the_readme_table_has_a_measured_run():
    ledger = whole_runs.read_ledger()
    assert set(ledger.conditions) <= set(whole_runs.CONDITIONS)
    assert (ledger.wall_s > 0).all() and (ledger.jobs > 0).all()
    readme = (whole_runs.ROOT / "README.md").read_text()
    for config in ("paper-iklr", "paper-iklr-spd", "paper-isvm", "paper-dank"):
        assert f"`{config}.yaml`" in readme and config in set(ledger.config)


def test_a_hand_edited_time_is_rendered_back_to_the_measured_one():
    ledger = whole_runs.read_ledger()
    text = (whole_runs.ROOT / "README.md").read_text()
    assert whole_runs.render_readme(text.replace("3 min 4 s (197 jobs", "2 min 4 s (197 jobs"), ledger) == text


@pytest.mark.parametrize("command, expected", [
    (".venv/bin/snakemake all_paper_targets --cores 2 --configfile workflow/configs/paper-dank.yaml",
     ("paper-dank", "default", False)),
    ("snakemake all_paper_targets --cores 2 --configfile workflow/configs/paper-iklr.yaml --config offline=true "
     "scale=small --rerun-incomplete", ("paper-iklr", "small", True)),
    ("snakemake all --cores 2", ("config", "default", False)),
])
def test_the_config_scale_and_offline_come_from_the_command(command, expected):
    assert whole_runs.command_settings(command) == expected


def fake_run(root, command, stamps, jobs):
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "run"], check=True)
    log = root / ".snakemake" / "log" / "2026-11-28T010000.snakemake.log"
    log.parent.mkdir(parents=True)
    log.write_text(f"Command: {command}\n" + "".join(f"[{stamp}]\nFinished job.\n" for stamp in stamps))
    for name, seconds in jobs.items():
        tsv = root / "logs" / "benchmark" / f"{name}.tsv"
        tsv.parent.mkdir(parents=True, exist_ok=True)
        tsv.write_text(f"s\th:m:s\n{seconds}\t0:00:00\n")
    return log


def test_a_run_is_measured_from_its_logs_and_benchmark_files(tmp_path):
    log = fake_run(tmp_path, "snakemake all_paper_targets --configfile workflow/configs/paper-isvm.yaml --config "
                   "offline=true", ["Sat Nov 28 01:00:00 2026", "Sat Nov 28 01:30:05 2026"],
                   {"fit/sonar/rep1": 100.0, "fit/sonar/rep2": 50.0, "split/sonar/rep1": 10.0})
    row = whole_runs.measure(tmp_path, [log], "idle")
    assert row["config"] == "paper-isvm" and row["offline"] and row["scale"] == "default"
    assert (row["wall_s"], row["parts"], row["jobs"], row["job_s"]) == (1805, 1, 3, 160)
    assert (row["top_rule"], row["top_share"], row["started"]) == ("fit", 0.94, "2026-11-28 01:00")
    ledger = tmp_path / "ledger.csv"
    ledger.write_text(",".join(whole_runs.COLUMNS) + "\n")
    whole_runs.add(row, ledger)
    again = whole_runs.read_ledger(ledger)
    assert len(again) == 1 and again.wall_s.iloc[0] == 1805
    cell = whole_runs.readme_cell(again)
    assert cell.startswith("30 min 5 s (3 jobs, 0.04 h of job time, commit ") and cell.endswith("idle machine): rule `fit` 94 %")


def test_unknown_conditions_are_refused(tmp_path):
    log = fake_run(tmp_path, "snakemake all", ["Sat Nov 28 01:00:00 2026", "Sat Nov 28 01:00:05 2026"], {"fit/a/b": 1})
    with pytest.raises(SystemExit, match="conditions"):
        whole_runs.measure(tmp_path, [log], "quiet")


def test_the_readme_cell_prefers_an_idle_run_and_names_the_records():
    runs = pd.DataFrame([
        {"config": "c", "scale": "default", "offline": False, "commit": "aaaaaaa", "started": "1", "wall_s": 100,
         "parts": 1, "jobs": 5, "job_s": 0, "conditions": "idle", "top_rule": "", "top_share": float("nan"),
         "record": "", "source": "logs"},
        {"config": "c", "scale": "default", "offline": False, "commit": "bbbbbbb", "started": "2", "wall_s": 300,
         "parts": 2, "jobs": 5, "job_s": 3600, "conditions": "shared", "top_rule": "fit", "top_share": 0.5,
         "record": "reproductions/c", "source": "logs"},
    ])
    assert whole_runs.readme_cell(runs) == (
        "1 min 40 s (5 jobs, commit aaaaaaa, idle machine); the record's run: 5 min 0 s (in 2 parts, 5 jobs, "
        "1.00 h of job time, commit bbbbbbb, beside other work, an upper bound): rule `fit` 50 %")
