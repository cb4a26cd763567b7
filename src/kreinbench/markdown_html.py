"""The Markdown of kreinbench's tables (``results/tables/*.md``) as a standalone HTML page.

Snakemake's report shows HTML results in the page but offers CSV only for download, so every
table also gets this rendering (rule ``table_html``).  The tables' Markdown is a small subset:
paragraphs, pipe tables whose second row is the ``|---|`` separator, and inline ``**bold**``,
``*italic*`` and ```code```; nothing else needs a Markdown library.
"""

from __future__ import annotations

import html
import re

_INLINE = [
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"<em>\1</em>"),
    (re.compile(r"`(.+?)`"), r"<code>\1</code>"),
]

_STYLE = ("body{font-family:sans-serif;font-size:14px}table{border-collapse:collapse}"
          "th,td{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}"
          "th{background:#eee}")


def inline(text: str) -> str:
    """Escaped text with the table cells' inline emphasis and code."""
    out = html.escape(text.strip(), quote=False)
    for pattern, replacement in _INLINE:
        out = pattern.sub(replacement, out)
    return out


def _cells(line: str) -> list[str]:
    return [inline(cell) for cell in line.strip().strip("|").split("|")]


def _table(lines: list[str]) -> str:
    if len(lines) < 2 or not re.fullmatch(r"\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*\|?", lines[1].strip()):
        raise ValueError(f"a Markdown table needs a |---| separator as its second row, got {lines[1:2]}")
    head = "".join(f"<th>{c}</th>" for c in _cells(lines[0]))
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in _cells(row)) + "</tr>" for row in lines[2:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def markdown_to_html(text: str, title: str) -> str:
    """A complete HTML document: each blank-line separated block a table (all lines start with
    ``|``) or a paragraph."""
    blocks = [b.splitlines() for b in re.split(r"\n\s*\n", text.strip()) if b.strip()]
    parts = [_table(b) if all(line.lstrip().startswith("|") for line in b) else f"<p>{inline(' '.join(b))}</p>"
             for b in blocks]
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body>{''.join(parts)}</body></html>\n")
