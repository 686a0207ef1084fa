"""The within-photo learning benchmark's own parts (``benchmarks/learning_within.py``): a half learnt, the
other read, and a board whose stacks the network misreads the same way on both halves is read better once
one half is learnt."""

from __future__ import annotations

import numpy as np

from willughby.vision.classes import CLASSES

from .test_real_photos import _load

bench = _load("learning_within")


def _board(rng):
    """A board whose network reads every stack of 2 light men (class 2) as 3 (class 3), as a real board's
    thick men may be; the features tell the stacks apart plainly."""
    classes = np.array([0, 2, 0, 5, 0, 17, 2, 0, 18, 0, 0, 2] * 2)
    features = rng.normal(0, 0.1, (24, 160))
    features[np.arange(24), classes] += 3.0
    probs = np.full((24, CLASSES), 0.01 / (CLASSES - 1))
    probs[np.arange(24), np.where(classes == 2, 3, classes)] = 0.99
    return probs, features, classes


def test_each_half_is_read_after_the_other_is_learnt_and_the_head_mends_a_stack_misread_on_both():
    probs, features, classes = _board(np.random.default_rng(1))
    figures = bench.measure([("drawn", (probs, features, classes))], weights=(1.0,))
    t = figures["totals"]
    assert t["points"] == 24
    assert t["cold"] == 24 - 6                      # the six stacks of two misread
    assert t["head"] == 24                          # learnt on one half, every one read right on the other
    assert set(t) == {"points", "cold", "head", "prototypes 1"}


def test_a_class_the_learnt_half_never_shows_keeps_the_networks_weight_under_prototypes():
    rng = np.random.default_rng(2)
    probs, features, classes = _board(rng)
    learn = np.arange(24) < 12
    classes = classes.copy()
    classes[20] = 9                                 # nine light men, only on the half read
    probs[20] = 0.01 / (CLASSES - 1)
    probs[20, 9] = 0.99
    out = bench.prototypes(probs, features, classes, learn, weight=1.0)
    assert out[20].argmax() == 9
