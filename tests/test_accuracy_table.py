"""results/tables/accuracy.*: each cell says which of its fits diverged, stopped short of their
tolerance or collapsed, and each kernel's μ_min says how indefinite the problem is."""

import pandas as pd

from kreinbench.pipeline.stages.report import accuracy_table, not_converged, runs_frame


def record(method, rep, *, accuracy=0.9, share=0.6, diverged=False, warnings=(), mu=(-2.0, 100.0), kernel="tl1"):
    return {"dataset": "monk-2", "method": method, "estimator": "IKLR", "rep": rep, "kernel": kernel,
            "accuracy": accuracy, "predicted_majority_share": share, "majority_rate": 0.5, "diverged": diverged,
            "warnings": list(warnings), "kernel_mu_min": mu[0], "kernel_mu_max": mu[1], "params": {}}


def test_cells_mark_diverged_non_converged_and_collapsed_fits_and_the_kernel_spectrum_is_shown():
    records = [
        record("gd", 1, diverged=True, warnings=["RunawayWarning: ran away"]),
        record("gd", 2, warnings=["ConvergenceWarning: stopped at max_iter"]),
        record("gd", 3, accuracy=0.5, share=1.0, mu=(-4.0, 100.0)),
        record("klr", 1, mu=(0.5, 50.0), kernel="rbf"),
        record("klr", 2, mu=(0.5, 50.0), kernel="rbf"),
    ]
    assert [not_converged(r) for r in records[:3]] == [False, True, False]  # a runaway is not "not converged"
    runs = runs_frame(records, {"gd": "CCICP-GD", "klr": "KLR"})
    table = accuracy_table(runs, ["gd", "klr"])
    assert table.at["monk-2", "CCICP-GD"] == "0.767 ± 0.231 ‡1 ◇1 ⊘1"
    assert table.at["monk-2", "KLR"] == "0.900 ± 0.000"
    # the mean over repetitions, and μ_min/μ_max: indefinite TL1, positive definite RBF
    assert table.at["monk-2", "μ_min (tl1)"] == "-2.67 (-2.7e-02)"
    assert table.at["monk-2", "μ_min (rbf)"] == "0.5 (+1.0e-02)"


def test_records_without_warnings_or_spectra_give_plain_cells():
    rows = [{**record("gd", r), "kernel_mu_min": None, "kernel_mu_max": None} for r in (1, 2)]
    for row in rows:
        del row["warnings"]
    table = accuracy_table(runs_frame(rows, {"gd": "GD"}), ["gd"])
    assert list(table.columns) == ["GD"] and not pd.isna(table.at["monk-2", "GD"])
