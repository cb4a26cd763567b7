"""Download one raw file: mirror first, then the canonical URLs; checksummed, retried, atomic.

A file is written to its target only after its SHA-256 matched the registry's pin (or, for an
unpinned file, after a complete transfer): the bytes go to a temporary file beside the target,
which is renamed onto it on success and removed on any failure or interruption.
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from kreinbench.atomic import atomic_path
from kreinbench.errors import DataError

log = logging.getLogger(__name__)

MIRROR_ENV = "KREINBENCH_MIRROR"
_CHUNK = 1 << 16
# Files at least this large report their progress on stderr.
_PROGRESS_BYTES = 1 << 20
_PROGRESS_SECONDS = 2.0


@dataclass(frozen=True)
class DownloadPolicy:
    """Network behaviour: per-request timeout (s), attempts per URL and the first backoff (s).

    The wait before attempt k + 1 is ``backoff * 2**(k - 1)``; a 404 is not retried.
    """

    timeout: float = 60.0
    attempts: int = 3
    backoff: float = 1.0


def resolve_mirror(configured: str | None) -> str | None:
    """The mirror to try first: the config's ``mirror`` if set, else ``$KREINBENCH_MIRROR``."""
    return configured or os.environ.get(MIRROR_ENV) or None


def _is_url(location: str) -> bool:
    return urllib.parse.urlsplit(location).scheme in {"http", "https", "file"}


def mirror_location(mirror: str, relative: str) -> str:
    """The address of ``relative`` under a mirror directory or base URL."""
    if _is_url(mirror):
        return mirror.rstrip("/") + "/" + urllib.parse.quote(relative)
    return str(Path(mirror) / relative)


class _NotFound(Exception):
    """The source does not have the file (HTTP 404, missing local file): do not retry."""


def _copy_stream(stream, out, total: int | None, label: str):
    digest = hashlib.sha256()
    done, last = 0, time.monotonic()
    show = total is None or total >= _PROGRESS_BYTES
    while block := stream.read(_CHUNK):
        out.write(block)
        digest.update(block)
        done += len(block)
        now = time.monotonic()
        if show and now - last >= _PROGRESS_SECONDS:
            of = f" of {total / 1e6:.1f} MB" if total else ""
            print(f"  {label}: {done / 1e6:.1f} MB{of}", file=sys.stderr, flush=True)
            last = now
    if total is not None and done != total:
        raise OSError(f"transfer ended after {done} of {total} bytes")
    return digest


def _transfer(location: str, tmp: Path, policy: DownloadPolicy, label: str) -> str:
    """Copy ``location`` (URL or local path) into ``tmp``; return the hex SHA-256 of the bytes."""
    if not _is_url(location):
        if not Path(location).is_file():
            raise _NotFound(f"no file {location}")
        with open(location, "rb") as src, open(tmp, "wb") as out:
            return _copy_stream(src, out, Path(location).stat().st_size, label).hexdigest()
    request = urllib.request.Request(location, headers={"User-Agent": "kreinbench"})
    try:
        with urllib.request.urlopen(request, timeout=policy.timeout) as response, open(tmp, "wb") as out:
            length = response.headers.get("Content-Length")
            return _copy_stream(response, out, int(length) if length else None, label).hexdigest()
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise _NotFound(f"HTTP 404 from {location}") from exc
        raise


def _fetch_with_retries(location: str, tmp: Path, policy: DownloadPolicy, label: str) -> str:
    attempt = 1
    while True:
        try:
            return _transfer(location, tmp, policy, label)
        except _NotFound:
            raise
        except (OSError, http.client.HTTPException) as exc:
            if attempt >= policy.attempts:
                raise
            wait = policy.backoff * 2 ** (attempt - 1)
            log.warning("%s: attempt %d of %d from %s failed (%s); retrying in %.1f s",
                        label, attempt, policy.attempts, location, exc, wait)
            time.sleep(wait)
            attempt += 1


def download_file(
    dest: str | Path,
    *,
    sha256: str | None,
    urls: list[str],
    mirror: str | None = None,
    mirror_path: str | None = None,
    dataset: str = "?",
    policy: DownloadPolicy = DownloadPolicy(),
) -> dict:
    """Fetch one file into ``dest`` from the mirror (if any) and then each URL, in order.

    The first source whose bytes match ``sha256`` wins (any complete transfer when ``sha256`` is
    None). Returns ``{"origin": <source>, "sha256": <digest>}``. Raises :class:`DataError` naming
    the dataset, the file and every source's failure when none delivers; ``dest`` is then absent.
    """
    dest = Path(dest)
    label = f"dataset {dataset!r}, file {dest.name!r}"
    sources = []
    if mirror and mirror_path:
        sources.append(mirror_location(mirror, mirror_path))
    sources.extend(urls)
    if not sources:
        raise DataError(f"{label}: no source (no mirror path and no URL)")
    failures = []
    for location in sources:
        try:
            with atomic_path(dest) as tmp:
                digest = _fetch_with_retries(location, tmp, policy, label)
                if sha256 is not None and digest != sha256:
                    raise DataError(f"sha256 mismatch: got {digest}, registry pins {sha256}")
        except (DataError, _NotFound, OSError, http.client.HTTPException) as exc:
            log.warning("%s: %s failed: %s", label, location, exc)
            failures.append(f"{location}: {exc}")
            continue
        if sha256 is None:
            log.warning("%s: no pinned sha256 in the registry; recorded %s from %s", label, digest, location)
        return {"origin": location, "sha256": digest}
    raise DataError(f"{label}: could not be fetched from any source:\n  " + "\n  ".join(failures))
