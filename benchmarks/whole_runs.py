"""The ledger of measured whole runs, and the README's and docs' whole-run tables rendered from it.

Usage: .venv/bin/python benchmarks/whole_runs.py add --workdir DIR --conditions idle|shared [--log L ...]
                                                     [--record reproductions/NAME]
       .venv/bin/python benchmarks/whole_runs.py render

``add`` measures a run that went whole from an empty directory in DIR (a clone of a fixed commit)
and appends it to ``benchmarks/results/whole_runs.csv``: its config, scale and ``offline`` from
the Snakemake log's ``Command:`` line, the commit from DIR's git, the wall time from the log's
timestamps (one ``--log`` per part of a run stopped and resumed with the same command), the jobs
and job seconds from the jobs' ``benchmark:`` files (benchmarks/protocols.py), and the rule that
took most of them.  ``--conditions``: ``idle`` when nothing but niced side work ran beside it,
``shared`` when other work did (its times are upper bounds).  ``benchmarks/record_run.py`` adds
the run it records.

``render`` rewrites the table between the ``whole-runs`` markers of README.md (its third column:
per config the newest idle run of each scale, and the record's run where that is another) and of
docs/protocol-speed.md (every ledger row); ``tests/test_whole_runs.py`` fails when either differs
from the ledger, so a whole-run time in them is always a measured one.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
from datetime import datetime
from pathlib import Path

import pandas as pd
import pipeline_bench
import protocols

from kreinbench.atomic import write_csv_atomic, write_text_atomic

ROOT = Path(__file__).resolve().parent.parent
LEDGER = ROOT / "benchmarks" / "results" / "whole_runs.csv"
COLUMNS = ["config", "scale", "offline", "commit", "started", "wall_s", "parts", "jobs", "job_s", "conditions",
           "top_rule", "top_share", "record", "source"]
CONDITIONS = ("idle", "shared")
MARKERS = ("<!-- whole-runs:start -->", "<!-- whole-runs:end -->")


def read_ledger(path: Path = LEDGER) -> pd.DataFrame:
    ledger = pd.read_csv(path, dtype={"commit": str, "started": str})
    text = ["top_rule", "record", "source"]
    ledger[text] = ledger[text].fillna("")
    return ledger


def command_settings(command: str) -> tuple[str, str, bool]:
    """(config, scale, offline) of a ``snakemake`` command line: the config file's stem, and the
    ``scale=``/``offline=`` overrides of ``--config`` (default, False where absent)."""
    words = shlex.split(command)
    config, overrides = "config", {}
    for i, word in enumerate(words):
        if word == "--configfile" and i + 1 < len(words):
            config = Path(words[i + 1]).stem
        if word == "--config":
            for item in words[i + 1:]:
                if item.startswith("-"):
                    break
                key, _, value = item.partition("=")
                overrides[key] = value
    return config, overrides.get("scale", "default"), overrides.get("offline", "false").lower() == "true"


def log_start(log: Path) -> str:
    for line in log.read_text().splitlines():
        if found := pipeline_bench.TIMESTAMP.match(line.strip()):
            return datetime.strptime(found.group(1), "%a %b %d %H:%M:%S %Y").strftime("%Y-%m-%d %H:%M")
    raise SystemExit(f"Snakemake log {log} has no timestamp")


def measure(workdir: Path, logs: list[Path], conditions: str, record: str = "") -> dict:
    """One ledger row for the whole run in ``workdir`` (module docstring)."""
    if conditions not in CONDITIONS:
        raise SystemExit(f"--conditions must be one of {', '.join(CONDITIONS)}, got {conditions!r}")
    found = re.search(r"^\s*Command: (.+)$", logs[0].read_text(), re.MULTILINE)
    if found is None:
        raise SystemExit(f"{logs[0]} has no 'Command:' line")
    config, scale, offline = command_settings(found.group(1))
    commit = subprocess.run(["git", "-C", str(workdir), "rev-parse", "--short=7", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    rules = protocols.by_rule(protocols.job_seconds(workdir))
    return {"config": config, "scale": scale, "offline": offline, "commit": commit, "started": log_start(logs[0]),
            "wall_s": round(sum(pipeline_bench.log_wall_seconds(log) for log in logs)), "parts": len(logs),
            "jobs": int(rules.jobs.sum()), "job_s": round(float(rules.job_s.sum())), "conditions": conditions,
            "top_rule": rules.rule.iloc[0], "top_share": round(float(rules.share.iloc[0]), 2), "record": record,
            "source": "logs"}


def add(row: dict, path: Path = LEDGER) -> None:
    rows = read_ledger(path).to_dict("records") + [{column: row[column] for column in COLUMNS}]
    write_csv_atomic(path, pd.DataFrame(rows, columns=COLUMNS).sort_values("started", kind="stable"))


def duration(seconds: float) -> str:
    hours, rest = divmod(int(round(seconds)), 3600)
    return f"{hours} h {rest // 60} min {rest % 60} s" if hours else f"{rest // 60} min {rest % 60} s"


def describe(run: pd.Series) -> str:
    """E.g. '1 h 5 min 40 s (686 jobs, 2.18 h of job time, commit ac2d4b0, idle machine): rule
    `fit_batch` 86 %' (the rule with the most job seconds, and its share of them)."""
    facts = [f"{run.jobs} jobs"]
    if run.parts > 1:
        facts.insert(0, f"in {run.parts} parts")
    if run.job_s:
        facts.append(f"{run.job_s / 3600:.2f} h of job time")
    facts.append(f"commit {run.commit}")
    facts.append("idle machine" if run.conditions == "idle" else "beside other work, an upper bound")
    text = f"{duration(run.wall_s)} ({', '.join(facts)})"
    return f"{text}: rule `{run.top_rule}` {round(run.top_share * 100)} %" if run.top_rule else text


def readme_cell(runs: pd.DataFrame) -> str:
    """The README's whole-run cell of one config: the newest idle run per scale (default first),
    then the record's run unless it is one of those."""
    shown, parts = set(), []
    for scale in sorted(runs.scale.unique(), key=lambda s: (s != "default", s)):
        of_scale = runs[runs.scale == scale]
        idle = of_scale[of_scale.conditions == "idle"]
        run = (idle if len(idle) else of_scale).iloc[-1]
        shown.add(run.name)
        prefix = "" if scale == "default" else f"with `--config scale={scale}`: "
        parts.append(prefix + describe(run))
    records = runs[runs.record != ""]
    if len(records) and records.index[-1] not in shown:
        run = records.iloc[-1]
        parts.append(f"the record's run: {describe(run)}")
    return "; ".join(parts)


def marked_span(text: str, where: str) -> tuple[int, int]:
    """Where the text between the ``whole-runs`` markers starts and ends."""
    start, end = (text.find(marker) for marker in MARKERS)
    if start < 0 or end < start:
        raise SystemExit(f"{where} lacks the {MARKERS[0]} ... {MARKERS[1]} markers")
    return start + len(MARKERS[0]), end


def replace_between_markers(text: str, body: str, where: str) -> str:
    start, end = marked_span(text, where)
    return text[:start] + "\n" + body + "\n" + text[end:]


def render_readme(text: str, ledger: pd.DataFrame) -> str:
    """README.md with its whole-run table's third column rendered from the ledger (config in the
    first column as `name.yaml`)."""
    start, end = marked_span(text, "README.md")
    rows = []
    for line in text[start:end].strip().splitlines():
        cells = line.strip("|").split("|")
        config = re.search(r"`([\w-]+)\.yaml`", cells[0])
        if config is not None:
            runs = ledger[ledger.config == config.group(1)]
            if runs.empty:
                raise SystemExit(f"README.md lists {config.group(1)}.yaml, which has no measured whole run in {LEDGER}")
            cells[2] = f" {readme_cell(runs)} "
        rows.append("|" + "|".join(cells) + "|")
    return replace_between_markers(text, "\n".join(rows), "README.md")


def docs_table(ledger: pd.DataFrame) -> str:
    lines = ["| config | scale | offline | commit | started (UTC) | wall time | parts | jobs | job time | conditions | "
             "record | source |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for run in ledger.itertuples():
        job = f"{run.job_s / 3600:.2f} h" if run.job_s else "—"
        lines.append(f"| {run.config} | {run.scale} | {'yes' if run.offline else 'no'} | {run.commit} | {run.started} | "
                     f"{duration(run.wall_s)} | {run.parts} | {run.jobs} | {job} | {run.conditions} | "
                     f"{run.record or '—'} | {run.source} |")
    return "\n".join(lines)


def render(root: Path = ROOT, ledger: pd.DataFrame | None = None) -> dict[Path, str]:
    """The README and docs/protocol-speed.md as the ledger renders them."""
    ledger = read_ledger() if ledger is None else ledger
    readme, docs = root / "README.md", root / "docs" / "protocol-speed.md"
    return {readme: render_readme(readme.read_text(), ledger),
            docs: replace_between_markers(docs.read_text(), docs_table(ledger), str(docs))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    adding = commands.add_parser("add")
    adding.add_argument("--workdir", type=Path, required=True)
    adding.add_argument("--log", type=Path, action="append", help="the Snakemake log; repeat for a resumed run's parts")
    adding.add_argument("--conditions", required=True, choices=CONDITIONS)
    adding.add_argument("--record", default="", help="reproductions/NAME when this run is that record's")
    commands.add_parser("render")
    args = parser.parse_args()
    if args.command == "add":
        add(measure(args.workdir, args.log or [protocols.newest_log(args.workdir)], args.conditions, args.record))
    for path, text in render().items():
        write_text_atomic(path, text)
        print(f"rendered {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
