"""Newton's method for convex kernel logistic regression (K ⪰ 0), in the coefficient space.

For f(α, b) = L(Kα + b) + (λ/2)αᵀKα with D = diag(β(1−β))/n and u = y⊙β/n, the Newton
equations  [KDK + λK, KD1; 1ᵀDK, 1ᵀD1] [dα; db] = −[K(λα − u); −1ᵀu]  are implied by the
bordered system
        (DK + λI) dα + D1 db = u − λα,      1ᵀ(α + dα) = 0,
which is nonsingular whenever λ > 0, even when K is singular (it picks the Newton step whose α has
no component the objective cannot see).  For K ⪰ 0 it is solved through the symmetric positive
definite S = D½KD½ + λI, since (DK + λI)⁻¹ = (I − D½S⁻¹D½K)/λ (multiply out: (DK + λI)D½ = D½S),
and the border by its Schur complement: one Cholesky factorization (n³/3 flops) per iteration
instead of the bordered matrix's LU (2n³/3), and no D⁻¹, so points with β(1−β) → 0 are harmless.
An indefinite K (S not positive definite) falls back to the LU of the bordered matrix.
Quadratic convergence, so the tolerance can be tight at little cost.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.linalg

from kreinbench.linalg.blas import serial_syrk
from kreinbench.methods.solvers.logistic import ARMIJO, LogisticKernelLoss, margin_weights


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
        beta = margin_weights(y * (Ka + b))
        u = y * beta / n
        g_alpha = K @ (lam * alpha - u)
        g_b = -float(u.sum())
        g_norm = float(np.sqrt(g_alpha @ g_alpha + g_b * g_b))
        g0 = g_norm if g0 is None else g0
        history.append({"iteration": it, "objective": f, "grad_norm": g_norm, "elapsed": time.perf_counter() - start})
        if g_norm <= tol * max(g0, np.finfo(float).tiny) or it == max_iter:
            break
        d = beta * (1.0 - beta) / n
        d_alpha, d_b = newton_step(K, d, lam, u - lam * alpha, -alpha.sum())
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


def newton_step(K: np.ndarray, d: np.ndarray, lam: float, r: np.ndarray, c: float) -> tuple[np.ndarray, float]:
    """(dα, db) solving (DK + λI)dα + d·db = r, 1ᵀdα = c (the module docstring's bordered system).

    With M = DK + λI: dα = M⁻¹r − db·M⁻¹d and db = (1ᵀM⁻¹r − c)/(1ᵀM⁻¹d), where M⁻¹ is applied
    through the Cholesky factor of S = D½KD½ + λI (module docstring); if S has none (K indefinite),
    the bordered matrix is solved by LU.
    """
    n = d.size
    root = np.sqrt(d)
    # Fortran order so that the factorizations below can overwrite the matrix (no copy).
    S = np.empty((n, n), order="F")
    np.multiply(root[:, None], K, out=S)
    S *= root[None, :]
    S.flat[:: n + 1] += lam
    try:
        with serial_syrk(n):
            factor = scipy.linalg.cho_factor(S, lower=True, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError:
        return _bordered_lu_step(K, d, lam, r, c)
    V = np.column_stack([r, d])
    W = (V - root[:, None] * scipy.linalg.cho_solve(factor, root[:, None] * (K @ V), check_finite=False)) / lam
    m_r, m_d = W[:, 0], W[:, 1]
    d_b = (m_r.sum() - c) / m_d.sum()
    return m_r - d_b * m_d, float(d_b)


def _bordered_lu_step(K, d, lam, r, c):
    """The bordered system [DK + λI, d; 1ᵀ, 0] by one dense LU (any K)."""
    n = d.size
    A = np.empty((n + 1, n + 1), order="F")
    np.multiply(d[:, None], K, out=A[:n, :n])  # into A: no n×n temporary
    A[:n, :n].flat[:: n + 1] += lam
    A[:n, n] = d
    A[n, :n] = 1.0
    A[n, n] = 0.0
    step = scipy.linalg.solve(A, np.append(r, c), overwrite_a=True, check_finite=False)
    return step[:n], float(step[n])
