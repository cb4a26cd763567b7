"""IKLR Table II, climate and breast-cancer: the TL1 kernel's μ_min, μ_max with the paper's columns and rows.

Usage: KREINBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/iklr_table2_columns.py
       > benchmarks/results/iklr_table2_columns.md

Table II's note gives climate m = 20 (the file's 18 model parameters plus its Study and Run id
columns) and breast-cancer m = 10, n = 699 (the sample-id column, and the 16 rows whose Bare Nuclei
is '?'); paper-iklr drops the ids (m = 18; m = 9, n = 683). This recomputes the TL1 kernel
max(τ − ‖x − x′‖₁, 0), τ = 0.7·m, on each of paper-iklr's ten training halves (seed 2024,
repetitions 1–10, stratified 50/50) for each reading of the columns and rows, under both scaler
choices (min-max fitted on the training half, as the pipeline does today, or on the whole set),
and prints μ_min and μ_max over the ten halves beside the paper's (about a minute on one core).

The paper does not say how it encoded '?'. Two encodings are measured: 0 (below every value of the
1–10 scale; what a numeric reader that maps an unparsable cell to zero gives) and the column's
median over the file's other rows (1).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

import pipeline_rows as rows
from kreinbench.data.parse import ParsedData
from kreinbench.data.registry import spec_from_entry
from kreinbench.linalg.kernels import tl1

REPS = range(1, 11)
PAPER = {"climate": (0.174, 1944.7), "breast-cancer": (-4.408, 1593.0)}  # Table II's μ_min, μ_max
MISSING = "?"


def climate_variants(cfg: dict) -> dict[str, ParsedData]:
    """climate as paper-iklr reads it (the 18 parameters) and with the Study and Run columns kept."""
    return {"18 model parameters (paper-iklr)": rows.parsed("climate", rows.entry(cfg, "climate")),
            "+ Study, Run (m = 20)": rows.parsed("climate", rows.entry(cfg, "climate", drop_columns=[]))}


def breast_cancer_file(cfg: dict) -> pd.DataFrame:
    """The raw breast-cancer-wisconsin.data (699 rows: id, 9 features, class), fetched by the library."""
    entry = rows.entry(cfg, "breast-cancer")
    with tempfile.TemporaryDirectory() as raw:
        (name,) = rows.fetched("breast-cancer", entry, raw)
        return pd.read_csv(Path(raw) / name, header=None, dtype=str)


def breast_cancer_variants(cfg: dict) -> dict[str, ParsedData]:
    """breast-cancer as paper-iklr reads it (9 features, 683 rows) and with the id column and the
    rows with '?' kept, '?' encoded as 0 or as the column's median."""
    library = rows.parsed("breast-cancer", rows.entry(cfg, "breast-cancer"))
    table = breast_cancer_file(cfg)
    label = table.iloc[:, -1]
    y = np.where(label == "4", 1, -1)
    features = table.iloc[:, :-1]
    complete = ~(features == MISSING).any(axis=1).to_numpy()
    # This reading of the file must give the library's rows where both drop the id and the '?' rows.
    own = features.loc[complete].iloc[:, 1:].astype(float).to_numpy()
    if not (np.array_equal(own, library.X) and np.array_equal(y[complete], library.y)):
        raise RuntimeError("breast-cancer: this reading of the file does not give the library's 683 rows")
    out = {"9 features, 683 rows (paper-iklr)": library}
    present = features[features != MISSING].astype(float)
    for what, fill in (("'?' = 0", 0.0), ("'?' = column median", None)):
        filled = present.fillna(present.median() if fill is None else fill)
        for columns, X in (("id + 9 features", filled.to_numpy()), ("9 features", filled.iloc[:, 1:].to_numpy())):
            out[f"{columns}, 699 rows, {what}"] = ParsedData(
                X=X, y=y, feature_names=[str(c) for c in range(X.shape[1])], label_map={"4": 1, "2": -1})
    return out


def spectra(data: ParsedData, split_spec: dict, dataset: str, seed: int, scaler: str,
            reps=REPS) -> list[tuple[float, float]]:
    """(μ_min, μ_max) of the TL1 kernel on the training half of each repetition of ``reps``."""
    out = []
    for rep in reps:
        part = rows.split(data, split_spec, dataset=dataset, rep=rep, seed=seed, scaler=scaler)
        out.append(rows.extremes(tl1(part.X_train, tau=rows.tl1_tau(part.X_train))))
    return out


def main() -> None:
    cfg = rows.config("paper-iklr")
    print(rows.header(__doc__))
    print(f"paper-iklr.yaml's seed {cfg['seed']}, repetitions {REPS.start}–{REPS.stop - 1}, TL1 τ = 0.7·m. "
          "Ranges are min–max over the ten training halves; rep 1 is repetition 1's half.\n")
    table = []
    with threadpool_limits(1):
        for dataset, variants in (("climate", climate_variants(cfg)), ("breast-cancer", breast_cancer_variants(cfg))):
            split_spec = spec_from_entry(dataset, rows.entry(cfg, dataset)).split
            for name, data in variants.items():
                for scaler in rows.SCALERS:
                    mu = np.array(spectra(data, split_spec, dataset, cfg["seed"], scaler))
                    table.append({"dataset": dataset, "columns, rows": name, "m": data.X.shape[1], "n": data.y.size,
                                  "scaler fitted on": scaler, "μ_min rep 1": mu[0, 0],
                                  "μ_min range": f"{mu[:, 0].min():.4g} to {mu[:, 0].max():.4g}",
                                  "μ_max rep 1": mu[0, 1],
                                  "μ_max range": f"{mu[:, 1].min():.5g} to {mu[:, 1].max():.5g}",
                                  "paper μ_min, μ_max": f"{PAPER[dataset][0]:g}, {PAPER[dataset][1]:g}"})
                    print(f"{dataset} / {name} / {scaler} done", file=sys.stderr, flush=True)
    print(rows.markdown_table(table, list(table[0])))


if __name__ == "__main__":
    main()
