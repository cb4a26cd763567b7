"""Newton's method for convex kernel logistic regression (K ⪰ 0), in the coefficient space.

For f(α, b) = L(Kα + b) + (λ/2)αᵀKα with D = diag(β(1−β))/n and u = y⊙β/n, the Newton
equations  [KDK + λK, KD1; 1ᵀDK, 1ᵀD1] [dα; db] = −[K(λα − u); −1ᵀu]  are implied by the
bordered system
        (DK + λI) dα + D1 db = u − λα,      1ᵀ(α + dα) = 0,
which is nonsingular whenever λ > 0, even when K is singular (it picks the Newton step whose α has
no component the objective cannot see).  One dense LU of size n + 1 per iteration; quadratic
convergence, so the tolerance can be tight at little cost.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.linalg
from scipy.special import expit

from kreinbench.methods.logistic import ARMIJO, LogisticKernelLoss


def klr_newton(K: np.ndarray, y: np.ndarray, lam: float, *, tol: float, max_iter: int, start=None):
    """Minimize the convex KLR objective; return α, b, history rows and the final gradient norm.

    ``start`` = (α, b) warm-starts Newton (the λ path of CV); the stopping rule stays relative to
    ‖∇f(0, 0)‖, so a warm start changes the number of iterations, not where the fit stops.
    """
    n = y.size
    loss = LogisticKernelLoss(K, y)
    g0 = None
    if start is not None:
        # ∇f(0, 0) = (K(−u₀), −Σu₀) with u₀ = y/(2n): one matvec.
        u0 = y / (2.0 * n)
        g0 = float(np.sqrt(np.sum((K @ u0) ** 2) + u0.sum() ** 2))
    alpha, b = (np.zeros(n), 0.0) if start is None else (np.array(start[0], dtype=float), float(start[1]))
    start = time.perf_counter()

    def evaluate(alpha, b):
        Ka = K @ alpha
        return loss.value(Ka, b) + 0.5 * lam * float(alpha @ Ka), Ka

    f, Ka = evaluate(alpha, b)
    history = []
    for it in range(max_iter + 1):
        beta = expit(-y * (Ka + b))
        u = y * beta / n
        g_alpha = K @ (lam * alpha - u)
        g_b = -float(u.sum())
        g_norm = float(np.sqrt(g_alpha @ g_alpha + g_b * g_b))
        g0 = g_norm if g0 is None else g0
        history.append({"iteration": it, "objective": f, "grad_norm": g_norm, "elapsed": time.perf_counter() - start})
        if g_norm <= tol * max(g0, np.finfo(float).tiny) or it == max_iter:
            break
        d = beta * (1.0 - beta) / n
        # Fortran order so that the LU below can overwrite A (scipy copies a C-ordered matrix).
        A = np.empty((n + 1, n + 1), order="F")
        np.multiply(d[:, None], K, out=A[:n, :n])  # into A: no n×n temporary
        A[:n, :n].flat[:: n + 1] += lam
        A[:n, n] = d
        A[n, :n] = 1.0
        A[n, n] = 0.0
        rhs = np.append(u - lam * alpha, -alpha.sum())
        # A is rebuilt every iteration: its LU in place, no second (n+1)² array.
        step = scipy.linalg.solve(A, rhs, overwrite_a=True, check_finite=False)
        d_alpha, d_b = step[:n], step[n]
        slope = float(g_alpha @ d_alpha) + g_b * d_b
        if slope >= 0:  # round-off at the optimum: no descent direction left
            break
        t = 1.0
        while True:
            f_new, Ka_new = evaluate(alpha + t * d_alpha, b + t * d_b)
            if f_new <= f + ARMIJO * t * slope or t < 1e-12:
                break
            t *= 0.5
        if not f_new < f:
            break
        alpha, b, f, Ka = alpha + t * d_alpha, b + t * d_b, f_new, Ka_new
    return alpha, b, history, g_norm / max(g0, np.finfo(float).tiny)
