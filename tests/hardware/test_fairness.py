"""The chi-square test the fairness benchmark uses, against published values."""

from __future__ import annotations

import pytest

from willughby.hardware.fairness import chi_square, chi_square_p


@pytest.mark.parametrize("stat, df, p", [
    # upper critical values of the chi-square distribution (NIST/SEMATECH e-Handbook, table 1.3.6.7.4)
    (3.841, 1, 0.05), (6.635, 1, 0.01), (11.070, 5, 0.05), (15.086, 5, 0.01), (20.515, 5, 0.001),
    (49.802, 35, 0.05), (57.342, 35, 0.01), (18.307, 10, 0.05),
    # lower tail: the series branch (x < a + 1)
    (1.145, 5, 0.95), (0.554, 5, 0.99), (22.465, 35, 0.95),
])
def test_p_values_match_the_tables(stat, df, p):
    assert chi_square_p(stat, df) == pytest.approx(p, rel=2e-3)


def test_a_fair_count_has_p_one_and_a_loaded_die_a_tiny_p():
    assert chi_square([10, 10, 10, 10, 10, 10]) == (0.0, 5, 1.0)
    stat, df, p = chi_square([1000, 1000, 1000, 1000, 1000, 1200])
    assert df == 5 and stat == pytest.approx(5 * (100 / 3) ** 2 / (3100 / 3) + (500 / 3) ** 2 / (3100 / 3))
    assert p < 1e-5


def test_expected_counts_can_be_given():
    stat, df, _ = chi_square([30, 70], expected=[25, 75])
    assert stat == pytest.approx(25 / 25 + 25 / 75) and df == 1


@pytest.mark.parametrize("counts, expected", [([5], None), ([0, 0], None), ([1, 2], [1.5]), ([1, 2], [0, 3])])
def test_nonsense_is_refused(counts, expected):
    with pytest.raises(ValueError):
        chi_square(counts, expected)


def test_degrees_of_freedom_must_be_positive():
    with pytest.raises(ValueError):
        chi_square_p(3.0, 0)
