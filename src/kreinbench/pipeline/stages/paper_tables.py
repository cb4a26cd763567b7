"""Stages of the IKLR tables beside the papers' values: TNNLS Tables II-VII and MM'17 Table 2.

Table II, per dataset: m (features used), n (rows the split was drawn from), and the extreme
eigenvalues μ_min, μ_max of the TL1 kernel on the training part of the first repetition, with
their range over every repetition's training part (the paper's one random half is not ours), and
where the splits' min-max scaler was fitted (their ``scaler_fit``).
Table III (and MM'17 Table 2, its predecessor), per dataset × method: test accuracy over the
repetitions (from the tidy run records), the paper's value, and paired t-tests of the best
method against the others. Tables IV-VII: a few methods on a few datasets, per metric.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from kreinbench.atomic import write_csv_atomic, write_text_atomic
from kreinbench.errors import KreinbenchError
from kreinbench.experiments.iklr import dataset_statistics
from kreinbench.report.render import COLLAPSE_NOTE, collapse_mark, fit_marks, scaling_note, to_markdown
from kreinbench.report.statistics import ALPHA, fit_flags, paired_tests
from kreinbench.report.studies import INIT_NAMES, METRIC_NAMES, study_frame, with_final_objectives

log = logging.getLogger(__name__)


COLUMNS = ["paper_dataset", "dataset", "scaler_fit", "m", "m_paper", "n", "n_paper", "n_train",
           "mu_min", "mu_min_paper", "mu_max", "mu_max_paper",
           "repetitions", "mu_min_lo", "mu_min_hi", "mu_max_lo", "mu_max_hi", "note"]


def over_repetitions(stats: list[dict]) -> list[dict]:
    """One row per dataset from every repetition's ``dataset_statistics``: repetition 1's values
    and, over all repetitions, the range of μ_min and μ_max."""
    frame = pd.DataFrame(stats)
    rows = []
    for dataset, group in frame.groupby("dataset", sort=False):
        if 1 not in set(group["rep"]):
            raise KreinbenchError(f"Table II: no repetition-1 split of dataset {dataset!r} among the inputs")
        first = group[group["rep"] == 1].iloc[0]
        rows.append({**{key: first[key] for key in ("dataset", "scaler_fit", "m", "n", "n_train", "mu_min", "mu_max")},
                     "repetitions": len(group),
                     "mu_min_lo": group["mu_min"].min(), "mu_min_hi": group["mu_min"].max(),
                     "mu_max_lo": group["mu_max"].min(), "mu_max_hi": group["mu_max"].max()})
    return rows


def table2_frame(stats: list[dict], paper: pd.DataFrame, stand_ins: dict[str, str] | None = None) -> pd.DataFrame:
    """Join measured statistics with the paper's rows (by registry dataset name; an offline
    substitute in ``stand_ins`` by its original's, noted), in the paper's row order; datasets the
    paper lacks come last with empty paper columns."""
    stand_ins = stand_ins or {}
    measured = pd.DataFrame(stats)
    measured["_row"] = [stand_ins.get(d, d) for d in measured["dataset"]]
    paper = paper.rename(columns={"m": "m_paper", "n": "n_paper", "mu_min": "mu_min_paper", "mu_max": "mu_max_paper",
                                  "dataset": "_row"})
    table = paper.merge(measured, on="_row", how="right")
    for sub, original in stand_ins.items():
        table.loc[table["dataset"] == sub, "note"] = (f"offline: {sub} stands in for {original} "
                                                      f"(config offline_substitutes), not the paper's file")
    order = {name: i for i, name in enumerate(paper["_row"])}
    table["_order"] = [order.get(d, math.inf) for d in table["_row"]]
    table = table.sort_values("_order", kind="stable").drop(columns=["_order", "_row"]).reset_index(drop=True)
    table["paper_dataset"] = table["paper_dataset"].fillna("")
    table["note"] = table["note"].fillna("")
    return table[COLUMNS]


def _fmt(value, digits: int = 4) -> str:
    if isinstance(value, float) and math.isnan(value):
        return ""
    if isinstance(value, (float, np.floating)):
        return f"{value:.{digits}g}"
    return str(value)


# Where the splits' min-max scaler was fitted (split option scaler_fit), in Table II's caption.
SCALER_FIT_WORDS = {"train": "fitted on the training part", "whole": "fitted on every row the split is drawn from"}


def _scaler_words(fits) -> str:
    fits = sorted(set(fits))
    if len(fits) == 1:
        return SCALER_FIT_WORDS[fits[0]]
    return "fitted where each dataset's scaler_fit says (" + "; ".join(f"{f}: {SCALER_FIT_WORDS[f]}" for f in fits) + ")"


def table2_markdown(table: pd.DataFrame, kernel_spec: dict) -> str:
    tau = kernel_spec.get("tau", f"{kernel_spec.get('tau_factor', 0.7)}·m")
    lines = [
        f"IKLR (TNNLS) Table II, regenerated: m features, n rows, and the extreme eigenvalues of the TL1 "
        f"kernel max(τ − ‖x − x′‖₁, 0), τ = {tau}, on the training part (repetition 1, [0, 1] min-max "
        f"scaling {_scaler_words(table['scaler_fit'])}); paper values in parentheses; in brackets, the range "
        f"over the training parts of all {int(table['repetitions'].max())} repetitions (another random half "
        f"moves μ_min most).",
        "",
        "| dataset | m | n | n_train | μ_min | μ_max | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in table.itertuples(index=False):
        def pair(ours, theirs):
            return f"{_fmt(ours)} ({_fmt(theirs)})" if _fmt(theirs) else _fmt(ours)

        def spread(lo, hi):
            return f" [{_fmt(lo)}, {_fmt(hi)}]" if row.repetitions > 1 else ""

        name = f"{row.paper_dataset} (`{row.dataset}`)" if row.paper_dataset else f"`{row.dataset}`"
        lines.append(f"| {name} | {pair(row.m, row.m_paper)} | {pair(row.n, row.n_paper)} | {row.n_train} | "
                     f"{pair(row.mu_min, row.mu_min_paper)}{spread(row.mu_min_lo, row.mu_min_hi)} | "
                     f"{pair(row.mu_max, row.mu_max_paper)}{spread(row.mu_max_lo, row.mu_max_hi)} | {row.note} |")
    return "\n".join(lines) + "\n"


def read_paper_values(path: str) -> pd.DataFrame:
    """The transcribed table (``#`` lines are the citation and comments)."""
    return pd.read_csv(path, comment="#", dtype={"note": str}, keep_default_na=False,
                       na_values={"m": [""], "n": [""], "mu_min": [""], "mu_max": [""]})


def iklr_table2(*, splits: list[str], paper: str, kernel: dict, stand_ins: dict[str, str], csv: str,
                md: str) -> None:
    """Table II: each dataset's size and its TL1 kernel's extreme eigenvalues (``kernel``) on the
    first repetition's split, and their range over every repetition's ``splits``, beside the
    ``paper``'s values."""
    stats = []
    for path in splits:
        row = dataset_statistics(path, kernel)
        log.info("%s rep %d: m=%d n=%d n_train=%d mu_min=%.6g mu_max=%.6g", row["dataset"], row["rep"], row["m"],
                 row["n"], row["n_train"], row["mu_min"], row["mu_max"])
        stats.append(row)
    table = table2_frame(over_repetitions(stats), read_paper_values(paper), stand_ins)
    write_csv_atomic(csv, table)
    write_text_atomic(md, table2_markdown(table, kernel))


# Table III: test accuracy per dataset x method beside the paper's, with paired t-tests.


TABLE3_COLUMNS = ["dataset", "paper_dataset", "method", "label", "paper_method", "reps", "mean", "std",
                  "paper_mean", "paper_std", "diff", "best", "p_value", "best_significantly_better", "diverged",
                  "collapsed", "majority_rate"]


def table3_frame(runs: pd.DataFrame, paper: pd.DataFrame, names: dict[str, dict[str, str]],
                 dataset_order: list[str], method_order: list[str], alpha: float = ALPHA) -> pd.DataFrame:
    """One row per dataset x method of ``runs``: our statistics and t-test (:func:`paired_tests`),
    the paper's mean and std where ``paper`` has the cell (under the names ``names`` maps ours
    to, see :func:`kreinbench.pipeline.plan.paper_names`), and ``diff`` = our mean − the paper's."""
    table = paired_tests(runs, dataset_order, method_order, alpha)
    table["paper_dataset"] = table["dataset"].map(names["datasets"])
    table["paper_method"] = table["method"].map(names["methods"])
    table["label"] = table["method"].map(runs.drop_duplicates("method").set_index("method")["label"])
    paper = paper.rename(columns={"mean": "paper_mean", "std": "paper_std"})
    table = table.merge(paper, on=["paper_dataset", "paper_method"], how="left")
    table["diff"] = table["mean"] - table["paper_mean"]
    # repetitions whose fit ran away (stopped where ‖α‖ left any stationary point's radius), and collapsed fits
    flags = fit_flags(runs).drop(columns="not_converged")
    table = table.merge(flags, on=["dataset", "method"], how="left")
    table["diverged"] = table["diverged"].fillna(0).astype(int)
    return table[TABLE3_COLUMNS]


def _table3_cell(row) -> str:
    ours = f"{row.mean:.3f} ± {row.std:.3f}"
    ours = f"**{ours}**" if row.best else ours + (" †" if row.best_significantly_better else "")
    ours += fit_marks(row)
    if math.isnan(row.paper_mean):
        return ours
    return f"{ours} (paper {row.paper_mean:.3f} ± {row.paper_std:.3f}, Δ {row.diff:+.3f})"


def table3_markdown(table: pd.DataFrame, alpha: float = ALPHA, title: str = "IKLR (TNNLS) Table III",
                    scaling: str = "") -> str:
    """Datasets (rows) x methods (columns) in the layout of the paper's Table III (``title``)."""
    reps = sorted(set(table["reps"]))
    wide = table.assign(cell=[_table3_cell(row) for row in table.itertuples(index=False)])
    wide = wide.pivot(index="dataset", columns="method", values="cell")
    wide = wide.loc[list(dict.fromkeys(table["dataset"])), list(dict.fromkeys(table["method"]))].fillna("")

    def header(ours: str, paper_name: str) -> str:
        return ours if ours == paper_name else f"{ours} (paper: {paper_name})"

    methods = table.drop_duplicates("method").set_index("method")
    datasets = table.drop_duplicates("dataset").set_index("dataset")["paper_dataset"]
    wide.columns = [header(methods.at[m, "label"], methods.at[m, "paper_method"]) for m in wide.columns]
    wide.index = [header(d, datasets[d]) for d in wide.index]
    caption = (
        f"{title}, regenerated: test accuracy, mean ± std over {'/'.join(map(str, reps))} "
        f"repetitions of the split{f' ({scaling})' if scaling else ''}. **Bold**: best mean of the dataset; †: significantly worse than the best "
        f"(two-sided paired t-test over repetitions, p < {alpha:g}); ‡k: k repetitions ran away (the fit stopped "
        f"where ‖α‖ left every stationary point's radius); {COLLAPSE_NOTE}. In parentheses, where the paper has "
        f"the dataset × method: its mean ± std over 10 runs and Δ = ours − paper's."
    )
    return to_markdown(wide, caption)


def iklr_table3(*, runs: str, paper: str, names: dict, datasets: list[str], methods: list[str], csv: str, md: str,
                title: str = "IKLR (TNNLS) Table III") -> None:
    """Table III: test accuracy of ``methods`` on ``datasets`` with paired t-tests, beside the
    ``paper``'s values (``names``: the paper's names of ours)."""
    runs = pd.read_csv(runs)
    table = table3_frame(runs, pd.read_csv(paper, comment="#"), names, list(datasets), list(methods))
    for row in table[table["best_significantly_better"]].itertuples(index=False):
        log.info("%s: best method beats %s (p = %.3g)", row.dataset, row.method, row.p_value)
    write_csv_atomic(csv, table)
    scaling = scaling_note(runs[runs["dataset"].isin(datasets) & runs["method"].isin(methods)])
    write_text_atomic(md, table3_markdown(table, title=title, scaling=scaling))


def iklr_mm17_table2(*, runs: str, paper: str, names: dict, datasets: list[str], methods: list[str], csv: str,
                     md: str) -> None:
    """MM'17 Table 2: Table III's layout on MM'17's datasets and methods, beside its values."""
    iklr_table3(runs=runs, paper=paper, names=names, datasets=datasets, methods=methods, csv=csv, md=md,
                title="IKLR (MM'17) Table 2")


# Tables VI and VII: a few methods on a few datasets, one row per dataset x method x metric.

# Decimals of the metrics printed as the papers print them; others get 4 significant digits.
DECIMALS = {"accuracy": 3, "accuracy_percent": 1}


def _number(value: float, metric: str, sign: str = "") -> str:
    return f"{value:{sign}.{DECIMALS[metric]}f}" if metric in DECIMALS else f"{value:{sign}.4g}"


def study_cell(row) -> str:
    """``ours mean ± std (paper mean[ ± std], Δ diff)``; ours alone where the paper has no value."""
    ours = f"{_number(row.mean, row.metric)} ± {_number(row.std, row.metric)}" + collapse_mark(row)
    if math.isnan(row.paper_mean):
        return ours
    paper = _number(row.paper_mean, row.metric)
    if not math.isnan(row.paper_std):
        paper += f" ± {_number(row.paper_std, row.metric)}"
    return f"{ours} (paper {paper}, Δ {_number(row.diff, row.metric, '+')})"


def study_markdown(table: pd.DataFrame, rows: list[str], columns: list[str], caption: str) -> str:
    """The cells of ``table`` (:func:`study_cell`) with ``rows`` down and ``columns`` across, each
    in the order of its first appearance in the table."""
    def keys(names):
        return [" · ".join(map(str, values)) for values in table[names].itertuples(index=False)]

    cells = dict(zip(zip(keys(rows), keys(columns)), (study_cell(r) for r in table.itertuples(index=False))))
    row_keys, column_keys = list(dict.fromkeys(keys(rows))), list(dict.fromkeys(keys(columns)))
    wide = pd.DataFrame([[cells.get((r, c), "") for c in column_keys] for r in row_keys],
                        index=row_keys, columns=column_keys)
    return to_markdown(wide, caption, index_name=" · ".join(rows))


def _display_names(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with metrics as the paper names them and ``ours (paper: theirs)`` datasets."""
    return table.assign(metric=table["metric"].map(METRIC_NAMES),
                        dataset=[f"{d} (paper: {p})" if d != p else d
                                 for d, p in zip(table["dataset"], table["paper_dataset"])])


def _write_study(csv: str, md: str, table: pd.DataFrame, markdown: str) -> None:
    write_csv_atomic(csv, table)
    write_text_atomic(md, markdown)


def _reps(table: pd.DataFrame) -> str:
    return "/".join(map(str, sorted(set(table["reps"]))))


def timing_frame(runs: pd.DataFrame, paper: pd.DataFrame, datasets: dict[str, str],
                 methods: dict[str, str]) -> pd.DataFrame:
    """Tables IV and VII: accuracy, training and test time of ``methods`` (``{ours: paper's name}``;
    CCCP-GD / CCICP-GD / CCICP-SGD, or CCICP-SGD / CCICP-SGD-I) per dataset."""
    frame = pd.DataFrame({"method": list(methods), "paper_method": list(methods.values())})
    return study_frame(runs, paper, datasets, frame, ["accuracy", "train_time", "test_time"])


def table7_markdown(table: pd.DataFrame) -> str:
    caption = (
        f"IKLR (TNNLS) Table VII, regenerated: CCICP-SGD (ε = 1e-4) vs CCICP-SGD-I (ε = 1), mean ± std over "
        f"{_reps(table)} repetitions of the split; training time of the final fit (CV excluded), test time of "
        f"predicting the test half, in seconds on our machine. In parentheses: the paper's value (10 runs) "
        f"and Δ = ours − paper's; {COLLAPSE_NOTE}."
    )
    return study_markdown(_display_names(table), ["metric"], ["dataset", "paper_method"], caption)


def _timing_study(runs: str, paper: str, datasets: dict[str, str], methods: dict[str, str], csv: str, md: str,
                  markdown) -> None:
    """Rules `iklr_table4` and `iklr_table7`: :func:`timing_frame`, written as CSV and ``markdown(table)``."""
    table = timing_frame(pd.read_csv(runs), pd.read_csv(paper, comment="#"), dict(datasets), dict(methods))
    _write_study(csv, md, table, markdown(table))


def iklr_table7(*, runs: str, paper: str, datasets: dict[str, str], methods: dict[str, str], csv: str,
                md: str) -> None:
    """Table VII: CCICP-SGD against CCICP-SGD-I, accuracy and times, beside the paper's."""
    _timing_study(runs, paper, datasets, methods, csv, md, table7_markdown)


def table4_markdown(table: pd.DataFrame) -> str:
    caption = (
        f"IKLR (TNNLS) Table IV, regenerated: CCCP-GD (ε = 1e-4), CCICP-GD (ε = 1) and CCICP-SGD (ε = 1e-4) "
        f"on the four larger sets, mean ± std over {_reps(table)} repetitions of the split (n as capped by the "
        f"config: see n_train in results/records/runs.csv); training time of the final fit (CV excluded), test "
        f"time of predicting the test half, in seconds on our machine. In parentheses: the paper's value (10 "
        f"runs, full-size sets) and Δ = ours − paper's; {COLLAPSE_NOTE}."
    )
    return study_markdown(_display_names(table), ["dataset", "paper_method"], ["metric"], caption)


def iklr_table4(*, runs: str, paper: str, datasets: dict[str, str], methods: dict[str, str], csv: str,
                md: str) -> None:
    """Table IV: CCCP-GD, CCICP-GD and CCICP-SGD, accuracy and times, beside the paper's."""
    _timing_study(runs, paper, datasets, methods, csv, md, table4_markdown)


# Table V: accuracy (%) per method and the Affine-Invariant kernel's extreme eigenvalues.
TABLE5_METRICS = ["accuracy_percent", "mu_min", "mu_max"]
TABLE5_COLUMNS = {"mu_min": "μ_min", "mu_max": "μ_max"}


def table5_frame(runs: pd.DataFrame, paper: pd.DataFrame, datasets: dict[str, str], methods: dict[str, str],
                 spectrum_method: str) -> pd.DataFrame:
    """Table V per dataset x method x metric: test accuracy in % (the paper's unit), and μ_min,
    μ_max of the kernel each run's CV chose (rows only for methods that record a spectrum).

    The paper's μ_min and μ_max are of its one Affine-Invariant kernel, transcribed without a
    method (``paper_method`` empty); they join the rows of ``spectrum_method`` (the paper's
    CCICP-GD), whose CV-chosen Aff-I kernel stands for it."""
    runs = runs.assign(accuracy_percent=100.0 * runs["accuracy"], mu_min=runs["kernel_mu_min"],
                       mu_max=runs["kernel_mu_max"])
    paper = paper.assign(paper_method=[m if metric == "accuracy_percent" else methods[spectrum_method]
                                       for m, metric in zip(paper["paper_method"], paper["metric"])])
    frame = pd.DataFrame({"method": list(methods), "paper_method": list(methods.values())})
    table = study_frame(runs, paper, datasets, frame, TABLE5_METRICS)
    return table[table["reps"] > 0].reset_index(drop=True)


def table5_markdown(table: pd.DataFrame, paper: pd.DataFrame, spectrum_method: str) -> str:
    """Datasets (rows) x μ_min, μ_max and the methods' accuracy (columns), as the paper's Table V,
    then the paper's own rows for its datasets that none of ours stands for (Yale B offline)."""
    # μ_min and μ_max first, as in the paper.
    accuracy = table["metric"] == "accuracy_percent"
    shown = pd.concat([table[~accuracy & (table["method"] == spectrum_method)], table[accuracy]])
    # Metrics keep their keys (the cells' number formats); μ and accuracy are told apart by column.
    shown = _display_names(shown).assign(metric=shown["metric"], column=[
        TABLE5_COLUMNS.get(metric, method) for metric, method in zip(shown["metric"], shown["paper_method"])])
    spectrum_label = table.loc[table["method"] == spectrum_method, "paper_method"].iloc[0]
    caption = (
        f"IKLR (TNNLS) Table V, regenerated: test accuracy (%) of SVM and KLR on the Log-Euclidean kernel and "
        f"of the indefinite-kernel methods on the Affine-Invariant kernel (covariance descriptors of the images, "
        f"σ by CV), mean ± std over {_reps(table)} repetitions; μ_min, μ_max: extreme eigenvalues of the "
        f"Affine-Invariant training kernel that {spectrum_label}'s CV chose. In parentheses, where the dataset "
        f"is the paper's: its value and Δ = ours − paper's; {COLLAPSE_NOTE}."
    )
    text = study_markdown(shown, ["dataset"], ["column"], caption)
    columns = list(dict.fromkeys(shown["column"]))
    for name, rows in paper[~paper["paper_dataset"].isin(set(table["paper_dataset"]))].groupby("paper_dataset",
                                                                                              sort=False):
        values = {TABLE5_COLUMNS.get(r.metric, r.paper_method): _number(r.mean, r.metric)
                  + ("" if math.isnan(r.std) else f" ± {_number(r.std, r.metric)}") for r in rows.itertuples()}
        text += f"| {name} (paper) | " + " | ".join(values.get(c, "") for c in columns) + " |\n"
    return text


def iklr_table5(*, runs: str, paper: str, datasets: dict[str, str], methods: dict[str, str], spectrum_method: str,
                csv: str, md: str) -> None:
    """Table V: the SPD-kernel methods on the image sets, beside the paper's values."""
    values = pd.read_csv(paper, comment="#", keep_default_na=False, na_values={"std": [""]})
    table = table5_frame(pd.read_csv(runs), values, dict(datasets), dict(methods), spectrum_method)
    _write_study(csv, md, table, table5_markdown(table, values, spectrum_method))


def table6_frame(runs: pd.DataFrame, history: pd.DataFrame, paper: pd.DataFrame, datasets: dict[str, str],
                 methods: dict[str, dict[str, str]]) -> pd.DataFrame:
    """Table VI: test accuracy and final objective per dataset x method, where ``methods`` gives
    each method's solver as the paper prints it and α⁽⁰⁾: ``{ours: {"paper_method", "init"}}``."""
    frame = pd.DataFrame([{"method": m, **setting} for m, setting in methods.items()])
    return study_frame(with_final_objectives(runs, history), paper, datasets, frame, ["accuracy", "objective"])


def table6_split_note(splits: dict[str, dict], sizes: dict[str, tuple[int, int]]) -> str:
    """Which split the runs of each Table VI dataset share: ``splits`` gives each dataset's split
    protocol (its registry ``split`` with the config's options), ``sizes`` its (n_train, n_test)."""
    notes = []
    for dataset, split in splits.items():
        n_train, n_test = sizes.get(dataset, ("?", "?"))
        if split.get("protocol") == "provided":
            note = (f"{dataset}: one split, its provided training and test files ({n_train} / {n_test} points)"
                    + (f", each part capped at {split['max_n']} rows by a subsample seeded per run"
                       if split.get("max_n") else ", the same in every run"))
        else:
            note = (f"{dataset}: a random split of {n_train} / {n_test} points per run"
                    + (f" of the provided {' and '.join(split['parts'])} rows" if split.get("parts") else ""))
        notes.append(note)
    return "; ".join(notes)


def table6_markdown(table: pd.DataFrame, split_note: str = "") -> str:
    caption = (
        f"IKLR (TNNLS) Table VI, regenerated: CCICP-GD and CCICP-SGD from four initializations α⁽⁰⁾, "
        f"mean ± std over {_reps(table)} runs (§V-F: \"10 runs on a fixed (or pre-defined) training and test "
        f"data\"){f' — {split_note}' if split_note else ''}. Each run has its own seed (SGD's draws, "
        f"α⁽⁰⁾ ~ U(0, 1) and the CV folds that choose λ), so on one split CCICP-GD's runs from a fixed α⁽⁰⁾ "
        f"differ only where their CVs chose another λ. Final objective = f(α, b) at the last outer iteration. "
        f"In parentheses: the paper's accuracy (no std for CCICP-GD) and Δ = ours − paper's; "
        f"{COLLAPSE_NOTE}."
    )
    # Rows in the paper's order of α⁽⁰⁾, whatever the order of the config's methods.
    table = table.sort_values("init", key=lambda inits: inits.map(list(INIT_NAMES).index), kind="stable")
    named = _display_names(table).assign(init=table["init"].map(INIT_NAMES))
    return study_markdown(named, ["init", "metric"], ["paper_method", "dataset"], caption)


def iklr_table6(*, runs: str, history: str, paper: str, datasets: dict[str, str], methods: dict[str, dict],
                splits: dict[str, dict], csv: str, md: str) -> None:
    """Table VI: CCICP-GD and CCICP-SGD from four initializations, accuracy and final objective;
    the caption says which split each dataset's runs share (``splits``: their split protocols)."""
    records = pd.read_csv(runs)
    table = table6_frame(records, pd.read_csv(history), pd.read_csv(paper, comment="#"), dict(datasets),
                         dict(methods))
    ours = records[records["dataset"].isin(datasets) & records["method"].isin(methods)]
    sizes = {d: (int(g["n_train"].iloc[0]), int(g["n_test"].iloc[0])) for d, g in ours.groupby("dataset")}
    _write_study(csv, md, table, table6_markdown(table, table6_split_note(dict(splits), sizes)))
