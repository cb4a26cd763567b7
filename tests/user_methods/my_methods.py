"""A new method for kreinbench: a kernel nearest-centroid classifier (README, "Benchmark a new method")."""
import numpy as np

from kreinbench.methods.base import KernelClassifierMixin


class KernelCentroid(KernelClassifierMixin):
    """Assigns x to the class whose mean in the kernel's feature space is nearer (K may be indefinite)."""

    def fit(self, K, y):
        self.classes_ = np.unique(y)
        positive = y == self.classes_[1]
        # ‖φ(x) − m₊‖² − ‖φ(x) − m₋‖² = −2(K m₊ − K m₋)(x) + ‖m₊‖² − ‖m₋‖²: weights and offset
        self.dual_coef_ = np.where(positive, 1.0 / positive.sum(), -1.0 / (~positive).sum())
        self.intercept_ = 0.5 * (K[~positive][:, ~positive].mean() - K[positive][:, positive].mean())
        self.history_ = [{"iteration": 0, "objective": 0.0}]
        return self

    def decision_function(self, K_cross):
        return K_cross @ self.dual_coef_ + self.intercept_
