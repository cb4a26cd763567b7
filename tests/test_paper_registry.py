"""kreinbench.pipeline.paper_targets: one registry of the papers' targets, read by the rules and rule `all`."""

import re
from pathlib import Path

import pytest
import yaml

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline import paper_checks, paper_targets, report_index

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {name: yaml.safe_load((ROOT / f"workflow/configs/{name}.yaml").read_text())
           for name in ("paper-iklr", "paper-iklr-spd", "paper-isvm", "paper-dank")}


def test_every_target_has_its_rule_and_every_paper_rule_its_target():
    """Each registry entry names a rule of the workflow, and each rule of the paper files that
    writes a table or figure reads its outputs from the registry (no path written twice)."""
    rules = {}
    studies = [ROOT / "workflow/rules/scale.smk", ROOT / "workflow/rules/benchmark.smk"]  # no paper's
    for smk in [*(ROOT / "workflow/rules").glob("paper_*.smk"), *studies]:
        for chunk in re.split(r"(?m)^(?=rule )", smk.read_text()):
            if match := re.match(r"rule (\w+):", chunk):
                rules[match.group(1)] = chunk
    assert set(paper_targets.TARGETS) <= set(rules)
    for rule, text in rules.items():
        writes = re.findall(r'"((?:results/tables|figures)/[^"]+)"', text.split("output:")[1].split("log:")[0])
        assert writes == [], f"rule {rule} writes {writes} itself: declare them in kreinbench.pipeline.paper_targets"
        if rule in paper_targets.TARGETS:
            assert f'registry.outputs("{rule}")' in text or f'registry.path("{rule}"' in text, rule


def test_each_paper_config_asks_for_its_papers_targets():
    wanted = {name: paper_targets.wanted(config) for name, config in CONFIGS.items()}
    assert "results/tables/iklr_table2.md" in wanted["paper-iklr"]
    assert "figures/iklr_mm17_fig1.png" in wanted["paper-iklr"]
    assert wanted["paper-iklr-spd"] == ["results/tables/iklr_table5.csv", "results/tables/iklr_table5.md"]
    assert {"results/tables/ying_table3.md", "figures/ying_fig1.png"} <= set(wanted["paper-isvm"])
    assert {"results/tables/dank_table1.md", "results/tables/dank_table4.md", "figures/dank_fig2.png"} <= set(
        wanted["paper-dank"])
    # Intermediate records are outputs of a rule, not targets.
    assert not any(t.startswith("results/records/") for targets in wanted.values() for t in targets)
    assert paper_targets.wanted({"papers": {}}) == [] and paper_targets.wanted({}) == []


def test_a_targets_key_asks_for_it_and_table_iii_is_asked_for_unless_switched_off():
    iklr = paper_targets.TARGETS["iklr_table3"]
    assert iklr.wanted({"papers": {"iklr": {}}})
    assert not iklr.wanted({"papers": {"iklr": {"table3": False}}})
    assert not paper_targets.TARGETS["iklr_table2"].wanted({"papers": {"iklr": {}}})
    assert paper_targets.TARGETS["ying_table3"].wanted({"papers": {"ying": {}}})


def test_the_report_places_each_paper_table_under_its_paper():
    assert report_index.TABLES["iklr_table3"] == ("IKLR (TNNLS)", "Table III")
    assert report_index.TABLES["dank_table4"] == ("DANK (JMLR)", "Table 4")
    assert paper_targets.labels("iklr_fig2", "plotted values") == {"item": "Fig. 2 (plotted values)"}
    for rule, target in paper_targets.TARGETS.items():
        if "md" in target.outputs:
            assert (ROOT / "workflow/report" / f"{rule}.rst").exists(), rule


def test_table_ii_needs_the_configs_tl1_kernel():
    config = {**CONFIGS["paper-iklr"], "kernels": {"rbf": {"type": "rbf", "sigma": 1.0}}}
    with pytest.raises(KreinbenchError, match="rule iklr_table2 needs exactly one kernel of type tl1"):
        paper_checks.check(config)
