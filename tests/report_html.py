"""Read back what `snakemake --report report.html` embedded, to check a report as a user sees it.

Snakemake 9's report is one HTML file whose ``<script id="results">`` holds ``var results = {...};``:
per result path its caption, labels, MIME type and the file itself as a base64 ``data:`` URI.
"""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

from kreinbench.errors import KreinbenchError

_RESULTS = re.compile(r'<script id="results">\s*var results = (\{.*?\});\s*</script>', re.S)


def embedded_results(report: str | os.PathLike) -> dict[str, dict]:
    """``{path: entry}`` of every result the report embeds (entry as Snakemake wrote it)."""
    match = _RESULTS.search(Path(report).read_text())
    if match is None:
        raise KreinbenchError(f"{report}: no embedded results (not a Snakemake 9 HTML report?)")
    return json.loads(match.group(1))


def embedded_bytes(entry: dict) -> bytes:
    """The file content of a result entry, decoded from its base64 ``data:`` URI."""
    uri = entry["data_uri"]
    if not uri.startswith("data:") or ";base64," not in uri:
        raise KreinbenchError(f"{entry['filename']}: not embedded as a base64 data URI")
    return base64.b64decode(uri.split(";base64,", 1)[1])


def report_mismatches(report: str | os.PathLike, workdir: str | os.PathLike, paths: list[str]) -> list[str]:
    """What is wrong with ``report`` for the run in ``workdir``: each of ``paths`` (relative to
    ``workdir``) that it lacks, embeds with other bytes, or embeds without a caption. [] if none."""
    results = embedded_results(report)
    problems = []
    for path in paths:
        entry = results.get(path)
        if entry is None:
            problems.append(f"{path}: not in the report")
        elif embedded_bytes(entry) != (Path(workdir) / path).read_bytes():
            problems.append(f"{path}: the report embeds other bytes than the file")
        elif not entry.get("caption"):
            problems.append(f"{path}: no caption")
    return problems
