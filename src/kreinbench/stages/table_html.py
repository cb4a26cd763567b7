"""Stage of rule ``table_html``: a table's Markdown rendered as HTML for Snakemake's report."""

from __future__ import annotations

from pathlib import Path

from kreinbench.atomic import write_text_atomic
from kreinbench.markdown_html import markdown_to_html


def table_html(*, md: str, html: str) -> None:
    """The Markdown table ``md`` as the HTML page ``html``."""
    source = Path(md)
    write_text_atomic(html, markdown_to_html(source.read_text(), source.stem))
