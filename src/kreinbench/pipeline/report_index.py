"""Where each table stands in `snakemake --report`: its paper (category), item label and caption.

A table is shown as its rendered page (``results/tables/<table>.html``, rule ``table_html``), under
its paper's group beside the paper's figures, with the caption of what it reproduces
(``workflow/report/<table>.rst``, whose ``{{ snakemake.config[...] }}`` are filled in from the
run's config). The CSV beside it is the same table as data; the caption names it.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import jinja2

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline.paper_targets import TARGETS
from kreinbench.pipeline.paper_targets import category as paper_category

# table -> (the report's group, the item's label): the paper tables' from kreinbench.pipeline.paper_targets.
TABLES = {
    "accuracy": ("Quick run", "accuracy table"),
    **{rule: (paper_category(rule), target.label) for rule, target in TARGETS.items() if "md" in target.outputs},
    "agreement": ("Agreement with the papers", "every paper cell beside ours"),
}


def _entry(table: str) -> tuple[str, str]:
    if table not in TABLES:
        raise KreinbenchError(f"results/tables/{table}.md has no report entry: add it to kreinbench.pipeline.report_index.TABLES")
    return TABLES[table]


def category(table: str) -> str:
    return _entry(table)[0]


def label(table: str) -> dict[str, str]:
    return {"item": _entry(table)[1]}


def caption(table: str, config: dict, captions: str | Path) -> str:
    """The table's caption (``captions/<table>.rst``) with the run's config filled in."""
    _entry(table)
    text = (Path(captions) / f"{table}.rst").read_text()
    return jinja2.Template(text, undefined=jinja2.StrictUndefined).render(snakemake=SimpleNamespace(config=config))
