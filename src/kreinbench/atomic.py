"""Atomic file output: a killed job never leaves a file a later run could mistake for complete."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import tempfile
from pathlib import Path

_HOST = socket.gethostname().replace("/", "_")


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie: a killed writer stays a zombie until its
    parent reaps it, and an orphan's reaper (PID 1 in a container) may take its time, while the
    rerun job already looks for its temporaries."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            # the state follows the command name, which is in parentheses and may contain them
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc (not Linux) or the process just went: keep its file


def remove_stale_temporaries(target: str | os.PathLike) -> list[Path]:
    """Remove the temporary files of earlier writers of ``target`` that were killed (SIGKILL,
    power loss: no ``finally`` ran), so that an interrupted job leaves no litter once rerun.

    Only files named by :func:`atomic_path` for this target, on this host, by a process that no
    longer exists are removed; a live writer's file (or one of another host) is left alone.
    """
    target = Path(target)
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.pid(\d+)@{re.escape(_HOST)}\.[^.]*\.tmp$")
    removed = []
    if not target.parent.is_dir():
        return removed
    for candidate in target.parent.iterdir():
        match = pattern.match(candidate.name)
        if match and int(match.group(1)) != os.getpid() and not _pid_alive(int(match.group(1))):
            candidate.unlink(missing_ok=True)
            removed.append(candidate)
    return removed


def _umask() -> int:
    """The process's umask, read without changing it (Linux /proc; elsewhere set and restored)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike):
    """Yield a temporary path next to ``target``; rename it onto ``target`` only on success.

    The temporary file lives in the target's directory so that the final ``os.replace`` is a
    same-filesystem rename, which POSIX guarantees to be atomic.  On any exception the temporary
    file is removed and ``target`` is left untouched (absent if it did not exist).  A process
    killed outright cannot remove its temporary file; the next writer of the same target does
    (:func:`remove_stale_temporaries`), which is why the name carries the writer's pid and host.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.pid{os.getpid()}@{_HOST}.", suffix=".tmp", dir=target.parent)
    # mkstemp makes the file 0600 whatever the umask; outputs get the mode any new file would
    # (0644 under the usual umask 022), so collaborators and web servers can read them.
    os.fchmod(fd, 0o666 & ~_umask())
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_text_atomic(target: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``target`` atomically."""
    with atomic_path(target) as tmp:
        tmp.write_text(text)


def sha256_file(path: str | os.PathLike, chunk_size: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk_size), b""):
            digest.update(block)
    return digest.hexdigest()


def write_csv_atomic(target: str | os.PathLike, frame) -> None:
    """Write a pandas DataFrame ``frame`` as CSV (no index column) to ``target`` atomically."""
    with atomic_path(target) as tmp:
        frame.to_csv(tmp, index=False)
