"""The committed reproductions are what today's table rules compute from their committed records.

For every ``reproductions/<config>/``: the tables whose rule reads only the tidy records (and the
papers' values) are rebuilt by Snakemake from ``records/*.csv.gz`` with exactly the config's own
rules, and must equal the committed ones; the agreement record is rebuilt from the committed
tables. A change of a table rule, a paper value or an explanation that moves a committed number
fails here, naming the record to regenerate.
"""

import gzip
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
REPRODUCTIONS = sorted(p for p in (ROOT / "reproductions").glob("*") if (p / "RUN.md").exists())
RECORDS = {"results/records/runs.csv", "results/records/history.csv"}


def workflow_rules(configfile: Path, overrides: list[str]) -> dict[str, tuple[set[str], set[str]]]:
    """Each rule's static inputs and outputs, as the workflow declares them under ``configfile``."""
    from snakemake.cli import parse_config  # noqa: PLC0415
    from snakemake.api import SnakemakeApi  # noqa: PLC0415 (only this test loads a workflow)
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings  # noqa: PLC0415

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow = api.workflow(resource_settings=ResourceSettings(cores=1),
                                config_settings=ConfigSettings(configfiles=[configfile],
                                                               config=parse_config(overrides)),
                                snakefile=ROOT / "Snakefile", workdir=ROOT)
        # Input functions (lambdas) read the config's plan: such a rule depends on experiment jobs.
        return {rule.name: ({str(i) if not callable(i) else "<function>" for i in rule.input},
                            {str(o) for o in rule.output}) for rule in workflow._workflow.rules}


def rules_on_records(rules: dict[str, tuple[set[str], set[str]]]) -> dict[str, set[str]]:
    """The rules computed from the records alone (or from other such rules' tables): name -> outputs."""
    chosen: dict[str, set[str]] = {}
    grown = True
    while grown:
        grown = False
        available = RECORDS.union(*chosen.values())
        for name, (inputs, outputs) in rules.items():
            if name in chosen or not inputs or name.startswith("all"):
                continue
            if all(i in available or i.startswith("workflow/paper_values/") for i in inputs):
                chosen[name], grown = outputs, True
    return chosen


def run_overrides(record: Path) -> list[str]:
    """The ``--config`` values of the run's command (RUN.md), e.g. ``offline=true``."""
    command = re.search(r"^- command: `(.*)`$", (record / "RUN.md").read_text(), flags=re.MULTILINE)
    assert command, f"{record}/RUN.md names no command"
    words = shlex.split(command.group(1))
    if "--config" not in words:
        return []
    values = words[words.index("--config") + 1:]
    return values[: next((i for i, w in enumerate(values) if w.startswith("-")), len(values))]


@pytest.mark.parametrize("record", REPRODUCTIONS, ids=[p.name for p in REPRODUCTIONS])
def test_committed_tables_are_what_the_table_rules_compute_from_the_committed_records(record, tmp_path):
    configfile = ROOT / "workflow/configs" / f"{record.name}.yaml"
    assert configfile.exists(), f"{record} has no config {configfile.relative_to(ROOT)}"
    overrides = run_overrides(record)
    on_records = rules_on_records(workflow_rules(configfile, overrides))
    committed = {p.name: p for p in (record / "tables").glob("*.csv")}
    rebuilt = sorted(Path(o).name for outputs in on_records.values() for o in outputs
                     if o.startswith("results/tables/") and o.endswith(".csv") and Path(o).name in committed)
    assert rebuilt, f"no committed table of {record.name} is computed from its records alone"

    run = tmp_path / "run"
    for part in ("results/records", "results/tables"):
        (run / part).mkdir(parents=True)
    (run / "workflow").symlink_to(ROOT / "workflow")  # the papers' values, as the rules name them
    for part in (record / "records").glob("*.csv.gz"):
        with gzip.open(part, "rb") as src, open(run / "results/records" / part.name[:-3], "wb") as dst:
            shutil.copyfileobj(src, dst)
    # The tables made in experiment jobs enter as they were committed (the agreement reads them).
    for name, path in committed.items():
        if name not in rebuilt and not name.startswith("agreement"):
            shutil.copyfile(path, run / "results/tables" / name)
    targets = [f"results/tables/{name}" for name in rebuilt] + ["results/tables/agreement.csv"]
    result = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "--snakefile", str(ROOT / "Snakefile"),
                             "--directory", str(run), "--configfile", str(configfile), *(["--config", *overrides] if overrides else []),
                             "--workflow-profile", "none",
                             "--allowed-rules", *on_records, "agreement", "--", *targets],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]

    regenerate = f"regenerate reproductions/{record.name} (benchmarks/record_run.py) or fix the rule"
    for name in [*rebuilt, "agreement.csv"]:
        ours = pd.read_csv(run / "results/tables" / name)
        theirs = pd.read_csv(record / name if name == "agreement.csv" else committed[name])
        try:
            pd.testing.assert_frame_equal(ours, theirs, check_exact=False, rtol=1e-9, atol=1e-12)
        except AssertionError as err:
            raise AssertionError(f"{record.name}/{name} is not what today's rule computes: {regenerate}\n{err}") from None
