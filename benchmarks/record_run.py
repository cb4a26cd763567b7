"""Record a finished whole run under reproductions/<name>/ (kreinbench.report.reproduction).

Usage: .venv/bin/python benchmarks/record_run.py --workdir DIR --name paper-dank --conditions idle|shared [--log DIR/run.log ...]
       [--command "..."] [--out reproductions/paper-dank]
       .venv/bin/python benchmarks/record_run.py --refresh paper-dank

DIR is the clone of a fixed commit where the config ran whole from an empty directory; its commit
is read from DIR's git, the command from the Snakemake log's "Command:" line (or ``--command``),
the wall time from the log's first and last timestamps (a run stopped and resumed with the same
command: one ``--log`` per part, their wall times recorded each), the job time per rule from the jobs'
``benchmark:`` files (benchmarks/protocols.py); ``--conditions`` says whether other work ran beside it
(benchmarks/whole_runs.py, whose ledger gets the run). The tables and figures computed from the records and
the agreement are then rebuilt with today's rules and explanations (no fit is rerun), as
tests/test_reproduction_drift.py checks the tables; ``--refresh NAME`` does only that, for a
committed record.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

import pipeline_bench
import protocols
import whole_runs

from kreinbench.atomic import write_text_atomic
from kreinbench.pipeline import paper_targets
from kreinbench.report.reproduction import record_run, refresh_record

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--name")
    parser.add_argument("--refresh", metavar="NAME", help="only rebuild reproductions/NAME's tables, figures and agreement")
    parser.add_argument("--log", type=Path, action="append", help="the Snakemake log; repeat for a resumed run's parts")
    parser.add_argument("--command")
    parser.add_argument("--note", action="append", default=[],
                        help="a line RUN.md adds to how the run went (repeatable)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--conditions", choices=whole_runs.CONDITIONS,
                        help="idle: nothing but niced side work beside the run; shared: other work (required to record)")
    parser.add_argument("--explanations", type=Path, default=Path("workflow/paper_values/explanations.yaml"))
    args = parser.parse_args()
    if args.refresh:
        refresh(ROOT / "reproductions" / args.refresh)
        return
    if args.workdir is None or args.name is None or args.conditions is None:
        parser.error("--workdir, --name and --conditions are required (or --refresh NAME)")
    logs = args.log or [protocols.newest_log(args.workdir)]
    command = args.command
    if command is None:
        found = re.search(r"^\s*Command: (.+)$", logs[0].read_text(), re.MULTILINE)
        if found is None:
            raise SystemExit(f"{logs[0]} has no 'Command:' line: give --command")
        command = found.group(1).strip()
    commit = subprocess.run(["git", "-C", str(args.workdir), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    rules = protocols.by_rule(protocols.job_seconds(args.workdir))
    out = args.out or ROOT / "reproductions" / args.name
    written = record_run(args.workdir, out, name=args.name, commit=commit,
                         command=command, wall_seconds=[pipeline_bench.log_wall_seconds(log) for log in logs], rules=rules,
                         explanations=args.explanations, quantities=paper_targets.quantities(), notes=tuple(args.note))
    print(f"{len(written)} files under {out}")
    refresh(out)
    # The ledger of whole runs (the record named where it is one of reproductions/), and the README's
    # and docs' tables rendered from it.
    committed = out.resolve().parent == ROOT / "reproductions"
    whole_runs.add(whole_runs.measure(args.workdir, logs, args.conditions,
                                      record=f"reproductions/{out.name}" if committed else ""))
    for path, text in whole_runs.render().items():
        write_text_atomic(path, text)


def refresh(record: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        written = refresh_record(record, ROOT, Path(scratch) / "run")
    print(f"rebuilt with today's rules: {', '.join(str(p.relative_to(record)) for p in written)}")


if __name__ == "__main__":
    main()
