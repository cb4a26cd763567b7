"""Eigendecomposition of a symmetric kernel and the spectrum transforms built on it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from kreinbench.errors import KreinbenchError


@dataclass(frozen=True)
class Spectrum:
    """K = V diag(mu) V^T with eigenvalues ``mu`` ascending and orthonormal columns ``V``."""

    eigenvalues: np.ndarray
    eigenvectors: np.ndarray

    @property
    def scale(self) -> float:
        return float(np.max(np.abs(self.eigenvalues))) if self.eigenvalues.size else 0.0

    def negative_tolerance(self) -> float:
        """Eigenvalues above ``-tol`` count as zero: round-off of eigh is ~ n * eps * ||K||."""
        return self.eigenvalues.size * np.finfo(float).eps * self.scale

    def negative_part(self) -> tuple[np.ndarray, np.ndarray]:
        """Eigenpairs with eigenvalue below ``-negative_tolerance()``."""
        mask = self.eigenvalues < -self.negative_tolerance()
        return self.eigenvalues[mask], self.eigenvectors[:, mask]

    def summary(self) -> dict[str, float | int]:
        mu = self.eigenvalues
        neg, _ = self.negative_part()
        total = float(np.abs(mu).sum())
        return {
            "mu_min": float(mu[0]),
            "mu_max": float(mu[-1]),
            "n_negative": int(neg.size),
            "negative_mass": float(np.abs(neg).sum() / total) if total > 0 else 0.0,
        }


def check_symmetric_kernel(K: np.ndarray, what: str = "kernel") -> None:
    """Raise a clear error unless ``K`` is a finite, square, symmetric matrix."""
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise KreinbenchError(f"{what} must be a square matrix, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise KreinbenchError(f"{what} contains NaN or infinite entries")
    scale = max(float(np.max(np.abs(K))), np.finfo(float).tiny)
    if not np.allclose(K, K.T, rtol=0.0, atol=1e-10 * scale):
        raise KreinbenchError(f"{what} is not symmetric (max |K - K^T| = {np.max(np.abs(K - K.T)):.3g})")


def eigendecompose(K: np.ndarray) -> Spectrum:
    """Full eigendecomposition of a symmetric kernel (LAPACK ``syevr`` via scipy)."""
    check_symmetric_kernel(K)
    mu, V = scipy.linalg.eigh(K, driver="evr")
    return Spectrum(eigenvalues=mu, eigenvectors=V)


TRANSFORMS = {
    # Flip: |mu|.
    "flip": np.abs,
    # Clip: max(mu, 0).  (The IKLR text says Clip "sets the non-negative eigenvalues to zero";
    # the method of Wu et al. / Chen et al. it cites sets the *negative* ones to zero.)
    "clip": lambda mu: np.maximum(mu, 0.0),
    # Shift: mu - min(mu_min, 0), i.e. add |mu_min| to every eigenvalue when K is indefinite.
    "shift": lambda mu: mu - min(mu.min(), 0.0),
}


def transformed_kernel(spectrum: Spectrum, transform: str) -> np.ndarray:
    """V diag(t(mu)) V^T for a named spectrum transform, exactly symmetric."""
    if transform not in TRANSFORMS:
        raise KreinbenchError(f"unknown spectrum transform {transform!r} (known: {sorted(TRANSFORMS)})")
    V = spectrum.eigenvectors
    K = (V * TRANSFORMS[transform](spectrum.eigenvalues)) @ V.T
    return (K + K.T) / 2
