"""Stages `dank_svr_rep` and `dank_table4`: DANK (JMLR) Table 4, SVR-CV vs DANK-SVR on UCI regression sets.

Protocol of §6.3.2 ("the remaining experimental settings follow ... §6.1.1"): min-max scaled
features, a random half for training, σ and C by 5-fold CV of the SVR over {2⁻⁵, …, 2⁵} each, DANK
on the CV-chosen kernel and C with τ = 0.01 and η = ‖α_SVR‖², repeated; the metric is the relative
MSE Σ(ĝ(xᵢ) − yᵢ)²/Σ(yᵢ − ȳ)² ("RMSE") on the training and the test half. Two choices the paper
leaves open: ε of the ε-insensitive loss (a setting), applied to targets standardized with the
training half's mean and deviation (so one ε fits every dataset; the relative MSE is unchanged by
that affine map), and an optional seeded cap on the training points (the CV grid costs 605 SVR fits
per repetition, DANK-SVR O(n²) per iteration).
"""

from __future__ import annotations

import logging
import math

import pandas as pd

from kreinbench.atomic import write_csv_atomic, write_text_atomic
from kreinbench.data.split import read_split, repetition_seed
from kreinbench.experiments.dank import svr_repetition
from kreinbench.pipeline import fit_records
from kreinbench.report.render import to_markdown
from kreinbench.report.statistics import ALPHA, paired_tests

log = logging.getLogger(__name__)

METHODS = {"svr-cv": "SVR-CV", "dank": "DANK"}


def dank_svr_rep(*, dataset: str, rep: int, split: str, settings: dict, folds: int, seed: int, svr_cv: str,
                 dank: str) -> None:
    """One repetition of DANK Table 4 (SVR against DANK-SVR) on ``dataset``: each method's fit record
    (``svr_cv``, ``dank``)."""
    data = read_split(split)
    rows = svr_repetition(data.X_train, data.y_train, data.X_test, data.y_test, settings=settings, folds=folds,
                          seed=repetition_seed(seed, f"{dataset}/dank_table4", rep))
    records = {"svr-cv": svr_cv, "dank": dank}
    for row in rows:
        log.info("%s rep %d %s: sigma=%g C=%g RMSE train %.4f test %.4f", dataset, rep, row["method"], row["sigma"],
                 row["C"], row["rmse_train"], row["rmse_test"])
        fit_records.write(records[row["method"]], {"dataset": dataset, "rep": rep, **row})


def runs_frame(records: list[dict]) -> pd.DataFrame:
    """One row per fit record, in the records' order (the planner's: dataset, repetition, method)."""
    return pd.DataFrame(records)


TABLE4_COLUMNS = ["dataset", "method", "paper_method", "reps", "n_train", "mean", "std", "train_mean", "train_std",
                  "paper_mean", "paper_std", "paper_train_mean", "paper_train_std", "diff", "best", "p_value",
                  "best_significantly_better", "significantly_lower"]


def table4_frame(runs: pd.DataFrame, paper: pd.DataFrame, datasets: list[str], alpha: float = ALPHA) -> pd.DataFrame:
    """Per dataset × method: test RMSE mean ± std, training RMSE, the paper's values, Δ = ours − paper's,
    and a two-sided paired t-test of the best (lowest mean test RMSE) method against the other."""
    # paired_tests ranks by the highest mean "accuracy"; the lowest RMSE is the highest −RMSE.
    tests = paired_tests(runs.assign(accuracy=-runs["rmse_test"]), datasets, list(METHODS), alpha)
    tests["mean"] = -tests["mean"]
    stats = runs.groupby(["dataset", "method"]).agg(train_mean=("rmse_train", "mean"), train_std=("rmse_train", "std"),
                                                    n_train=("n_train", "first")).reset_index()
    table = tests.merge(stats, on=["dataset", "method"])
    table["paper_method"] = table["method"].map(METHODS)
    table = table.merge(paper.rename(columns={"method": "paper_method", "test_mean": "paper_mean",
                                              "test_std": "paper_std", "train_mean": "paper_train_mean",
                                              "train_std": "paper_train_std"})
                        [["dataset", "paper_method", "paper_mean", "paper_std", "paper_train_mean", "paper_train_std"]],
                        on=["dataset", "paper_method"], how="left")
    table["diff"] = table["mean"] - table["paper_mean"]
    # paired_tests marks the row the best method beats; the table marks the best method's own row.
    beaten = table.groupby("dataset")["best_significantly_better"].transform("any")
    table["significantly_lower"] = table["best"] & beaten
    return table[TABLE4_COLUMNS]


def _cell(row) -> str:
    test = f"{row.mean:.3f} ± {row.std:.3f}"
    test = f"**{test}**" + (" •" if row.significantly_lower else "") if row.best else test
    ours = f"*{row.train_mean:.3f}* / {test}"
    if math.isnan(row.paper_mean):
        return ours
    return (f"{ours} (paper *{row.paper_train_mean:.3f}* / {row.paper_mean:.3f} ± {row.paper_std:.3f}, "
            f"Δ {row.diff:+.3f})")


def table4_markdown(table: pd.DataFrame, settings: dict, unconverged: str = "", alpha: float = ALPHA) -> str:
    """Datasets × methods, each cell *training* / test RMSE beside the paper's; ``unconverged`` notes
    the DANK-SVR fits that stopped at max_iter."""
    datasets = list(dict.fromkeys(table["dataset"]))
    wide = table.assign(cell=[_cell(r) for r in table.itertuples(index=False)])
    wide = wide.pivot(index="dataset", columns="method", values="cell").loc[datasets, list(METHODS)]
    wide.columns = [METHODS[m] for m in wide.columns]
    n_train = table.drop_duplicates("dataset").set_index("dataset")["n_train"]
    wide.insert(0, "n_train", [int(n_train[d]) for d in datasets])
    reps = "/".join(map(str, sorted(set(table["reps"]))))
    cap = settings.get("max_train")
    caption = (
        f"DANK (JMLR) Table 4, regenerated: relative MSE (RMSE) *training* / test (mean ± std over {reps} "
        f"random halves) of SVR-CV and DANK-SVR (σ and C by {settings.get('folds', 5)}-fold CV of the SVR, "
        f"ε = {settings['epsilon']:g} on standardized targets, τ = {settings['tau']:g}, "
        f"DANK-SVR solver {settings.get('solver', 'nesterov')}, at most {settings['max_iter']} iterations"
        + (f", at most {cap} training points" if cap else "") + "). Paper values in parentheses; the paper's "
        f"BMKL and NW columns and its pyrim, space, triazines and mg rows are not run (not in the mirror). "
        f"**Bold**: lower mean test RMSE; •: significantly lower (two-sided paired t-test over repetitions, "
        f"p < {alpha:g})." + (f" {unconverged}" if unconverged else ""))
    return to_markdown(wide, caption)


def unconverged_note(runs: pd.DataFrame) -> str:
    dank = runs[runs["method"] == "dank"]
    stopped = int((~dank["dank_converged"].astype(bool)).sum())
    return f"DANK-SVR stopped at max_iter before its tolerance in {stopped} of {len(dank)} fits." if stopped else ""


def dank_table4(*, records: list[str], paper: str, settings: dict, folds: int, datasets: list[str], runs: str,
                csv: str, md: str) -> None:
    """DANK Table 4 from the repetitions' ``records``: the tidy ``runs``, and the table as ``csv``
    and ``md`` beside the ``paper``'s values."""
    frame = runs_frame(fit_records.read_all(records))
    table = table4_frame(frame, pd.read_csv(paper, comment="#"), list(datasets))
    write_csv_atomic(runs, frame)
    write_csv_atomic(csv, table)
    write_text_atomic(md, table4_markdown(table, {**settings, "folds": folds}, unconverged_note(frame)))
