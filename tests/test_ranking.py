"""The benchmark's statistics against Demšar's worked example (JMLR 2006, §3.2.4) and SciPy."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from kreinbench.report.ranking import critical_difference_diagram, friedman, nemenyi, ranks

matplotlib.use("Agg")


@pytest.fixture
def demsar_example() -> pd.DataFrame:
    """Fourteen datasets × four C4.5 variants with the average ranks of Demšar's Table 6
    (3.143, 2.000, 2.893, 1.964): his example's Friedman statistic and CD depend on these only."""
    rows = [[.763, .768, .771, .798], [.599, .591, .590, .569], [.954, .971, .968, .967], [.628, .661, .654, .654],
            [.882, .888, .886, .898], [.936, .931, .916, .931], [.661, .668, .609, .685], [.583, .583, .563, .625],
            [.775, .838, .866, .875], [1.0, 1.0, 1.0, 1.0], [.940, .962, .965, .962], [.619, .666, .614, .669],
            [.972, .981, .975, .975], [.957, .978, .946, .970]]
    return pd.DataFrame(rows, columns=["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"])


def test_demsars_worked_example(demsar_example):
    """§3.2.4: χ²_F = 9.28, F_F = 3.69 (critical value of F(3, 39) at α = 0.05: 2.85), CD = 1.25
    for the Nemenyi test (q_0.05 = 2.569 for k = 4, Table 5)."""
    np.testing.assert_allclose(ranks(demsar_example).mean(), [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    test = friedman(demsar_example)
    assert test.chi2 == pytest.approx(9.28, abs=5e-3)
    assert test.f == pytest.approx(3.69, abs=5e-3)
    assert test.f > stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=5e-3)
    assert test.critical_difference == pytest.approx(1.25, abs=5e-3)


def test_the_statistic_is_scipys_without_ties():
    """Tie-free scores: the χ²_F from the average ranks equals SciPy's friedmanchisquare."""
    scores = pd.DataFrame(np.random.default_rng(0).uniform(size=(20, 5)))
    expected = stats.friedmanchisquare(*[scores[c] for c in scores.columns]).statistic
    assert friedman(scores).chi2 == pytest.approx(expected, rel=1e-12)


def test_nemenyi_separates_exactly_the_pairs_farther_apart_than_the_cd():
    """scikit-posthocs' p-values and our CD are the same test: p < α where the average ranks
    differ by more than CD."""
    rng = np.random.default_rng(1)
    scores = pd.DataFrame(rng.uniform(size=(30, 5)) + np.linspace(0.0, 0.6, 5), columns=list("abcde"))
    test, p = friedman(scores), nemenyi(scores)
    mean_ranks = ranks(scores).mean()
    for i in scores.columns:
        for j in scores.columns:
            if i != j and abs(abs(mean_ranks[i] - mean_ranks[j]) - test.critical_difference) > 1e-3:
                assert (p.loc[i, j] < test.alpha) == (abs(mean_ranks[i] - mean_ranks[j]) > test.critical_difference)


def test_missing_cells_and_too_few_samples_are_refused(demsar_example):
    with pytest.raises(ValueError, match=r"every method on every dataset: \['C4.5\+m'\]"):
        friedman(demsar_example.assign(**{"C4.5+m": [np.nan] + [0.5] * 13}))
    with pytest.raises(ValueError, match="at least 2 datasets"):
        friedman(demsar_example.iloc[:1])


def test_the_diagram_draws(demsar_example):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 2))
    critical_difference_diagram(demsar_example, friedman(demsar_example), ax)
    assert {t.get_text() for t in ax.texts} >= {"C4.5+m+cf (1.96)", "(3.14) C4.5"}  # best on the left
    plt.close(fig)
