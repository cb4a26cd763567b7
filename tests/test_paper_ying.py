"""Ying et al. (NIPS'09) Table 3 and Fig. 1: the table's arithmetic against hand-made runs, the
repetition Fig. 1 plots, the paper config's plan at small scale, and the paper's σ protocol (σ by
an SVM's CV on the clean Gaussian kernel, then the noisy kernel at that σ) on a tiny real run."""

import copy
import json
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.spatial.distance import cdist
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC

from conftest import ROOT
from kreinbench.data.split import read_split
from kreinbench.errors import KreinbenchError
from kreinbench.linalg import cache
from kreinbench.pipeline import plan, plan_ying
from kreinbench.pipeline.stages.paper_ying import fig1_runs, table3_frame, table3_markdown

NAMES = {"datasets": {"sonar": "Sonar", "mine": "mine"}, "methods": {"smm": "SMM", "spgm": "SPGM"}}


def runs_of(rows):
    """runs.csv rows from (dataset, method, rep, accuracy, train_time, params) tuples."""
    return pd.DataFrame([{"dataset": d, "method": m, "rep": r, "accuracy": a, "train_time": t,
                          "params": json.dumps(p), "kernel_instance": "noisy-rbf-sigma=1", "label": m.upper(),
                          "n_train": 166, "n_test": 42, "kernel_mu_min": -1.0 - r, "kernel_mu_max": 20.0 + r}
                         for d, m, r, a, t, p in rows])


@pytest.fixture
def runs():
    rows = []
    for rep, (a_smm, a_spgm) in enumerate([(0.80, 0.70), (0.82, 0.71), (0.78, 0.69)], start=1):
        rows += [("sonar", "smm", rep, a_smm, 0.1 * rep, {"C": 1}), ("sonar", "spgm", rep, a_spgm, 1.0, {"C": 1})]
        rows += [("mine", "smm", rep, 0.9, 0.2, {"C": 1}), ("mine", "spgm", rep, 0.9, 0.4, {"C": 10 if rep == 1 else 1})]
    return runs_of(rows)


def test_table3_puts_our_statistics_beside_the_papers(runs):
    paper = pd.read_csv(ROOT / "workflow/paper_values/ying_table3.csv", comment="#")
    table = table3_frame(runs, paper, NAMES, ["sonar", "mine"], ["smm", "spgm"]).set_index(["dataset", "method"])
    smm = table.loc[("sonar", "smm")]
    assert smm["mean"] == pytest.approx(0.80) and smm["std"] == pytest.approx(np.std([0.8, 0.82, 0.78], ddof=1))
    assert smm["paper_mean"] == pytest.approx(0.7634) and smm["diff"] == pytest.approx(0.80 - 0.7634)
    assert smm["seconds"] == pytest.approx(0.2) and smm["seconds_paper"] == 0.74
    assert smm["speedup"] == pytest.approx(0.74 / 0.2)
    assert (smm["n"], smm["n_paper"], smm["mu_min"], smm["mu_max_paper"]) == (208, 208, pytest.approx(-3.0), 21.47)
    assert smm["best"] and table.loc[("sonar", "spgm"), "p_value"] < 0.05
    assert table.loc[("sonar", "spgm"), "speedup"] == pytest.approx(5.12)
    # A dataset the paper lacks keeps our numbers and no paper value.
    assert np.isnan(table.loc[("mine", "smm"), "paper_mean"]) and np.isnan(table.loc[("mine", "smm"), "diff"])
    md = table3_markdown(table.reset_index())
    header = next(line for line in md.splitlines() if line.startswith("| dataset"))
    assert header.split(" | ")[1:4] == ["n", "λ_min", "λ_max"]
    assert "sonar (paper: Sonar) | 208 (208) | -3 (-1.38) | 22 (21.5) |" in md
    assert "**0.800 ± 0.020** (paper 0.763, Δ +0.037); 0.2 s (paper 0.74 s, speed-up 3.7×)" in md
    # at another n (a capped or stand-in set) the times are not compared
    capped = table3_frame(runs.assign(n_train=160, n_test=40), paper, NAMES, ["sonar"], ["smm", "spgm"])
    assert capped["speedup"].isna().all()
    assert "0.2 s (paper 0.74 s, at the paper's n = 208, no speed-up)" in table3_markdown(capped)
    assert "0.700 ± 0.010 †" in md


def test_fig1_plots_the_first_repetition_where_both_solvers_chose_the_same_parameters(runs):
    assert set(fig1_runs(runs, "mine", ["smm", "spgm"])["rep"]) == {2}
    assert set(fig1_runs(runs, "sonar", ["smm", "spgm"])["rep"]) == {1}


def test_paper_config_at_small_scale_plans_both_solvers_and_the_targets(workflow_copy, snakemake):
    workdir = workflow_copy(yaml.safe_load((ROOT / "config.yaml").read_text()), "isvm_small")
    result = snakemake(workdir, "-n", "--configfile", "workflow/configs/paper-isvm.yaml", "--config", "scale=small")
    assert result.returncode == 0, result.stderr[-3000:]
    paper = yaml.safe_load((ROOT / "workflow/configs/paper-isvm.yaml").read_text())
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, re.M))
    # The paper config replaces config.yaml: only its two solvers and the SVM whose CV chooses σ,
    # on its six datasets, 2 repetitions.
    assert list(paper["methods"]) == ["svm-cv", "smm", "spgm"]
    assert counts["fit"] == str(3 * len(paper["datasets"]) * 2)
    assert counts["ying_table3"] == counts["ying_fig1"] == "1" and "iklr_table3" not in counts


def test_all_paper_targets_asks_for_the_papers_tables_and_figures_only(workflow_copy, snakemake):
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert config["figures"]["convergence"]  # the quick run's own figure, which must not be asked for
    workdir = workflow_copy(config, "paper_targets_only")
    result = snakemake(workdir, "-n", "all_paper_targets")
    assert result.returncode == 0, result.stderr[-3000:]
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, re.M))
    assert counts["iklr_table3"] == counts["iklr_fig3"] == "1" and "all" not in counts
    assert "figure" not in counts and counts["all_paper_targets"] == "1"
    # Each paper table rendered for the report; the quick run's accuracy table is not among them.
    assert re.findall(r"output: results/tables/(\w+)\.html", result.stdout) and \
        "results/tables/accuracy.html" not in result.stdout


# -- σ by LIBSVM's CV on the clean kernel, then the noisy kernel at that σ ------------------------

def paper_config() -> dict:
    return yaml.safe_load((ROOT / "workflow/configs/paper-isvm.yaml").read_text())


def test_paper_config_takes_sigma_from_the_svm_on_the_clean_kernel():
    config = paper_config()
    plan.check_config(config)
    assert config["kernels"]["rbf"]["type"] == "rbf" and config["kernels"]["noisy-rbf"]["type"] == "noisy-rbf"
    assert plan.kernel_grid(config, "rbf") == plan.kernel_grid(config, "noisy-rbf") == {"sigma": [0.5, 1, 2, 4]}
    assert config["methods"]["svm-cv"]["grid"] == {"C": config["methods"]["smm"]["grid"]["C"]}
    for solver in ("smm", "spgm"):
        assert plan.fit_inputs(config, "pima", solver, 3)["tuned_by"] == "results/fits/pima/svm-cv/rep3.json"
        # C and ρ only: σ is not the solvers' to choose.
        assert set(config["methods"][solver]["grid"]) == {"C", "rho"}
    # Table 3 and Fig. 1 show the paper's solvers, not the SVM.
    assert plan_ying.methods(config) == {"smm": "SMM", "spgm": "SPGM"}


def test_counterpart_instance_maps_the_grid_point_between_kernels():
    assert plan.counterpart_instance("rbf-sigma=0.5", "rbf", "noisy-rbf") == "noisy-rbf-sigma=0.5"
    assert plan.counterpart_instance("gauss", "gauss", "noisy") == "noisy"
    with pytest.raises(KreinbenchError, match="not an instance of kernel 'tl1'"):
        plan.counterpart_instance("rbf-sigma=1", "tl1", "noisy-rbf")


def test_tuned_by_on_another_kernel_needs_the_same_grid():
    config = copy.deepcopy(paper_config())
    config["kernels"]["rbf"]["sigma"] = [0.5, 1, 2]
    with pytest.raises(KreinbenchError, match="must have the same grid"):
        plan.check_config(config)


SIGMAS, CS, FOLDS = [0.1, 0.4, 2.0], [0.1, 1.0, 10.0], 3


def tiny_config() -> dict:
    """paper-isvm's protocol on 100 seeded blobs: one repetition, 3-fold CV."""
    paper = paper_config()
    solver = {**paper["methods"]["smm"], "grid": {"C": CS, "rho": [0.1, 10.0]}}
    return {
        "seed": 7, "repetitions": 1, "cv_folds": FOLDS, "datasets": ["blobs"],
        "dataset_options": {"blobs": {"split": {"max_n": 100, "protocol": "random", "test_size": 0.2}}},
        "kernels": {"rbf": {**paper["kernels"]["rbf"], "sigma": SIGMAS},
                    "noisy-rbf": {**paper["kernels"]["noisy-rbf"], "sigma": SIGMAS}},
        "methods": {"svm-cv": {**paper["methods"]["svm-cv"], "grid": {"C": CS}}, "smm": solver},
        "papers": {"ying": {"methods": {"smm": "SMM"}}},
    }


def sklearn_sigma_search(X, y, seed):
    """σ and C as scikit-learn picks them: a ``GridSearchCV(SVC(kernel="precomputed"))`` over C per
    σ on the clean kernel exp(−‖x − y‖²/σ²), the split's stratified folds, the first best σ (then
    GridSearchCV's first best C); and every (σ, C)'s mean fold accuracy."""
    folds = StratifiedKFold(FOLDS, shuffle=True, random_state=seed % 2**32)
    best, scores = None, {}
    for sigma in SIGMAS:
        search = GridSearchCV(SVC(kernel="precomputed"), {"C": CS}, cv=folds)
        search.fit(np.exp(-cdist(X, X, "sqeuclidean") / sigma**2), y)
        scores.update({(sigma, C): m for C, m in zip(CS, search.cv_results_["mean_test_score"])})
        if best is None or search.best_score_ > best[2]:
            best = (sigma, search.best_params_["C"], search.best_score_)
    return best, scores


def test_tiny_run_chooses_sigma_on_the_clean_kernel_as_sklearn_does(run_workflow):
    workdir = run_workflow(tiny_config(), "ying_sigma")
    data = read_split(workdir / "data/splits/blobs/rep1.h5")
    seed = int(data.attrs["seed"])
    (sigma, C, score), scores = sklearn_sigma_search(data.X_train, data.y_train, seed)
    svm = json.loads((workdir / "results/fits/blobs/svm-cv/rep1.json").read_text())
    assert svm["kernel_instance"] == f"rbf-sigma={sigma:g}" and svm["params"] == {"C": C}
    assert svm["cv_accuracy"] == pytest.approx(score, abs=1e-12)
    ours = {(float(row["kernel"].removeprefix("rbf-sigma=")), row["C"]): row["cv_accuracy"] for row in svm["cv_scores"]}
    assert ours == pytest.approx(scores, abs=1e-12)
    # The solver: the noisy instance at that σ, C and ρ by its own CV there (no other σ tried).
    smm = json.loads((workdir / "results/fits/blobs/smm/rep1.json").read_text())
    instance = f"noisy-rbf-sigma={sigma:g}"
    assert smm["kernel_instance"] == instance and smm["tuned_by"] == "svm-cv"
    assert {row["kernel"] for row in smm["cv_scores"]} == {instance} and len(smm["cv_scores"]) == 3 * 2
    assert smm["cv_accuracy"] is not None and smm["params"]["C"] in CS and smm["params"]["rho"] in (0.1, 10.0)
    # K0 = K − 0.1 (E + Eᵀ)/2 at that σ, E standard normal from [the kernel's seed 0, the split's seed].
    K0, _ = cache.read_kernel_part(workdir / f"results/kernels/blobs/rep1/{instance}.h5", "train")
    n = data.y_train.size
    E = np.random.default_rng([0, seed]).standard_normal((n, n))
    expected = np.exp(-cdist(data.X_train, data.X_train, "sqeuclidean") / sigma**2) - 0.1 * (E + E.T) / 2
    np.testing.assert_allclose(K0, expected, rtol=0, atol=1e-12)
    assert min(np.linalg.eigvalsh(K0)) < 0 and smm["kernel_mu_min"] == pytest.approx(min(np.linalg.eigvalsh(K0)))
    table = pd.read_csv(workdir / "results/tables/ying_table3.csv")
    assert list(table["method"]) == ["smm"]
