"""Corners marked in the wrong order, told from a photo of a known board.

The corners C1..C4 name the board's sides: which table is whose, which way
the points run. Marked in another order (C2, C1, C4, C3; or starting from
the wrong corner), they describe the same quadrilateral, the photo
rectifies as cleanly, and the reader reads the board mirrored or turned
round, as surely as it reads it the right way: nothing in one picture
says the order is wrong. A photo of a board the referee knows (the game's
start, at calibration) says it: read with each of the eight orders that
go round the same quadrilateral, the one the board is read as the known
board with is the right one.

``corner_order`` scores each order by how likely the point reader makes
the known board (the sum over the 24 points of the log-probability of its
known count); an order other than the one given is reported only where it
beats it by ``ORDER_MARGIN`` nats or more (a board read the wrong way
round puts its men where the known board has none, many points each
surely wrong), and only where in that order the photo reads as the known
board (at most ``MOST_DIFFERING`` points read otherwise): a photo of a
board the men have left says nothing of the order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from . import pointnet
from .board_head import board_classes_of
from .config import VisionConfig
from .geometry import Corners

__all__ = ["ORDERS", "ROW_ORDERS", "ORDER_MARGIN", "MOST_DIFFERING", "CornerOrder", "corner_order",
           "corner_order_among", "decisive_order", "describe"]

#: each order as the given corners standing for C1..C4: the order given first, then its other turns round
#: the quadrilateral, then the four the other way round
ORDERS: tuple[tuple[int, int, int, int], ...] = tuple(
    (k % 4, (k + d) % 4, (k + 2 * d) % 4, (k + 3 * d) % 4) for d in (1, -1) for k in range(4))
#: the four of ``ORDERS`` that keep the sides C1..C2 and C3..C4 where they are given (the order given, it
#: turned round, and the two mirrored): where the corners are known to put the rows of points along those
#: sides (the board finder's), only these can be the board's
ROW_ORDERS: tuple[tuple[int, int, int, int], ...] = tuple(
    o for o in ORDERS if {frozenset(o[:2]), frozenset(o[2:])} == {frozenset((0, 1)), frozenset((2, 3))})
#: how much likelier (nats, over the 24 points) another order must make the known board
ORDER_MARGIN = 20.0
#: ... and at most this many points read otherwise than the known board in that order: a photo that shows
#: another board in every order says nothing of the order
MOST_DIFFERING = 2


@dataclass(frozen=True)
class CornerOrder:
    """The order the photo reads the known board in best."""

    #: for C1..C4, the index (0..3) of the corner given that stands for it
    order: tuple[int, int, int, int]
    #: how much likelier it makes the known board than the order given (nats; 0 where it is that order)
    margin: float
    #: the points where the reading in that order is not the known board (its likeliest count elsewhere)
    differing: int = 0

    @property
    def as_given(self) -> bool:
        """Whether the corners were given in the right order: or no other order is surely better, or the
        photo shows another board than the one known in every order (the men moved since: nothing said)."""
        return self.order == ORDERS[0] or self.margin < ORDER_MARGIN or self.differing > MOST_DIFFERING


def corner_order(image: np.ndarray, corners: Corners, known: Mapping[str, Any],
                 config: VisionConfig | None = None) -> CornerOrder | None:
    """Which order of *corners* reads *image* as the board *known* (a board
    document's ``light`` and ``dark``); None without the point reader."""
    return corner_order_among(image, corners, known, config, ORDERS)


def corner_order_among(image: np.ndarray, corners: Corners, known: Mapping[str, Any],
                       config: VisionConfig | None = None,
                       orders: Sequence[tuple[int, int, int, int]] = ROW_ORDERS) -> CornerOrder | None:
    """:func:`corner_order` reading only *orders* (the order given first among them, ``ORDERS[0]``):
    with ``ROW_ORDERS``, half the reads, for corners whose long sides are known to carry the rows of
    points.  Where the best of all eight is among *orders*, the answer is :func:`corner_order`'s."""
    orders = [ORDERS[0]] + [(o[0], o[1], o[2], o[3]) for o in orders if tuple(o) != ORDERS[0]]
    scored = _scores(image, corners, known, config, orders)
    if scored is None:
        return None
    scores, differing = scored
    best = int(np.argmax(scores))
    return CornerOrder(orders[best], scores[best] - scores[0], differing[best])


def _scores(image: np.ndarray, corners: Corners, known: Mapping[str, Any], config: VisionConfig | None,
            orders: Sequence[tuple[int, int, int, int]]) -> tuple[list[float], list[int]] | None:
    """For each of *orders*, how likely the point reader makes the *known* board (nats) and at how many
    points it reads otherwise; None without the point reader."""
    from .reader import read_board

    if not pointnet.available():
        return None
    classes = board_classes_of(list(known["light"]), list(known["dark"]))
    scores, differing = [], []
    for order in orders:
        reading = read_board(image, [corners[i] for i in order], config)
        if reading.count_probs is None:
            return None
        count = np.asarray(reading.count_probs, np.float64)
        probs = count[np.arange(len(classes)), classes]
        scores.append(float(np.log(np.maximum(probs, 1e-12)).sum()))
        differing.append(int((count.argmax(axis=1) != classes).sum()))
    return scores, differing


def decisive_order(image: np.ndarray, corners: Corners, known: Mapping[str, Any],
                   config: VisionConfig | None = None) -> tuple[int, int, int, int] | None:
    """The one order of *corners* that the photo reads the *known* board in, where the photo says it: that
    order makes the known board likelier than every other of ``ORDERS`` by ``ORDER_MARGIN`` nats and reads
    it at all but ``MOST_DIFFERING`` points at most. None where the photo does not say (a board the men
    have left, no point reader): then nothing in it tells which corner is C1."""
    scored = _scores(image, corners, known, config, ORDERS)
    if scored is None:
        return None
    scores, differing = scored
    ranked = sorted(range(len(ORDERS)), key=lambda i: -scores[i])
    best, second = ranked[0], ranked[1]
    if differing[best] > MOST_DIFFERING or scores[best] - scores[second] < ORDER_MARGIN:
        return None
    return ORDERS[best]


def describe(order: Sequence[int]) -> str:
    """The corners' right order in a player's words: ``"C1 at the corner given as C2, ..."``."""
    return ", ".join(f"C{i + 1} at the corner given as C{g + 1}" for i, g in enumerate(order))
