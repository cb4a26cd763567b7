"""Which config's run a working directory holds, so that one config's run never overwrites another's.

Every config writes the same paths (``results/tables/accuracy.md``, ``data/splits/eeg/rep1.h5``,
…), so a second config run in the same directory would silently replace the first one's tables and
make Snakemake redo its splits. The first run of a config claims the directory
(``results/.config`` names its config files); a run of another config there is refused before any
job, naming both. The same config at another ``scale`` or with ``--config`` overrides is the same
run (its rules rerun what changed).
"""

from __future__ import annotations

from pathlib import Path

from kreinbench.atomic import write_text_atomic
from kreinbench.errors import KreinbenchError

MARKER = Path("results/.config")
DEFAULT_CONFIGFILE = "config.yaml"


def config_identity(configfiles) -> str:
    """The run's config files as given (``config.yaml`` when none is), relative to the working directory."""
    names = []
    for path in [Path(p) for p in configfiles] or [Path(DEFAULT_CONFIGFILE)]:
        resolved = path.resolve()
        try:
            names.append(str(resolved.relative_to(Path.cwd().resolve())))
        except ValueError:
            names.append(str(resolved))
    return " + ".join(names)


# Snakemake options that only read a run's results (the Snakefile cannot ask Snakemake which mode it
# parses for: its executor is chosen after parsing), so their refusal suggests no removal of
# results.  A dry run is not one of them: it previews running the other config here.
READING_OPTIONS = ("--report", "--summary", "-S", "--detailed-summary", "-D", "--list-rules", "--list", "-l",
                   "--dag", "--rulegraph", "--filegraph")


def reads_only(argv) -> bool:
    """Whether a Snakemake command line only reads the run's results (a report, a summary…)."""
    return any(arg.split("=", 1)[0] in READING_OPTIONS for arg in argv[1:])


def check_claim(identity: str, marker: Path = MARKER, *, reading: bool = False) -> None:
    """Refuse a run whose directory holds another config's run; ``reading``: the command only
    reads results (say which config to read them with, and suggest removing nothing)."""
    if not marker.exists():
        return
    held = marker.read_text().strip()
    if not held or held == identity:
        return
    if reading:
        configs = " ".join(f"--configfile {name}" for name in held.split(" + "))
        raise KreinbenchError(
            f"this directory holds the run of {held}, not of {identity}: its results are {held}'s. To read them, "
            f"pass that config: e.g. `.venv/bin/snakemake --report report.html {configs}`.")
    raise KreinbenchError(
        f"this directory holds the run of {held} (results/, figures/, data/splits/); running {identity} here "
        f"would overwrite its tables and records. Run {identity} in its own clone or copy of the repository, "
        f"or remove the other run's results first (`make clean`, which keeps the downloads).")


def claim(identity: str, marker: Path = MARKER) -> None:
    """Mark the directory as holding ``identity``'s run (at the start of a run, not of a dry run)."""
    write_text_atomic(marker, identity + "\n")
