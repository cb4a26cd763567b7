"""Which (σ, C) of DANK's SVM / SVR grid searches move with the package's one tie rule?

Usage: KREINBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/svm_grid_ties.py
       > benchmarks/results/svm_grid_ties.md

`kreinbench.methods.svm_grid.grid_search` chose, of equal mean CV scores, scikit-learn's
``GridSearchCV`` order: the first C, then the first σ. Every other CV of the package
(`kreinbench.methods.selection.Tally`) takes the first kernel instance (σ), then the first
parameter (C); the search now uses that rule. This recomputes every search of paper-dank.yaml
that goes through it (Figs. 1–2's two clowns panels, Fig. 9's two test functions, Table 4's
datasets × repetitions; its settings, seeds, splits and folds as the pipeline has them) and prints
each one's best score, how many (σ, C) tie at it, and the choice under both rules. A search whose
choice moves changes its figure or cells. The committed record (`reproductions/paper-dank`) keeps
Fig. 9's (σ, C) (its dank_fig9.csv): the last column checks that the old rule's choice is the
record's there (Table 4's and Fig. 1's choices are not kept in the record).
"""

from __future__ import annotations

import warnings

import pandas as pd
from threadpoolctl import threadpool_limits

import pipeline_rows as rows
from kreinbench.data.registry import spec_from_entry
from kreinbench.data.split import repetition_seed
from kreinbench.experiments.dank import capped_training, minmax_all
from kreinbench.methods.svm_grid import grid_scores

FIG9_RECORD = rows.ROOT / "reproductions/paper-dank/tables/dank_fig9.csv"


def both_rules(scores: pd.DataFrame) -> dict:
    """The best mean score, the (σ, C) tied at it, and the choice of each tie rule."""
    best = scores["score"].max()
    tied = scores[scores["score"] == best]
    sigma_first = tied.sort_values(["sigma_index", "C_index"]).iloc[0]
    C_first = tied.sort_values(["C_index", "sigma_index"]).iloc[0]
    return {"best score": best, "tied at best": len(tied),
            "C first (old)": f"{C_first.sigma:g}, {C_first.C:g}",
            "σ first (now)": f"{sigma_first.sigma:g}, {sigma_first.C:g}",
            "moves": "yes" if (C_first.sigma, C_first.C) != (sigma_first.sigma, sigma_first.C) else "no",
            "_old": (float(C_first.sigma), float(C_first.C))}


def search(X, y, *, sigma_grid, C_grid, folds, seed, regression, epsilon=0.1) -> dict:
    tally = grid_scores(X, y, sigma_grid=sigma_grid, C_grid=C_grid, folds=folds, seed=seed, regression=regression,
                        epsilon=epsilon)
    sigmas, Cs = [float(s) for s in sigma_grid], [float(c) for c in C_grid]
    scores = pd.DataFrame([{"sigma": row["kernel"], "C": row["C"], "score": row["cv_accuracy"],
                            "sigma_index": sigmas.index(row["kernel"]), "C_index": Cs.index(row["C"])}
                           for row in tally.scores])
    return both_rules(scores)


def figure_searches(cfg: dict) -> list[dict]:
    """Figs. 1–2 (panel a: the given σ, C by CV; panel b: both by CV) and Fig. 9's two functions."""
    out = []
    settings, folds, seed = cfg["papers"]["dank_figures"], cfg["cv_folds"], cfg["seed"]
    fig1 = settings["fig1"]
    data = rows.parsed(fig1["dataset"], rows.entry(cfg, fig1["dataset"]))
    X = minmax_all(data.X)
    for panel, grid in (("a", [fig1["sigma"]]), ("b", fig1["sigma_grid"])):
        out.append({"search": f"Fig. 1–2 panel ({panel})", **search(X, data.y, sigma_grid=grid, C_grid=fig1["C_grid"],
                                                                    folds=folds, seed=seed, regression=False)})
    fig9, record = settings["fig9"], pd.read_csv(FIG9_RECORD)
    for dataset in ("step-1d", "cherkassky-2d"):
        data = rows.parsed(dataset, rows.entry(cfg, dataset))
        row = search(data.X, data.y, sigma_grid=fig9["sigma_grid"], C_grid=fig9["C_grid"], folds=folds, seed=seed,
                     regression=True, epsilon=fig9["epsilon"])
        recorded = record[(record.dataset == dataset) & (record.method == "svr")].iloc[0]
        row["record has the old choice"] = "yes" if row["_old"] == (recorded.sigma, recorded.C) else "NO"
        out.append({"search": f"Fig. 9 {dataset}", **row})
    return out


def table4_searches(cfg: dict) -> list[dict]:
    """Table 4's searches, as `kreinbench.experiments.dank.svr_repetition` makes them."""
    settings, folds = cfg["papers"]["dank_figures"]["table4"], cfg["cv_folds"]
    out = []
    for dataset in settings["datasets"]:
        entry = rows.entry(cfg, dataset)
        data = rows.parsed(dataset, entry)
        for rep in range(1, settings["repetitions"] + 1):
            split = rows.split(data, spec_from_entry(dataset, entry).split, dataset=dataset, rep=rep,
                               seed=cfg["seed"], scaler=cfg.get("scaler_fit", "whole"))
            seed = repetition_seed(cfg["seed"], f"{dataset}/dank_table4", rep)
            X, y = capped_training(split.X_train, split.y_train, settings.get("max_train"), seed)
            z = (y - y.mean()) / (y.std() or 1.0)
            out.append({"search": f"Table 4 {dataset} rep {rep}",
                        **search(X, z, sigma_grid=settings["sigma_grid"], C_grid=settings["C_grid"], folds=folds,
                                 seed=seed, regression=True, epsilon=settings["epsilon"])})
    return out


def main() -> None:
    cfg = rows.config("paper-dank")
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        found = figure_searches(cfg) + table4_searches(cfg)
    print(rows.header(__doc__))
    moved = [r["search"] for r in found if r["moves"] == "yes"]
    print(f"{len(found)} searches; {sum(r['tied at best'] > 1 for r in found)} with a tie at the best score; "
          f"choices that move: {', '.join(moved) if moved else 'none'}.\n")
    columns = ["search", "best score", "tied at best", "C first (old)", "σ first (now)", "moves",
               "record has the old choice"]
    print(rows.markdown_table([{c: r.get(c, "") for c in columns} for r in found], columns))


if __name__ == "__main__":
    main()
