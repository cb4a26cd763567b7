"""The array API route on a strict namespace (``array_api_strict``): nothing NumPy-only in it, and
the same numbers as the NumPy route (kernels to round-off, the spectral step's eigenvalues and
negative eigenspace to 1e-10)."""

import warnings

import array_api_strict as xps
import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.linalg import xp_kernels
from kreinbench.linalg.arrays import cholesky_or_none, namespace, to_numpy
from kreinbench.linalg.kernels import kernel_matrices, resolve_params
from kreinbench.linalg.xp_spectrum import XpSpectralData, spectral_step
from kreinbench.methods.base import binary_labels, check_train_kernel
from kreinbench.methods.iklr.estimator import IKLR, _fit_lockstep, _LockstepFits
from kreinbench.methods.selection import cross_validate, stratified_folds
from kreinbench.methods.solvers import logistic

SPECS = [{"type": "tl1", "tau_factor": 0.7}, {"type": "rbf", "sigma": 0.8},
         {"type": "rbf", "sigma": 0.8, "convention": "dank"}, {"type": "sigmoid"},
         {"type": "dog", "a2": 0.5, "sigma1_factor": 0.3, "sigma2_factor": 0.2}]


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    return rng.uniform(size=(300, 7)), rng.uniform(size=(50, 7))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s["type"] + s.get("convention", ""))
def test_kernels_on_a_strict_namespace_are_the_numpy_kernels(rows, spec):
    X, Y = rows
    params = resolve_params(spec, X.shape[1])
    K, K_cross = kernel_matrices(params, X, Y)
    K_xp = xp_kernels.kernel(params, xps.asarray(X))
    assert namespace(K_xp) is xps
    K_xp, K_cross_xp = to_numpy(K_xp), to_numpy(xp_kernels.kernel(params, xps.asarray(Y), xps.asarray(X)))
    # TL1 and sigmoid take the same operations in the same order; the Gaussians' Gram form rounds
    # differently from cdist's differences (module docstring): about ε·(‖x‖² + ‖y‖²).
    np.testing.assert_allclose(K_xp, K, rtol=0, atol=1e-14)
    np.testing.assert_allclose(K_cross_xp, K_cross, rtol=0, atol=1e-14)
    assert np.array_equal(K_xp, K_xp.T)


def test_the_array_route_refuses_what_it_lacks_by_name(rows):
    X, _ = rows
    with pytest.raises(KreinbenchError, match="'log-euclidean' has no array API route"):
        xp_kernels.kernel({"type": "log-euclidean", "sigma": 1.0}, xps.asarray(X))
    with pytest.raises(KreinbenchError, match="different libraries"):
        xp_kernels.kernel(resolve_params(SPECS[0], 7), xps.asarray(X), X)


def test_a_cholesky_certificate_only_for_a_positive_definite_matrix():
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    L = cholesky_or_none(xps, xps.asarray(A))
    np.testing.assert_allclose(to_numpy(L) @ to_numpy(L).T, A, rtol=1e-15)
    assert cholesky_or_none(xps, xps.asarray([[1.0, 2.0], [2.0, 1.0]])) is None
    assert cholesky_or_none(xps, xps.asarray([[1.0, 0.0], [0.0, float("nan")]])) is None


@pytest.mark.parametrize("split", ["eigen", "shift"])
@pytest.mark.parametrize("spec, definite", [(SPECS[0], False), (SPECS[4], False), (SPECS[1], True)],
                         ids=["tl1", "dog", "rbf"])
def test_the_spectral_step_is_the_numpy_routes(rows, spec, definite, split):
    """μ_min (0 where certified positive definite, on both routes), μ_max and K₋'s negative part
    (the projector onto the negative eigenspace, weighted by |μ|, which is sign- and basis-free)."""
    X, _ = rows
    K, _ = kernel_matrices(resolve_params(spec, X.shape[1]), X, X[:1])
    if definite:
        K = K + 1e-3 * np.eye(K.shape[0])  # a Gaussian kernel's tail is below round-off: make it certifiably PD
    reference = IKLR._spectral_step(K, split, None)
    ours = spectral_step(xps.asarray(K), split)
    assert (ours.path == "cholesky") == definite == (reference.path == "cholesky")
    if split == "shift" and not definite:
        # The NumPy route's Lanczos lowers μ_min by its residual bound (τ ≥ −μ_min stays safe); this
        # route's eigvalsh gives μ_min itself.
        assert reference.path == "lanczos" and reference.mu_min <= ours.mu_min
        assert ours.mu_min == pytest.approx(np.linalg.eigvalsh(K)[0], rel=1e-10)
    else:
        assert ours.mu_min == pytest.approx(reference.mu_min, rel=1e-10, abs=1e-10 * reference.mu_max)
    assert ours.mu_max == pytest.approx(reference.mu_max, rel=1e-10)
    mu_neg, V_neg = to_numpy(ours.mu_neg), to_numpy(ours.V_neg)
    assert mu_neg.shape == reference.mu_neg.shape and V_neg.shape == reference.V_neg.shape
    if split == "eigen" and not definite:
        assert mu_neg.size > 0
        np.testing.assert_allclose(mu_neg, reference.mu_neg, rtol=1e-10, atol=1e-10 * reference.mu_max)
        np.testing.assert_allclose((V_neg * mu_neg) @ V_neg.T, (reference.V_neg * reference.mu_neg) @ reference.V_neg.T,
                                   rtol=0, atol=1e-10 * reference.mu_max)


def silently(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit()


def strict_fit_with_the_numpy_spectrum(K, y, params):
    """IKLR on the strict namespace, its spectral step replaced by the NumPy route's (converted): what
    remains is the solver loop alone."""
    est = IKLR(**params)
    p = est._validated()
    reference = IKLR._spectral_step(K, p["split"], None)
    spectral = XpSpectralData(reference.path, reference.mu_min, reference.mu_max, xps.asarray(reference.mu_neg),
                              xps.asarray(reference.V_neg))
    y_pm, est.classes_ = binary_labels(y, K.shape[0])
    return est._fit(xps.asarray(K), xps.asarray(y_pm.astype(float)), spectral, p)


def assert_same_iterates(ours, reference, rel):
    assert namespace(ours.alpha_) is xps
    assert len(ours.history_) == len(reference.history_) > 1
    for mine, theirs in zip(ours.history_, reference.history_):
        assert mine["inner_steps"] == theirs["inner_steps"] and mine["matvecs"] == theirs["matvecs"]
        for key in ("objective", "grad_norm", "alpha_norm"):
            assert mine[key] == pytest.approx(theirs[key], rel=rel, abs=1e-300)
    scale = np.linalg.norm(reference.alpha_)
    np.testing.assert_allclose(to_numpy(ours.alpha_), reference.alpha_, rtol=0, atol=rel * scale)
    assert ours.intercept_ == pytest.approx(reference.intercept_, rel=rel, abs=1e-300)
    assert ours.diverged_ == reference.diverged_


LOOP_CASES = [
    {"solver": "ccicp-gd", "lam": 1e-4},
    {"solver": "ccicp-gd", "lam": 0.1, "init": "uniform", "random_state": 4},
    {"solver": "ccicp-gd-mm17", "lam": 0.01},
    {"solver": "cccp-gd", "lam": 0.1},
    {"solver": "cccp-gd", "lam": 1.0, "split": "shift"},
]


@pytest.fixture
def numpy_weights_as_the_standard_says(monkeypatch):
    """The NumPy route's weights computed as the array route computes them, 1/(1 + exp(z)), not by
    SciPy's ``expit``: on a CPU with AVX-512 NumPy's ``exp`` is its own SIMD routine, not libm's
    (measured here: 4.5 % of normal(0, 5) arguments differ by an ulp, so 1.9 % of the weights), and
    CCICP amplifies an ulp into other step counts. With the same formula the loop must be the same
    operations; elsewhere ``exp`` is libm's on both routes and this changes nothing."""
    monkeypatch.setattr(logistic, "expit", lambda x: 1.0 / (1.0 + np.exp(-x)))


@pytest.mark.usefixtures("numpy_weights_as_the_standard_says")
@pytest.mark.parametrize("params", LOOP_CASES, ids=lambda p: "-".join(f"{v}" for v in p.values()))
def test_the_iklr_loop_on_a_strict_namespace_takes_the_numpy_iterates(tl1_monk2, params):
    """The fidelity fixture (KEEL monk-2's indefinite TL1 kernel), given the same spectral step: every
    outer iterate's objective, gradient and α norms, inner steps and kernel products, and the final
    α and b equal the NumPy route's to 1e-10 — on every solver the route runs, at λ where CCICP-GD
    amplifies round-off most (1e-4) and where exact CCCP-GD runs away (both routes stop alike)."""
    K, K_test, y, _ = tl1_monk2
    reference = silently(lambda: IKLR(**params).fit(K, y))
    ours = silently(lambda: strict_fit_with_the_numpy_spectrum(K, y, params))
    assert_same_iterates(ours, reference, rel=1e-10)
    np.testing.assert_array_equal(ours.predict(xps.asarray(K_test)), reference.predict(K_test))


@pytest.mark.parametrize("params", [{"solver": "ccicp-gd", "lam": 0.01},
                                    {"solver": "ccicp-gd", "lam": 0.1},
                                    {"solver": "ccicp-gd", "lam": 1.0, "init": "uniform", "random_state": 4}],
                         ids=lambda p: "-".join(f"{v}" for v in p.values()))
def test_iklr_on_a_strict_namespace_is_the_numpy_fit_end_to_end(tl1_monk2, params):
    """The whole route, spectral step included (eigh against syevr's subset: eigenvectors that differ
    in round-off): the same iterates to 1e-9 where the fit does not amplify round-off (CCICP-GD at
    λ = 1e-4 on this kernel turns 1e-14 in K₋ into 5 % by its twentieth iteration: measured, and
    why the loop is proven on the same spectrum above), and the same predictions.  MM'17's GD is
    left out here: its step cap and ε come from μ_max (Lanczos there, eigh here: equal to 1e-12), and
    its Armijo backtracking turns that into other step counts; and so is the shift split, whose τ
    the NumPy route takes from μ_min lowered by Lanczos' residual bound."""
    K, K_test, y, _ = tl1_monk2
    reference = silently(lambda: IKLR(**params).fit(K, y))
    ours = silently(lambda: IKLR(**params).fit(xps.asarray(K), xps.asarray(y)))
    assert ours.spectral_path_ in ("eigh", "eigvalsh")
    assert_same_iterates(ours, reference, rel=1e-9)
    np.testing.assert_allclose(to_numpy(ours.decision_function(xps.asarray(K_test))),
                               reference.decision_function(K_test), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(ours.predict(xps.asarray(K_test)), reference.predict(K_test))


@pytest.mark.usefixtures("numpy_weights_as_the_standard_says")
def test_exact_cccp_on_a_strict_namespace_converges_where_numpy_does(tl1_monk2):
    """Exact CCCP-GD on a positive definite kernel (an RBF kernel of the same rows: the Cholesky path
    on both routes, μ_max by power iteration here, Lanczos there) ends at the NumPy fit's stationary
    point within the stationarity both reach."""
    K_tl1, _, y, _ = tl1_monk2
    n = K_tl1.shape[0]
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(n, 6))
    K = kernel_matrices(resolve_params({"type": "rbf", "sigma": 1.0}, 6), X, X[:1])[0] + 1e-6 * np.eye(n)
    labels = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0.5, 1, -1)
    reference = silently(lambda: IKLR(solver="cccp-gd", lam=0.01, eps=1e-6).fit(K, labels))
    ours = silently(lambda: IKLR(solver="cccp-gd", lam=0.01, eps=1e-6).fit(xps.asarray(K), xps.asarray(labels)))
    assert ours.spectral_path_ == reference.spectral_path_ == "cholesky"
    assert reference.stationarity_ <= 1e-6 and ours.stationarity_ <= 1e-6
    assert ours.history_[-1]["objective"] == pytest.approx(reference.history_[-1]["objective"], rel=1e-12)
    np.testing.assert_allclose(to_numpy(ours.alpha_), reference.alpha_, rtol=0, atol=1e-6 * np.linalg.norm(reference.alpha_))


@pytest.mark.parametrize("solver", ["ccicp-sgd", "cccp-lbfgs"])
def test_the_numpy_only_solvers_are_refused_by_name_on_another_namespace(tl1_monk2, solver):
    K, _, y, _ = tl1_monk2
    with pytest.raises(KreinbenchError, match=f"solver='{solver}' runs on NumPy only.*ccicp-gd"):
        IKLR(solver=solver).fit(xps.asarray(K), xps.asarray(y))


def monk2_rbf(tl1_monk2):
    """A certifiably positive definite kernel (RBF + 1e-3 I) on 216 random rows, with monk-2's labels."""
    _, _, y, _ = tl1_monk2
    X = np.random.default_rng(1).uniform(size=(y.size, 6))
    return kernel_matrices(resolve_params({"type": "rbf", "sigma": 1.0}, 6), X, X[:1])[0] + 1e-3 * np.eye(y.size), y


def lockstep_fits(K, y, lams, params, strict: bool) -> list:
    """Each of three folds' λ grid, ready for ``_fit_lockstep`` on K: on NumPy, or on the strict
    namespace with the NumPy route's spectral step (converted), so that only the lock step differs."""
    fits = []
    for tr, _ in stratified_folds(np.asarray(y), 3, 0):
        K_tr, y_pm, _ = check_train_kernel(K[np.ix_(tr, tr)], y[tr])
        spectral = IKLR._spectral_step(K_tr, params["split"], None)
        if strict:
            spectral = XpSpectralData(spectral.path, spectral.mu_min, spectral.mu_max, xps.asarray(spectral.mu_neg),
                                      xps.asarray(spectral.V_neg))
            K_tr = xps.asarray(K_tr)
        ests = [IKLR(lam=lam, solver="ccicp-gd", **params) for lam in lams]
        fits.append(_LockstepFits.prepared(ests, K_tr, y_pm, spectral, rows=tr))
    return fits


@pytest.mark.parametrize("kernel, params, negative_part", [
    ("tl1", {"split": "eigen", "init": "uniform", "random_state": 3}, True),
    ("tl1", {"split": "shift"}, False),
    ("rbf", {"split": "eigen"}, False),
], ids=["tl1-eigen-uniform", "tl1-shift", "certified-rbf"])
def test_the_cv_lock_step_on_a_strict_namespace_takes_the_numpy_iterates(tl1_monk2, kernel, params, negative_part):
    """Three folds × three λ of CCICP-GD in one lock step on K (each fold embedded in K's rows):
    every fit's α, b, outer iterations, kernel products, runaway flag and stationarity equal the
    NumPy lock step's (to 1e-10), on fold kernels with negative eigenpairs (K₋ by eigenvectors), with
    K₋ = τI on indefinite folds (shift split) and on certified positive definite ones.  Columns stop
    at different inner steps and some run away while their neighbours go on, so the columns that
    step are not one contiguous run (the NumPy route's index lists, ``take`` and ``where`` here)."""
    K, y = (tl1_monk2[0], tl1_monk2[2]) if kernel == "tl1" else monk2_rbf(tl1_monk2)
    lams = [0.01, 0.1, 1.0]
    reference, ours = (lockstep_fits(K, y, lams, params, strict) for strict in (False, True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _fit_lockstep(K, reference)
        _fit_lockstep(xps.asarray(K), ours)
    assert all(fit.tau_only != negative_part for fit in reference)
    assert all((est.spectral_path_ == "cholesky") == (kernel == "rbf") for fit in ours for est in fit.ests)
    diverged = [est.diverged_ for fit in reference for est in fit.ests]
    if kernel == "tl1":  # a column runs away between two that go on
        assert any(diverged[i] and not diverged[i + 1] for i in range(len(diverged) - 1))
    for fit_np, fit_xp in zip(reference, ours):
        for one, batched in zip(fit_np.ests, fit_xp.ests):
            assert namespace(batched.alpha_) is xps
            np.testing.assert_allclose(to_numpy(batched.alpha_), one.alpha_, rtol=0,
                                       atol=1e-10 * np.abs(one.alpha_).max())
            assert batched.intercept_ == pytest.approx(one.intercept_, rel=1e-10, abs=1e-12)
            assert (batched.n_iter_, batched.n_matvecs_, batched.diverged_) == (one.n_iter_, one.n_matvecs_,
                                                                                one.diverged_)
            assert batched.stationarity_ == pytest.approx(one.stationarity_, rel=1e-10)


def small_tl1(n=72):
    rng = np.random.default_rng(7)
    X = rng.uniform(size=(n, 5))
    y = np.where(X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(n) > 1.0, 1, -1)
    return kernel_matrices(resolve_params({"type": "tl1", "tau_factor": 0.7}, 5), X, X[:1])[0], y


@pytest.mark.parametrize("params", [{"solver": "ccicp-gd"}, {"solver": "cccp-gd", "max_outer": 10}],
                         ids=["ccicp-gd", "cccp-gd"])
def test_a_cv_on_a_strict_namespace_runs_the_lambda_path(tl1_monk2, params, monkeypatch):
    """The selection layer hands a strict K's λ grid to IKLR's λ path, not to separate fits: CCICP-GD's
    folds and λ in one lock step (one ``_fit_lockstep``), the other GD solvers one fit per fold and λ
    on each fold's one spectral step.  The scores are the NumPy lock step's (monk-2's TL1 kernel,
    its own spectral step on each route), or those of separate strict fits (exact CCCP-GD on a small
    kernel)."""
    from kreinbench.methods.iklr import estimator as iklr  # noqa: PLC0415

    lock_steps = []
    monkeypatch.setattr(iklr, "_fit_lockstep", lambda K_, fits: lock_steps.append(len(fits)) or real(K_, fits))
    real = _fit_lockstep
    lams = {"lam": [0.01, 0.1, 1.0]}
    K, y = (tl1_monk2[0], tl1_monk2[2]) if params["solver"] == "ccicp-gd" else small_tl1()

    def make(p):
        return IKLR(**params, **p)

    assert make({}).lambda_path_takes_array_api()
    if params["solver"] == "ccicp-gd":
        reference = cross_validate(make, {"k": K}, y, lams, n_folds=3, seed=0)
    else:
        reference = cross_validate(make, {"k": xps.asarray(K)}, y, lams, n_folds=3, seed=0, paths=False)
    lock_steps.clear()
    monkeypatch.setattr(IKLR, "fit", lambda *args, **kwargs: pytest.fail("a separate fit"))
    path = cross_validate(make, {"k": xps.asarray(K)}, y, lams, n_folds=3, seed=0)
    assert lock_steps == ([3] if params["solver"] == "ccicp-gd" else [])
    assert [row["cv_accuracy"] for row in path.scores] == [row["cv_accuracy"] for row in reference.scores]
    assert path.best_params == reference.best_params


@pytest.mark.parametrize("solver", ["ccicp-sgd", "cccp-lbfgs"])
def test_the_cv_refuses_the_numpy_only_solvers_by_name_on_another_namespace(solver):
    K, y = small_tl1()
    assert not IKLR(solver=solver).lambda_path_takes_array_api()
    with pytest.raises(KreinbenchError, match=f"solver='{solver}' runs on NumPy only.*ccicp-gd"):
        IKLR(solver=solver).lambda_path_scores(xps.asarray(K), y, stratified_folds(y, 3, 0), [0.1, 1.0])


def test_a_config_fits_iklr_on_the_strict_namespace_as_on_numpy(tl1_monk2, tmp_path):
    """A method with ``array_api: {namespace: array_api_strict}`` through the fit stage: the kernels
    handed over as strict arrays, the CV's lock step on them as on NumPy, the estimator's own
    spectral step; the record says what the NumPy route's says: the same λ,
    fold scores, test and training accuracy and collapse columns, the objective to 1e-9."""
    from kreinbench.data.split import Split, write_split  # noqa: PLC0415
    from kreinbench.pipeline import fit_records  # noqa: PLC0415
    from kreinbench.pipeline.stages import fit as fit_stage  # noqa: PLC0415
    from kreinbench.pipeline.stages import kernel as kernel_stage  # noqa: PLC0415

    rng = np.random.default_rng(7)
    X = rng.uniform(size=(160, 5))
    y = np.where(X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(160) > 1.0, 1, -1)
    split = tmp_path / "rep1.h5"
    write_split(Split(X_train=X[:100], y_train=y[:100], X_test=X[100:], y_test=y[100:], train_index=np.arange(100),
                      test_index=np.arange(100, 160), attrs={"seed": 3}), split, provenance={})
    kernel_file = tmp_path / "tl1.h5"
    kernel_stage.kernel(split=str(split), specs={"tl1": {"type": "tl1", "tau_factor": 0.7}}, kernels=[str(kernel_file)])
    records = {}
    for route, extra in (("numpy", {}), ("strict", {"array_api": {"namespace": "array_api_strict"}})):
        spec = {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": "ccicp-gd"},
                "grid": {"lam": [0.01, 0.1, 1.0]}, **extra}
        spectra = []
        if route == "numpy":  # the pipeline's spectrum job (an array API fit reads none)
            (tmp_path / "spectra").mkdir()
            spectra = [str(tmp_path / "spectra" / "tl1.h5")]
            kernel_stage.spectrum(kernel=str(kernel_file), instance="tl1", kind="negative", seed=0, spectrum=spectra[0])
        record = tmp_path / f"{route}.json"
        fit_stage.fit(dataset="toy", method="ccicp-gd", rep=1, spec=spec, cv_members={}, cv_folds=3, split=str(split),
                      kernels=[str(kernel_file)], spectra=spectra, record=str(record))
        records[route] = fit_records.read(str(record))
    numpy_record, strict_record = records["numpy"], records["strict"]
    for key in ("params", "kernel_instance", "accuracy", "train_accuracy", "predicted_majority_share", "majority_rate",
                "cv_accuracy", "n_iter", "diverged"):
        assert strict_record[key] == numpy_record[key], key
    assert strict_record["cv_scores"] == numpy_record["cv_scores"]  # fold accuracies: the same predictions
    assert strict_record["history"][-1]["objective"] == pytest.approx(numpy_record["history"][-1]["objective"], rel=1e-9)


@pytest.mark.parametrize("method, message", [
    ({"estimator": "KLR", "kernel": "k"}, "KLR with params {} runs on NumPy only"),
    ({"estimator": "IKLR", "kernel": "k", "params": {"solver": "ccicp-sgd"}}, "runs on NumPy only"),
    ({"estimator": "IKLR", "kernel": "implicit", "params": {"solver": "ccicp-gd"}}, "storage: implicit"),
])
def test_the_plan_refuses_an_array_api_method_that_cannot_run_there(method, message):
    from kreinbench.pipeline import plan  # noqa: PLC0415

    config = {"datasets": ["heart"], "repetitions": 1, "cv_folds": 3,
              "kernels": {"k": {"type": "tl1"}, "implicit": {"type": "rbf", "sigma": 1.0, "storage": "implicit"}},
              "methods": {"m": {**method, "array_api": {"namespace": "torch", "device": "cuda"}}}}
    with pytest.raises(KreinbenchError, match=f"config methods.m.array_api: .*{message}"):
        plan.check_config(config)
    config["methods"]["m"] = {"estimator": "IKLR", "kernel": "k", "params": {"solver": "cccp-gd"},
                              "array_api": {"namespace": "torch", "device": "cuda"}}
    plan.check_config(config)


def test_a_gpu_method_asks_slurm_for_one_gpu():
    """The fit (and batch) jobs of a method on a cuda device get resource gpu = 1, which the SLURM
    executor plugin writes as ``--gpus=1`` on the sbatch line; every other job 0, which it omits."""
    from types import SimpleNamespace  # noqa: PLC0415

    from snakemake_executor_plugin_slurm.utils import set_gres_string  # noqa: PLC0415

    from kreinbench.pipeline.resources import JobResources  # noqa: PLC0415

    config = {"datasets": ["heart"], "fit_batches": ["heart"], "cv_folds": 3, "kernels": {"k": {"type": "tl1"}},
              "methods": {"gpu": {"estimator": "IKLR", "kernel": "k", "array_api": {"namespace": "torch", "device": "cuda"}},
                          "strict": {"estimator": "IKLR", "kernel": "k", "array_api": {"namespace": "array_api_strict"}},
                          "cpu": {"estimator": "KLR", "kernel": "k"}}}
    resources = JobResources(config)
    gpus = {method: resources.gpus("fit")(SimpleNamespace(method=method, dataset="heart")) for method in config["methods"]}
    assert gpus == {"gpu": 1, "strict": 0, "cpu": 0}
    assert resources.gpus("fit_batch")(SimpleNamespace(dataset="heart")) == 1
    assert resources.gpus("kernel")(SimpleNamespace(dataset="heart")) == 0
    assert set_gres_string(SimpleNamespace(resources={"gpu": gpus["gpu"]})).strip() == "--gpus=1"
    assert set_gres_string(SimpleNamespace(resources={"gpu": gpus["cpu"]})).strip() == ""
