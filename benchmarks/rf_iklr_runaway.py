"""The benchmark's random-features IKLR ran away on every fit: is it the kernel, the features or the solver?

Usage: KREINBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/rf_iklr_runaway.py
       > benchmarks/results/rf_iklr_runaway.md

In the benchmark (workflow/configs/benchmark.yaml) every final fit of "IKLR on signed random features
(DoG)" stopped on a runaway ‖α‖ (RunawayWarning), at about the majority rate. IKLR's objective
(1/n)Σ log(1 + e^(−y f)) + (λ/2)αᵀKα is unbounded below along every negative eigenvector of K (the
regularizer falls quadratically, the loss rises at most linearly): CCCP reaches a stationary point
only where the negative part is small against what the loss holds. This separates the causes on
repetition 1 of the benchmark's own split (seed 2026, train-half min-max scaling) of three sets: the
DoG kernel a₁e^(−d²/2σ₁²) − a₂e^(−d²/2σ₂²) (σ₁ = 0.4·√m, σ₂ = 0.2·√m) at the config's a₂ = 0.3 and at a
milder a₂ = 0.03; for each, the exact kernel's negative eigenvalues and exact IKLR (CCCP + L-BFGS) on
it, then the signed random-feature kernel K̃ = ΦSΦᵀ (orthogonal sampling, D = 500 as configured and
D = 8000): its negative eigenvalues, exact IKLR on K̃, and RandomFeaturesIKLR itself; λ = 0.01, test
accuracy, "ran away" where the fit stopped on its runaway radius. A few minutes on one core.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

import pipeline_rows as rows
from kreinbench.data.registry import spec_from_entry
from kreinbench.linalg.kernels import dog
from kreinbench.linalg.random_features import SignedRandomFeatures
from kreinbench.methods.iklr.estimator import IKLR
from kreinbench.methods.iklr.random_features import RandomFeaturesIKLR

DATASETS = ("australian", "ionosphere-uci", "monks1")
A2 = (0.3, 0.03)
COMPONENTS = (500, 8000)
LAM = 0.01


def negatives(K: np.ndarray) -> str:
    """How many eigenvalues of K are negative (below −1e-10·μ_max), and the smallest."""
    mu = np.linalg.eigvalsh(K)
    return f"{int((mu < -1e-10 * mu[-1]).sum())} of {mu.size}, μ_min {mu[0]:.3g}"


def outcome(est, K_test, y_test) -> str:
    accuracy = float(np.mean(est.predict(K_test) == y_test))
    return f"{accuracy:.3f}{' ran away' if est.diverged_ else ''}"


def main() -> None:
    cfg = rows.config("benchmark")
    print(rows.header(__doc__))
    table = []
    warnings.simplefilter("ignore")  # the runaways are the measurement: reported in the table
    with threadpool_limits(1):
        for dataset in DATASETS:
            entry = rows.entry(cfg, dataset)
            part = rows.split(rows.parsed(dataset, entry), spec_from_entry(dataset, entry).split, dataset=dataset,
                              rep=1, seed=cfg["seed"], scaler="train")
            m = part.X_train.shape[1]
            for a2 in A2:
                kernel = {"a1": 1.0, "a2": a2, "sigma1": 0.4 * np.sqrt(m), "sigma2": 0.2 * np.sqrt(m)}
                K, K_test = dog(part.X_train, **kernel), dog(part.X_test, part.X_train, **kernel)
                exact = IKLR(lam=LAM, solver="cccp-lbfgs").fit(K, part.y_train)
                row = {"dataset": dataset, "n": part.y_train.size, "a₂": a2, "exact K: negative eigenvalues": negatives(K),
                       "exact IKLR": outcome(exact, K_test, part.y_test)}
                for D in COMPONENTS:
                    features = SignedRandomFeatures(**kernel, n_components=D, sampling="orthogonal", random_state=0)
                    Phi, Phi_test = features.fit_transform(part.X_train), features.transform(part.X_test)
                    K_rf, K_rf_test = (Phi * features.signature_) @ Phi.T, (Phi_test * features.signature_) @ Phi.T
                    on_rf = IKLR(lam=LAM, solver="cccp-lbfgs").fit(K_rf, part.y_train)
                    rf = RandomFeaturesIKLR(lam=LAM, n_components=D, sampling="orthogonal", random_state=0,
                                            **kernel).fit(part.X_train, part.y_train)
                    accuracy = float(np.mean(rf.predict(part.X_test) == part.y_test))
                    row |= {f"K̃ (D = {D}): negative eigenvalues": negatives(K_rf),
                            f"exact IKLR on K̃ (D = {D})": outcome(on_rf, K_rf_test, part.y_test),
                            f"RandomFeaturesIKLR (D = {D})": f"{accuracy:.3f}{' ran away' if rf.diverged_ else ''}"}
                table.append(row)
                print(f"{dataset} a2 = {a2} done", file=sys.stderr, flush=True)
    print(f"λ = {LAM}; majority rates of the test halves: see the benchmark record.\n")
    print(rows.markdown_table(table, list(table[0])))


if __name__ == "__main__":
    main()
