"""A user's own dataset in one try: the shipped example config and CSV, and the README's recipe."""

import re
import runpy
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import spec_from_entry
from kreinbench.pipeline import plan

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "examples/own-dataset.yaml"
CSV = ROOT / "examples/own-dataset.csv"


def test_the_example_csv_is_what_its_seeded_script_writes():
    assert CSV.read_text() == runpy.run_path(str(ROOT / "examples/make_own_dataset.py"))["table"]()


def test_the_example_config_is_minimal_and_valid():
    config = yaml.safe_load(CONFIG.read_text())
    assert not {"papers", "figures", "scales", "offline_substitutes"} & set(config)
    plan.check_schema(config, ROOT / "workflow/schemas/config.schema.yaml")
    plan.check_config(config)
    (name,) = config["datasets"]
    entry = config["custom_datasets"][name]
    assert entry["parser"]["header"] is True and entry["source"]["path"] == str(CSV.relative_to(ROOT))
    data = parse_dataset(spec_from_entry(name, entry), CSV.parent)
    reference = pd.read_csv(CSV)
    assert data.feature_names == list(reference.columns[:-1])
    np.testing.assert_array_equal(data.X, reference.iloc[:, :-1].to_numpy())
    np.testing.assert_array_equal(data.y, np.where(reference["class"] == "yes", 1.0, -1.0))


def test_the_example_runs_first_time_from_a_fresh_directory(workflow_copy, snakemake):
    workdir = workflow_copy({}, "own_dataset")
    shutil.copytree(ROOT / "examples", workdir / "examples")
    result = snakemake(workdir, "--configfile", "examples/own-dataset.yaml")
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    config = yaml.safe_load(CONFIG.read_text())
    table = pd.read_csv(workdir / "results/tables/accuracy.csv")
    table = table.drop(columns=[c for c in table.columns if c.startswith("μ_min (")])
    assert list(table.columns) == ["dataset", *(m["label"] for m in config["methods"].values())]
    assert table["dataset"].tolist() == ["own-example"] and table.notna().all().all()
    runs = pd.read_csv(workdir / "results/records/runs.csv")
    assert len(runs) == len(config["methods"]) * config["repetitions"]


def test_the_readme_points_to_the_example_and_its_recipe_declares_the_header():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Your own config or dataset"):]
    assert "--configfile examples/own-dataset.yaml" in section
    recipe = yaml.safe_load(re.search(r"```yaml\n(custom_datasets:.*?)```", section, re.S).group(1))
    (entry,) = recipe["custom_datasets"].values()
    assert entry["parser"]["header"] is True
