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


def blocks(text: str) -> list[list[str]]:
    """The blank-line separated blocks of a Markdown text, each as its lines."""
    return [b.splitlines() for b in re.split(r"\n\s*\n", text.strip()) if b.strip()]


def is_table(block: list[str]) -> bool:
    return all(line.lstrip().startswith("|") for line in block)


def fragment(text_blocks: list[list[str]]) -> str:
    """HTML of Markdown blocks: each a table (all lines start with ``|``) or a paragraph."""
    return "".join(_table(b) if is_table(b) else f"<p>{inline(' '.join(b).lstrip('# '))}</p>" for b in text_blocks)


def markdown_to_html(text: str, title: str) -> str:
    """A complete HTML document of a Markdown table's text (:func:`fragment`)."""
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body>{fragment(blocks(text))}</body></html>\n")


def headline_fragment(texts: dict[str, str]) -> str:
    """``{title: Markdown}`` as one HTML fragment: each text's blocks up to its first table (its
    caption and the table), under its title, styled as the tables' pages."""
    parts = []
    for title, text in texts.items():
        text_blocks = blocks(text)
        first = next((i for i, b in enumerate(text_blocks) if is_table(b)), len(text_blocks) - 1)
        parts.append(f"<h4>{html.escape(title)}</h4>{fragment(text_blocks[:first + 1])}")
    # the page's own styles, scoped to the fragment (it sits inside the report's page)
    scoped = re.sub(r"(^|})([^{}]+)\{", lambda m: m.group(1) + ",".join(
        ".kreinbench-headline" + ("" if sel == "body" else " " + sel) for sel in m.group(2).split(",")) + "{", _STYLE)
    return f"<div class=\"kreinbench-headline\"><style>{scoped}</style>{''.join(parts)}</div>\n"
