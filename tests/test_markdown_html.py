"""The tables' Markdown rendered as HTML for the report (kreinbench.report.markdown_html)."""

import re
from html.parser import HTMLParser

import pytest

from kreinbench.report.markdown_html import markdown_to_html

TABLE = """Caption with `code`, **bold** and a <tag> & an ampersand; 2 * 3 stays.
Second line of the caption.

| dataset | SVM | DANK |
|---|---|---|
| heart (`heart-uci`) | 82.2 ± 0.0 | **83.0 ± 0.0** • |
| monks1 | *80.8* | 72.2 |

Note: paper values only.
"""


class Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.paragraphs, self._cell, self._in_p = [], [], None, False

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "p":
            self._in_p, self.paragraphs = True, self.paragraphs + [""]

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.rows[-1].append(self._cell)
            self._cell = None
        elif tag == "p":
            self._in_p = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        elif self._in_p:
            self.paragraphs[-1] += data


def test_tables_paragraphs_and_inline_markup_become_html():
    page = markdown_to_html(TABLE, "dank_table1")
    parsed = Cells()
    parsed.feed(page)
    assert parsed.rows == [["dataset", "SVM", "DANK"], ["heart (heart-uci)", "82.2 ± 0.0", "83.0 ± 0.0 •"],
                           ["monks1", "80.8", "72.2"]]
    assert parsed.paragraphs == ["Caption with code, bold and a <tag> & an ampersand; 2 * 3 stays. "
                                 "Second line of the caption.", "Note: paper values only."]
    assert "<strong>83.0 ± 0.0</strong>" in page and "<em>80.8</em>" in page and "<code>heart-uci</code>" in page
    assert "&lt;tag&gt; &amp;" in page and "<title>dank_table1</title>" in page
    assert len(re.findall("<table>", page)) == 1


def test_a_pipe_block_without_separator_row_is_refused():
    with pytest.raises(ValueError, match=r"\|---\| separator"):
        markdown_to_html("| a | b |\n| 1 | 2 |\n", "t")
