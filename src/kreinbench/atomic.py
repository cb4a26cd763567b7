"""Atomic file output: a killed job never leaves a file a later run could mistake for complete."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike):
    """Yield a temporary path next to ``target``; rename it onto ``target`` only on success.

    The temporary file lives in the target's directory so that the final ``os.replace`` is a
    same-filesystem rename, which POSIX guarantees to be atomic.  On any exception the temporary
    file is removed and ``target`` is left untouched (absent if it did not exist).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
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
