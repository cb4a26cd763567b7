"""The kernel logistic objective f(α, b) = (1/n) Σ log(1 + exp(−y_i((Kα)_i + b))) + (λ/2) αᵀ K_reg α.

Numerically safe at any margin: the loss uses ``logaddexp`` and the weights ``expit``, so no
exp() of a large argument is ever formed.  On an array API namespace other than NumPy (``xp``, a
GPU's) the weights are 1/(1 + exp(z)), which the standard can say (it has no ``expit``): exact to a
few ulps relative at every z (no cancellation; exp overflows to inf only where β underflows to 0).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from kreinbench.errors import KreinbenchError
from kreinbench.linalg.arrays import is_array_api
from kreinbench.methods.base import KernelClassifierMixin, check_cross_kernel

# Armijo sufficient-decrease constant of every line search on these objectives.
ARMIJO = 1e-4


def margin_losses(z: np.ndarray, xp=None) -> np.ndarray:
    """The logistic loss log(1 + exp(−z)) of each margin z = y·m (``logaddexp``: safe at any z).
    Every logistic objective here (kernel, lock-step, feature) takes its loss from this; ``xp``: the
    array API namespace of ``z`` where it is not NumPy."""
    return np.logaddexp(0.0, -z) if xp is None else xp.logaddexp(0.0, -z)


def margin_weights(z: np.ndarray, xp=None) -> np.ndarray:
    """β = σ(−z) = 1/(1 + exp(z)), minus the loss's derivative in the margin z (``expit``: safe)."""
    return expit(-z) if xp is None else 1.0 / (1.0 + xp.exp(z))


class LogisticKernelLoss:
    """The data term L(α, b) and its gradient on a precomputed kernel ``K`` and labels ``y`` ∈ {±1}.

    The gradient is ∇_α L = −(1/n) K (y ⊙ β) with β_i = 1 / (1 + exp(y_i m_i)) and m = Kα + b.
    (IKLR eq. (10) prints "y ⊙ Kβ" and defines β recursively in (11); the chain rule gives
    K (y ⊙ β) with β evaluated at the current margins, which is what is implemented.)
    ∇_b L = −(1/n) Σ_i y_i β_i; the bias is not regularized.
    """

    def __init__(self, K: np.ndarray, y: np.ndarray, xp=None):
        self.K = K
        self.y = y
        self.n = y.shape[0]
        # None: NumPy (its own sums, expit); else the array API namespace of K and y.
        self.xp = xp

    def total(self, v) -> float:
        """Σ v as a float: NumPy's pairwise sum on the NumPy route."""
        return float(v.sum()) if self.xp is None else float(self.xp.sum(v))

    def value(self, Ka: np.ndarray, b: float) -> float:
        # The sum over n, as np.mean computes it (the same pairwise sum and division), without
        # np.mean's dispatch, which cost half of this call in exact CCCP's thousands of trial steps.
        return self.total(margin_losses(self.y * (Ka + b), self.xp)) / self.n

    def weights(self, Ka: np.ndarray, b: float) -> np.ndarray:
        """y ⊙ β / n: the vector whose K-image is minus the α-gradient of the loss."""
        return self.y * margin_weights(self.y * (Ka + b), self.xp) / self.n

    def gradient(self, Ka: np.ndarray, b: float) -> tuple[np.ndarray, float]:
        w = self.weights(Ka, b)
        return -(self.K @ w), -self.total(w)


class KernelLogisticMixin(KernelClassifierMixin):
    """Scores K_cross α + b and probabilities σ(K_cross α + b) of a fitted kernel logistic model."""

    def decision_function(self, K_cross):
        """Scores for a cross-kernel of shape (n_test, n_train) (in its namespace and on its device
        where the fit ran on an array API array)."""
        if isinstance(self.alpha_, np.ndarray) or not is_array_api(K_cross):
            K_cross = check_cross_kernel(K_cross, self.alpha_.shape[0])
        elif K_cross.ndim != 2 or K_cross.shape[1] != self.alpha_.shape[0]:
            raise KreinbenchError(f"K_cross must have shape (n_test, {self.alpha_.shape[0]}), got {K_cross.shape}")
        return K_cross @ self.alpha_ + self.intercept_

    def predict_proba(self, K_cross):
        """Class probabilities, columns ordered as ``classes_`` (IKLR's p(z) = σ(K_z α + b))."""
        p1 = expit(self.decision_function(K_cross))
        return np.column_stack([1.0 - p1, p1])
