import numpy as np
import pytest
import scipy.optimize

from kreinbench.errors import KreinbenchError
from kreinbench.methods.solvers.projection import project_box_hyperplane


@pytest.mark.parametrize("seed", range(5))
def test_projection_is_feasible_and_optimal(seed):
    rng = np.random.default_rng(seed)
    n, C = 40, 0.7
    v = rng.normal(scale=2.0, size=n)
    y = np.where(rng.uniform(size=n) < 0.3, 1.0, -1.0)
    a = project_box_hyperplane(v, y, C)
    assert abs(y @ a) <= 1e-10 and a.min() >= 0 and a.max() <= C
    ref = scipy.optimize.minimize(lambda x: 0.5 * np.sum((x - v) ** 2), np.zeros(n), jac=lambda x: x - v,
                                  method="SLSQP", bounds=[(0, C)] * n,
                                  constraints=[{"type": "eq", "fun": lambda x: y @ x, "jac": lambda x: y}],
                                  options={"ftol": 1e-14, "maxiter": 1000})
    assert np.sum((a - v) ** 2) <= np.sum((ref.x - v) ** 2) + 1e-9
    np.testing.assert_allclose(a, ref.x, atol=1e-5)


def test_feasible_points_are_fixed():
    y = np.array([1.0, 1.0, -1.0, -1.0])
    a = np.array([0.2, 0.3, 0.4, 0.1])
    np.testing.assert_allclose(project_box_hyperplane(a, y, 1.0), a, atol=1e-15)


def test_one_class_is_refused():
    with pytest.raises(KreinbenchError, match="both classes"):
        project_box_hyperplane(np.ones(3), np.ones(3), 1.0)


@pytest.mark.parametrize("seed", range(3))
def test_projection_matches_a_root_found_by_brentq_with_ties(seed):
    """Integer-valued v at the box's ends: many tied breakpoints and flat pieces of g; the root of
    g(θ) = yᵀclip(v − θy, 0, C), found by scipy's brentq, gives the same projection."""
    rng = np.random.default_rng(seed)
    n, C = 300, 1.0
    v = rng.integers(-2, 3, size=n).astype(float)
    y = np.where(rng.uniform(size=n) < 0.6, 1.0, -1.0)
    g = lambda t: y @ np.clip(v - t * y, 0.0, C)  # noqa: E731
    theta = scipy.optimize.brentq(g, -10.0, 10.0, xtol=1e-15)
    reference = np.clip(v - theta * y, 0.0, C)
    a = project_box_hyperplane(v, y, C)
    assert abs(y @ a) <= 1e-10 and a.min() >= 0 and a.max() <= C
    np.testing.assert_allclose(a, reference, atol=1e-9)
