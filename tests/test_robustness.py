"""What does not need Snakemake among the reliability checks (tests/test_reliability.py runs and
kills it): kernel instance ids, atomic writes after a killed writer and under a umask, finite
losses and objectives at huge margins, and the ConvergenceWarning of an iteration limit reached
far from stationarity."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

from conftest import reversed_keys
from kreinbench.atomic import atomic_path
from kreinbench.methods import IKLR, KLR, KSVM, SVM, ConvergenceWarning, IndefiniteSVM
from kreinbench.methods.solvers.logistic import LogisticKernelLoss
from kreinbench.pipeline import plan


def test_kernel_instance_ids_ignore_key_order():
    sigmoid = {"type": "sigmoid", "gamma": [0.1, 1.0], "coef0": [0.0, 1.0]}
    ids = [list(plan.kernel_instances({"kernels": {"sig": spec}}, "sig")) for spec in (sigmoid, reversed_keys(sigmoid))]
    assert ids[0] == ids[1] and len(ids[0]) == 4

# --- stale temporaries of killed writers ------------------------------------------------------

# A writer of argv[1] that SIGKILLs itself with its temporary half written.
KILLED_WRITER = ("import os, sys\nfrom kreinbench.atomic import atomic_path\n"
                 "with atomic_path(sys.argv[1]) as tmp:\n    tmp.write_bytes(b'half')\n    os.kill(os.getpid(), 9)\n")

def test_next_writer_removes_a_killed_writers_temporary(tmp_path):
    target = tmp_path / "k.h5"
    subprocess.run([sys.executable, "-c", KILLED_WRITER, str(target)], timeout=60)
    stale = list(tmp_path.glob(".k.h5.*.tmp"))
    assert len(stale) == 1 and not target.exists()
    other = tmp_path / ".other.h5.pid1@elsewhere.abc.tmp"  # another target's / host's file: kept
    other.write_bytes(b"x")
    with atomic_path(target) as tmp:
        assert not stale[0].exists()
        tmp.write_bytes(b"complete")
    assert target.read_bytes() == b"complete" and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "k.h5"]


def test_a_killed_writer_that_is_still_a_zombie_counts_as_dead(tmp_path):
    """The kernel-stage temporaries of tests/test_reliability.py outlived the resume now and then:
    their killed writers were zombies, not yet reaped, when the rerun jobs looked."""
    target = tmp_path / "k.h5"
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target)])
    try:
        for _ in range(600):  # dead but not waited for: a zombie
            with open(f"/proc/{writer.pid}/stat") as stat:
                if stat.read().rpartition(")")[2].split()[0] == "Z":
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the writer did not die")
        stale = list(tmp_path.glob(".k.h5.*.tmp"))
        assert len(stale) == 1
        with atomic_path(target) as tmp:
            assert not stale[0].exists()
            tmp.write_bytes(b"complete")
    finally:
        writer.wait()


# --- numerical safety -------------------------------------------------------------------------

@pytest.mark.parametrize("scale", [1e3, 1e6, 1e300])
def test_logistic_loss_and_gradient_are_finite_at_huge_margins(scale):
    y = np.array([1.0, -1.0, 1.0, -1.0])
    K = np.array([[2.0, 1.0, 0.0, 0.5], [1.0, 2.0, 0.5, 0.0], [0.0, 0.5, 2.0, 1.0], [0.5, 0.0, 1.0, 2.0]])
    loss = LogisticKernelLoss(K, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any overflow / invalid-value RuntimeWarning fails
        right = loss.value(scale * y, 0.0), loss.gradient(scale * y, 0.0)
        wrong = loss.value(-scale * y, 0.0), loss.gradient(-scale * y, 0.0)
    value, (g_alpha, g_b) = right
    assert value < 1e-300 and np.all(np.abs(g_alpha) < 1e-300) and abs(g_b) < 1e-300
    value, (g_alpha, g_b) = wrong
    assert value == pytest.approx(scale, rel=1e-12)  # log(1 + e^s) = s to double precision
    np.testing.assert_allclose(g_alpha, -K @ y / y.size, rtol=1e-12)  # weights saturate at 1
    assert g_b == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("c", [2e3, 2e4, 2e6])
def test_iklr_objective_and_gradient_at_huge_margins(c):
    """f and ‖∇f‖ of IKLR where every margin is −c/2 (K y = y/2 for this K), far below −700.
    (KLR's Newton solver evaluates the same LogisticKernelLoss, tested above.)"""
    y = np.array([1.0, -1.0, 1.0, -1.0])
    K = np.array([[2.0, 1.0, 0.0, 0.5], [1.0, 2.0, 0.5, 0.0], [0.0, 0.5, 2.0, 1.0], [0.5, 0.0, 1.0, 2.0]])
    lam = 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f, grad_norm = IKLR._objective_and_gradient_norm(LogisticKernelLoss(K, y), lam, -c * y, 0.0)
    assert f == pytest.approx(c / 2 + lam * c**2, rel=1e-12)
    # ∇_α f = K(λα − y/n) = −(λc + 1/4) K y = −(λc + 1/4) y/2, ∇_b f = 0.
    assert grad_norm == pytest.approx((lam * c + 0.25) * 0.5 * 2.0, rel=1e-12)


@pytest.mark.parametrize("init", ["ones", "minus_ones"])
def test_iklr_fit_from_huge_initial_margins_has_no_runtime_warning(init):
    """A kernel scaled to 1e4 and α⁰ = ±1 put every initial margin beyond ±700."""
    X, y = _problem()
    K = 1e4 * np.maximum(2.0 - np.abs(X[:, None, :] - X[None, :, :]).sum(-1), 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)  # RunawayWarning is one too
        est = IKLR(lam=1e-2, solver="cccp-lbfgs", max_outer=2, max_inner=50, init=init).fit(K, y)
        scores = est.decision_function(K)
    assert np.min(np.abs(K @ np.ones(y.size))) > 700
    assert np.all(np.isfinite(est.alpha_)) and np.all(np.isfinite(scores))
    assert est.history_[0]["objective"] > 700 and all(np.isfinite(h["objective"]) for h in est.history_)
    assert all(np.isfinite(h["grad_norm"]) for h in est.history_)


def _problem(n=60, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("estimator,pattern", [
    (IKLR(lam=1e-2, solver="cccp-gd", max_outer=1, max_inner=2), "IKLR cccp-gd stopped after 1 outer"),
    (IKLR(lam=1e-2, solver="cccp-lbfgs", max_outer=1, max_inner=1), "IKLR cccp-lbfgs stopped after 1 outer"),
    (KLR(lam=1e-3, max_iter=1), "KLR Newton stopped after 1 iterations"),
    (SVM(C=100.0, max_iter=1), "libsvm stopped at max_iter=1"),
    (KSVM(C=100.0, max_iter=1), "libsvm stopped at max_iter=1"),
    (IndefiniteSVM(C=10.0, max_iter=2, tol=1e-12), "IndefiniteSVM smm stopped at max_iter=2"),
])
def test_iteration_limit_far_from_stationarity_warns(estimator, pattern):
    X, y = _problem()
    if isinstance(estimator, (KLR, SVM)) and not isinstance(estimator, KSVM):
        K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))  # PSD (RBF)
    else:
        K = np.maximum(2.0 - np.abs(X[:, None, :] - X[None, :, :]).sum(-1), 0.0)  # TL1: indefinite
        assert np.linalg.eigvalsh(K)[0] < -1e-6
    with pytest.warns(ConvergenceWarning, match=pattern):
        estimator.fit(K, y)
    stationarity = getattr(estimator, "stationarity_", None)
    assert stationarity is None or stationarity > 1e-3  # far from stationary indeed


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_outputs_take_the_mode_the_umask_gives_new_files(tmp_path, umask, mode):
    """Atomic writes go through mkstemp (always 0600); the output gets the umask's mode instead."""
    previous = os.umask(umask)
    try:
        with atomic_path(tmp_path / "table.csv") as tmp:
            tmp.write_text("a,b\n")
        plain = tmp_path / "plain.txt"
        plain.write_text("x")
    finally:
        os.umask(previous)
    assert (tmp_path / "table.csv").stat().st_mode & 0o777 == mode == plain.stat().st_mode & 0o777
