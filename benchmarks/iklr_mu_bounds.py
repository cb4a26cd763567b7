"""IKLR Table II, madelon, EEG and ijcnn1-tr: μ_max against the bound n·mean(K), and ijcnn1-tr's μ_min against n.

Usage: KREINBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/iklr_mu_bounds.py
       > benchmarks/results/iklr_mu_bounds.md

For any symmetric K on n points, μ_max ≥ 1ᵀK1 / 1ᵀ1 = n·mean(K) (the Rayleigh quotient of the
all-ones vector). This computes, on paper-iklr's training halves (seed 2024, repetitions 1–10) of
the TL1 kernel max(τ − ‖x − x′‖₁, 0), τ = 0.7·m, under both scaler choices (min-max fitted on the
training half, as the pipeline does today, or on the whole set):

* madelon (the config's 1000 training rows, as the paper's n = 2000 split 50/50): μ_min, μ_max
  and the bound on each half;
* EEG and ijcnn1-tr at the config's cap (2000 training rows): μ_max and the bound; and at the
  paper's sizes (the uncapped random halves: 7488 (the paper's 7490 less the registry's four
  corrupt EEG records) and 17 500 training rows, the kernel's row sums
  in blocks, never the whole matrix): mean(K) and the bound n·mean(K);
* ijcnn1-tr's μ_min on nested subsets (the first n rows of a seeded permutation) of repetition 1's
  uncapped training half: Cauchy interlacing makes it non-increasing in n; does it reach the
  paper's −0.018 before the paper's 17 500?

About ten minutes on one core.
"""

from __future__ import annotations

import sys

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

import pipeline_rows as rows
from kreinbench.data.registry import spec_from_entry
from kreinbench.linalg.kernels import tl1

REPS = range(1, 11)
# Table II's μ_min, μ_max and training sizes (n / 2).
PAPER = {"madelon": (14.82, 27015.0, 1000), "eeg": (-0.444, 7312.0, 7490), "ijcnn1-tr": (-0.018, 28945.0, 17500)}
NESTED_N = (1000, 2000, 4000, 8000)
BLOCK = 500


def mean_entry(X: np.ndarray, tau: float) -> float:
    """mean(K) of the TL1 kernel on ``X``, from row blocks of K (memory O(BLOCK·n))."""
    total = sum(float(tl1(X[i:i + BLOCK], X, tau=tau).sum()) for i in range(0, X.shape[0], BLOCK))
    return total / X.shape[0] ** 2


def capped_rows(cfg: dict, dataset: str) -> list[dict]:
    """Per scaler, μ_min, μ_max and n·mean(K) over the config's ten (capped) training halves."""
    entry = rows.entry(cfg, dataset)
    data, split_spec = rows.parsed(dataset, entry), spec_from_entry(dataset, entry).split
    out = []
    for scaler in rows.SCALERS:
        mu, bound = [], []
        for rep in REPS:
            X = rows.split(data, split_spec, dataset=dataset, rep=rep, seed=cfg["seed"], scaler=scaler).X_train
            K = tl1(X, tau=rows.tl1_tau(X))
            mu.append(rows.extremes(K))
            bound.append(X.shape[0] * float(K.mean()))
        mu, bound = np.array(mu), np.array(bound)
        paper_min, paper_max, _ = PAPER[dataset]
        out.append({"dataset": dataset, "n_train": X.shape[0], "m": X.shape[1], "scaler fitted on": scaler,
                    "μ_min range": f"{mu[:, 0].min():.4g} to {mu[:, 0].max():.4g}",
                    "μ_max range": f"{mu[:, 1].min():.6g} to {mu[:, 1].max():.6g}",
                    "n·mean(K) range": f"{bound.min():.6g} to {bound.max():.6g}",
                    "paper μ_min, μ_max": f"{paper_min:g}, {paper_max:g}",
                    "μ_max / paper's": f"{mu[:, 1].min() / paper_max:.4g} to {mu[:, 1].max() / paper_max:.4g}"})
        print(f"{dataset} capped, {scaler} done", file=sys.stderr, flush=True)
    return out


def uncapped(cfg: dict, dataset: str):
    """The parsed rows and split options of ``dataset`` without the config's cap (the paper's n)."""
    entry = rows.entry(cfg, dataset)
    split_spec = {**spec_from_entry(dataset, entry).split, "max_n": None}
    return rows.parsed(dataset, entry), split_spec


def paper_size_rows(cfg: dict, dataset: str, reps: range) -> list[dict]:
    """Per scaler, mean(K) and n·mean(K) on the uncapped training halves of ``reps``."""
    data, split_spec = uncapped(cfg, dataset)
    out = []
    for scaler in rows.SCALERS:
        means = []
        for rep in reps:
            X = rows.split(data, split_spec, dataset=dataset, rep=rep, seed=cfg["seed"], scaler=scaler).X_train
            means.append(mean_entry(X, rows.tl1_tau(X)))
            print(f"{dataset} paper size, {scaler}, rep {rep} done", file=sys.stderr, flush=True)
        means = np.array(means)
        n, paper_max = X.shape[0], PAPER[dataset][1]
        out.append({"dataset": dataset, "n_train": n, "m": X.shape[1], "τ": rows.tl1_tau(X), "scaler fitted on": scaler,
                    "repetitions": f"{reps.start}–{reps.stop - 1}",
                    "mean(K) range": f"{means.min():.4g} to {means.max():.4g}",
                    "n·mean(K) range": f"{n * means.min():.5g} to {n * means.max():.5g}",
                    "paper μ_max": paper_max, "bound / paper's μ_max": f"{n * means.min() / paper_max:.3g}"})
    return out


def nested_mu_min(cfg: dict, dataset: str) -> list[dict]:
    """μ_min of the TL1 kernel on nested subsets of repetition 1's uncapped training half."""
    data, split_spec = uncapped(cfg, dataset)
    out = []
    for scaler in rows.SCALERS:
        X = rows.split(data, split_spec, dataset=dataset, rep=1, seed=cfg["seed"], scaler=scaler).X_train
        order = np.random.default_rng(cfg["seed"]).permutation(X.shape[0])
        for n in NESTED_N:
            K = tl1(X[order[:n]], tau=rows.tl1_tau(X))
            (mu_min,) = scipy.linalg.eigh(K, eigvals_only=True, subset_by_index=[0, 0], driver="evr")
            out.append({"dataset": dataset, "scaler fitted on": scaler, "n (nested rows of rep 1's half)": n,
                        "μ_min": float(mu_min), "paper μ_min (n = 17 500)": PAPER[dataset][0]})
            print(f"{dataset} nested n = {n}, {scaler} done", file=sys.stderr, flush=True)
            del K
    return out


def main() -> None:
    cfg = rows.config("paper-iklr")
    with threadpool_limits(1):
        capped = [row for dataset in ("madelon", "eeg", "ijcnn1-tr") for row in capped_rows(cfg, dataset)]
        paper_size = paper_size_rows(cfg, "eeg", REPS) + paper_size_rows(cfg, "ijcnn1-tr", range(1, 4))
        nested = nested_mu_min(cfg, "ijcnn1-tr")
    print(rows.header(__doc__))
    print(f"paper-iklr.yaml's seed {cfg['seed']}; ranges are min–max over the repetitions named.\n")
    print("## The config's training halves (madelon 1000 rows; EEG, ijcnn1-tr capped at 2000)\n")
    print(rows.markdown_table(capped, list(capped[0])), "\n")
    print("## μ_max ≥ n·mean(K) at the paper's sizes (uncapped halves; ijcnn1-tr: repetitions 1–3)\n")
    print(rows.markdown_table(paper_size, list(paper_size[0])), "\n")
    print("## ijcnn1-tr: μ_min on nested subsets of repetition 1's uncapped training half\n")
    print(rows.markdown_table(nested, list(nested[0])))


if __name__ == "__main__":
    main()
