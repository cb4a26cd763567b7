"""The one registry of paper targets: every table and figure of the papers, the rule that makes it,
its output files, the config key that asks for it, and its place in the report.

The rules read their outputs from here (``output: **paper_targets.outputs("iklr_table3")``), so
each path is written once; rule ``all_paper_targets`` asks for :func:`wanted` of the config; the
planners read their config keys from here (:func:`keys`, :func:`tasks`), and
:mod:`kreinbench.pipeline.paper_checks` runs their checks before the first job. A new paper target
is one :class:`Target` here, one rule in ``workflow/rules/paper_<paper>.smk``, one stage function
and, for a table, a caption in ``workflow/report/<rule>.rst``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kreinbench.pipeline.paths import table_path

# The report's group of each paper's targets (config key papers.<paper>).
PAPER_GROUPS = {
    "iklr": "IKLR (TNNLS)",
    "iklr_mm17": "IKLR (MM'17)",
    "ying": "Indefinite SVM (Ying et al.)",
    "dank": "DANK (JMLR)",
    "dank_figures": "DANK (JMLR)",
    "scale": "Beyond the papers: scale",
    "benchmark": "Beyond the papers: one benchmark",
}


@dataclass(frozen=True)
class Target:
    """One rule's paper outputs: asked for by config key ``papers.<paper>.<key>`` (by the key
    ``papers.<paper>`` itself when ``key`` is None; ``default``: whether it is asked for when
    the paper's block lacks the key), shown in the report as ``label`` under the paper's group;
    ``quantity``: what its CSV table's values beside the paper's are, as the agreement judges them
    ("accuracy" as a fraction, "accuracy_percent", or "relative_mse"; kreinbench.report.agreement;
    None: a table with no paper values, which the agreement does not read).

    What its config block ``papers.<paper>.<key>`` holds, for the planners' checks:
    ``compares``: the block's keys that name the config methods it compares from rule ``fit``'s
    records (a name, a list of names, or a mapping to names), each to be fitted on each of the
    block's ``datasets`` (:mod:`kreinbench.pipeline.plan_iklr`, :mod:`kreinbench.pipeline.plan_dank`);
    ``task``: for a target that fits its own estimators (not through rule ``fit``), the task its
    datasets must have (:mod:`kreinbench.pipeline.plan_dank_figures`)."""

    rule: str
    paper: str
    key: str | None
    label: str
    outputs: dict[str, str] = field(default_factory=dict)
    default: bool = False
    quantity: str | None = "accuracy"
    compares: tuple[str, ...] = ()
    task: str | None = None

    def wanted(self, config: dict) -> bool:
        papers = config.get("papers", {})
        if self.paper not in papers:
            return False
        if self.key is None:
            return True
        return bool(papers[self.paper].get(self.key, self.default))


def _table(name: str) -> dict[str, str]:
    return {"csv": table_path(name, "csv"), "md": table_path(name, "md")}


def _figure(name: str) -> dict[str, str]:
    return {"png": f"figures/{name}.png", "pdf": f"figures/{name}.pdf"}


# An IKLR study's block: its datasets and the config methods it compares (papers.iklr.table4, …).
STUDY = ("methods",)

TARGETS = {t.rule: t for t in [
    Target("iklr_table2", "iklr", "table2", "Table II", _table("iklr_table2")),
    Target("iklr_table3", "iklr", "table3", "Table III", _table("iklr_table3"), default=True),
    Target("iklr_fig3", "iklr", "fig3", "Fig. 3", _figure("iklr_fig3")),
    Target("iklr_table4", "iklr", "table4", "Table IV", _table("iklr_table4"), compares=STUDY),
    Target("iklr_table5", "iklr", "table5", "Table V", _table("iklr_table5"), compares=STUDY),
    Target("iklr_table6", "iklr", "table6", "Table VI", _table("iklr_table6"), compares=STUDY),
    Target("iklr_fig_init", "iklr", "table6", "Table VI as a figure", _figure("iklr_fig_init"), compares=STUDY),
    Target("iklr_table7", "iklr", "table7", "Table VII", _table("iklr_table7"), compares=STUDY),
    Target("iklr_fig2", "iklr", "fig2", "Fig. 2", {"csv": table_path("iklr_fig2", "csv"), **_figure("iklr_fig2")},
           compares=STUDY),
    Target("iklr_mm17_table2", "iklr_mm17", "table2", "Table 2", _table("iklr_mm17_table2"), compares=STUDY),
    Target("iklr_mm17_fig1", "iklr_mm17", "fig1", "Fig. 1", _figure("iklr_mm17_fig1"), compares=STUDY),
    Target("ying_table3", "ying", None, "Table 3", _table("ying_table3")),
    Target("ying_fig1", "ying", "fig1", "Fig. 1", _figure("ying_fig1")),
    Target("dank_table1", "dank", "table1", "Table 1", _table("dank_table1"), quantity="accuracy_percent",
           compares=("svm", "dank")),
    # Table 3's block maps each dataset to its columns' methods ({dataset: {paper's column: method}}).
    Target("dank_table3", "dank", "table3", "Table 3", _table("dank_table3"), quantity="accuracy_percent",
           compares=("*",)),
    Target("dank_fig5", "dank", "fig5", "Fig. 5", _figure("dank_fig5"), compares=("with", "without")),
    Target("dank_fig7", "dank", "fig7", "Fig. 7", _figure("dank_fig7"), compares=("methods",)),
    Target("dank_fig8", "dank", "fig8", "Fig. 8", _figure("dank_fig8"), compares=("baseline", "tau", "eta")),
    Target("dank_fig1", "dank_figures", "fig1", "Fig. 1", _figure("dank_fig1"), task="binary"),
    Target("dank_fig2", "dank_figures", "fig1", "Fig. 2", _figure("dank_fig2"), task="binary"),
    Target("dank_fig4", "dank_figures", "fig4", "Fig. 4", _figure("dank_fig4"), task="binary"),
    Target("dank_fig6", "dank_figures", "fig6", "Fig. 6", {"csv": table_path("dank_fig6", "csv"), **_figure("dank_fig6")},
           task="binary"),
    Target("dank_fig9", "dank_figures", "fig9", "Fig. 9", {"csv": table_path("dank_fig9", "csv"), **_figure("dank_fig9")},
           task="regression"),
    Target("dank_table4", "dank_figures", "table4", "Table 4",
           {"runs": "results/records/dank_table4_runs.csv", **_table("dank_table4")}, quantity="relative_mse",
           task="regression"),
    # Not a paper's: the scale study (kreinbench.pipeline.plan_scale), asked for and shown the same way.
    Target("scale", "scale", None, "Scale study (table)", _table("scale"), quantity=None),
    Target("scale_fig", "scale", None, "Scale study", _figure("scale")),
    # Not a paper's: every classification method of the config on its datasets, ranked
    # (kreinbench.pipeline.stages.benchmark); the table and its critical-difference diagram.
    Target("benchmark", "benchmark", None, "Benchmark across methods", {**_table("benchmark"), **_figure("benchmark_cd")},
           quantity=None),
]}


def quantities() -> dict[str, str]:
    """What each paper table's values are (its ``quantity``), by table name: the agreement's units."""
    return {rule: target.quantity for rule, target in TARGETS.items() if "csv" in target.outputs and target.quantity}


def judged_csvs(config: dict) -> list[str]:
    """The CSV tables among the config's :func:`wanted` targets that rule ``agreement`` judges cell
    by cell (those with a ``quantity``), in the registry's order (which decides the table that
    counts a fit shown in several)."""
    judged = {target.outputs["csv"] for target in TARGETS.values() if target.quantity and "csv" in target.outputs}
    return [file for file in wanted(config) if file in judged]


def keys(paper: str, *, comparing: bool = False) -> list[str]:
    """The keys of ``papers.<paper>`` that ask for targets, in the registry's order; ``comparing``:
    only those whose block names the config methods the target compares (``compares``)."""
    return list(dict.fromkeys(t.key for t in TARGETS.values()
                              if t.paper == paper and t.key is not None and (t.compares or not comparing)))


def tasks(paper: str) -> dict[str, str]:
    """``{key: task}`` of ``papers.<paper>``'s targets that fit their own estimators (``task``)."""
    return {t.key: t.task for t in TARGETS.values() if t.paper == paper and t.task is not None}


def outputs(rule: str) -> dict[str, str]:
    """The output files of a paper rule, by name."""
    return dict(TARGETS[rule].outputs)


def path(rule: str, name: str) -> str:
    """One output file of a paper rule."""
    return TARGETS[rule].outputs[name]


def category(rule: str) -> str:
    """The report group of a paper rule's outputs."""
    return PAPER_GROUPS[TARGETS[rule].paper]


def labels(rule: str, what: str | None = None) -> dict[str, str]:
    """The report labels of a paper rule's output (``what``: a qualifier, e.g. "plotted values")."""
    label = TARGETS[rule].label
    return {"item": label if what is None else f"{label} ({what})"}


def wanted(config: dict) -> list[str]:
    """Every paper table and figure the config's ``papers`` asks for (rule ``all_paper_targets``):
    the outputs of each wanted target but intermediate records (``results/records/``)."""
    return [file for target in TARGETS.values() if target.wanted(config)
            for file in target.outputs.values() if not file.startswith("results/records/")]
