"""Every figure, table and figure's data a rule writes is in `snakemake --report report.html`: each
figure and data CSV report()-annotated with an existing caption, each table (a rule's
``results/tables/<table>.md``) as its rendered page under its paper (kreinbench.pipeline.report_index).
The rendered report itself: tests/test_pipeline.py."""

import base64
import json
import re
from pathlib import Path

import pytest
import yaml

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline import paper_targets, paths, report_index
from report_html import embedded_results, report_mismatches

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "workflow" / "rules"
# Outputs the report shows as they are: every figure's PNG, every CSV that is not a table's data
# (a figure's plotted values), and the environment. Tables are shown through their Markdown.
REPORTED = re.compile(r'"((?:figures/[^"]+\.png)|(?:results/tables/[^"{]+\.csv)|(?:results/environment\.tsv))"')
TABLE_PAGES = re.compile(r'"results/tables/([^"{/]+)\.md"')
ANNOTATED = re.compile(r'report\(\s*"([^"]+)",\s*caption="([^"]+)",\s*category="[^"]+"')


def with_registry_paths(text: str) -> str:
    """A rule file's text with the paper targets' registry calls and the path constants replaced
    by what they are: the paths, named outputs and report groups of kreinbench.pipeline.paper_targets
    and the files of kreinbench.pipeline.paths."""
    text = re.sub(r'^( +)\*\*paths\.([A-Z_]+),$',
                  lambda m: "\n".join(f'{m.group(1)}{name}="{path}",' for name, path in getattr(paths, m.group(2)).items()),
                  text, flags=re.M)
    text = re.sub(r'\bpaths\.([A-Z_]+)\["(\w+)"\]', lambda m: f'"{getattr(paths, m.group(1))[m.group(2)]}"', text)
    text = re.sub(r'\bpaths\.([A-Z_]+)\b', lambda m: f'"{getattr(paths, m.group(1))}"', text)
    text = re.sub(r'registry\.path\("(\w+)", "(\w+)"\)', lambda m: f'"{paper_targets.path(*m.groups())}"', text)
    text = re.sub(r'registry\.category\("(\w+)"\)', lambda m: f'"{paper_targets.category(m.group(1))}"', text)
    return re.sub(r'^( +)\*\*registry\.outputs\("(\w+)"\),$',
                  lambda m: "\n".join(f'{m.group(1)}{name}="{path}",'
                                      for name, path in paper_targets.outputs(m.group(2)).items()),
                  text, flags=re.M)


def output_blocks(text: str) -> dict[str, str]:
    """``{rule: its output: block}`` of a rule file: the lines after ``output:`` up to the next
    directive of the rule (``log:``, ``params:``…)."""
    blocks = {}
    text = with_registry_paths(text)
    for match in re.finditer(r"^rule (\w+):\n(.*?)(?=^rule |\Z)", text, re.S | re.M):
        output = re.search(r"^    output:\n(.*?)(?=^    \w+:)", match.group(2), re.S | re.M)
        if output:
            blocks[match.group(1)] = output.group(1)
    return blocks


def table_pages():
    """(rule file, rule, table) for every table a rule writes as Markdown."""
    return [(smk.name, rule, table) for smk in sorted(RULES.glob("*.smk"))
            for rule, block in output_blocks(smk.read_text()).items() for table in TABLE_PAGES.findall(block)]


def reported_outputs():
    """(rule file, rule, path, caption or None) for every output that belongs in the report as it is."""
    tables = {table for *_, table in table_pages()}
    rows = []
    for smk in sorted(RULES.glob("*.smk")):
        for rule, block in output_blocks(smk.read_text()).items():
            captions = dict(ANNOTATED.findall(block))
            rows += [(smk.name, rule, path, captions.get(path)) for path in REPORTED.findall(block)
                     if Path(path).stem not in tables]
    return rows


def test_parser_sees_every_paper_target():
    rows = reported_outputs()
    paths = {path for *_, path, _ in rows}
    # One per paper item and rule file: a parser that misses blocks would fail here, not pass vacuously.
    for path in ("figures/convergence.png", "figures/iklr_fig3.png", "figures/iklr_mm17_fig1.png",
                 "figures/ying_fig1.png", "figures/dank_fig8.png", "figures/dank_fig9.png",
                 "results/tables/dank_fig9.csv", "results/environment.tsv"):
        assert path in paths, path
    assert len(rows) >= 18
    assert {table for *_, table in table_pages()} == set(report_index.TABLES)


@pytest.mark.parametrize("smk, rule, table", table_pages(), ids=lambda v: str(v))
def test_every_table_is_a_page_under_its_paper_with_its_caption(smk, rule, table):
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    caption = report_index.caption(table, config, ROOT / "workflow/report")
    assert 2 <= len(caption.strip().splitlines()) <= 8, f"{table}.rst: keep captions to 2-8 lines"
    assert "{{" not in caption and report_index.category(table) and report_index.label(table)["item"]


def test_a_table_without_a_report_entry_is_named():
    with pytest.raises(KreinbenchError, match=r"results/tables/mine.md has no report entry"):
        report_index.category("mine")


@pytest.mark.parametrize("smk, rule, path, caption", reported_outputs(), ids=lambda v: str(v))
def test_every_figure_and_table_is_in_the_report_with_a_caption(smk, rule, path, caption):
    assert caption is not None, f"{smk}: rule {rule} writes {path} without report(..., caption=..., category=...)"
    target = (RULES / caption).resolve()
    assert target.is_file(), f"{smk}: rule {rule}: caption {caption} does not exist"
    assert 2 <= len(target.read_text().strip().splitlines()) <= 8, f"{caption}: keep captions to 2-8 lines"


def fake_report(tmp_path, results):
    """A report.html with Snakemake 9's results script, embedding ``{path: bytes}``."""
    entries = {path: {"filename": Path(path).name, "caption": "<p>c</p>",
                      "data_uri": f"data:image/png;charset=utf8;filename=x;base64,{base64.b64encode(data).decode()}"}
               for path, data in results.items()}
    html = tmp_path / "report.html"
    html.write_text(f'<html><script id="results">\n    var results = {json.dumps(entries)};\n    </script></html>')
    return html


def test_report_check_names_missing_and_stale_results(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures/a.png").write_bytes(b"A")
    (tmp_path / "figures/b.png").write_bytes(b"B")
    html = fake_report(tmp_path, {"figures/a.png": b"A"})
    assert report_mismatches(html, tmp_path, ["figures/a.png"]) == []
    assert report_mismatches(html, tmp_path, ["figures/a.png", "figures/b.png"]) == ["figures/b.png: not in the report"]
    (tmp_path / "figures/a.png").write_bytes(b"new")
    assert report_mismatches(html, tmp_path, ["figures/a.png"]) == [
        "figures/a.png: the report embeds other bytes than the file"]


def test_report_check_rejects_a_file_that_is_no_snakemake_report(tmp_path):
    (tmp_path / "report.html").write_text("<html></html>")
    with pytest.raises(KreinbenchError, match="no embedded results"):
        embedded_results(tmp_path / "report.html")
