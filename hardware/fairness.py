"""Is a dice source fair? Pearson's chi-square test over counted throws.

Used by ``benchmarks/dice_fairness.py`` on every source that can roll; pure
arithmetic, no SciPy: the p-value is the regularised upper incomplete gamma
function Q(df/2, x/2), by its series below a + 1 and its continued fraction
above (the classical method, e.g. Press et al., *Numerical Recipes*, 6.2).

>>> stat, df, p = chi_square([100, 100, 100, 100, 100, 100])
>>> (stat, df, p)
(0.0, 5, 1.0)
>>> round(chi_square_p(11.0705, 5), 3)     # the 5% point of chi-square with 5 degrees of freedom
0.05
"""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["chi_square", "chi_square_p"]


def _lower_series(a: float, x: float) -> float:
    """P(a, x) by its power series (x < a + 1)."""
    term = total = 1.0 / a
    n = a
    for _ in range(10_000):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction (x >= a + 1), Lentz's method."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def chi_square_p(stat: float, df: int) -> float:
    """The chance of a chi-square statistic at least *stat* with *df* degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if stat <= 0:
        return 1.0
    a, x = df / 2.0, stat / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return _upper_fraction(a, x)


def chi_square(counts: Sequence[int], expected: Sequence[float] | None = None) -> tuple[float, int, float]:
    """Pearson's statistic of observed *counts* against *expected* (uniform
    when not given), its degrees of freedom, and its p-value."""
    n = sum(counts)
    k = len(counts)
    if k < 2 or n == 0:
        raise ValueError("need at least two categories and one observation")
    exp = list(expected) if expected is not None else [n / k] * k
    if len(exp) != k or any(e <= 0 for e in exp):
        raise ValueError("expected counts must be positive, one per category")
    stat = sum((o - e) ** 2 / e for o, e in zip(counts, exp))
    return stat, k - 1, chi_square_p(stat, k - 1)
