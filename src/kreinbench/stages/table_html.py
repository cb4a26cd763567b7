"""Stage of rule ``table_html``: a table's Markdown rendered as HTML for Snakemake's report."""

from __future__ import annotations

from pathlib import Path

from kreinbench.atomic import write_text_atomic
from kreinbench.markdown_html import markdown_to_html


def table_html(snakemake) -> None:
    source = Path(snakemake.input.md)
    write_text_atomic(snakemake.output.html, markdown_to_html(source.read_text(), source.stem))
