"""The convex subproblem of each CCCP step of IKLR and the solvers of its inner loop.

F_k(α, b) = L(α, b) + (λ/2)αᵀK₊α − λ(K₋α_k)ᵀα + (λ/2)α_kᵀK₋α_k is the majorizer of f that
touches it at α_k (IKLR TNNLS eqs. (8)–(9)); K₊ = K + K₋ with K₋ given as a cheap operator.
Every solver returns the new iterate, F_k there and the number of inner steps taken.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize
from scipy.special import expit

from kreinbench.methods.logistic import ARMIJO, LogisticKernelLoss


class Subproblem:
    """F_k, its gradient, and the stochastic gradient of IKLR eq. (12)."""

    def __init__(self, loss: LogisticKernelLoss, lam: float, kminus, alpha_k: np.ndarray):
        self.loss = loss
        self.lam = lam
        self.kminus = kminus
        km_k = kminus(alpha_k)
        self.linear = lam * km_k
        self.const = 0.5 * lam * float(alpha_k @ km_k)
        # Products with the n×n kernel: the unit of cost every solver is compared in.
        self.matvecs = 0

    def value(self, alpha: np.ndarray, b: float) -> tuple[float, np.ndarray]:
        """F_k(α, b) and Kα (reused by the gradient)."""
        self.matvecs += 1
        Ka = self.loss.K @ alpha
        kplus_a = Ka + self.kminus(alpha)
        F = self.loss.value(Ka, b) + 0.5 * self.lam * float(alpha @ kplus_a) - float(self.linear @ alpha) + self.const
        return F, Ka

    def gradient(self, alpha: np.ndarray, b: float, Ka: np.ndarray) -> tuple[np.ndarray, float]:
        self.matvecs += 1
        g_alpha, g_b = self.loss.gradient(Ka, b)
        return g_alpha + self.lam * (Ka + self.kminus(alpha)) - self.linear, g_b

    def stochastic_gradient(self, alpha: np.ndarray, b: float, Ka: np.ndarray, j: int) -> tuple[np.ndarray, float]:
        """Unbiased one-sample estimate of ∇F_k: the loss term of sample j only.

        IKLR eq. (12) reads α ← α − η(−y_j K_j β_j + λK₊α); it drops the linearized concave
        term −λK₋α_k, without which the step would not descend on F_k (nor on f).  It is kept here.
        """
        y_j = self.loss.y[j]
        weight = y_j * expit(-y_j * (Ka[j] + b))
        g_alpha = -weight * self.loss.K[:, j] + self.lam * (Ka + self.kminus(alpha)) - self.linear
        return g_alpha, -float(weight)


def gd_decay(sub: Subproblem, alpha, b, *, eta, rho, eps, max_inner, stop, step_cap):
    """Algorithm 1's inner loop: GD with step η ρ^t.

    ``stop="objective"`` (TNNLS): stop when |F(α^(t+1)) − F(α^(t))| ≤ ε.
    ``stop="gradient"`` (MM'17): stop when ‖∇F(α^(t))‖ ≤ ε‖α^(t)‖.

    The paper's fixed schedule diverges whenever η·λ‖K₊‖ > 2 (TL1 kernels have ‖K‖ in the
    thousands), so the first step is min(η, ``step_cap``) with ``step_cap`` = 1/L for a bound L
    on F_k's curvature, and every step is safeguarded: one that fails the Armijo condition is
    shrunk by ρ until it passes.  Where η ≤ 1/L neither device acts and the iterates are exactly
    the paper's.
    """
    F, Ka = sub.value(alpha, b)
    step = min(eta, step_cap)
    t = 0
    while t < max_inner:
        g_alpha, g_b = sub.gradient(alpha, b, Ka)
        gg = float(g_alpha @ g_alpha) + g_b * g_b
        if gg == 0.0 or (stop == "gradient" and np.sqrt(gg) <= eps * np.linalg.norm(alpha)):
            break
        while True:
            new_alpha, new_b = alpha - step * g_alpha, b - step * g_b
            F_new, Ka_new = sub.value(new_alpha, new_b)
            if F_new <= F - ARMIJO * step * gg or step < 1e-300:
                break
            step *= rho
        if not F_new < F:  # no decrease representable in floating point: converged
            break
        t += 1
        alpha, b, Ka, F_prev, F = new_alpha, new_b, Ka_new, F, F_new
        if stop == "objective" and abs(F_prev - F) <= eps:
            break
        step *= rho
    return alpha, b, F, t


def gd_exact(sub: Subproblem, alpha, b, *, gtol, max_inner, step0):
    """Gradient descent to ‖∇F_k‖ ≤ gtol: Barzilai–Borwein trial steps, Armijo backtracking.

    This is the "exact" CCCP baseline.  The paper's |ΔF| ≤ ε rule stops GD on any flat stretch
    of an ill-conditioned problem, not at the minimizer, so the exact variant tests the gradient.
    Returns the last accepted step too, to start the next subproblem with.
    """
    F, Ka = sub.value(alpha, b)
    g_alpha, g_b = sub.gradient(alpha, b, Ka)
    step = step0
    t = 0
    while t < max_inner:
        gg = float(g_alpha @ g_alpha) + g_b * g_b
        if np.sqrt(gg) <= gtol:
            break
        while True:
            new_alpha, new_b = alpha - step * g_alpha, b - step * g_b
            F_new, Ka_new = sub.value(new_alpha, new_b)
            if F_new <= F - ARMIJO * step * gg or step < 1e-300:
                break
            step *= 0.5
        if not F_new < F:
            break
        new_g_alpha, new_g_b = sub.gradient(new_alpha, new_b, Ka_new)
        s_a, s_b = new_alpha - alpha, new_b - b
        r_a, r_b = new_g_alpha - g_alpha, new_g_b - g_b
        sr = float(s_a @ r_a) + s_b * r_b
        # BB1 step (s·s / s·r); F_k is strongly convex on the iterates' span, so sr > 0 there.
        step = (float(s_a @ s_a) + s_b * s_b) / sr if sr > 0 else step * 2.0
        alpha, b, Ka, F, g_alpha, g_b = new_alpha, new_b, Ka_new, F_new, new_g_alpha, new_g_b
        t += 1
    return alpha, b, F, t, step


def sgd(sub: Subproblem, alpha, b, *, eta, rho, eps, max_inner, rng, step_cap):
    """CCICP-SGD's inner loop: one random column per step (eq. (12)), step min(η ρ^t, step_cap).

    Stops when |F_k(α^(t+1)) − F_k(α^(t))| ≤ ε.  ``step_cap`` is 1 / (a bound on the Lipschitz
    constant of one sample's gradient): the paper's η = 0.02 is stated for kernels whose scale it
    does not give, and on TL1 kernels (‖K‖ ~ 10³) uncapped steps blow up before ρ^t tames them.
    F_k itself is evaluated exactly (one matvec, shared with the step's K₊α).
    """
    n = alpha.size
    F, Ka = sub.value(alpha, b)
    t = 0
    while t < max_inner:
        j = int(rng.integers(n))
        g_alpha, g_b = sub.stochastic_gradient(alpha, b, Ka, j)
        step = min(eta * rho**t, step_cap)
        alpha, b = alpha - step * g_alpha, b - step * g_b
        F_prev = F
        F, Ka = sub.value(alpha, b)
        t += 1
        if abs(F - F_prev) <= eps:
            break
    return alpha, b, F, t


def lbfgs(sub: Subproblem, alpha, b, *, gtol, max_inner):
    """Exact inner solve by L-BFGS warm-started at (α_k, b_k) (beyond the paper).

    scipy's ``gtol`` bounds the largest gradient entry; gtol/√(n+1) there bounds the 2-norm by gtol.
    """
    n = alpha.size

    def fun(w):
        F, Ka = sub.value(w[:n], w[n])
        g_alpha, g_b = sub.gradient(w[:n], w[n], Ka)
        return F, np.append(g_alpha, g_b)

    res = scipy.optimize.minimize(fun, np.append(alpha, b), jac=True, method="L-BFGS-B",
                                  options={"maxiter": max_inner, "gtol": gtol / np.sqrt(n + 1), "ftol": 0.0,
                                           "maxcor": 20})
    return res.x[:n], float(res.x[n]), float(res.fun), int(res.nit)
