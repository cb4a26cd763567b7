"""Every figure the stages write can be read: drawn from small synthetic records (including runs that
run away or oscillate in the hundreds, as the committed IKLR records do), each text (titles, axis
labels, tick labels, legend texts, annotations, figure texts) lies inside the canvas, no two texts
overlap, and every curve that varies spans more than a few pixels (one runaway run must not flatten
the others to a line).

Each case calls the stage function itself with its ``save_figure`` captured, or, where the stage
first runs an experiment on a raw data set (DANK Figs. 4, 6 and 9), the figure function the stage
passes that experiment's result to, on a tiny experiment or synthetic curves of the same shape."""

import ast
import json
import warnings
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from kreinbench.data.synthetic import clowns
from kreinbench.experiments import dank as experiment
from kreinbench.methods.base import ConvergenceWarning
from kreinbench.methods.svm_grid import gaussian
from kreinbench.pipeline.stages import (
    benchmark,
    dank_figures,
    paper_dank,
    paper_figures,
    paper_tables,
    paper_ying,
    report,
    scale,
)
from kreinbench.pipeline.stages.report import RUN_COLUMNS
from kreinbench.report.render import objective_marks, objective_summary, reps_text

STAGES = ROOT / "src/kreinbench/pipeline/stages"
# Pixels two texts may share (anti-aliased glyph edges) and a text may reach past the canvas.
TOLERANCE_PX = 1.5
# A curve (a line, not a series of dots) whose values vary by more than this fraction of its largest
# magnitude must span...
VARYING = 1e-2
# ...at least this many pixels of its axes' height.
VISIBLE_PX = 3.0


# --- synthetic records -------------------------------------------------------------------------

def objective_curve(kind: str, n: int, rng) -> np.ndarray:
    """An objective per outer iteration from ln 2: one that descends, one that runs away to −10⁴,
    one that oscillates in the hundreds (the committed CCICP-GD runs on ijcnn1)."""
    k = np.arange(n)
    if kind == "runaway":
        return np.log(2) - np.expm1(k) / np.e ** (n - 1) * 3e4
    if kind == "oscillating":
        return np.r_[np.log(2), 140 + 200 * np.abs(np.sin(k[1:])) * rng.uniform(0.5, 1.0, n - 1)]
    return 0.35 + (np.log(2) - 0.35) * np.exp(-k / 3) + rng.uniform(0, 1e-3, n)


def records(datasets, methods, reps=3, kinds=None, seed=0):
    """(runs, history) as rule `table` writes them; ``kinds[(dataset, method, rep)]`` picks a run's curve."""
    rng = np.random.default_rng(seed)
    kinds = kinds or {}
    runs, history = [], []
    for dataset in datasets:
        for method in methods:
            for rep in range(1, reps + 1):
                kind = kinds.get((dataset, method, rep), "descent")
                curve = objective_curve(kind, 12, rng)
                runs.append({**dict.fromkeys(RUN_COLUMNS), "dataset": dataset, "method": method, "label": method,
                             "estimator": "IKLR", "rep": rep, "split_seed": rep, "scaler_fit": "train",
                             "kernel": "tl1", "kernel_instance": "tl1", "n_train": 100 * rep, "n_test": 100,
                             "accuracy": rng.uniform(0.6, 0.9), "train_accuracy": 0.9,
                             "predicted_majority_share": 0.6, "majority_rate": 0.5, "cv_accuracy": 0.8,
                             "train_time": rng.uniform(0.1, 1.0), "test_time": rng.uniform(0.01, 0.1),
                             "cv_time": 1.0, "n_iter": 12, "stationarity": 1e-4, "diverged": kind == "runaway",
                             "cv_warnings": 0, "kernel_mu_min": -1.0, "kernel_mu_max": 10.0, "rank_F": 3,
                             "params": json.dumps({"lam": float(10.0 ** -rep), "C": 1.0}, sort_keys=True)})
                history += [{"dataset": dataset, "method": method, "rep": rep, "iteration": k, "objective": f,
                             "grad_norm": 1.0, "elapsed": 0.1 * k, "matvecs": 50 * (k + 1)}
                            for k, f in enumerate(curve)]
    return pd.DataFrame(runs), pd.DataFrame(history)


FIG3_KINDS = {("monks1", "cccp-gd", 2): "runaway", ("ijcnn1-tr", "ccicp-gd", 1): "oscillating",
              ("ijcnn1-tr", "ccicp-gd", 3): "oscillating"}


@pytest.fixture
def capture(monkeypatch):
    """The figure each stage passes to ``save_figure`` (kept open, no file written)."""
    figures = []
    for module in (benchmark, dank_figures, paper_dank, paper_figures, paper_ying, report, scale):
        monkeypatch.setattr(module, "save_figure", lambda fig, *paths: figures.append(fig))
    return figures


def write(frame: pd.DataFrame, path: Path) -> str:
    frame.to_csv(path, index=False)
    return str(path)


# --- one case per figure-writing stage ---------------------------------------------------------

def iklr_fig3(tmp):
    runs, history = records(["monks1", "ijcnn1-tr"], ["cccp-gd", "ccicp-gd", "ccicp-sgd"], reps=10, kinds=FIG3_KINDS)
    paper_figures.iklr_fig3(history=write(history, tmp / "h.csv"), runs=write(runs, tmp / "r.csv"),
                            datasets=["monks1", "ijcnn1-tr"],
                            methods={"cccp-gd": "CCCP-GD", "ccicp-gd": "CCICP-GD", "ccicp-sgd": "CCICP-SGD"},
                            png="x.png", pdf="x.pdf")


def iklr_mm17_fig1(tmp):
    runs, history = records(["monks1"], ["ccicp-gd-mm17", "cccp-gd"], reps=10, kinds=FIG3_KINDS)
    paper_figures.iklr_mm17_fig1(history=write(history, tmp / "h.csv"), runs=write(runs, tmp / "r.csv"),
                                 datasets=["monks1"], methods={"ccicp-gd-mm17": "CCICP", "cccp-gd": "CCCP"},
                                 png="x.png", pdf="x.pdf")


def iklr_fig_init(tmp):
    inits = {"ccicp-gd": ("CCICP-GD", "zeros"), "ccicp-gd-ones": ("CCICP-GD", "ones"),
             "ccicp-sgd": ("CCICP-SGD", "zeros"), "ccicp-sgd-uniform": ("CCICP-SGD", "uniform")}
    runs, history = records(["monks1", "svmguide1"], list(inits), reps=4, kinds={("monks1", "ccicp-gd", 2): "runaway"})
    paper = pd.DataFrame(columns=["paper_dataset", "paper_method", "init", "metric", "mean", "std"])
    table = paper_tables.table6_frame(runs, history, paper, {"monks1": "monks1", "svmguide1": "guide1-t"},
                                      {m: {"paper_method": p, "init": i} for m, (p, i) in inits.items()})
    paper_figures.iklr_fig_init(table=write(table, tmp / "t.csv"), runs=write(runs, tmp / "r.csv"),
                                history=write(history, tmp / "h.csv"), png="x.png", pdf="x.pdf")


def iklr_fig2(tmp):
    eps = {"ccicp-gd-eps1e-4": 1e-4, "ccicp-gd-eps0.01": 0.01, "ccicp-gd": 1.0, "ccicp-gd-eps5": 5.0}
    # One dataset, as the quick run has: the narrowest figure.
    runs, history = records(["monks1"], list(eps), reps=4)
    paper_figures.iklr_fig2(runs=write(runs, tmp / "r.csv"), history=write(history, tmp / "h.csv"),
                            datasets={"monks1": "monks1"}, methods=eps,
                            csv=str(tmp / "fig2.csv"), png="x.png", pdf="x.pdf")


def ying_fig1(tmp):
    runs, history = records(["sonar-uci", "pima"], ["smm", "spgm"], reps=2)
    history["objective"] = 100 - history["objective"] * 50  # a dual objective: it rises to its maximum
    paper_ying.ying_fig1(history=write(history, tmp / "h.csv"), runs=write(runs, tmp / "r.csv"),
                         datasets={"sonar-uci": "Sonar", "pima": "Diabetes"}, methods={"smm": "SMM", "spgm": "SPGM"},
                         png="x.png", pdf="x.pdf")


DANK_SETS = {"diabetic": "diabetic", "heart": "heart", "monks1": "monks1", "monks2": "monks2", "monks3": "monks3",
             "sonar-uci": "sonar", "spect": "spect", "fertility": "fertility"}


def dank_fig5(tmp):
    runs, _ = records(list(DANK_SETS), ["dank", "dank-tau0"], reps=3)
    paper = pd.DataFrame({"paper_dataset": list(DANK_SETS.values()), "paper_method": "DANK", "split": "test",
                          "mean": np.linspace(70, 95, len(DANK_SETS)), "std": 1.0})
    paper_dank.dank_fig5(runs=write(runs, tmp / "r.csv"), paper=write(paper, tmp / "p.csv"),
                         settings={"datasets": DANK_SETS, "with": "dank", "without": "dank-tau0"}, png="x.png",
                         pdf="x.pdf")


def dank_fig7(tmp):
    methods = {f"ext-{n}": n for n in (100, 200, 300)}
    runs, _ = records(list(methods), ["reciprocal", "nn1", "nn5"], reps=3)
    runs["n_train"] = runs["dataset"].map(methods)
    paper_dank.dank_fig7(runs=write(runs, tmp / "r.csv"),
                         settings={"datasets": list(methods),
                                   "methods": {"reciprocal NN": "reciprocal", "1-NN": "nn1", "5-NN": "nn5"}},
                         png="x.png", pdf="x.pdf")


def dank_fig8(tmp):
    tau = {f"dank-tau{t:g}": t for t in (1e-3, 1e-2, 0.1, 0.5, 1.0)}
    eta = {f"dank-eta{e:g}C2": e for e in (1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0)}
    sets = {d: DANK_SETS[d] for d in ("diabetic", "heart", "monks1", "monks2", "monks3")}
    runs, _ = records(list(sets), [*tau, *eta, "dank"], reps=2)
    paper_dank.dank_fig8(runs=write(runs, tmp / "r.csv"),
                         settings={"datasets": sets, "tau": tau, "eta": eta, "baseline": "dank"}, png="x.png",
                         pdf="x.pdf")


def convergence(tmp):
    runs, history = records(["monk-2"], ["ccicp-gd"], reps=5, kinds={("monk-2", "ccicp-gd", 2): "oscillating"})
    paths = []
    for run in runs.to_dict("records"):
        hist = history[(history["rep"] == run["rep"])].drop(columns=["dataset", "method", "rep"])
        path = tmp / f"rep{run['rep']}.json"
        path.write_text(json.dumps({**run, "params": json.loads(run["params"]), "history": hist.to_dict("records")}))
        paths.append(str(path))
    report.figure(records=paths, labels={"ccicp-gd": "IKLR (CCICP-GD)"}, png="x.png", pdf="x.pdf")


def scale_figure(tmp):
    rows = [{"dataset": d, "n_train": n, "method": method, "m": m, "accuracy": 0.8 + n / 1e5, "fit_s": n / 1e3,
             "peak_rss_mib": 100 + n / 10} for d in ("covtype", "ijcnn1") for n in (500, 1000, 4000)
            for method, m in (("iklr", None), ("nystrom-iklr", 200), ("nystrom-iklr", 800))]
    scale.figure(table_csv=write(pd.DataFrame(rows, columns=scale.COLUMNS), tmp / "scale.csv"), png="x.png",
                 pdf="x.pdf")


def benchmark_cd(tmp):
    """Fourteen methods (more than a colour cycle) with long labels on 16 datasets."""
    rng = np.random.default_rng(5)
    methods = [f"method-{i}" for i in range(14)]
    rows = [{"dataset": f"d{d}", "method": m, "rep": rep, "accuracy": 0.7 + 0.01 * i + 0.05 * rng.random(),
             "train_time": 0.1, "scaler_fit": "train", "majority_rate": 0.6, "predicted_majority_share": 0.6}
            for d in range(16) for rep in (1, 2) for i, m in enumerate(methods)]
    labels = {m: f"A long method name {i} (TL1, CCCP + L-BFGS)" for i, m in enumerate(methods)}
    benchmark.benchmark(runs=write(pd.DataFrame(rows), tmp / "runs.csv"), methods=methods, labels=labels, cv_folds=5,
                        alpha=0.05, csv=str(tmp / "b.csv"), md=str(tmp / "b.md"), png="x.png", pdf="x.pdf")


def clowns_panels(tmp):
    data = clowns(60, seed=3)
    X, y = experiment.minmax_all(data[:, :2]), data[:, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        panels = {name: {**experiment.clowns_panel(X, y, sigma=sigma, C=4.0, tau=0.01, solver="fista", max_iter=60,
                                                   grid=25), "sigma": sigma, "C": 4.0}
                  for name, sigma in zip(experiment.PANELS, (1.0, 0.25))}
    dank_figures.write_panels(str(tmp / "panels.npz"), X, y, panels)
    paper = pd.DataFrame({"panel": ["a", "b"], "sigma": [1.0, 0.07], "F_min": 0.9, "F_max": 1.1, "rank": [7, 9]})
    return str(tmp / "panels.npz"), write(paper, tmp / "paper.csv")


def dank_fig1(tmp):
    panels, paper = clowns_panels(tmp)
    dank_figures.dank_fig1(panels=panels, paper=paper, png="x.png", pdf="x.pdf")


def dank_fig2(tmp):
    panels, paper = clowns_panels(tmp)
    dank_figures.dank_fig2(panels=panels, paper=paper, png="x.png", pdf="x.pdf")


def tiny_problem(n=60, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    return X, np.where(X[:, 0] + 0.2 * rng.normal(size=n) > 0.5, 1.0, -1.0)


def dank_fig4(tmp):
    X, y = tiny_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        data = experiment.figure4_data(gaussian(X, sigma=1.0), y, X, C=1.0, tau=0.01, max_iter=80)
    settings = {"sigma": 1.0, "C": 1.0, "tau": 0.01}
    dank_figures.save_figure(dank_figures.fig4_figure(data, "heart", settings, y.size))


def dank_fig6(tmp):
    X, y = tiny_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        results, _ = experiment.figure6_experiment(X, y, gamma=2.0, C=32.0, clusters=[2, 3, 5], seed=0, max_iter=80)
    paper = pd.Series({"n_screened": 723, "n_nonsupport": 1786, "n": 2000})
    dank_figures.save_figure(dank_figures.fig6_figure(results, paper, y.size))


def dank_fig9(tmp):
    x = np.linspace(-5, 5, 200)[:, None]
    step = 3 * np.round(x[:, 0] / 3)
    side = 20
    u, v = np.meshgrid(np.linspace(0, 1, side), np.linspace(0, 1, side))
    grid = np.c_[u.ravel(), v.ravel()]
    surface = np.sin(4 * grid[:, 0]) * np.cos(4 * grid[:, 1]) + 2
    curves = {"step-1d": {"grid": x, "truth": step, "X": x[::4], "y": step[::4], "svr": step + 0.01,
                          "dank": step - 0.01, "sigma": 0.125, "C": 32.0},
              "cherkassky-2d": {"grid": grid, "truth": surface, "X": grid[::5], "y": surface[::5],
                                "svr": surface * 1.01, "dank": surface * 0.99, "sigma": 0.125, "C": 32.0}}
    table = pd.DataFrame({"dataset": ["step-1d", "step-1d", "cherkassky-2d", "cherkassky-2d"],
                          "method": ["svr", "dank"] * 2, "rmse": [7e-6, 8e-6, 0.002, 0.003],
                          "rmse_paper": [0.013, 0.004, 0.042, 0.007], "converged": [True, True, True, False]})
    dank_figures.save_figure(dank_figures.fig9_figure(curves, table))


# Every stage function that calls save_figure (module.function) and the case that draws its figure.
CASES = {"paper_figures.iklr_fig3": iklr_fig3, "paper_figures.iklr_mm17_fig1": iklr_mm17_fig1,
         "paper_figures.iklr_fig_init": iklr_fig_init, "paper_figures.iklr_fig2": iklr_fig2,
         "paper_ying.ying_fig1": ying_fig1, "paper_dank.dank_fig5": dank_fig5, "paper_dank.dank_fig7": dank_fig7,
         "paper_dank.dank_fig8": dank_fig8, "report.figure": convergence, "scale.figure": scale_figure,
         "dank_figures.dank_fig1": dank_fig1, "dank_figures.dank_fig2": dank_fig2,
         "dank_figures.dank_fig4": dank_fig4, "dank_figures.dank_fig6": dank_fig6,
         "dank_figures.dank_fig9": dank_fig9, "benchmark.benchmark": benchmark_cd}


def figure_writers() -> set[str]:
    """``module.function`` of every function under stages/ whose body calls ``save_figure``."""
    found = set()
    for path in STAGES.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(call, ast.Call) and getattr(call.func, "id", None) == "save_figure"
                    for call in ast.walk(node)):
                found.add(f"{path.stem}.{node.name}")
    return found


def test_every_figure_writing_stage_has_a_case():
    assert figure_writers() == set(CASES)


# --- what a reader needs of a figure -----------------------------------------------------------

def drawn_tick_labels(axis):
    """The tick labels the last draw placed: those of ticks inside the view (the others keep stale
    positions)."""
    low, high = sorted(axis.get_view_interval())
    slack = 1e-9 * max(1.0, abs(low), abs(high))
    ticks = [t for t in axis.majorTicks + axis.minorTicks if low - slack <= t.get_loc() <= high + slack]
    return [label for tick in ticks if tick.get_visible() for label in (tick.label1, tick.label2)]


def texts_of(fig) -> list:
    """Every visible, non-empty text of ``fig``: figure texts and legends, and per axes its titles,
    axis labels, drawn tick labels, legend texts and texts/annotations."""
    found = list(fig.texts) + [t for legend in fig.legends for t in [*legend.get_texts(), legend.get_title()]]
    for ax in fig.axes:
        axes = [ax.xaxis, ax.yaxis] + ([ax.zaxis] if hasattr(ax, "zaxis") else [])
        found += [ax.title, ax._left_title, ax._right_title] + [a.label for a in axes]
        found += [label for a in axes for label in drawn_tick_labels(a)] + list(ax.texts)
        if ax.get_legend() is not None:
            found += [*ax.get_legend().get_texts(), ax.get_legend().get_title()]
    for extra in (fig._suptitle, fig._supxlabel, fig._supylabel):
        if extra is not None:
            found.append(extra)
    unique = {id(t): t for t in found}.values()  # the suptitle is also among fig.texts
    return [t for t in unique if t.get_visible() and t.get_text().strip()]


def drawn(case, tmp_path, capture):
    case(tmp_path)
    assert len(capture) == 1
    fig = capture[0]
    fig.canvas.draw()
    return fig, fig.canvas.get_renderer()


def texts_outside(fig, renderer) -> list:
    canvas = fig.bbox
    outside = []
    for text in texts_of(fig):
        box = text.get_window_extent(renderer)
        if (box.x0 < canvas.x0 - TOLERANCE_PX or box.y0 < canvas.y0 - TOLERANCE_PX
                or box.x1 > canvas.x1 + TOLERANCE_PX or box.y1 > canvas.y1 + TOLERANCE_PX):
            outside.append((text.get_text()[:60], [round(v) for v in box.extents]))
    return outside


def overlapping_texts(fig, renderer) -> list:
    texts = texts_of(fig)
    boxes = [t.get_window_extent(renderer).padded(-TOLERANCE_PX) for t in texts]
    return [(texts[i].get_text()[:40], texts[j].get_text()[:40])
            for i in range(len(texts)) for j in range(i + 1, len(texts))
            if boxes[i].width > 0 and boxes[j].width > 0 and boxes[i].overlaps(boxes[j])]


def flat_curves(fig) -> list:
    """Curves whose values vary but span less than a few pixels of their axes (one runaway run on a
    shared linear axis flattens the others below one pixel)."""
    flat = []
    for ax in fig.axes:
        for line in ax.get_lines():
            y = np.asarray(line.get_ydata(), dtype=float)
            x = np.asarray(line.get_xdata(), dtype=float)
            if y.size < 3 or x.shape != y.shape or not np.all(np.isfinite(y)) or line.get_linestyle() == "None":
                continue
            if np.ptp(y) <= VARYING * np.max(np.abs(y)):
                continue
            shown = ax.transData.transform(np.c_[x, y])[:, 1]
            if np.ptp(shown) < VISIBLE_PX:
                flat.append((ax.get_title()[:40], line.get_label()))
    return flat


def handle_style(handle) -> tuple:
    """What tells a legend entry's handle apart: its colours, line style and marker."""
    colour = lambda c: tuple(np.round(np.ravel(matplotlib.colors.to_rgba_array(c)), 3))  # noqa: E731
    if isinstance(handle, matplotlib.lines.Line2D):
        return ("line", colour(handle.get_color()), handle.get_linestyle(), handle.get_marker(),
                colour(handle.get_markerfacecolor()))
    if isinstance(handle, matplotlib.patches.Patch):
        return ("patch", colour(handle.get_facecolor()), handle.get_hatch())
    return (type(handle).__name__, colour(handle.get_facecolor()), colour(handle.get_edgecolor()),
            tuple(p.vertices.round(3).tobytes() for p in handle.get_paths()))


def repeated_legend_entries(fig) -> list:
    """Pairs of entries of one legend that look alike (e.g. ten repetitions in four line styles)."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    repeated = []
    for legend in legends:
        styles = {}
        for handle, text in zip(legend.legend_handles, legend.get_texts()):
            styles.setdefault(handle_style(handle), []).append(text.get_text())
        repeated += [labels for labels in styles.values() if len(labels) > 1]
    return repeated


@pytest.mark.parametrize("name", list(CASES))
def test_figure_is_readable(name, tmp_path, capture):
    """Every text inside the canvas, no two texts overlapping, every varying curve visible, the
    entries of a legend told apart by their look."""
    fig, renderer = drawn(CASES[name], tmp_path, capture)
    problems = {"texts beyond the canvas": texts_outside(fig, renderer),
                "overlapping texts": overlapping_texts(fig, renderer), "curves flattened to a line": flat_curves(fig),
                "legend entries alike": repeated_legend_entries(fig)}
    plt.close(fig)
    assert not any(problems.values()), "\n".join(f"{k}: {v}" for k, v in problems.items() if v)


# --- what the titles say -----------------------------------------------------------------------

def test_a_panel_says_which_runs_ran_away_or_rose(tmp_path, capture):
    fig, _ = drawn(iklr_fig3, tmp_path, capture)
    titles = [ax.get_title().replace("\n", " ") for ax in fig.axes]
    assert any("CCCP-GD on monks1: 1 of 10 ran away (diverged): rep 2" in t for t in titles), titles
    assert any("CCICP-GD on ijcnn1-tr: 2 of 10 ended above f(α⁰): rep 1, 3" in t for t in titles), titles
    assert any("CCICP-SGD on monks1: all 10 runs descended" in t for t in titles), titles
    assert "Convergence" not in fig.get_suptitle() and "objective per outer iteration" in fig.get_suptitle()


def test_the_quick_runs_figure_names_the_run_whose_objective_rose(tmp_path, capture):
    fig, _ = drawn(convergence, tmp_path, capture)
    (title,) = [ax.get_title().replace("\n", " ") for ax in fig.axes]
    assert "1 of 5 ended above f(α⁰): rep 2" in title and "1 of 5 rose at some iteration: rep 2" in title
    assert fig.get_suptitle().startswith("Objective per outer iteration on monk-2")
    assert fig.axes[0].get_yscale() == "symlog"


def test_objective_marks_and_their_summary():
    assert objective_marks(pd.Series([0.69, 0.5, 0.4]), diverged=False) == {
        "ran_away": False, "ended_above": False, "rose": False}
    assert objective_marks(pd.Series([0.69, 0.9, 0.6]), diverged=False) == {
        "ran_away": False, "ended_above": False, "rose": True}
    assert objective_marks(pd.Series([0.69, 4.4]), diverged=True) == {"ran_away": True, "ended_above": True,
                                                                      "rose": True}
    marks = {1: {"ran_away": True, "ended_above": False, "rose": False},
             2: {"ran_away": False, "ended_above": True, "rose": True},
             3: {"ran_away": False, "ended_above": True, "rose": True}}
    assert objective_summary(marks) == ("1 of 3 ran away (diverged): rep 1; 2 of 3 ended above f(α⁰): rep 2–3; "
                                        "2 of 3 rose at some iteration: rep 2–3")
    assert reps_text([8, 1, 3, 4, 5]) == "1, 3–5, 8"
