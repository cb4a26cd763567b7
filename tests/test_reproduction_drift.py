"""The committed reproductions are what today's table rules compute from their committed records.

For every ``reproductions/<config>/``: the tables whose rule reads only the tidy records (and the
papers' values) are rebuilt by Snakemake from ``records/*.csv.gz`` with exactly the config's own
rules (and the run's ``--config`` values), and must equal the committed ones; the agreement record
is rebuilt from the committed tables. A change of a table rule, a paper value or an explanation
that moves a committed number fails here, naming the record to regenerate
(``benchmarks/record_run.py --refresh NAME`` rewrites a record's rebuilt tables and agreement).
"""

from pathlib import Path

import pandas as pd
import pytest

from kreinbench.report.reproduction import has_agreement, rebuild_tables

pytestmark = pytest.mark.workflow  # the table rules run by Snakemake on each committed record

ROOT = Path(__file__).resolve().parent.parent
REPRODUCTIONS = sorted(p for p in (ROOT / "reproductions").glob("*") if (p / "RUN.md").exists())


@pytest.mark.parametrize("record", REPRODUCTIONS, ids=[p.name for p in REPRODUCTIONS])
def test_committed_tables_are_what_the_table_rules_compute_from_the_committed_records(record, tmp_path):
    rebuilt = rebuild_tables(record, ROOT, tmp_path / "run")
    assert rebuilt, f"no committed table of {record.name} is computed from its records alone"
    regenerate = f"regenerate it: benchmarks/record_run.py --refresh {record.name} (or fix the rule)"
    for name in [*rebuilt, *(["agreement.csv"] if has_agreement(record) else [])]:
        ours = pd.read_csv(tmp_path / "run/results/tables" / name)
        theirs = pd.read_csv(record / name if name == "agreement.csv" else record / "tables" / name)
        try:
            pd.testing.assert_frame_equal(ours, theirs, check_exact=False, rtol=1e-9, atol=1e-12)
        except AssertionError as err:
            raise AssertionError(f"{record.name}/{name} is not what today's rule computes: {regenerate}\n{err}") from None
