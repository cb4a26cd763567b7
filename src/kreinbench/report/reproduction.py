"""A whole run's reproduction record: what a paper config produced, committed under reproductions/.

``record_run`` copies from a finished run's directory what its table and figure rules wrote (the
tables as CSV and Markdown, the figures as PNG), the tidy records every table is computed from
(``results/records/runs.csv``, gzipped with ``history.csv``), the environment, and the agreement
record (the run's own ``results/tables/agreement.*``, or computed here from its tables by
:mod:`kreinbench.report.agreement` when the run predates that rule), and writes ``RUN.md``: the
project commit, the exact command, the wall time, the machine, the lock it installed from
(:mod:`kreinbench.lock`) and where the job time went.
"""

from __future__ import annotations

import gzip
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

from kreinbench.atomic import atomic_path, sha256_file, write_csv_atomic, write_text_atomic
from kreinbench.errors import KreinbenchError
from kreinbench.lock import LOCK_NAME
from kreinbench.report.agreement import judged_tables, markdown

# Tables and figures a reproduction keeps (the HTML renderings are made from the Markdown).
TABLE_SUFFIXES = (".csv", ".md")
# A record's copy of the config its run used.
RECORD_CONFIG = "config.yaml"


def record_run(workdir: str | Path, out: str | Path, *, name: str, commit: str, command: str,
               wall_seconds: float | list[float], rules: pd.DataFrame, explanations: str | Path,
               quantities: dict[str, str], notes: tuple[str, ...] = ()) -> list[Path]:
    """Write the reproduction record of the run in ``workdir`` to ``out``; returns the files written.

    ``wall_seconds`` is the run's wall time, or the list of its parts' when it was stopped and
    resumed with the same command; ``rules`` is the per-rule breakdown of the job time (rule,
    jobs, job_s, max_s, share); ``quantities``: what each paper table's values are
    (kreinbench.pipeline.paper_targets.quantities), for a run without its own agreement; ``notes``: what a reader must know about how the run went (e.g.
    a target made after it at the same commit, a part that shared the machine).
    """
    workdir, out = Path(workdir), Path(out)
    tables = sorted(p for p in (workdir / "results/tables").glob("*") if p.suffix in TABLE_SUFFIXES
                    and not p.stem.startswith("agreement"))
    if not tables:
        raise KreinbenchError(f"{workdir}/results/tables holds no table: is this the directory of a finished run?")
    written = [_copy(p, out / "tables" / p.name) for p in tables]
    # The config as it ran: today's tables are rebuilt from the records with it (rebuild_tables).
    written.append(_copy(workdir / "workflow/configs" / f"{name}.yaml", out / RECORD_CONFIG))
    written += [_copy(p, out / "figures" / p.name) for p in sorted((workdir / "figures").glob("*.png"))]
    records = workdir / "results/records"
    for part in ("runs", "history"):
        if (records / f"{part}.csv").exists():
            written.append(_gzip(records / f"{part}.csv", out / "records" / f"{part}.csv.gz"))
    if (workdir / "results/environment.tsv").exists():
        written.append(_copy(workdir / "results/environment.tsv", out / "environment.tsv"))
    agreement = _agreement(workdir, out, name, [p for p in tables if p.suffix == ".csv"], explanations, quantities)
    run_md = out / "RUN.md"
    write_text_atomic(run_md, run_markdown(name=name, commit=commit, command=command, wall_seconds=wall_seconds,
                                           rules=rules, environment=out / "environment.tsv", notes=notes,
                                           lock=workdir / LOCK_NAME, agreement=bool(agreement)))
    written += agreement
    return written + [run_md]


def _copy(source: Path, target: Path) -> Path:
    with atomic_path(target) as tmp:
        shutil.copyfile(source, tmp)
    return target


def _gzip(source: Path, target: Path) -> Path:
    # mtime=0: the same records give the same bytes (a rerun of the recorder changes no file)
    with atomic_path(target) as tmp, open(source, "rb") as src, open(tmp, "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    return target


def _agreement(workdir: Path, out: Path, name: str, table_csvs: list[Path], explanations, quantities) -> list[Path]:
    ran = workdir / "results/tables"
    if (ran / "agreement.csv").exists() and (ran / "agreement.md").exists():
        return [_copy(ran / "agreement.csv", out / "agreement.csv"), _copy(ran / "agreement.md", out / "agreement.md")]
    if not any(p.stem in quantities for p in table_csvs):
        return []  # no paper table (e.g. the benchmark across methods): nothing to agree with
    cells = judged_tables([str(p) for p in table_csvs], str(explanations), quantities)
    write_csv_atomic(out / "agreement.csv", cells)
    write_text_atomic(out / "agreement.md", markdown(cells, f"Agreement of {name}'s tables with the papers"))
    return [out / "agreement.csv", out / "agreement.md"]


def run_markdown(*, name: str, commit: str, command: str, wall_seconds: float | list[float], rules: pd.DataFrame,
                 environment: Path, notes: tuple[str, ...] = (), lock: Path | None = None,
                 agreement: bool = True) -> str:
    """RUN.md: how the record was made, with which lock, and where its time went (a resumed run:
    its parts' wall times)."""
    machine = ""
    env = pd.read_csv(environment, sep="\t").set_index("name")["value"] if environment.exists() else pd.Series()
    if len(env):
        machine = ", ".join(f"{env[key]}" for key in ("cpu_model", "cpu_count", "memory_total", "os") if key in env)
        machine = f"- machine: {machine} (`environment.tsv` has the package versions)\n"
    parts = wall_seconds if isinstance(wall_seconds, list) else [wall_seconds]
    resumed = (f" in {len(parts)} parts ({', '.join(_duration(s) for s in parts)}): the run was stopped and "
               "resumed with the same command at the same commit") if len(parts) > 1 else ""
    lines = [f"# {name}: a whole run", "",
             f"- commit: `{commit}`", f"- command: `{command}`",
             f"- wall time: {_duration(sum(parts))}{resumed}, {int(rules['jobs'].sum())} jobs, "
             f"{rules['job_s'].sum() / 3600:.2f} h of job time", machine.rstrip("\n"), lock_line(env, lock),
             *(f"- note: {note}" for note in notes), "",
             "Job time per rule (the `benchmark:` files of every job):", "",
             rules.to_markdown(index=False, floatfmt=".2f"), "",
             "`tables/` holds what the table rules wrote, `figures/` the figures, `records/` the tidy "
             "records every table is computed from" + (", `agreement.md` every paper-table cell beside the "
                                                       "paper's value." if agreement else ".")]
    return "\n".join(line for line in lines if line is not None) + "\n"


def lock_line(env: pd.Series, lock: Path | None) -> str:
    """RUN.md's line naming the lock the run installed from (kreinbench.lock): as the run's
    environment record has it, with whether the installed packages matched it; for a run whose
    record predates the lock, the run directory's lock file, unverified."""
    if "lock" in env and str(env["lock"]).startswith(LOCK_NAME):
        file, _, digest = str(env["lock"]).partition(" ")
        algorithm, _, value = digest.partition(":")
        drift = str(env.get("lock_drift", "unknown"))
        matched = "matched it" if drift == "none" else f"differed: {drift}"
        return f"- lock: `{file}` {algorithm} `{value}` (the installed packages {matched})"
    if lock is not None and lock.is_file():
        return (f"- lock: `{lock.name}` sha256 `{sha256_file(lock)}` (the run directory's; its environment "
                "record does not say whether the installed packages matched it)")
    return "- lock: none recorded"


def _duration(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours} h {rest // 60} min {rest % 60} s"


# Rebuilding a record's tables with today's rules (tests/test_reproduction_drift.py, record_run.py --refresh).
RECORDS = {"results/records/runs.csv", "results/records/history.csv"}


def workflow_rules(root: Path, configfile: Path, overrides: list[str],
                   workdir: Path) -> dict[str, tuple[set[str], set[str]]]:
    """Each rule's static inputs and outputs, as the workflow declares them under ``configfile``
    (loaded in ``workdir``: the repository may hold a run of another config, which it must not
    claim or be refused by)."""
    # Snakemake's API only where a workflow is loaded (not on import of this module)
    from snakemake.api import SnakemakeApi  # noqa: PLC0415
    from snakemake.cli import parse_config  # noqa: PLC0415
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings  # noqa: PLC0415

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow = api.workflow(resource_settings=ResourceSettings(cores=1),
                                config_settings=ConfigSettings(configfiles=[configfile],
                                                               config=parse_config(overrides)),
                                snakefile=root / "Snakefile", workdir=workdir)
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
    if command is None:
        raise KreinbenchError(f"{record}/RUN.md names no command")
    words = shlex.split(command.group(1))
    if "--config" not in words:
        return []
    values = words[words.index("--config") + 1:]
    return values[: next((i for i, w in enumerate(values) if w.startswith("-")), len(values))]


def rebuild_tables(record: Path, root: Path, workdir: Path, figures: bool = False) -> list[str]:
    """Rebuild, in ``workdir``, the tables of ``record`` that today's rules compute from its records
    alone, and its agreement record from its tables (a record with one); returns the rebuilt tables'
    file names (the agreement's ``agreement.csv`` and ``.md`` are in ``workdir/results/tables`` too). With
    ``figures``, also the record's figures that such rules draw, in ``workdir/figures``."""
    # The config the run had (a later edit of the paper config, e.g. a new dataset of a table, is
    # not what these records ran); records made before the config was kept: today's.
    configfile = record / RECORD_CONFIG
    if not configfile.exists():
        configfile = root / "workflow/configs" / f"{record.name}.yaml"
    if not configfile.exists():
        raise KreinbenchError(f"{record} has no config {configfile}")
    overrides = run_overrides(record)
    for part in ("results/records", "results/tables"):
        (workdir / part).mkdir(parents=True)
    (workdir / "workflow").symlink_to(root / "workflow")  # the papers' values, as the rules name them
    on_records = rules_on_records(workflow_rules(root, configfile, overrides, workdir))
    committed = {p.name: p for p in (record / "tables").glob("*.csv")}
    rebuilt = sorted(Path(o).name for outputs in on_records.values() for o in outputs
                     if o.startswith("results/tables/") and o.endswith(".csv") and Path(o).name in committed)
    for part in (record / "records").glob("*.csv.gz"):
        with gzip.open(part, "rb") as src, open(workdir / "results/records" / part.name[:-3], "wb") as dst:
            shutil.copyfileobj(src, dst)
    # The tables made in experiment jobs enter as they were committed (the agreement reads them).
    for name, path in committed.items():
        if name not in rebuilt and not name.startswith("agreement"):
            shutil.copyfile(path, workdir / "results/tables" / name)
    targets = [f"results/tables/{name}" for name in rebuilt]
    if has_agreement(record):
        targets.append("results/tables/agreement.csv")
    if figures:
        drawn = {p.name for p in (record / "figures").glob("*.png")}
        targets += sorted(o for outputs in on_records.values() for o in outputs
                          if o.startswith("figures/") and Path(o).name in drawn)
    result = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "--snakefile", str(root / "Snakefile"),
                             "--directory", str(workdir), "--configfile", str(configfile),
                             *(["--config", *overrides] if overrides else []), "--workflow-profile", "none",
                             "--allowed-rules", *on_records, "agreement", "--", *targets],
                            cwd=workdir, capture_output=True, text=True)
    if result.returncode != 0:
        raise KreinbenchError(f"rebuilding {record}'s tables failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return rebuilt


def refresh_record(record: Path, root: Path, scratch: Path) -> list[Path]:
    """Rewrite ``record``'s tables and figures computed from its records, and its agreement, with
    today's rules (after a table or figure rule, a paper value or an explanation changed; no fit is
    rerun); returns the files rewritten."""
    rebuilt = rebuild_tables(record, root, scratch, figures=True)
    # Figures drawn in experiment jobs (DANK Figs. 1, 2, 4, 6, 9) need their experiment: kept as committed.
    written = [_copy(png, record / "figures" / png.name) for png in sorted((scratch / "figures").glob("*.png"))]
    for name in rebuilt:
        for suffix in TABLE_SUFFIXES:
            source = scratch / "results/tables" / (Path(name).stem + suffix)
            if source.exists():
                written.append(_copy(source, record / "tables" / source.name))
    if has_agreement(record):
        for suffix in TABLE_SUFFIXES:
            written.append(_copy(scratch / "results/tables" / f"agreement{suffix}", record / f"agreement{suffix}"))
    return written


def has_agreement(record: Path) -> bool:
    """Whether ``record`` judges paper tables (the benchmark across methods has no paper values)."""
    return (record / "agreement.csv").exists()
