"""Stages of the DANK (JMLR) analysis figures that need no ``fit`` records: Figures 1, 2, 4, 6, 9.

- ``dank_clowns`` fits SVM and DANK on the *clowns* set for σ = 1 and the CV-chosen σ and keeps
  their decision values on a grid and DANK's F*; ``dank_fig1`` draws the boundaries (Fig. 1),
  ``dank_fig2`` the matrices F* with their range and rank (Fig. 2).
- ``dank_fig4``: Nesterov's method vs projected gradient on *heart* (§6.2.1).
- ``dank_fig6``: Theorems 7 and 8 on a random ijcnn1 subsample for v = 2, 5, 10 (§6.2.3).
- ``dank_fig9``: SVR-CV vs DANK-SVR on the 1-D step function and the 2-D test function (§6.3.1).

The kernel is the paper's Gaussian exp(−‖x − x'‖²/(2σ²)) throughout; η = ‖α‖² of the SVM (SVR)
on the same kernel (§6.1.1), τ from the settings (the paper's 0.01).
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt  # noqa: E402, I001
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D  # noqa: E402

from kreinbench.atomic import atomic_path, write_csv_atomic
from kreinbench.data.parse import parse_fetched
from kreinbench.data.split import read_split
from kreinbench.experiments.dank import (
    PANELS,
    clowns_fits,
    fig6_table,
    fig9_results,
    figure4_data,
    figure6_experiment,
    minmax_all,
    subsample,
)
from kreinbench.methods.dank.theory import PartitionBounds
from kreinbench.methods.svm_grid import gaussian

# kreinbench.report.render selects the Agg backend before pyplot is imported.
from kreinbench.report.render import save_figure

# The paper's line styles: SVM / SVR-CV / projected gradient blue dashed, DANK / Nesterov red solid.
BASELINE_STYLE = {"color": "tab:blue", "linestyle": "--"}
DANK_STYLE = {"color": "tab:red", "linestyle": "-"}
OURS_STYLE = {"color": "black", "linestyle": ":"}


# --- Figures 1 and 2: clowns ---------------------------------------------------------------------

def write_panels(path: str, X: np.ndarray, y: np.ndarray, panels: dict[str, dict]) -> None:
    arrays = {"X": X, "y": y}
    for name, panel in panels.items():
        arrays.update({f"{name}_{key}": np.asarray(value) for key, value in panel.items()})
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        np.savez(handle, **arrays)


def read_panels(path: str) -> tuple[np.ndarray, np.ndarray, dict[str, dict]]:
    with np.load(path) as data:
        arrays = {key: data[key] for key in data.files}
    panels = {name: {key.split("_", 1)[1]: value[()] if value.ndim == 0 else value
                     for key, value in arrays.items() if key.startswith(f"{name}_")} for name in PANELS}
    return arrays["X"], arrays["y"], panels


def dank_clowns(*, manifest: str, dataset: str, entry: dict, settings: dict, folds: int, seed: int,
                panels: str) -> None:
    """The fits of Figs. 1 and 2 on the clowns data (:func:`clowns_fits`), written to ``panels``."""
    data = parse_fetched(manifest, dataset, entry)
    X, y = minmax_all(data.X), data.y
    s = settings
    fits = clowns_fits(X, y, sigma=s["sigma"], sigma_grid=s["sigma_grid"], C_grid=s["C_grid"], tau=s["tau"],
                       solver=s["solver"], max_iter=s["max_iter"], grid=s["grid"], folds=folds, seed=seed)
    write_panels(panels, X, y, fits)


def _panel_title(name: str, panel: dict, paper_sigma: float) -> str:
    how = "given" if name == "a" else "by CV"
    return f"({name}) σ = {panel['sigma']:g} {how} (paper: {paper_sigma:g}), C = {panel['C']:g}"


def _scatter_classes(ax, X, y) -> None:
    ax.scatter(*X[y > 0].T, s=9, marker="o", color="tab:orange", label="class +1")
    ax.scatter(*X[y < 0].T, s=9, marker="x", color="tab:green", label="class −1")


def fig1_figure(X, y, panels: dict[str, dict], paper: pd.DataFrame):
    """Decision boundaries (zero level sets) of SVM (blue dashed) and DANK (red solid), one panel per σ."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 5), constrained_layout=True)
    for ax, (name, panel) in zip(axes, panels.items()):
        _scatter_classes(ax, X, y)
        ax.contour(panel["xx"], panel["yy"], panel["svm"], levels=[0.0], colors=BASELINE_STYLE["color"],
                   linestyles="dashed", linewidths=1.6)
        ax.contour(panel["xx"], panel["yy"], panel["dank"], levels=[0.0], colors=DANK_STYLE["color"],
                   linestyles="solid", linewidths=1.6)
        handles = ax.get_legend_handles_labels()[0] + [
            Line2D([], [], lw=1.6, **BASELINE_STYLE, label=f"SVM (training acc. {panel['svm_accuracy']:.3f})"),
            Line2D([], [], lw=1.6, **DANK_STYLE, label=f"DANK (training acc. {panel['dank_accuracy']:.3f})")]
        ax.legend(handles=handles, loc="lower right", fontsize=8)
        ax.set_title(_panel_title(name, panel, float(paper.at[name, "sigma"])), fontsize=10)
        ax.set_xlabel("x₁ (min-max scaled to [0, 1], unitless)")
        ax.set_ylabel("x₂ (min-max scaled to [0, 1], unitless)")
    fig.suptitle("DANK (JMLR) Fig. 1, regenerated: classification boundaries on clowns (Gaussian kernel)")
    return fig


def fig2_figure(y, panels: dict[str, dict], paper: pd.DataFrame):
    """F* − 1 as a heat map (points ordered by class) over its own range, range and rank in the title."""
    order = np.argsort(-y, kind="stable")
    fig, axes = plt.subplots(1, 2, figsize=(11, 5), constrained_layout=True)
    for ax, (name, panel) in zip(axes, panels.items()):
        # F* − 1, not F*: with entries this close to 1 a colour bar of F* shows little but its offset.
        image = ax.imshow(panel["F"][np.ix_(order, order)] - 1.0, cmap="viridis", interpolation="nearest")
        # Plain tick labels: matplotlib's offset notation (e.g. "1e−9−1.25e−5") is unreadable here.
        fig.colorbar(image, ax=ax, shrink=0.8, label="F*_ij − 1 (dimensionless)", format="%.6g")
        row = paper.loc[name]
        ax.set_title(f"({name}) σ = {panel['sigma']:g}: F* ∈ [{panel['F_min']:.6f}, {panel['F_max']:.6f}], "
                     f"rank(F*) = {int(panel['rank'])}\n(paper: σ = {row.sigma:g}, F* ∈ [{row.F_min:g}, "
                     f"{row.F_max:g}], rank {int(row['rank'])})", fontsize=9)
        ax.set_xlabel("training point j (class +1 first)")
        ax.set_ylabel("training point i (class +1 first)")
    fig.suptitle("DANK (JMLR) Fig. 2, regenerated: the range of F* on clowns")
    return fig


def read_paper(path: str, index: str) -> pd.DataFrame:
    return pd.read_csv(path, comment="#").set_index(index)


def dank_fig1(*, panels: str, paper: str, png: str, pdf: str) -> None:
    """DANK Fig. 1 (:func:`fig1_figure`) from the clowns ``panels``."""
    X, y, fits = read_panels(panels)
    save_figure(fig1_figure(X, y, fits, read_paper(paper, "panel")), png, pdf)


def dank_fig2(*, panels: str, paper: str, png: str, pdf: str) -> None:
    """DANK Fig. 2 (:func:`fig2_figure`) from the clowns ``panels``."""
    _, y, fits = read_panels(panels)
    save_figure(fig2_figure(y, fits, read_paper(paper, "panel")), png, pdf)


# --- Figure 4: Nesterov vs projected gradient ----------------------------------------------------

def fig4_figure(data: pd.DataFrame, dataset: str, settings: dict, n: int):
    """(a) H(α⁽ᵗ⁾, F(α⁽ᵗ⁾)) and (b) ‖α⁽ᵗ⁾ − α⁽ᵗ⁻¹⁾‖₂ per iteration of both solvers."""
    fig, (ax_h, ax_step) = plt.subplots(1, 2, figsize=(11, 4.5), constrained_layout=True)
    # The paper's two solvers, and ours (solver="fista"), which the paper configs run.
    for solver, label, style in (("pg", "projected gradient", BASELINE_STYLE), ("nesterov", "Nesterov", DANK_STYLE),
                                 ("fista", "accelerated PG, backtracked step (ours)", OURS_STYLE)):
        rows = data[data["solver"] == solver]
        ax_h.plot(rows["iteration"], rows["objective"], label=label, **style)
        ax_step.plot(rows["iteration"], rows["step_norm"], label=label, **style)
    ax_h.set_ylabel("objective H(α, F) (dimensionless)")
    ax_h.set_title("(a) objective value")
    ax_step.set_yscale("log")
    ax_step.set_ylabel("‖α(t) − α(t−1)‖₂ (log scale)")
    ax_step.set_title("(b) dual variable difference")
    for ax in (ax_h, ax_step):
        ax.set_xlabel("iteration t")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"DANK (JMLR) Fig. 4, regenerated on {dataset} (training half, n = {n}, σ = {settings['sigma']:g}, "
                 f"C = {settings['C']:g}, τ = {settings['tau']:g}, η = ‖α_SVM‖²)")
    return fig


def dank_fig4(*, split: str, dataset: str, settings: dict, png: str, pdf: str) -> None:
    """DANK Fig. 4 (:func:`fig4_figure`) on the first split of ``dataset``."""
    s = settings
    train = read_split(split)
    K = gaussian(train.X_train, sigma=s["sigma"])
    data = figure4_data(K, train.y_train, train.X_train, C=s["C"], tau=s["tau"], max_iter=s["max_iter"])
    save_figure(fig4_figure(data, dataset, s, train.y_train.size), png, pdf)


# --- Figure 6: Theorems 7 and 8 ------------------------------------------------------------------

def fig6_figure(results: list[PartitionBounds], paper: pd.Series, n: int):
    """(a) ‖α* − ᾱ‖² vs Theorem 7 and nC²; (b) ‖F* − F̄‖_F vs Theorem 7 and n·max{√B, B};
    (c) the gradient of each point for the largest v, with condition (21)'s threshold."""
    fig, axes = plt.subplots(1, 3, figsize=(16, 5), constrained_layout=True)
    v = [r.n_clusters for r in results]
    pos = np.arange(len(v))
    bars = (("alpha_error_sq", "alpha_bound", "alpha_trivial_bound", "‖α* − ᾱ‖²₂", "nC²"),
            ("F_error", "F_bound", "F_trivial_bound", "‖F* − F̄‖_F", "n·max{√B, B}"))
    for ax, (ours, bound, trivial, name, trivial_name) in zip(axes[:2], bars):
        rows = [r.summary() for r in results]
        for k, (key, label, colour) in enumerate(((ours, f"{name} (measured)", "tab:blue"),
                                                  (bound, "Theorem 7 bound", "tab:red"),
                                                  (trivial, trivial_name, "black"))):
            ax.bar(pos + (k - 1) * 0.27, [row[key] for row in rows], width=0.27, color=colour, label=label)
        ax.set_yscale("log")
        ax.set_xticks(pos, [f"v = {c}" for c in v])
        ax.set_xlabel("number of clusters v")
        ax.set_ylabel(f"{name} (log scale)")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_title("(a) error of α vs bound")
    axes[1].set_title("(b) error of F vs bounds")
    last = results[-1]
    index = np.arange(last.gradient.size)
    sv = last.support
    ax = axes[2]
    ax.scatter(index[sv], last.gradient[sv], s=5, color="tab:green", label=f"SVs ({int(sv.sum())})")
    ax.scatter(index[~sv], last.gradient[~sv], s=5, color="tab:blue", label=f"non-SVs ({int((~sv).sum())})")
    ax.scatter(index[last.screened], last.gradient[last.screened], s=7, color="tab:red",
               label=f"screened by (21) ({int(last.screened.sum())})")
    ax.plot(index, last.threshold, color="grey", lw=0.8, label="threshold −(B + B₂)C(‖K̄ᵢ‖₁ + κ)")
    # Symmetric log: the gradients lie near 0, the thresholds hundreds below.
    ax.set_yscale("symlog", linthresh=1e-2)
    ax.set_xlabel("training point i")
    ax.set_ylabel("(∇_α H̄(ᾱ, F̄))ᵢ (dimensionless, symmetric log)")
    ax.set_title(f"(c) screening by condition (21), v = {last.n_clusters}\n(21) as printed screens "
                 f"{int(last.screened.sum())} of {int((~sv).sum())} non-SVs; paper: {int(paper.n_screened)} of "
                 f"{int(paper.n_nonsupport)} (n = {int(paper.n)})", fontsize=9)
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.3, 0.12))  # the empty band above the thresholds
    ax.grid(alpha=0.3)
    fig.suptitle(f"DANK (JMLR) Fig. 6, regenerated: Theorems 7 and 8 on {n} random ijcnn1 points. As printed, "
                 f"(21) cannot hold (gradient ≥ 1 − B₂C‖K̄ᵢ‖₁ > threshold), so it screens nothing", fontsize=10)
    return fig


def dank_fig6(*, manifest: str, dataset: str, entry: dict, settings: dict, seed: int, paper: str, csv: str,
              png: str, pdf: str) -> None:
    """DANK Fig. 6 (Theorems 7 and 8, :func:`figure6_experiment`) as ``csv`` and figure."""
    s = settings
    data = parse_fetched(manifest, dataset, entry)
    # The paper samples from ijcnn1's training data; a file without parts is all training data.
    rows = np.ones(data.y.size, bool) if data.part is None else data.part == "train"
    X, y = subsample(data.X[rows], data.y[rows], s["n"], seed)
    results, eta = figure6_experiment(X, y, gamma=s["gamma"], C=s["C"], clusters=s["clusters"], seed=seed,
                                      max_iter=s["max_iter"])
    write_csv_atomic(csv, fig6_table(results, eta, s["n"]))
    values = pd.read_csv(paper, comment="#").iloc[0]
    save_figure(fig6_figure(results, values, s["n"]), png, pdf)


# --- Figure 9: SVR-CV vs DANK-SVR on test functions ----------------------------------------------

METHOD_NAMES = {"svr": "SVR-CV", "dank": "DANK"}


def with_paper(table: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the paper's RMSE beside ours and the difference (ours − paper's)."""
    table = table.merge(paper[["dataset", "method", "rmse_paper"]], on=["dataset", "method"], how="left")
    return table.assign(diff=table["rmse"] - table["rmse_paper"])


def _rmse_label(table: pd.DataFrame, dataset: str, method: str) -> str:
    row = table[(table.dataset == dataset) & (table.method == method)].iloc[0]
    note = "" if row.converged else ", stopped at max_iter"
    return f"{METHOD_NAMES[method]}: RMSE {row.rmse:.2g} (paper {row.rmse_paper:.3f}){note}"


def fig9_figure(curves: dict, table: pd.DataFrame):
    """(a) the step function with both fits; (b) the 2-D function; (c) SVR-CV's and (d) DANK's fits of it."""
    fig = plt.figure(figsize=(15, 9), constrained_layout=True)
    ax = fig.add_subplot(2, 2, 1)
    step = curves["step-1d"]
    order = np.argsort(step["grid"][:, 0])
    x = step["grid"][order, 0]
    ax.plot(x, step["truth"][order], color="black", lw=1, label="g(s, w, a, x)")
    ax.scatter(step["X"][:, 0], step["y"], s=4, color="grey", label=f"{step['y'].size} samples")
    ax.plot(x, step["svr"][order], lw=1.4, label=_rmse_label(table, "step-1d", "svr"), **BASELINE_STYLE)
    ax.plot(x, step["dank"][order], lw=1.4, label=_rmse_label(table, "step-1d", "dank"), **DANK_STYLE)
    ax.set_xlabel("x (dimensionless)")
    ax.set_ylabel("g(x) (dimensionless)")
    ax.set_title(f"(a) step function s = 3, w = 2, a = 0.05 (σ = {step['sigma']:g}, C = {step['C']:g})", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    surface = curves["cherkassky-2d"]
    side = int(round(math.sqrt(surface["grid"].shape[0])))
    uu, vv = (surface["grid"][:, k].reshape(side, side) for k in range(2))
    panels = (("truth", "(b) g(u, v) and its 400 samples"),
              ("svr", f"(c) {_rmse_label(table, 'cherkassky-2d', 'svr')}"),
              ("dank", f"(d) {_rmse_label(table, 'cherkassky-2d', 'dank')}"))
    lo, hi = surface["truth"].min(), surface["truth"].max()
    for k, (key, title) in enumerate(panels, start=2):
        ax = fig.add_subplot(2, 2, k, projection="3d")
        ax.plot_surface(uu, vv, surface[key].reshape(side, side), cmap="viridis", vmin=lo, vmax=hi, linewidth=0)
        if key == "truth":
            ax.scatter(surface["X"][:, 0], surface["X"][:, 1], surface["y"], s=2, color="black")
        ax.set_xlabel("u")
        ax.set_ylabel("v")
        ax.set_zlabel("g(u, v)")
        ax.set_title(title + (f"\nσ = {surface['sigma']:g}, C = {surface['C']:g}" if key != "truth" else ""),
                     fontsize=10)
    fig.suptitle("DANK (JMLR) Fig. 9, regenerated: SVR-CV vs DANK on 1-D and 2-D test functions "
                 "(RMSE = relative MSE on a dense grid of the noiseless function)")
    return fig


def dank_fig9(*, manifests: list[str], datasets: list[str], entries: dict[str, dict], settings: dict, folds: int,
              seed: int, paper: str, csv: str, png: str, pdf: str) -> None:
    """DANK Fig. 9 (SVR against DANK-SVR, :func:`fig9_results`) as ``csv`` and figure."""
    samples = {d: parse_fetched(path, d, entries[d]) for d, path in zip(datasets, manifests, strict=True)}
    curves, table = fig9_results(samples, settings, folds, seed)
    table = with_paper(table, pd.read_csv(paper, comment="#"))
    write_csv_atomic(csv, table)
    save_figure(fig9_figure(curves, table), png, pdf)
