"""Stages `table` and `figure`: tidy records -> accuracy table, convergence figure."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import pandas as pd  # noqa: E402

from kreinbench.atomic import atomic_path, write_csv_atomic, write_text_atomic  # noqa: E402
from kreinbench.render import save_figure, to_markdown  # noqa: E402

RUN_COLUMNS = ["dataset", "method", "label", "estimator", "rep", "split_seed", "scaler_fit", "kernel",
               "kernel_instance", "n_train", "n_test", "accuracy", "train_accuracy", "predicted_majority_share",
               "majority_rate", "cv_accuracy", "train_time", "test_time", "cv_time", "n_iter", "stationarity",
               "diverged", "cv_warnings", "kernel_mu_min", "kernel_mu_max", "rank_F", "params"]


def load_records(paths) -> list[dict]:
    return [json.loads(open(p).read()) for p in paths]


def runs_frame(records: list[dict], labels: dict[str, str]) -> pd.DataFrame:
    """One row per dataset x method x repetition; ``labels``: display name of each method."""
    # Columns a method's record may lack (the kernel's spectrum) stay empty for it.
    rows = [{**{k: r.get(k) for k in RUN_COLUMNS if k not in ("label", "params")},
             "params": json.dumps(r["params"], sort_keys=True)} for r in records]
    runs = pd.DataFrame(rows, columns=RUN_COLUMNS)
    # From the table job's params, not the fit records: renaming a method reruns no fit.
    runs["label"] = runs["method"].map(labels)
    return runs.sort_values(["dataset", "method", "rep"], ignore_index=True)


def history_frame(records: list[dict]) -> pd.DataFrame:
    """One row per dataset x method x repetition x iteration of the final fit."""
    rows = [{"dataset": r["dataset"], "method": r["method"], "rep": r["rep"], **h} for r in records for h in r["history"]]
    return pd.DataFrame(rows)


def accuracy_table(runs: pd.DataFrame, method_order: list[str]) -> pd.DataFrame:
    """Mean ± std of test accuracy per dataset (rows) x method (columns)."""
    stats = runs.groupby(["dataset", "method"])["accuracy"].agg(["mean", "std", "count"]).reset_index()
    stats["cell"] = [f"{m:.3f} ± {s:.3f}" for m, s in zip(stats["mean"], stats["std"].fillna(0.0))]
    table = stats.pivot(index="dataset", columns="method", values="cell")
    labels = runs.drop_duplicates("method").set_index("method")["label"]
    table = table[[m for m in method_order if m in table.columns]]
    table.columns = [labels[m] for m in table.columns]
    return table


def table(*, records: list[str], labels: dict[str, str], methods: list[str], cv_folds: int, runs: str,
          history: str, csv: str, md: str) -> None:
    """The tidy ``runs`` and ``history`` of every fit record, and the accuracy table of
    ``methods`` (mean ± std per dataset) as ``csv`` and ``md``."""
    loaded = load_records(records)
    frame = runs_frame(loaded, labels)
    reps = frame["rep"].nunique()
    write_csv_atomic(runs, frame)
    with atomic_path(history) as tmp:
        history_frame(loaded).to_csv(tmp, index=False)
    acc = accuracy_table(frame, list(methods))
    with atomic_path(csv) as tmp:
        acc.to_csv(tmp)
    caption = (f"Test accuracy (mean ± std over {reps} repetitions of a 50/50 stratified split; "
               f"hyper-parameters by {cv_folds}-fold CV on the training half).")
    write_text_atomic(md, to_markdown(acc, caption))


def figure(*, records: list[str], labels: dict[str, str], png: str, pdf: str) -> None:
    """The objective per outer iteration of each convergence fit (cf. IKLR Fig. 3)."""
    loaded = load_records(records)
    fig, ax = plt.subplots(figsize=(6.4, 4.2), constrained_layout=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    methods = list(dict.fromkeys(r["method"] for r in loaded))
    for r in loaded:
        hist = pd.DataFrame(r["history"])
        color = colors[methods.index(r["method"]) % len(colors)]
        first = r["rep"] == min(x["rep"] for x in loaded if x["method"] == r["method"])
        label = labels[r["method"]] if first else None
        ax.plot(hist["iteration"], hist["objective"], marker="o", ms=3, color=color, alpha=0.8, label=label)
        ax.annotate(f"rep {r['rep']}, λ={r['params'].get('lam', '')}", (hist["iteration"].iloc[-1], hist["objective"].iloc[-1]),
                    fontsize=7, xytext=(3, 0), textcoords="offset points", va="center", color=color)
    dataset = loaded[0]["dataset"]
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("outer iteration k")
    ax.set_ylabel("objective f(α_k, b_k) (mean logistic loss + (λ/2) αᵀKα)")
    ax.set_title(f"Convergence on {dataset} (CV-chosen λ per repetition; cf. IKLR Fig. 3)")
    ax.grid(alpha=0.3)
    ax.legend()
    save_figure(fig, png, pdf)
