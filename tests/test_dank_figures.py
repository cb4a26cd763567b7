"""DANK (JMLR) analysis figures 1, 2, 4, 6 and 9: their data functions on tiny inputs, the plan of
`papers.dank_figures`, the paper config's dry run at small scale, and one real rule run."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT
from kreinbench.data.parse import ParsedData
from kreinbench.data.synthetic import cherkassky, clowns, step_function, step_value
from kreinbench.errors import KreinbenchError
from kreinbench.experiments import dank as experiment
from kreinbench.methods import svm_grid
from kreinbench.methods.base import ConvergenceWarning
from kreinbench.methods.dank.svr import relative_mse
from kreinbench.pipeline import fit_records, plan
from kreinbench.pipeline.paper_targets import wanted
from kreinbench.pipeline.plan_dank_figures import check, settings
from kreinbench.pipeline.stages import dank_figures as stage
from kreinbench.pipeline.stages import dank_table4 as table4

PAPER_CONFIG = ROOT / "workflow/configs/paper-dank.yaml"


@pytest.fixture(scope="module")
def tiny_clowns():
    data = clowns(60, seed=3)
    return experiment.minmax_all(data[:, :2]), data[:, 2]


@pytest.fixture(scope="module")
def clowns_panel(tiny_clowns):
    X, y = tiny_clowns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return experiment.clowns_panel(X, y, sigma=0.25, C=4.0, tau=0.01, solver="fista", max_iter=60, grid=25)


def test_clowns_panel_has_grid_shaped_boundaries_and_an_F_star_around_one(clowns_panel, tiny_clowns):
    X, _ = tiny_clowns
    assert clowns_panel["svm"].shape == clowns_panel["dank"].shape == clowns_panel["xx"].shape == (25, 25)
    # The lattice covers the data (with its margin), so each boundary lies inside the plot.
    assert clowns_panel["xx"].min() < X[:, 0].min() and clowns_panel["yy"].max() > X[:, 1].max()
    for key in ("svm", "dank"):
        assert clowns_panel[key].min() < 0.0 < clowns_panel[key].max()
    F = clowns_panel["F"]
    assert F.shape == (60, 60) and np.allclose(F, F.T)
    # F* = J_{τ/2}(11ᵀ + Γ) stays within the paper's 0.9–1.1 of 11ᵀ (the shrinkage J may move every
    # entry a hair below 1, so the range need not contain 1), and it is not 11ᵀ itself.
    assert 0.9 < clowns_panel["F_min"] < clowns_panel["F_max"] < 1.1
    assert clowns_panel["F_min"] == F.min() and clowns_panel["F_max"] == F.max()
    assert 1 <= clowns_panel["rank"] < 60
    assert clowns_panel["svm_accuracy"] > 0.9 and clowns_panel["dank_accuracy"] > 0.9


def test_panels_survive_the_file_round_trip(tmp_path, clowns_panel, tiny_clowns):
    X, y = tiny_clowns
    stage.write_panels(str(tmp_path / "clowns.npz"), X, y, {"a": clowns_panel, "b": clowns_panel})
    X2, y2, panels = stage.read_panels(str(tmp_path / "clowns.npz"))
    assert np.array_equal(X2, X) and np.array_equal(y2, y)
    assert panels["b"]["rank"] == clowns_panel["rank"] and np.array_equal(panels["a"]["dank"], clowns_panel["dank"])
    paper = pd.DataFrame({"panel": ["a", "b"], "sigma": [1, 0.07], "F_min": [0.9, 0.9], "F_max": [1.1, 1.1],
                          "rank": [7, 9]}).set_index("panel")
    fig = stage.fig2_figure(y2, panels, paper)
    assert f"rank(F*) = {clowns_panel['rank']}" in fig.axes[0].get_title()
    assert "rank 9" in fig.axes[1].get_title()  # axes: panels (a), (b), then their colour bars


def test_grid_search_prefers_the_width_that_fits():
    data = step_function(120, seed=1, a=0.01)  # sharp steps
    sigma, C = svm_grid.grid_search(data[:, :1], data[:, 1], sigma_grid=[0.1, 100.0], C_grid=[10.0], folds=3, seed=0,
                                 regression=True)
    assert (sigma, C) == (0.1, 10.0)
    X, y = clowns(80, seed=0)[:, :2], clowns(80, seed=0)[:, 2]
    sigma, _ = svm_grid.grid_search(experiment.minmax_all(X), y, sigma_grid=[1e-4, 0.2], C_grid=[1.0], folds=3, seed=0,
                                 regression=False)
    assert sigma == 0.2


@pytest.mark.parametrize("regression", [True, False])
def test_grid_search_scores_as_scikit_learns_grid_search_and_breaks_ties_as_every_cv(regression):
    """The precomputed-kernel search scores every (σ, C) as scikit-learn's GridSearchCV over
    (γ = 1/(2σ²), C) does (same folds and scores); of equal scores it takes the first σ, then the
    first C, as every CV of the package (selection.Tally), not GridSearchCV's first C, then first γ."""
    from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
    from sklearn.svm import SVC, SVR

    if regression:
        data = step_function(150, seed=4, a=0.05)
        X, y = data[:, :1], data[:, 1]
    else:
        raw = clowns(150, seed=4)
        X, y = experiment.minmax_all(raw[:, :2]), raw[:, 2]
    sigmas, Cs = [0.03125, 0.25, 1.0, 8.0], [0.125, 1.0, 8.0, 32.0]
    gammas = [1.0 / (2.0 * s**2) for s in sigmas]
    model, cv, scoring = ((SVR(epsilon=0.1), KFold(5, shuffle=True, random_state=3), "neg_mean_squared_error")
                          if regression else (SVC(), StratifiedKFold(5, shuffle=True, random_state=3), "accuracy"))
    search = GridSearchCV(model, {"gamma": gammas, "C": Cs}, cv=cv, scoring=scoring).fit(X, y)
    reference = {(sigmas[gammas.index(p["gamma"])], p["C"]): score
                 for p, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"])}
    tally = svm_grid.grid_scores(X, y, sigma_grid=sigmas, C_grid=Cs, folds=5, seed=3, regression=regression)
    ours = {(row["kernel"], row["C"]): row["cv_accuracy"] for row in tally.scores}
    assert list(ours) == [(s, c) for s in sigmas for c in Cs]
    np.testing.assert_allclose([ours[k] for k in reference], list(reference.values()), rtol=1e-12, atol=1e-12)
    best = max(reference.values())
    first_sigma_then_C = next(k for k in ours if np.isclose(reference[k], best, rtol=0, atol=1e-12))
    assert svm_grid.grid_search(X, y, sigma_grid=sigmas, C_grid=Cs, folds=5, seed=3,
                                regression=regression) == first_sigma_then_C


def test_step_function_has_steps_of_height_s_at_the_papers_smoothness():
    x = np.array([-3.9, -2.1, 0.1, 1.9, 2.1, 3.9])  # a quarter-period or more from each step at w(k + 1/2)
    # Flat at s·round(x/w) between the steps (the paper prints a as a factor, which gives the line 1.5 x).
    np.testing.assert_allclose(step_value(x), 3.0 * np.round(x / 2.0), atol=1e-6)
    assert step_value(np.array([1.0 - 0.05]))[0] < 0.3 * 3 < 0.7 * 3 < step_value(np.array([1.0 + 0.05]))[0]


def test_evaluation_grid_spans_the_samples():
    X1 = np.array([[-2.0], [3.0], [0.5]])
    grid = experiment.evaluation_grid(X1, 11)
    assert grid.shape == (11, 1) and grid.min() == -2.0 and grid.max() == 3.0
    grid = experiment.evaluation_grid(np.array([[0.0, 1.0], [2.0, 5.0]]), 4)
    assert grid.shape == (16, 2) and set(grid[:, 1]) == set(np.linspace(1.0, 5.0, 4))


def test_fig9_rmse_is_the_relative_mse_against_the_true_function():
    samples = {name: ParsedData(X=data[:, :-1], y=data[:, -1], feature_names=[], label_map={}, task="regression")
               for name, data in (("step-1d", step_function(40, seed=0)), ("cherkassky-2d", cherkassky(40, seed=0)))}
    settings_ = {"sigma_grid": [0.5, 2.0], "C_grid": [1.0, 8.0], "epsilon": 0.01, "tau": 0.01, "solver": "nesterov", "max_iter": 40,
                 "points_1d": 30, "points_2d": 6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        curves, table = experiment.fig9_results(samples, settings_, folds=3, seed=0)
    assert curves["cherkassky-2d"]["grid"].shape == (36, 2) and curves["step-1d"]["grid"].shape == (30, 1)
    for row in table.itertuples():
        curve = curves[row.dataset]
        truth, pred = curve["truth"], curve[row.method]
        by_hand = np.sum((pred - truth) ** 2) / np.sum((truth - truth.mean()) ** 2)
        assert row.rmse == pytest.approx(by_hand) and row.rmse == pytest.approx(relative_mse(truth, pred))
    # The truth is the noiseless function on the grid, so it passes through the samples' function.
    assert np.allclose(curves["step-1d"]["truth"], experiment.TEST_FUNCTIONS["step-1d"](curves["step-1d"]["grid"]))
    paper = pd.read_csv(ROOT / "workflow/paper_values/dank_fig9.csv", comment="#")
    joined = stage.with_paper(table, paper)
    dank_step = joined[(joined.dataset == "step-1d") & (joined.method == "dank")].iloc[0]
    assert dank_step.rmse_paper == 0.004 and dank_step["diff"] == pytest.approx(dank_step.rmse - 0.004)


def test_fig9_names_a_dataset_without_test_function():
    sample = ParsedData(X=np.zeros((4, 1)), y=np.arange(4.0), feature_names=[], label_map={}, task="regression")
    with pytest.raises(KreinbenchError, match="housing"):
        experiment.fig9_results({"housing": sample}, {}, folds=2, seed=0)


def test_subsample_is_seeded_and_without_replacement():
    X, y = np.arange(50.0)[:, None], np.arange(50.0)
    a, b = experiment.subsample(X, y, 20, seed=4), experiment.subsample(X, y, 20, seed=4)
    assert np.array_equal(a[0], b[0]) and np.unique(a[1]).size == 20
    assert not np.array_equal(a[1], experiment.subsample(X, y, 20, seed=5)[1])
    with pytest.raises(KreinbenchError, match="n = 60 exceeds the 50"):
        experiment.subsample(X, y, 60, seed=0)


def test_fig6_experiment_reports_each_partition_and_the_empty_screening():
    data = clowns(60, seed=1)
    X, y = experiment.minmax_all(data[:, :2]), data[:, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        results, eta = experiment.figure6_experiment(X, y, gamma=2.0, C=4.0, clusters=[2, 3], seed=0, max_iter=200)
    table = experiment.fig6_table(results, eta, 60)
    assert list(table["n_clusters"]) == [2, 3] and (table["n"] == 60).all() and eta > 0
    assert (table["alpha_trivial_bound"] == 60 * 4.0**2).all()
    assert (table["n_screened"] == 0).all()  # (21) as printed cannot hold (dank_theory)
    paper = pd.read_csv(ROOT / "workflow/paper_values/dank_fig6.csv", comment="#").iloc[0]
    fig = stage.fig6_figure(results, paper, 60)
    title = fig.axes[2].get_title()
    assert f"screens 0 of {int(table['n_nonsupport'].iloc[-1])} non-SVs" in title and "723 of 1786" in title


def paper_config():
    return yaml.safe_load(PAPER_CONFIG.read_text())


def test_plan_adds_figures_per_key_and_applies_the_scale():
    config = paper_config()
    assert "figures/dank_fig2.png" in wanted(config) and "results/tables/dank_fig9.csv" in wanted(config)
    del config["papers"]["dank_figures"]["fig1"]
    assert not any("dank_fig1" in t or "dank_fig2" in t for t in wanted(config))
    full = settings(config, "fig6")
    small = plan.scaled_config({**config, "scale": "small"})
    assert settings(small, "fig6")["n"] < full["n"] == 2000 and settings(small, "fig6")["C"] == full["C"] == 32.0
    # The scale's override of a figure the config lacks adds no figure.
    assert settings(config, "fig1") == settings(small, "fig1") == {}
    assert "fig1" not in small["papers"]["dank_figures"]


def test_plan_check_names_a_dataset_of_the_wrong_task():
    config = paper_config()
    check(config)
    config["papers"]["dank_figures"]["fig4"]["dataset"] = "housing"
    with pytest.raises(KreinbenchError, match="fig4: 'housing' is a regression dataset"):
        check(config)
    config["papers"]["dank_figures"]["fig4"]["dataset"] = "no-such-set"
    with pytest.raises(KreinbenchError, match="unknown dataset 'no-such-set'"):
        check(config)


def test_paper_config_at_small_scale_plans_every_dank_figure(workflow_copy, snakemake):
    workdir = workflow_copy(yaml.safe_load((ROOT / "config.yaml").read_text()), "dank_figures_small")
    result = snakemake(workdir, "-n", "--configfile", "workflow/configs/paper-dank.yaml", "--config", "scale=small")
    assert result.returncode == 0, result.stderr[-3000:]
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", result.stdout, re.M))
    for rule in ("dank_clowns", "dank_fig1", "dank_fig2", "dank_fig4", "dank_fig6", "dank_fig9", "dank_table4"):
        assert counts[rule] == "1", rule
    # Table 4: 4 datasets × 2 repetitions at small scale, each on its own split.
    assert counts["dank_svr_rep"] == "8"


def test_fig4_rule_runs(workflow_copy, snakemake):
    config = paper_config()
    config["papers"]["dank_figures"] = {"fig4": {"dataset": "heart", "sigma": 1.0, "C": 1.0, "tau": 0.01,
                                                 "max_iter": 15}}
    workdir = workflow_copy(config, "dank_fig4_run")
    # a table left from an earlier run, which this run neither makes nor checks
    (workdir / "results/tables").mkdir(parents=True, exist_ok=True)
    (workdir / "results/tables/accuracy.md").write_text("stale\n")
    result = snakemake(workdir, "figures/dank_fig4.png", "figures/dank_fig4.pdf")
    assert result.returncode == 0, result.stderr[-3000:]
    assert (workdir / "figures/dank_fig4.png").stat().st_size > 10_000
    assert (workdir / "figures/dank_fig4.pdf").read_bytes().startswith(b"%PDF")
    assert "ConvergenceWarning" in (workdir / "logs/dank_fig4/dank_fig4.log").read_text()
    # the run ends by saying where its results are: its own, not the earlier run's table
    said = result.stdout + result.stderr
    assert "Results of this run:\n  figures: figures/dank_fig4.png" in said and "accuracy.md" not in said


# --- Table 4 ---------------------------------------------------------------------------------------

def test_table4_rule_writes_one_fit_record_per_method_and_repetition(workflow_copy, snakemake):
    config = paper_config()
    config["papers"]["dank_figures"] = {"table4": {
        "datasets": ["step-1d"], "repetitions": 2, "sigma_grid": [0.5, 2.0], "C_grid": [1.0], "epsilon": 0.1,
        "tau": 0.01, "solver": "nesterov", "max_iter": 20, "max_train": 60}}
    workdir = workflow_copy(config, "dank_table4_run")
    result = snakemake(workdir, "results/tables/dank_table4.md")
    assert result.returncode == 0, result.stderr[-3000:]
    records = {(m, r): fit_records.read(workdir / f"results/dank_figures/table4/step-1d/{m}/rep{r}.json")
               for m in ("svr-cv", "dank") for r in (1, 2)}
    for (method, rep), record in records.items():
        assert (record["dataset"], record["method"], record["rep"], record["n_train"]) == ("step-1d", method, rep, 60)
    # DANK-SVR starts from the SVR's CV choice of its repetition.
    for rep in (1, 2):
        assert (records["dank", rep]["sigma"], records["dank", rep]["C"]) == (records["svr-cv", rep]["sigma"],
                                                                             records["svr-cv", rep]["C"])
    runs = pd.read_csv(workdir / "results/records/dank_table4_runs.csv")
    assert list(zip(runs["rep"], runs["method"])) == [(1, "svr-cv"), (1, "dank"), (2, "svr-cv"), (2, "dank")]
    assert "step-1d" in (workdir / "results/tables/dank_table4.md").read_text()


def test_capped_training_draws_a_seeded_subset():
    X, y = np.arange(30.0)[:, None], np.arange(30.0)
    Xc, yc = experiment.capped_training(X, y, 10, seed=1)
    assert yc.size == 10 and np.unique(yc).size == 10 and np.array_equal(Xc[:, 0], yc)
    assert np.array_equal(experiment.capped_training(X, y, 10, seed=1)[1], yc)
    assert experiment.capped_training(X, y, None, seed=1)[1] is y and experiment.capped_training(X, y, 40, seed=1)[1] is y


def test_svr_repetition_scores_both_methods_in_the_units_of_y():
    X = np.random.default_rng(2).uniform(0.0, 1.0, size=(80, 1))
    y = 100.0 + 1000.0 * np.sin(3.0 * X[:, 0])  # far from standardized: the fit standardizes
    settings_ = {"sigma_grid": [0.25, 1.0], "C_grid": [1.0, 8.0], "epsilon": 0.1, "tau": 0.01, "solver": "fista", "max_iter": 2000,
                 "max_train": 30}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        rows = experiment.svr_repetition(X[:40], y[:40], X[40:], y[40:], settings=settings_, folds=3, seed=0)
    assert [r["method"] for r in rows] == ["svr-cv", "dank"]
    for row in rows:
        assert row["n_train"] == 30 and row["n_test"] == 40 and row["sigma"] in (0.25, 1.0)
        # Predictions back in the units of y fit the smooth curve (relative MSE well below the mean's 1);
        # standardized ones would miss y by ~1000 times its spread.
        assert 0.0 < row["rmse_train"] < 0.1 and 0.0 < row["rmse_test"] < 0.1
    assert 1 <= rows[1]["dank_iterations"] <= 2000


def test_table4_marks_the_lower_rmse_and_sets_the_papers_values_beside():
    runs = pd.DataFrame([{"dataset": "housing", "rep": rep, "method": method, "n_train": 253,
                          "rmse_test": base + 0.01 * rep + noise * (rep % 2), "rmse_train": base / 2}
                         for rep in range(1, 6) for method, base, noise in (("svr-cv", 0.30, 0.004),
                                                                            ("dank", 0.20, 0.002))])
    paper = pd.read_csv(ROOT / "workflow/paper_values/dank_table4.csv", comment="#")
    table = table4.table4_frame(runs, paper, ["housing"]).set_index("method")
    assert table.at["dank", "best"] and not table.at["svr-cv", "best"]
    assert table.at["dank", "mean"] == pytest.approx(0.23 + 0.006 / 5)
    # DANK is lower by 0.1 (± 0.002) on every repetition: significant, marked on DANK's row.
    assert table.at["svr-cv", "p_value"] < 0.05 and table.at["svr-cv", "best_significantly_better"]
    assert table.at["dank", "significantly_lower"] and not table.at["svr-cv", "significantly_lower"]
    assert table.at["dank", "paper_mean"] == 0.218 and table.at["svr-cv", "paper_train_mean"] == 0.085
    assert table.at["dank", "diff"] == pytest.approx(table.at["dank", "mean"] - 0.218)
    runs["dank_converged"] = np.where(runs["method"] == "dank", runs["rep"] > 2, np.nan)
    note = table4.unconverged_note(runs)
    assert note == "DANK-SVR stopped at max_iter before its tolerance in 2 of 5 fits."
    markdown = table4.table4_markdown(table.reset_index(), {"epsilon": 0.1, "tau": 0.01, "max_iter": 2000}, note)
    assert "**0.231 ± 0.016** •" in markdown and "paper *0.069* / 0.218 ± 0.013" in markdown and note in markdown

