"""End-to-end: Snakemake runs the whole chain on a tiny config in a temporary directory."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pipeline_bench
import pytest
import yaml

from kreinbench.linalg import cache
from report_html import embedded_results, report_mismatches

ROOT = Path(__file__).resolve().parents[1]

TINY_CONFIG = {
    "seed": 7,
    "repetitions": 2,
    "cv_folds": 3,
    "datasets": ["blobs", "monk-2"],
    "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}, "rbf": {"type": "rbf", "sigma": [0.5, 2.0]}},
    "methods": {
        "klr-rbf": {"label": "KLR (RBF)", "estimator": "KLR", "kernel": "rbf", "grid": {"lam": [0.01, 1.0]}},
        "flip-klr": {"estimator": "SpectrumKLR", "kernel": "tl1", "params": {"correction": "flip"},
                     "grid": {"lam": [0.01, 1.0]}},
        "ccicp-gd": {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": "ccicp-gd"},
                     "grid": {"lam": [0.1, 1.0]}},
        # Estimators that take a lambda_min spectrum and the feature matrices.
        "tdcasvm": {"estimator": "TDCASVM", "kernel": "tl1", "grid": {"C": [1.0]}},
        "dank": {"estimator": "DANK", "kernel": "rbf", "params": {"max_iter": 200}, "grid": {"C": [1.0]}},
    },
    "figures": {"convergence": {"dataset": "monk-2", "methods": ["ccicp-gd"]}},
    # monk-2's fits of a repetition in one job, blobs' one job each.
    "fit_batches": ["monk-2"],
}


@pytest.fixture(scope="module")
def finished(run_workflow):
    return run_workflow(TINY_CONFIG, "pipeline")


def test_table_holds_accuracies_for_every_dataset_and_method(finished):
    table = pd.read_csv(finished / "results/tables/accuracy.csv", index_col=0)
    assert set(table.index) == {"blobs", "monk-2"}
    # the methods, then the smallest eigenvalue of each kernel whose spectrum the fits recorded
    spectra = [c for c in table.columns if c.startswith("μ_min (")]
    assert spectra and table[spectra].notna().any().all()
    table = table.drop(columns=spectra)
    assert list(table.columns) == ["KLR (RBF)", "flip-klr", "ccicp-gd", "tdcasvm", "dank"]
    means = table.map(lambda cell: float(cell.split("±")[0]))
    assert ((means > 0.5) & (means <= 1.0)).all().all()
    assert "±" in (finished / "results/tables/accuracy.md").read_text()


def test_tidy_records_have_one_row_per_run_and_iteration(finished):
    runs = pd.read_csv(finished / "results/records/runs.csv")
    assert len(runs) == len(TINY_CONFIG["datasets"]) * len(TINY_CONFIG["methods"]) * TINY_CONFIG["repetitions"]
    assert runs["accuracy"].between(0, 1).all() and (runs["train_time"] > 0).all()
    history = pd.read_csv(finished / "results/records/history.csv")
    iklr = history[(history["method"] == "ccicp-gd") & (history["dataset"] == "monk-2") & (history["rep"] == 1)]
    assert iklr["iteration"].tolist() == list(range(21))


def test_figure_is_a_real_png_and_pdf(finished):
    png = (finished / "figures/convergence.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert (finished / "figures/convergence.pdf").read_bytes()[:4] == b"%PDF"


def test_every_stage_wrote_its_log_and_hdf5_caches(finished):
    for rule in ("fetch", "split", "kernel", "spectrum", "fit", "fit_batch", "table", "figure"):
        assert list((finished / "logs" / rule).rglob("*.log")), rule
    assert (finished / "results/kernels/monk-2/rep1/tl1.h5").exists()
    # One job per config kernel and split wrote every instance of that kernel, each under its name.
    assert sorted(p.name for p in (finished / "logs/kernel/monk-2/rep1").glob("*.log")) == ["rbf.log", "tl1.log"]
    for sigma in (0.5, 2.0):
        instance = f"rbf-sigma={sigma:g}"
        _, _, attrs = cache.read_kernel(finished / f"results/kernels/monk-2/rep1/{instance}.h5", {"instance": instance})
        assert json.loads(attrs["kernel"])["sigma"] == sigma
    assert (finished / "results/spectra/monk-2/rep2/tl1.h5").exists()
    assert not list(finished.rglob(".*.tmp"))


def test_second_run_has_nothing_to_do(finished, snakemake):
    result = snakemake(finished, "-n")
    assert result.returncode == 0
    assert "Nothing to be done" in result.stdout + result.stderr


def test_every_dataset_chain_opens_before_any_fit_runs(workflow_copy):
    """On one core Snakemake starts the ready job of highest priority: all fetches, then all splits,
    kernels and spectra, then the fits. Without the stage priorities its greedy choice (largest
    input first) interleaved them (here: fetch, split, fetch, split, kernel, ...), and in a whole
    paper-iklr run the last datasets were fetched 41-54 min in, behind other datasets' fits."""
    config = {"seed": 3, "repetitions": 1, "cv_folds": 2, "datasets": ["blobs", "monk-2", "heart"],
              "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
              "methods": {"flip-klr": {"estimator": "SpectrumKLR", "kernel": "tl1",
                                       "params": {"correction": "flip"}, "grid": {"lam": [1.0]}}}}
    workdir = workflow_copy(config, "stage_order")
    result = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1"], cwd=workdir,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    started = re.findall(r"^(?:local)?rule (\w+):$", result.stderr, flags=re.MULTILINE)
    stage = {"fetch": 0, "split": 1, "kernel_tl1": 2, "spectrum": 3, "fit": 4}
    order = [stage[name] for name in started if name in stage]
    assert order.count(4) == 3 and order.count(0) == 3, started
    assert order == sorted(order), started


def test_unknown_dataset_in_config_is_a_clear_error(workflow_copy, snakemake):
    workdir = workflow_copy({**TINY_CONFIG, "datasets": ["blobs", "sonnar"]}, "bad_dataset")
    result = snakemake(workdir, "-n")
    assert result.returncode != 0
    assert "unknown dataset 'sonnar'" in result.stdout + result.stderr


def test_schema_lists_exactly_the_registered_estimators():
    """Those on kernel matrices, then those on an implicit kernel of their own type."""
    from kreinbench.methods import ESTIMATORS, ON_IMPLICIT_KERNEL
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    method = schema["properties"]["methods"]["additionalProperties"]
    assert method["properties"]["estimator"]["anyOf"][0]["enum"] == list(ESTIMATORS) + list(ON_IMPLICIT_KERNEL)


def test_every_job_wrote_a_benchmark_file_and_logged_its_peak_memory(finished):
    jobs = pipeline_bench.job_table(finished, TINY_CONFIG)
    assert set(jobs.rule) == {"fetch", "split", "kernel", "spectrum", "fit", "fit_batch", "table", "figure",
                              "environment", "table_html", "headline"}
    assert (jobs.peak_rss >= jobs.startup_rss).all() and (jobs.startup_rss > 0).all()
    assert (jobs[jobs.rule.isin(["kernel", "spectrum", "fit", "fit_batch"])].kernel_bytes > 0).all()


def test_report_embeds_every_figure_and_table_of_the_run_and_the_environment(finished, snakemake):
    result = snakemake(finished, "--report", "report.html")
    assert result.returncode == 0, result.stderr[-3000:]
    # Everything of the run that belongs in the report (tests/test_report.py: each is annotated).
    # Tables as their rendered pages (their CSVs are the same tables as data, named in the caption).
    produced = sorted(str(path.relative_to(finished)) for pattern in
                      ("figures/*.png", "results/tables/*.html", "results/environment.tsv")
                      for path in finished.glob(pattern))
    assert {"figures/convergence.png", "results/tables/accuracy.html", "results/environment.tsv"} <= set(produced)
    assert report_mismatches(finished / "report.html", finished, produced) == []
    results = embedded_results(finished / "report.html")
    assert "results/tables/accuracy.csv" not in results
    assert "results/tables/accuracy.csv" in results["results/tables/accuracy.html"]["caption"]
    assert "3-fold cross-validation" in results["results/tables/accuracy.html"]["caption"]
    page = (finished / "report.html").read_text()
    # the first page says what the run was, and shows its headline table
    assert "Datasets: blobs, monk-2" in page and "KLR (RBF) (KLR, kernel" in page
    assert "Headline results" in page and "Test accuracy of every method" in page
    assert report_mismatches(finished / "report.html", finished, ["results/report/headline.html"]) == []


def own_csv(path, flip_row=None):
    """A small two-class CSV with a header (a user's own dataset); ``flip_row`` edits one label."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(2.5, 1, (20, 2))])
    labels = ["no"] * 20 + ["yes"] * 20
    if flip_row is not None:
        labels[flip_row] = "yes" if labels[flip_row] == "no" else "no"
    rows = ["x1,x2,label"] + [f"{a:.6f},{b:.6f},{c}" for (a, b), c in zip(X, labels)]
    path.write_text("\n".join(rows) + "\n")


def test_editing_a_local_dataset_reruns_what_is_made_from_it_and_copying_it_does_not(workflow_copy, snakemake):
    """By content, not time stamp: an edited CSV reruns its fetch, splits, kernels and fits; the same
    bytes written anew (a fresh clone, a copied mirror) rerun nothing."""
    work = workflow_copy({}, "own_csv")
    csv = work / "mine.csv"
    own_csv(csv)
    config = {"seed": 1, "repetitions": 1, "cv_folds": 3, "datasets": ["mine"],
              "custom_datasets": {"mine": {
                  "task": "binary", "source": {"type": "local", "path": str(csv)},
                  "parser": {"format": "delimited", "delimiter": ",", "header": True},
                  "label": {"column": -1, "positive": ["yes"], "negative": ["no"]},
                  "split": {"protocol": "random", "test_size": 0.5}}},
              "kernels": {"rbf": {"type": "rbf", "sigma": [1.0]}},
              "methods": {"svm": {"estimator": "SVM", "kernel": "rbf", "grid": {"C": [1.0]}}}}
    (work / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    assert snakemake(work).returncode == 0
    before = json.loads((work / "results/fits/mine/svm/rep1.json").read_text())
    own_csv(csv)  # the same bytes, a new time stamp
    assert "Nothing to be done" in (lambda r: r.stdout + r.stderr)(snakemake(work, "-n"))
    own_csv(csv, flip_row=0)
    planned = snakemake(work, "-n")
    assert "fetch" in planned.stdout and "split" in planned.stdout and "fit" in planned.stdout, planned.stdout[-2000:]
    assert snakemake(work).returncode == 0
    manifest = json.loads((work / "data/raw/mine/manifest.json").read_text())
    assert manifest["files"][0]["sha256"] == manifest["source"]["sha256"]
    after = json.loads((work / "results/fits/mine/svm/rep1.json").read_text())
    assert after["train_accuracy"] != before["train_accuracy"] or after["accuracy"] != before["accuracy"]
