"""A side read as a game's start layout when the picture leaves it unsure
(``vision/starts.py``, ``pointnet.prefer_starts``).  The layouts are those
of docs/games.md; each test quotes the row it relies on."""

import numpy as np
import pytest

from willughby.vision import starts
from willughby.vision.pointnet import decide, prefer_starts

FLAT, PILE2, PILE3 = 0, 1, 2


def probs():
    """Every point empty, surely."""
    count = np.full((24, 31), 1e-6)
    count[:, 0] = 1.0
    pile = np.tile(np.array([0.98, 0.01, 0.01]), (24, 1))
    return count / count.sum(axis=1, keepdims=True), pile


def put(count, pile, point, side, shares, piles=None):
    """Point *point* (physical) holds *side*'s men: {men: probability}."""
    off = 0 if side == "light" else 15
    count[point - 1, :] = 1e-6
    for n, share in shares.items():
        count[point - 1, off + n] = share
    count[point - 1] /= count[point - 1].sum()
    if piles is not None:
        pile[point - 1] = piles


def read(count, pile, capacity=(15, 15)):
    return prefer_starts(count, pile, decide(count, pile, capacity), capacity)


def test_an_unsure_pile_is_read_as_the_doublets_start():
    # variants.md, doublets: "piles of 2 on points 1-3, of 3 on 4-6".  The
    # network is sure of points 1-3 and 6 but leans to piles of 2 on 4 and 5.
    count, pile = probs()
    for p in (1, 2, 3):
        put(count, pile, p, "light", {2: 0.95, 3: 0.05}, [0.02, 0.95, 0.03])
    for p in (4, 5):
        put(count, pile, p, "light", {2: 0.6, 3: 0.4}, [0.02, 0.55, 0.43])
    put(count, pile, 6, "light", {3: 0.95, 2: 0.05}, [0.02, 0.03, 0.95])
    assert [r.count for r in decide(count, pile)][:6] == [2, 2, 2, 2, 2, 3]
    out = read(count, pile)
    assert [(r.colour, r.count, r.stacked) for r in out[:6]] == [("light", 2, 2)] * 3 + [("light", 3, 3)] * 3
    assert all(r.layout == "doublets" for r in out[:6])
    assert 0.5 < out[3].confidence < 1.0        # the layout's chance, not certainty


def test_a_man_surely_missing_is_not_put_back():
    # variants.md, Bear off: "a die n removes one of his men from point n".
    # After a man is borne off from point 1 the side is no longer at the
    # start: a network sure of one man there must be believed.
    count, pile = probs()
    put(count, pile, 1, "light", {1: 0.995, 2: 0.005})
    for p in (2, 3):
        put(count, pile, p, "light", {2: 0.99, 3: 0.01}, [0.01, 0.98, 0.01])
    for p in (4, 5, 6):
        put(count, pile, p, "light", {3: 0.99, 2: 0.01}, [0.01, 0.01, 0.98])
    out = read(count, pile)
    assert out[0].count == 1 and not any(r.layout for r in out)


def test_a_side_with_men_on_the_bar_is_never_at_a_start():
    count, pile = probs()
    for p in (1, 2, 3, 4, 5):
        put(count, pile, p, "light", {2: 0.6, 3: 0.4}, [0.02, 0.55, 0.43])
    put(count, pile, 6, "light", {3: 0.9, 2: 0.1}, [0.02, 0.08, 0.9])
    assert read(count, pile)[3].layout == "doublets"
    on_bar = read(count, pile, capacity=(14, 15))
    assert not any(r.layout for r in on_bar) and on_bar[3].count == 2


def test_a_layout_is_not_laid_over_the_other_colour():
    # the race start's 24 point for light (variants.md, irish: "5 on 6, 3 on
    # 8, 5 on 13, 2 on 24") where the network read a dark man instead
    count, pile = probs()
    put(count, pile, 6, "light", {5: 0.9, 4: 0.1})
    put(count, pile, 8, "light", {3: 0.9, 4: 0.1})
    put(count, pile, 13, "light", {5: 0.55, 4: 0.45})
    count[23, :] = 1e-6
    count[23, 16], count[23, 2] = 0.7, 0.3      # 1 dark (0.7) or 2 light (0.3)
    count[23] /= count[23].sum()
    out = read(count, pile)
    assert out[23].colour == "dark" and out[23].count == 1
    assert not any(r.layout for r in out)


def test_the_race_start_for_dark_is_on_dark_s_own_points():
    # the board-document contract: dark's point n is physical 25 - n; variants.md, irish:
    # "5 on 6, 3 on 8, 5 on 13, 2 on 24" -> physical 19, 17, 12 and 1
    assert starts.layout_points(starts.LAYOUTS[0], "dark") == {19: (5, 0), 17: (3, 0), 12: (5, 0), 1: (2, 0)}
    count, pile = probs()
    put(count, pile, 19, "dark", {5: 0.55, 6: 0.45})
    put(count, pile, 17, "dark", {3: 0.95, 2: 0.05})
    put(count, pile, 12, "dark", {4: 0.5, 5: 0.45, 6: 0.05})
    put(count, pile, 1, "dark", {2: 0.95, 1: 0.05}, [0.97, 0.02, 0.01])
    out = read(count, pile)
    assert out[11].count == 5 and out[11].layout == "race"


def test_ofanfelling_puts_dark_in_his_right_hand_table():
    # variants.md: "dark's right-hand table ... is physical 13-18, and dark's
    # point n there is physical 12 + n"; "piles of 2 on points 1-6"
    oft = next(layout for layout in starts.LAYOUTS if layout.name == "ofanfelling")
    assert starts.layout_points(oft, "dark") == {p: (2, 2) for p in range(13, 19)}
    assert starts.layout_points(oft, "light") == {p: (2, 2) for p in range(1, 7)}


@pytest.mark.parametrize("layout", starts.LAYOUTS, ids=lambda layout: layout.name)
def test_every_layout_has_a_source_and_at_most_15_men(layout):
    assert "docs/games.md" in layout.source
    for side in ("light", "dark"):
        points = starts.layout_points(layout, side)
        assert 0 < sum(n for n, _ in points.values()) <= starts.MEN_PER_SIDE
        assert all(1 <= p <= 24 and st in (0, n) for p, (n, st) in points.items())
