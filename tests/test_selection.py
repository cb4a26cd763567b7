"""The package's fold generators (kreinbench.methods.selection) against scikit-learn's StratifiedKFold and KFold, their references."""

import numpy as np
import pytest
from sklearn.model_selection import KFold, StratifiedKFold

from kreinbench.errors import KreinbenchError
from kreinbench.methods.selection import Tally, param_grid, shuffled_folds, stratified_folds


@pytest.mark.parametrize("n_folds", [2, 3, 5, 10])
def test_folds_are_scikit_learns_index_for_index(n_folds):
    rng = np.random.default_rng(0)
    labels = [
        rng.choice([-1, 1], size=97),                    # binary, ±1
        rng.choice(np.array(["b", "a", "c"]), size=60),  # strings, first seen ≠ sorted order
        np.r_[np.zeros(50), np.ones(11)],                # imbalanced, sorted by class
        rng.integers(0, 4, size=203),                    # four classes
    ]
    for y in labels:
        for seed in (0, 1, 2024, 2**32 + 5):
            ours = stratified_folds(y, n_folds, seed)
            theirs = list(StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed % 2**32)
                          .split(np.zeros(y.size), y))
            assert len(ours) == len(theirs) == n_folds
            for (tr, va), (tr_ref, va_ref) in zip(ours, theirs):
                np.testing.assert_array_equal(tr, tr_ref)
                np.testing.assert_array_equal(va, va_ref)


def test_too_few_members_is_an_error_naming_the_class_sizes():
    with pytest.raises(KreinbenchError, match=r"class sizes are \[2, 3\]"):
        stratified_folds(np.array([0, 0, 1, 1, 1]), 5, seed=0)
    with pytest.warns(UserWarning, match="only 2 members"):
        stratified_folds(np.array([0, 0] + [1] * 10), 3, seed=0)


def test_separate_fits_share_one_spectrum_per_fold_with_the_scores_of_unshared_fits(monkeypatch):
    from kreinbench.methods import KSVM, TDCASVM, IndefiniteSVM, SpectrumKLR, selection
    from kreinbench.pipeline.plan import spectrum_kind

    rng = np.random.default_rng(3)
    X = rng.normal(size=(70, 3))
    y = np.where(X[:, 0] + 0.4 * rng.normal(size=70) > 0, 1, -1)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    E = rng.normal(size=(70, 70))
    K = K - 0.1 * (E + E.T) / 2  # indefinite
    folds = stratified_folds(y, 3, seed=1)
    computed = []
    real = selection.compute_spectrum
    monkeypatch.setattr(selection, "compute_spectrum", lambda K_, kind: computed.append(kind) or real(K_, kind))
    cases = [
        (lambda p: IndefiniteSVM(tol=1e-4, max_iter=300, **p), [{"C": C, "rho": rho} for C in (0.1, 1) for rho in (1, 10)]),
        (lambda p: KSVM(**p), [{"C": 0.1}, {"C": 1.0}]),
        (lambda p: TDCASVM(**p), [{"C": 0.1}, {"C": 1.0}]),
        (lambda p: SpectrumKLR(**p), [{"correction": "flip", "lam": 0.1}, {"correction": "clip", "lam": 0.1}]),
    ]
    for make, candidates in cases:
        computed.clear()
        shared = selection.separate_fit_scores(make, candidates, K, y, folds,
                                               spectrum_of=lambda est: spectrum_kind(type(est), est.get_params()))
        kind = spectrum_kind(type(make(candidates[0])), make(candidates[0]).get_params())
        assert computed == [kind] * len(folds)  # once per fold, whatever the number of candidates
        own = selection.separate_fit_scores(make, candidates, K, y, folds)
        np.testing.assert_array_equal(shared, own)


def test_a_long_cross_validation_logs_where_it_is(monkeypatch, caplog):
    """Its fits are silent: the CV itself says every few seconds which fold and candidate it is at."""
    import logging
    import time

    from kreinbench.methods import SVM, selection

    class SlowSVM(SVM):
        def fit(self, K, y):
            time.sleep(0.03)
            return super().fit(K, y)

    monkeypatch.setattr(selection, "PROGRESS_INTERVAL", 0.01)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.repeat([0, 1], 15)
    with caplog.at_level(logging.INFO, logger="kreinbench.methods.selection"):
        result = selection.cross_validate(lambda p: SlowSVM(**p), {"linear": X @ X.T}, y, {"C": [0.1, 1.0]},
                                          n_folds=3, seed=0)
    lines = [r.getMessage() for r in caplog.records if r.name == "kreinbench.methods.selection"]
    assert result.best_params["C"] in (0.1, 1.0)
    assert lines and all(line.startswith("3-fold CV over 1 kernel(s) x 2 parameter(s): ") for line in lines)
    assert any("fold 3/3, candidate 2/2 {'C': 1.0}" in line for line in lines)


@pytest.mark.parametrize("n,n_folds", [(10, 5), (23, 5), (101, 3), (7, 7)])
def test_shuffled_folds_are_kfolds_index_for_index(n, n_folds):
    for seed in (0, 1, 2024, 2**31 + 5):
        ours = shuffled_folds(n, n_folds, seed)
        theirs = list(KFold(n_splits=n_folds, shuffle=True, random_state=seed).split(np.zeros(n)))
        assert len(ours) == len(theirs)
        for (tr, va), (tr_ref, va_ref) in zip(ours, theirs):
            np.testing.assert_array_equal(tr, tr_ref)
            np.testing.assert_array_equal(va, va_ref)


def test_of_equal_scores_the_first_kernel_instance_then_the_first_parameter_wins():
    """The one tie rule of every CV (selection.Tally; svm_grid.grid_search too): candidates in
    (kernel instance, grid) order, the first best kept. GridSearchCV over {"C", "gamma"} would take
    the first C instead: (σ=2, C=1) here."""
    tally = Tally()
    candidates = param_grid({"C": [1.0, 4.0]})
    tally.add(1.0, candidates, [[0.5, 0.6], [0.7, 0.8]], n_warnings=0)
    tally.add(2.0, candidates, [[0.8, 0.7], [0.75, 0.75]], n_warnings=1)
    result = tally.result()
    assert (result.best_instance, result.best_params, result.best_score) == (1.0, {"C": 4.0}, 0.75)
    assert [row["cv_accuracy"] for row in result.scores] == [0.55, 0.75, 0.75, 0.75] and result.n_warnings == 1
