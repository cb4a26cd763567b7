"""A whole run's reproduction record: what a paper config produced, committed under reproductions/.

``record_run`` copies from a finished run's directory what its table and figure rules wrote (the
tables as CSV and Markdown, the figures as PNG), the tidy records every table is computed from
(``results/records/runs.csv``, gzipped with ``history.csv``), the environment, and the agreement
record (the run's own ``results/tables/agreement.*``, or computed here from its tables by
:mod:`kreinbench.stages.agreement` when the run predates that rule), and writes ``RUN.md``: the
project commit, the exact command, the wall time, the machine and where the job time went.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pandas as pd

from kreinbench.atomic import atomic_path, write_text_atomic
from kreinbench.errors import KreinbenchError

# Tables and figures a reproduction keeps (the HTML renderings are made from the Markdown).
TABLE_SUFFIXES = (".csv", ".md")


def record_run(workdir: str | Path, out: str | Path, *, name: str, commit: str, command: str, wall_seconds: float,
               rules: pd.DataFrame, explanations: str | Path) -> list[Path]:
    """Write the reproduction record of the run in ``workdir`` to ``out``; returns the files written.

    ``rules`` is the per-rule breakdown of the job time (rule, jobs, job_s, max_s, share).
    """
    workdir, out = Path(workdir), Path(out)
    tables = sorted(p for p in (workdir / "results/tables").glob("*") if p.suffix in TABLE_SUFFIXES
                    and not p.stem.startswith("agreement"))
    if not tables:
        raise KreinbenchError(f"{workdir}/results/tables holds no table: is this the directory of a finished run?")
    written = [_copy(p, out / "tables" / p.name) for p in tables]
    written += [_copy(p, out / "figures" / p.name) for p in sorted((workdir / "figures").glob("*.png"))]
    records = workdir / "results/records"
    for part in ("runs", "history"):
        if (records / f"{part}.csv").exists():
            written.append(_gzip(records / f"{part}.csv", out / "records" / f"{part}.csv.gz"))
    if (workdir / "results/environment.tsv").exists():
        written.append(_copy(workdir / "results/environment.tsv", out / "environment.tsv"))
    written += _agreement(workdir, out, name, [p for p in tables if p.suffix == ".csv"], explanations)
    run_md = out / "RUN.md"
    write_text_atomic(run_md, run_markdown(name=name, commit=commit, command=command, wall_seconds=wall_seconds,
                                           rules=rules, environment=out / "environment.tsv"))
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


def _agreement(workdir: Path, out: Path, name: str, table_csvs: list[Path], explanations) -> list[Path]:
    ran = workdir / "results/tables"
    if (ran / "agreement.csv").exists() and (ran / "agreement.md").exists():
        return [_copy(ran / "agreement.csv", out / "agreement.csv"), _copy(ran / "agreement.md", out / "agreement.md")]
    from kreinbench.stages.agreement import agreement  # noqa: PLC0415 (only runs before the rule need it)

    agreement(tables=[str(p) for p in table_csvs], explanations=str(explanations), csv=str(out / "agreement.csv"),
              md=str(out / "agreement.md"), title=f"Agreement of {name}'s tables with the papers")
    return [out / "agreement.csv", out / "agreement.md"]


def run_markdown(*, name: str, commit: str, command: str, wall_seconds: float, rules: pd.DataFrame,
                 environment: Path) -> str:
    """RUN.md: how the record was made and where its time went."""
    machine = ""
    if environment.exists():
        env = pd.read_csv(environment, sep="\t").set_index("name")["value"]
        machine = ", ".join(f"{env[key]}" for key in ("cpu_model", "cpu_count", "memory_total", "os") if key in env)
        machine = f"- machine: {machine} (`environment.tsv` has the package versions)\n"
    hours, rest = divmod(round(wall_seconds), 3600)
    lines = [f"# {name}: a whole run", "",
             f"- commit: `{commit}`", f"- command: `{command}`",
             f"- wall time: {hours} h {rest // 60} min {rest % 60} s, {int(rules['jobs'].sum())} jobs, "
             f"{rules['job_s'].sum() / 3600:.2f} h of job time", machine.rstrip("\n"), "",
             "Job time per rule (the `benchmark:` files of every job):", "",
             rules.to_markdown(index=False, floatfmt=".2f"), "",
             "`tables/` holds what the table rules wrote, `figures/` the figures, `records/` the tidy "
             "records every table is computed from, `agreement.md` every paper-table cell beside the "
             "paper's value."]
    return "\n".join(line for line in lines if line is not None) + "\n"
