"""The software and machine a run used, for the report: versions, the lock, BLAS, CPU, memory, OS.

Timings in the paper tables (training and test time) only mean something beside the machine and
the BLAS that produced them, so the report carries this record (rule `environment`).
"""

from __future__ import annotations

import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from kreinbench import lock
from kreinbench.atomic import atomic_path, sha256_file

# Distribution names whose versions are recorded, in this order.
PACKAGES = ("kreinbench", "numpy", "scipy", "scikit-learn", "h5py", "pandas", "matplotlib", "threadpoolctl",
            "snakemake")
MISSING = "not installed"


def package_version(name: str) -> str:
    if name == "kreinbench":
        # With PYTHONPATH pointing at a source tree (a worktree), the code that ran need not be the
        # installed distribution whose metadata gives the version: name where it was imported from.
        import kreinbench

        return f"{kreinbench.__version__} ({Path(kreinbench.__file__).resolve().parent})"
    try:
        return version(name)
    except PackageNotFoundError:
        return MISSING


def _read(path: str) -> str:
    """A /proc file's text; empty where there is no /proc (not Linux)."""
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def cpu_model(cpuinfo: str | None = None) -> str:
    """The ``model name`` of /proc/cpuinfo (Linux), else what :mod:`platform` knows."""
    cpuinfo = _read("/proc/cpuinfo") if cpuinfo is None else cpuinfo
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and value.strip():
            return value.strip()
    return platform.processor() or platform.machine() or "unknown"


def memory_bytes(meminfo: str | None = None) -> int | None:
    """Total physical memory: MemTotal of /proc/meminfo (kB), else sysconf; None if unknown."""
    meminfo = _read("/proc/meminfo") if meminfo is None else meminfo
    for line in meminfo.splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def blas_libraries() -> str:
    """The BLAS/OpenMP libraries numpy and scipy loaded (threadpoolctl), one per ``; ``."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed"
    import numpy  # noqa: F401  (loads its BLAS, so threadpoolctl sees it)
    import scipy.linalg  # noqa: F401

    parts = []
    for lib in threadpool_info():
        extra = ", ".join(f"{k} {lib[k]}" for k in ("threading_layer", "architecture") if lib.get(k))
        parts.append(f"{lib['internal_api']} {lib.get('version') or '?'} ({lib['filepath']}"
                     + (f"; {extra}" if extra else "") + ")")
    return "; ".join(parts) or "none found"


def lock_name() -> str:
    """The lock of the source tree kreinbench runs from: ``requirements.lock sha256:<hex>``."""
    root = lock.source_root()
    path = root / lock.LOCK_NAME if root else None
    if path is None or not path.is_file():
        return f"none ({lock.LOCK_NAME} not found beside kreinbench's sources)"
    return f"{lock.LOCK_NAME} sha256:{sha256_file(path)}"


def lock_drift() -> str:
    """Whether the installed packages are the lock's: ``none`` or where they differ (the lock
    names the environment only when they do not)."""
    root = lock.source_root()
    if root is None or not (root / lock.LOCK_NAME).is_file():
        return "unknown (no lock)"
    return "; ".join(lock.drift(root)) or "none"


def software_versions() -> dict[str, str]:
    """Python's and every recorded package's version, and the lock (rule `environment` takes them
    as params, so Snakemake rewrites the record after an upgrade)."""
    return {"python": f"{platform.python_version()} ({platform.python_implementation()}, {sys.executable})",
            **{name: package_version(name) for name in PACKAGES}, "lock": lock_name()}


def environment() -> dict[str, str]:
    """Every recorded fact as ``{name: value}``."""
    try:
        usable = str(len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        usable = "unknown"
    memory = memory_bytes()
    facts = {
        **software_versions(),
        "lock_drift": lock_drift(),
        "blas": blas_libraries(),
        "cpu_model": cpu_model(),
        "cpu_count": str(os.cpu_count()),
        "cpus_usable": usable,
        "memory_total": f"{memory / 2**30:.1f} GiB" if memory else "unknown",
        "os": platform.platform(),
        "hostname": platform.node(),
    }
    return facts


def write_environment(path: str | os.PathLike, facts: dict[str, str] | None = None) -> None:
    """``facts`` (default :func:`environment`) as a two-column TSV ``name<TAB>value``, atomically;
    runs of whitespace (a tab or newline in a path or version string) become one space."""
    facts = environment() if facts is None else facts
    rows = "".join(f"{key}\t{' '.join(str(value).split())}\n" for key, value in facts.items())
    with atomic_path(path) as tmp:
        tmp.write_text("name\tvalue\n" + rows)


def environment_stage(*, tsv: str) -> None:
    """Rule `environment`: the software versions and machine of the run, to ``tsv``."""
    write_environment(tsv)
