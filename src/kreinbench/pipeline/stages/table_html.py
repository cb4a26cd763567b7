"""Stages of rules ``table_html`` (a table's Markdown as HTML for Snakemake's report) and
``headline`` (the run's headline tables for the report's first page)."""

from __future__ import annotations

from pathlib import Path

from kreinbench.atomic import write_text_atomic
from kreinbench.report.markdown_html import headline_fragment, markdown_to_html

HEADLINE_TITLES = {"accuracy": "Test accuracy of every method", "agreement": "Agreement with the papers"}


def table_html(*, md: str, html: str) -> None:
    """The Markdown table ``md`` as the HTML page ``html``."""
    source = Path(md)
    write_text_atomic(html, markdown_to_html(source.read_text(), source.stem))


def headline(*, tables: list[str], html: str) -> None:
    """The caption and first table of each Markdown table of ``tables`` (accuracy, agreement) as
    one HTML fragment, which the report's first page includes."""
    texts = {HEADLINE_TITLES.get(Path(t).stem, Path(t).stem): Path(t).read_text() for t in tables}
    write_text_atomic(html, headline_fragment(texts))
