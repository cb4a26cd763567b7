"""Similarities as features: a linear SVM on the rows of the kernel (the empirical kernel map).

The standard baseline of the indefinite-learning surveys (Schleif & Tiňo, Neural Computation 27,
2015, §"similarity as features"; Graepel et al., NIPS 1998; Pękalska & Duin's dissimilarity space):
each point x is represented by its similarities to the n training points, k_x = (k(x, x_1), …,
k(x, x_n)), and a linear model is trained on these vectors.  Nothing requires K to be PSD: the
features are just numbers, and the linear SVM on them is a convex problem whatever the kernel.

The primal min_{w,b} ½‖w‖² + C Σ_i max(0, 1 − y_i(⟨w, k_{x_i}⟩ + b)) has the SVM dual on the Gram
matrix of the features, ⟨k_{x_i}, k_{x_j}⟩ = (K Kᵀ)_ij = (K²)_ij (K symmetric), which is PSD for
any symmetric K; its solution gives w = Σ_i y_i α_i k_{x_i} = K (y ⊙ α) and f(x) = ⟨w, k_x⟩ + b.
That dual is solved here by libsvm, as :class:`~kreinbench.methods.SVM` solves it on K, with the
intercept unregularized (liblinear's ``LinearSVC`` would penalize it).  Cost: the n × n product
K² (n³ flops) and libsvm's SMO on it.
"""

from __future__ import annotations

import time

import numpy as np

from kreinbench.linalg.blas import serial_syrk
from kreinbench.methods.base import check_cross_kernel, check_train_kernel
from kreinbench.methods.isvm.svm import SVM
from kreinbench.methods.solvers.libsvm import libsvm_dual


class SimilarityFeatures(SVM):
    """Linear SVM on the kernel's rows as features (the empirical kernel map), any symmetric K.

    Parameters
    ----------
    C : float, default=1.0
        The hinge loss's weight C > 0 in ½‖w‖² + C Σ hinge.
    tol : float, default=1e-3
        libsvm's stopping tolerance on the maximal KKT violation of the dual.
    max_iter : int, default=-1
        libsvm's iteration cap; -1 means none.

    Attributes
    ----------
    alpha_ : ndarray of shape (n,)
        Dual variables on the features' Gram matrix K², 0 ≤ α ≤ C.
    coef_ : ndarray of shape (n,)
        w = K (y ⊙ α): one weight per training point's similarity.
    intercept_ : float
    classes_ : ndarray of shape (2,)
    history_ : list of dict
        One row: ``iteration`` (libsvm's count), ``objective`` (the primal objective at w, b),
        ``elapsed``.
    n_iter_ : int

    The parameters and their checks are :class:`~kreinbench.methods.SVM`'s (the same dual, on K Kᵀ).
    """

    def fit(self, K, y):
        """Fit on the train kernel ``K`` (n, n), symmetric, any sign, and labels ``y`` (two classes)."""
        C, tol, max_iter = self._validated()
        K, y_pm, self.classes_ = check_train_kernel(K, y)
        start = time.perf_counter()
        # K Kᵀ, not K @ K: scikit-learn's checks pass kernels that are symmetric only to round-off
        with serial_syrk(K.shape[0]):  # numpy runs K Kᵀ as a syrk
            gram = K @ K.T
        self.alpha_, self.intercept_, self.n_iter_ = libsvm_dual(gram, y_pm, C, tol=tol, max_iter=max_iter)
        self.coef_ = K.T @ (y_pm * self.alpha_)
        margins = y_pm * (K @ self.coef_ + self.intercept_)
        objective = 0.5 * float(self.coef_ @ self.coef_) + C * float(np.maximum(0.0, 1.0 - margins).sum())
        self.history_ = [{"iteration": self.n_iter_, "objective": objective, "elapsed": time.perf_counter() - start}]
        self.diverged_ = False
        return self

    def decision_function(self, K_cross):
        """Scores ⟨w, k_x⟩ + b for a cross-kernel of shape (n_test, n_train): row i holds k_{x_i}."""
        K_cross = check_cross_kernel(K_cross, self.coef_.size)
        return K_cross @ self.coef_ + self.intercept_
