"""Model selection by stratified k-fold cross-validation on slices of cached train kernels.

Folds index into the cached train kernel (``K[np.ix_(tr, tr)]`` and ``K[np.ix_(va, tr)]``);
a kernel is never recomputed for a fold.  An implicit kernel (``storage: implicit``) is handed to
each fold as an implicit kernel on the fold's rows and always fitted separately, an array API array
(``array_api`` in a config: a GPU's) as its own slices (the standard's ``take``), fitted separately
unless the estimator's ``lambda_path_takes_array_api()`` says that its λ path runs there (IKLR's
lock step on the device); the grid paths run on NumPy matrices only.

The CV contract is declared on :class:`kreinbench.methods.base.KernelModel`. A grid over ``lam``
alone is handed whole to the estimator when its ``supports_lambda_path()`` says so (its
``lambda_path_scores`` then scores every λ on every fold): the fits of one fold then share what does not depend on λ (a spectral step, an
eigendecomposition) and run together (IKLR's lock step, KLR's warm starts along the path),
with the scores of the separate fits (see each estimator's method and its tests).  Other grids
are fitted separately, each fold's slices and spectra made once for all its fits
(:func:`separate_fit_scores`), unless the estimator claims the whole grid with
``supports_grid_path(grid)``: then its ``grid_path_scores`` fits each fold's grid as a path
(IndefiniteSVM's warm-started APG along C, DANK's warm-started ascent along C).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.arrays import is_array_api
from kreinbench.linalg.implicit_kernel import fold_kernels
from kreinbench.linalg.spectrum import Spectrum, compute_spectrum
from kreinbench.methods.base import KernelModel

log = logging.getLogger(__name__)

# Seconds between two progress lines of a running cross-validation (as the solvers' fits log).
PROGRESS_INTERVAL = 5.0


class Progress:
    """A cross-validation's position (``where``), logged every :data:`PROGRESS_INTERVAL` seconds
    by a daemon thread while it runs: its fits are silent, and a path (IKLR's lock step, an APG
    along C) has no loop here to log from."""

    def __init__(self, what: str, interval: float | None = None):
        self.what, self.where = what, "starting"
        self.interval = PROGRESS_INTERVAL if interval is None else interval
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True)

    def __enter__(self) -> "Progress":
        self._start = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._done.wait(self.interval):
            log.info("%s: %s, %.0f s so far", self.what, self.where, time.perf_counter() - self._start)


@dataclass
class SelectionResult:
    best_instance: str
    best_params: dict[str, Any]
    best_score: float
    scores: list[dict[str, Any]] = field(default_factory=list)
    n_warnings: int = 0


def param_grid(grid: dict[str, list]) -> list[dict[str, Any]]:
    """All combinations of a ``{name: [values]}`` grid, in order (an empty grid is one point)."""
    names = list(grid)
    return [dict(zip(names, values)) for values in itertools.product(*(grid[n] for n in names))]


def fit_and_score(estimator, K_train, y_train, K_test, y_test, X_train=None, X_test=None, **fit_kwargs) -> float:
    """Fit on a train kernel and return the score on a cross-kernel, passing features when needed."""
    if getattr(estimator, "needs_features", False):
        estimator.fit(K_train, y_train, X_train, **fit_kwargs)
        return estimator.score(K_test, y_test, X_test)
    estimator.fit(K_train, y_train, **fit_kwargs)
    return estimator.score(K_test, y_test)


def stratified_folds(y: np.ndarray, n_folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, validation) index pairs of every CV in the package: stratified, shuffled by ``seed``.

    The folds of scikit-learn's ``StratifiedKFold(n_folds, shuffle=True, random_state=seed)``,
    index for index (tests/test_selection.py compares them), computed here because importing
    scikit-learn costs a fit job more start-up time than most of its fits: classes are numbered
    by first appearance, each fold's share of each class is dealt round robin over the sorted
    labels, and each class's fold numbers are shuffled by one ``RandomState(seed)``.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise KreinbenchError(f"stratified folds need 1-d class labels, got an array of shape {y.shape}")
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    by_appearance = np.argsort(np.argsort(first))[inverse]
    counts = np.bincount(by_appearance)
    if np.all(counts < n_folds):
        raise KreinbenchError(f"{n_folds} folds need at least {n_folds} members in some class; "
                              f"the class sizes are {counts.tolist()}")
    if counts.min() < n_folds:
        warnings.warn(f"the least populated class has only {counts.min()} members, fewer than the {n_folds} folds",
                      UserWarning, stacklevel=2)
    ordered = np.sort(by_appearance)
    allocation = np.array([np.bincount(ordered[i::n_folds], minlength=counts.size) for i in range(n_folds)])
    rng = np.random.RandomState(seed % 2**32)
    test_fold = np.empty(y.size, dtype=int)
    for k in range(counts.size):
        folds_of_class = np.repeat(np.arange(n_folds), allocation[:, k])
        rng.shuffle(folds_of_class)
        test_fold[by_appearance == k] = folds_of_class
    index = np.arange(y.size)
    return [(index[test_fold != i], index[test_fold == i]) for i in range(n_folds)]


def shuffled_folds(n: int, n_folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, validation) index pairs of a CV without classes (regression): those of
    scikit-learn's ``KFold(n_folds, shuffle=True, random_state=seed)``, index for index
    (tests/test_selection.py compares them): the indices shuffled by ``RandomState(seed)``, cut into
    consecutive folds whose sizes differ by at most one (the larger first), each part ascending."""
    if not 2 <= n_folds <= n:
        raise KreinbenchError(f"{n_folds} folds need between 2 and {n} points")
    order = np.arange(n)
    np.random.RandomState(seed % 2**32).shuffle(order)
    sizes = np.full(n_folds, n // n_folds)
    sizes[: n % n_folds] += 1
    index, out = np.arange(n), []
    for start, size in zip(np.cumsum(sizes) - sizes, sizes):
        held_out = np.zeros(n, dtype=bool)
        held_out[order[start:start + size]] = True
        out.append((index[~held_out], index[held_out]))
    return out


def separate_fit_scores(make_estimator: Callable[[dict], Any], candidates: list[dict], K: np.ndarray, y: np.ndarray,
                        folds, X: np.ndarray | None = None,
                        spectrum_of: Callable[[Any], str | None] | None = None,
                        progress: Progress | None = None) -> np.ndarray:
    """Validation scores (candidates × folds), one fit per candidate and fold.

    Each fold's kernel slices are taken once for all candidates.  With ``spectrum_of``, each
    spectrum kind the candidates need is computed once per fold, as
    :func:`kreinbench.linalg.spectrum.compute_spectrum` (what the estimators compute themselves when given
    none, and what the pipeline gives their final fit), and passed to every fit as ``spectrum=``:
    a grid of C and ρ for IndefiniteSVM then eigendecomposes each fold once instead of once per
    point.  Its arrays are made read-only, so that no fit can alter what the next one reads.
    """
    scores = np.empty((len(candidates), len(folds)))
    for j, (tr, va) in enumerate(folds):
        K_tr, K_va = fold_kernels(K, tr, va)
        features = (None, None) if X is None else (X[tr], X[va])
        spectra = {}
        for i, params in enumerate(candidates):
            if progress is not None:
                progress.where = f"fold {j + 1}/{len(folds)}, candidate {i + 1}/{len(candidates)} {params}"
            estimator = make_estimator(params)
            kind = spectrum_of(estimator) if spectrum_of is not None else None
            fit_kwargs = {}
            if kind is not None:
                if kind not in spectra:
                    spectra[kind] = read_only(compute_spectrum(K_tr, kind))
                fit_kwargs["spectrum"] = spectra[kind]
            scores[i, j] = fit_and_score(estimator, K_tr, y[tr], K_va, y[va], *features, **fit_kwargs)
    return scores


def read_only(spectrum: Spectrum) -> Spectrum:
    """The spectrum, its arrays locked against writes (it serves several fits)."""
    for array in (spectrum.eigenvalues, spectrum.eigenvectors):
        if array is not None:
            array.flags.writeable = False
    return spectrum


def lambda_path(make_estimator: Callable[[dict], Any], grid: dict[str, list], *, array_api: bool = False):
    """The estimator whose ``lambda_path_scores`` serves the whole grid, or None (separate fits);
    ``array_api``: on kernels of another array API namespace than NumPy."""
    if set(grid) != {"lam"}:
        return None
    estimator = make_estimator({"lam": grid["lam"][0]})
    declared = isinstance(estimator, KernelModel) and not estimator.needs_features
    if not (declared and estimator.supports_lambda_path()):
        return None
    return estimator if not array_api or estimator.lambda_path_takes_array_api() else None


def grid_path(make_estimator: Callable[[dict], Any], candidates: list[dict], grid: dict[str, list]):
    """The estimator whose ``grid_path_scores`` serves a whole (non-λ) grid, or None (separate fits)."""
    if not candidates:
        return None
    estimator = make_estimator(candidates[0])
    return estimator if isinstance(estimator, KernelModel) and estimator.supports_grid_path(grid) else None


def cross_validate(make_estimator: Callable[[dict], Any], kernels: dict[str, np.ndarray], y: np.ndarray,
                   grid: dict[str, list], *, n_folds: int, seed: int, X: np.ndarray | None = None,
                   paths: bool = True, spectrum_of: Callable[[Any], str | None] | None = None) -> SelectionResult:
    """Pick the kernel instance and estimator parameters with the best mean fold score.

    ``X`` (the training features) is sliced along with the kernel for estimators that need it.
    ``paths=False`` fits every (fold, parameter) pair on its own even where the estimator has a λ
    or grid path (the reference the path is tested and benchmarked against).  ``spectrum_of`` (an
    estimator ↦ the spectrum kind its ``fit`` takes, or None) lets the separate fits of a fold
    share one spectrum of the fold kernel per kind (:func:`separate_fit_scores`).

    Ties go to the first candidate in (kernel instance, grid) order, so the choice is
    deterministic.  Warnings raised by fold fits (e.g. non-convergence at extreme parameters)
    are counted, not shown.
    """
    folds = stratified_folds(y, n_folds, seed)
    candidates = param_grid(grid)
    # Paths run on NumPy matrices; a λ path also on array API arrays where the estimator says so.
    on_numpy = all(isinstance(K, np.ndarray) for K in kernels.values())
    array_api = not on_numpy and all(is_array_api(K) for K in kernels.values())
    path = lambda_path(make_estimator, grid, array_api=array_api) if paths and (on_numpy or array_api) else None
    grid_estimator = grid_path(make_estimator, candidates, grid) if paths and on_numpy and path is None else None
    tally = Tally()
    with Progress(f"{n_folds}-fold CV over {len(kernels)} kernel(s) x {len(candidates)} parameter(s)") as progress:
        for k, (instance, K) in enumerate(kernels.items()):
            progress.where = f"kernel {k + 1}/{len(kernels)} ({instance})"
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if path is not None:
                    fold_scores = path.lambda_path_scores(K, y, folds, grid["lam"])
                elif grid_estimator is not None:
                    fold_scores = grid_estimator.grid_path_scores(K, y, folds, candidates, X)
                else:
                    fold_scores = separate_fit_scores(make_estimator, candidates, K, y, folds, X, spectrum_of,
                                                      progress)
            tally.add(instance, candidates, fold_scores, len(caught))
    return tally.result()


def cross_validate_group(prototypes: dict[str, Any], kernels: dict[str, np.ndarray], y: np.ndarray,
                         lams: list, *, n_folds: int, seed: int) -> dict[str, SelectionResult]:
    """The CV of several estimators over one λ grid, run together by their class's
    ``grouped_lambda_path_scores`` (IKLR: one lock step for all): for each name of ``prototypes``
    (estimators that differ in anything but λ), what :func:`cross_validate` would give it alone
    (same folds, scores and choice).  ``n_warnings`` counts the warnings of the whole group's fits."""
    folds = stratified_folds(y, n_folds, seed)
    names = list(prototypes)
    group_scores = type(prototypes[names[0]]).grouped_lambda_path_scores
    candidates = param_grid({"lam": lams})
    tallies = {name: Tally() for name in names}
    with Progress(f"{n_folds}-fold CV of {', '.join(names)} over {len(kernels)} kernel(s) x {len(lams)} λ") as progress:
        for k, (instance, K) in enumerate(kernels.items()):
            progress.where = f"kernel {k + 1}/{len(kernels)} ({instance})"
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                tables = group_scores([prototypes[name] for name in names], K, y, folds, lams)
            for name, table in zip(names, tables):
                tallies[name].add(instance, candidates, table, len(caught))
    return {name: tally.result() for name, tally in tallies.items()}


class Tally:
    """Mean fold scores per (kernel instance, parameters) and the best so far. The package's one tie
    rule: of equal mean scores, the first added wins, and every CV adds its candidates kernel
    instance by kernel instance, each instance's in grid order (:func:`param_grid`)."""

    def __init__(self):
        self.scores, self.best, self.n_warnings = [], None, 0

    def add(self, instance: str, candidates: list[dict], fold_scores, n_warnings: int) -> None:
        self.n_warnings += n_warnings
        for params, accs in zip(candidates, fold_scores):
            mean = float(np.mean(accs))
            self.scores.append({"kernel": instance, **params, "cv_accuracy": mean, "cv_std": float(np.std(accs))})
            if self.best is None or mean > self.best[2]:
                self.best = (instance, params, mean)

    def result(self) -> SelectionResult:
        instance, params, score = self.best
        return SelectionResult(best_instance=instance, best_params=params, best_score=score, scores=self.scores,
                               n_warnings=self.n_warnings)
