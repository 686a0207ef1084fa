"""Where along a point its picture changed: what a play of piles did there.

In Doublets and its kin a play changes piles, not how many men stand on a
point: a man played down from a pile is laid flat beside it.  Seen from
above, a pile of 3 and a pile of 2 look nearly alike (one man more moves the
pile's top by a pixel or two), so the point reader's piles are its least
sure reading.  But the men of a point lie in a row from the board's edge,
the pile at the edge and the men played down from it beside it, so a point
of *n* men with *s* of them in a pile covers

    footprint(n, s) = n - s + 1   (s >= 2),   n   (no pile)

places of a man along the point, and with the count the footprint tells
the pile exactly.  Between the settled frame before a turn and the frame
after, the same camera sees the same board: a man laid flat beside a pile
is a man's worth of changed picture one place beyond the men there before
(``changes.point_change_profiles``).  So each place of a point either
changed or did not, and every board of the turn says which: that is learnt
from nothing and holds on any board, men and light.

:func:`footprint_log_likelihoods` gives, for every point and every thing it
may hold (its count and its pile), how well that fits what changed where,
as a log-likelihood ratio against not knowing (0 where the footprint says
nothing: a point the frames do not cover, or a row too long for one layer).

>>> footprint(3, 3), footprint(3, 2), footprint(3, 0)
(1, 2, 3)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .classes import CLASS_COLOUR, CLASS_MEN, CLASSES, PILE_HEIGHT, PILES, POINTS

__all__ = ["FootprintModel", "footprint", "place_shares", "footprint_log_likelihoods", "joint_footprints",
           "quiet_points", "still_rows", "row_means", "flat_log_likelihoods", "faintly_changed", "PLACES"]

PLACES = 5                    # places of a man along a point that are weighed (a row of one layer)


def footprint(men: int, stacked: int) -> int:
    """How many places of a man along a point its *men* cover, *stacked* of
    them in one pile at the edge (0 or 2 and more)."""
    if men < 0 or stacked < 0 or stacked > men or stacked == 1:
        raise ValueError(f"no point holds {men} men with {stacked} in a pile")
    return men - stacked + 1 if stacked >= 2 else men


@dataclass(frozen=True)
class FootprintModel:
    """How a place's changed share is read (docs/house-conventions.md convention 10).  A
    place's share is the mean of the changed profile over the middle of the
    place (``middle_mm`` of each man's width, centred); a share of
    ``unchanged_below`` or less is "unchanged", of ``changed_above`` or more
    "changed", and between them it leans linearly.  ``miss`` is how often a
    place that changed does not look it (a man laid back where one lay, of
    the same colour as the board there), ``stray`` how often a place that
    did not change looks changed (a die thrown onto it, a shadow cast
    across); both from the places of held-out-fit frames
    (``benchmarks/turns_unstacking.py --style-set held-out-fit``)."""

    middle_mm: float = 20.0
    unchanged_below: float = 0.15
    changed_above: float = 0.6
    miss: float = 0.02
    stray: float = 0.04
    places: int = PLACES
    #: the place at the edge, where a pile stands, is read apart: its share is quiet below the first level,
    #: faint below the second, strong above; and how often each is seen where nothing happened there, where
    #: only the pile's height changed (its top moves by a pixel or two: often nothing shows), and where a
    #: man came or went (held-out-fit frames: 2.5% of the places where nothing happened show more than 0.01,
    #: 63% of those where a pile's height changed)
    edge_levels: tuple[float, float] = (0.01, 0.15)
    #: at the fainter colour difference (men of nearly the board's colour), a place whose share is this or
    #: more may have changed: it is neither "unchanged" nor quiet
    faint_above: float = 0.3
    edge_table: tuple[tuple[float, float, float], ...] = ((0.96, 0.02, 0.02), (0.35, 0.5, 0.15),
                                                          (0.02, 0.03, 0.95))

    def __post_init__(self) -> None:
        if not 0 < self.middle_mm <= 36:
            raise ValueError(f"middle_mm must be in (0, 36], not {self.middle_mm!r}")
        if not 0 <= self.unchanged_below < self.changed_above <= 1:
            raise ValueError("unchanged_below must be below changed_above, both in [0, 1]")
        for name in ("miss", "stray"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"{name} must be in (0, 0.5), not {getattr(self, name)!r}")


def place_shares(profiles: np.ndarray, man_mm: float = 36.0, middle_mm: float = 20.0,
                 places: int = PLACES) -> np.ndarray:
    """Each point's changed share over the middle of each place of a man
    (place 0 at the board's edge): (24, *places*), from the profiles of
    ``changes.point_change_profiles`` (strips of ``strips.MM_PER_PX`` mm a
    row, starting ``strips.STRIP_BEYOND`` mm beyond the edge).

    >>> prof = np.zeros((24, 140)); prof[3, 33:51] = 1.0     # point 4: 36-72 mm from the edge changed
    >>> place_shares(prof)[3].round(2).tolist()
    [0.0, 1.0, 0.0, 0.0, 0.0]
    """
    from .strips import MM_PER_PX, STRIP_BEYOND

    p = np.asarray(profiles, np.float64)
    if p.ndim != 2 or p.shape[0] != POINTS:
        raise ValueError(f"change profiles must be (24, length), not {p.shape}")
    out = np.zeros((POINTS, places))
    for k in range(places):
        centre = (k + 0.5) * man_mm
        lo = int(round((centre - middle_mm / 2 + STRIP_BEYOND) / MM_PER_PX))
        hi = int(round((centre + middle_mm / 2 + STRIP_BEYOND) / MM_PER_PX))
        lo, hi = max(lo, 0), min(hi, p.shape[1])
        if hi > lo:
            out[:, k] = p[:, lo:hi].mean(axis=1)
    return out


def _held(board: Mapping[str, Any], i: int) -> tuple[int, int, int]:
    """(colour 0/1/-1 for none, men, stacked) of point *i* (0-based) of a board document."""
    stacked = board.get("stacked") or {}
    for colour, side in enumerate(("light", "dark")):
        n = int(board[side][i])
        if n:
            return colour, n, int((stacked.get(side) or [0] * POINTS)[i])
    return -1, 0, 0


def footprint_log_likelihoods(profiles: np.ndarray, before: Mapping[str, Any], model: FootprintModel | None = None,
                              man_mm: float = 36.0, faint: np.ndarray | None = None) -> np.ndarray:
    """For each point and each (count class, pile class) it may hold after
    the turn, the log-likelihood ratio of the places' changes since the frame
    before (which showed *before*) against not knowing: (24, 31 * 3),
    indexed ``count_class * 3 + pile_class`` as the turn reader's joint
    table.  A place is predicted changed where the men cover it before and
    not after or the other way, or where the colour covering it changed, and
    unchanged where it is covered or bare both times; the place at the edge
    is weighed apart where only the pile there grew or shrank (its top moves
    by a pixel or two: ``FootprintModel.edge_table``).  A point whose row before or after is longer than
    the places weighed, or a pile of 1, says nothing (0).

    >>> before = {"light": [3] + [0] * 23, "dark": [0] * 24,
    ...           "stacked": {"light": [3] + [0] * 23, "dark": [0] * 24}}
    >>> prof = np.zeros((24, 140)); prof[0, 33:51] = 1.0      # one man laid flat beside the pile
    >>> ll = footprint_log_likelihoods(prof, before)
    >>> bool(ll[0, 3 * 3 + 1] > 0 > ll[0, 3 * 3 + 2])        # a pile of 2 beside him, not still a pile of 3
    True
    >>> bool(ll[0, 3 * 3 + 0] < 0)                            # nor three men laid flat
    True
    """
    model = model or FootprintModel()
    shares = place_shares(profiles, man_mm, model.middle_mm, model.places)
    lean = np.clip((shares - model.unchanged_below) / (model.changed_above - model.unchanged_below), 0.0, 1.0)
    if faint is not None:
        # a place that changed only faintly (men of nearly the board's colour there) says neither
        faint_shares = place_shares(faint, man_mm, model.middle_mm, model.places)
        faint_lean = np.clip((faint_shares - model.unchanged_below) / (model.changed_above - model.unchanged_below),
                             0.0, 1.0)
        # a place clearly changed at the fainter difference changed (held-out-fit: as few strays there as at the
        # clear one); one that changed a little there says neither
        lean = np.maximum(lean, np.where(faint_shares >= model.changed_above, faint_lean, 0.0))
        lean = np.where((faint_shares >= model.faint_above) & (lean < 0.5), 0.5, lean)
        shares = np.where(faint_shares >= model.faint_above, np.maximum(shares, model.edge_levels[0] * 1.5), shares)
    # per place: log P(seen | changed) and log P(seen | unchanged), each against not knowing (a half of each)
    p_changed = (1 - model.miss) * lean + model.stray * (1 - lean)
    p_unchanged = model.miss * lean + (1 - model.stray) * (1 - lean)
    norm = 0.5 * (p_changed + p_unchanged)
    llr_changed = np.log(p_changed / norm)
    llr_unchanged = np.log(p_unchanged / norm)
    # the place at the edge, where a pile stands: quiet, faint or strong change, under each of what may
    # have happened there (nothing, the pile's height only, a man come or gone)
    edge = np.digitize(shares[:, 0], model.edge_levels)                # 0 quiet, 1 faint, 2 strong
    table = np.log(np.asarray(model.edge_table, np.float64))           # (nothing, height, man) x (quiet, faint, strong)
    edge_llr = table[:, edge].T - np.log(np.exp(table[:, edge].T).mean(axis=1, keepdims=True))   # (24, 3)
    out = np.zeros((POINTS, CLASSES * PILES))
    places = np.arange(model.places)
    fp, colour, men, stacked = _joint_tables()
    weighed = (fp >= 0) & (fp <= model.places)
    cover = places[None, :] < fp[:, None]                          # (classes, places): what each class covers
    for i in range(POINTS):
        colour_b, n_b, s_b = _held(before, i)
        if s_b == 1:
            s_b = 0                     # a lone man "in a pile" lies flat
        f_b = footprint(n_b, s_b)
        if f_b > model.places:
            continue
        cover_b = places < f_b
        changed = cover != cover_b[None, :]
        recoloured = (colour != colour_b) & (men > 0) & (n_b > 0)  # the men there are of the other colour now
        changed |= recoloured[:, None] & cover & cover_b[None, :]
        term = np.where(changed[:, 1:], llr_changed[i, 1:], llr_unchanged[i, 1:]).sum(axis=1)
        # at the edge: a man came or went, or only the pile there grew or shrank, or nothing happened
        what = np.where(changed[:, 0], 2, np.where(cover[:, 0] & (stacked != s_b), 1, 0))
        out[i] = np.where(weighed, term + edge_llr[i, what], 0.0)
    return out


def flat_log_likelihoods(profiles: np.ndarray, before: Mapping[str, Any], model: FootprintModel | None = None,
                         faint: np.ndarray | None = None, man_mm: float = 36.0) -> np.ndarray:
    """In a race game, where no man stands in a pile: for each point and
    each count class it may hold after the turn, the log-likelihood ratio of
    where along it the picture changed since the frame before (which showed
    *before*), its men flat in a row from the edge: (24, 31), the flat
    columns of :func:`footprint_log_likelihoods` (0 where a row is longer
    than the places weighed).

    >>> before = {"light": [2] + [0] * 23, "dark": [0] * 24}
    >>> prof = np.zeros((24, 140)); prof[0, 51:69] = 1.0     # the third place of point 1 changed
    >>> ll = flat_log_likelihoods(prof, before)
    >>> int(np.argmax(ll[0, :6]))                             # a third light man laid there
    3
    """
    return footprint_log_likelihoods(profiles, before, model, man_mm, faint)[:, 0::PILES]


@lru_cache(maxsize=1)
def _joint_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each joint class's footprint (-1: no such board), colour, men and men in its pile."""
    fp, colour = joint_footprints()
    men = np.repeat(CLASS_MEN, PILES)
    stacked = np.tile(PILE_HEIGHT, CLASSES)
    stacked = np.where(fp >= 0, stacked, 0)
    return fp, colour, men, stacked


def faintly_changed(faint: np.ndarray, before: Mapping[str, Any], model: FootprintModel | None = None,
                    man_mm: float = 36.0) -> np.ndarray:
    """The points (a (24,) mask) where, at the fainter colour difference,
    a place of their men (or the next beyond them) may have changed
    (``faint_above``): men of nearly the board's colour laid down or taken
    away, which the clear comparison misses.

    >>> before = {"light": [2] + [0] * 23, "dark": [0] * 24,
    ...           "stacked": {"light": [2] + [0] * 23, "dark": [0] * 24}}
    >>> faint = np.zeros((24, 140)); faint[0, 33:51] = 0.5
    >>> faintly_changed(faint, before)[:2].tolist()
    [True, False]
    """
    model = model or FootprintModel()
    shares = place_shares(faint, man_mm, model.middle_mm, model.places)
    out = np.zeros(POINTS, bool)
    for i in range(POINTS):
        _, n_b, s_b = _held(before, i)
        f_b = min(footprint(n_b, s_b if s_b >= 2 else 0), model.places - 1)
        out[i] = bool((shares[i, :f_b + 1] >= model.faint_above).any())
    return out


def joint_footprints() -> tuple[np.ndarray, np.ndarray]:
    """The footprint and the colour (0 light, 1 dark, -1 none) of each of
    the turn reader's joint classes (``count_class * 3 + pile_class``), the
    footprint -1 where the class is no board (a pile of fewer men than it
    stands for).

    >>> fp, colour = joint_footprints()
    >>> int(fp[2 * 3 + 1]), int(fp[1 * 3 + 0]), int(fp[3 * 3 + 1]), int(colour[16 * 3])
    (1, 1, 2, 1)
    """
    fp = np.full(CLASSES * PILES, -1, np.int64)
    colour = np.full(CLASSES * PILES, -1, np.int64)
    for c in range(CLASSES):
        n = int(CLASS_MEN[c])
        for j in range(PILES):
            s = PILE_HEIGHT[j]
            if s <= n and not (j and n < 2):
                fp[c * PILES + j] = footprint(n, s)
                colour[c * PILES + j] = CLASS_COLOUR[c]
    return fp, colour


def quiet_points(profiles: np.ndarray, before: Mapping[str, Any], model: FootprintModel | None = None,
                 man_mm: float = 36.0, faint: np.ndarray | None = None) -> np.ndarray:
    """The points (a (24,) mask) whose men's places, and the next place
    beyond them, did not change since the frame before (which showed
    *before*): the place at the edge quiet (``edge_levels[0]``), the others
    at most ``unchanged_below``.  Their men lie where they lay, whatever
    else changed along the strip (a die thrown onto its far end, a shadow);
    only a pile's height may have changed unseen, as it may where nothing
    changed at all.

    >>> before = {"light": [3] + [0] * 23, "dark": [0] * 24,
    ...           "stacked": {"light": [3] + [0] * 23, "dark": [0] * 24}}
    >>> prof = np.zeros((24, 140)); prof[0, 120:] = 1.0        # far from the pile: a die, not a man
    >>> bool(quiet_points(prof, before)[0])
    True
    >>> prof[0, 33:51] = 1.0                                    # a man laid flat beside the pile
    >>> bool(quiet_points(prof, before)[0])
    False
    """
    model = model or FootprintModel()
    shares = place_shares(profiles, man_mm, model.middle_mm, model.places)
    if faint is not None:
        # a place that changed faintly but much (men of nearly the board's colour there) is not quiet
        faint_shares = place_shares(faint, man_mm, model.middle_mm, model.places)
        shares = np.where(faint_shares >= model.faint_above, 1.0, shares)
    out = np.zeros(POINTS, bool)
    for i in range(POINTS):
        _, n_b, s_b = _held(before, i)
        f_b = footprint(n_b, s_b if s_b >= 2 else 0)
        if f_b + 1 > model.places:
            continue
        out[i] = shares[i, 0] <= model.edge_levels[0] and bool((shares[i, 1:f_b + 1] <= model.unchanged_below).all())
    return out



def row_means(profiles: np.ndarray, before: Mapping[str, Any], most_places: int = PLACES + 1,
              man_mm: float = 36.0) -> np.ndarray:
    """Each point's share of changed picture over its row of men and the
    place beyond it, as the frame before showed them (*before*): the mean of
    its profile from the strip's start beyond the edge to the end of the
    place after its last man, at most *most_places* places: (24,).

    >>> before = {"light": [1] + [0] * 23, "dark": [0] * 24}
    >>> prof = np.zeros((24, 140)); prof[0, 100:] = 1.0          # far beyond one man and the place after him
    >>> float(row_means(prof, before)[0])
    0.0
    """
    from .strips import MM_PER_PX, STRIP_BEYOND

    p = np.asarray(profiles, np.float64)
    if p.ndim != 2 or p.shape[0] != POINTS:
        raise ValueError(f"change profiles must be (24, length), not {p.shape}")
    men = np.array([_held(before, i)[1] for i in range(POINTS)])
    reach = STRIP_BEYOND + np.minimum(men + 1, most_places) * man_mm + man_mm / 6
    rows = np.clip((reach / MM_PER_PX).astype(int), 1, p.shape[1])
    means: np.ndarray = np.cumsum(p, axis=1)[np.arange(POINTS), rows - 1] / rows
    return means


def still_rows(profiles: np.ndarray, faint: np.ndarray | None, before: Mapping[str, Any], share: float = 0.004,
               faint_share: float = 0.05, most_places: int = PLACES + 1, man_mm: float = 36.0) -> np.ndarray:
    """The points (a (24,) mask) of a race game whose row of men, and the
    place beyond it, did not change since the frame before (which showed
    *before*): the profile's mean over that stretch of the strip (from its
    start beyond the edge to the end of the place after the last man, at
    most *most_places* places) is at most *share*, and at the fainter
    colour difference at most *faint_share*.  As strict as a whole strip
    that did not change (``TurnConfig.unchanged_share``), but blind to
    what changed farther along the point than its men reach: a die thrown
    onto the far end of a point moves none of its men.

    >>> before = {"light": [2] + [0] * 23, "dark": [0] * 24}
    >>> prof = np.zeros((24, 140)); prof[0, 100:] = 1.0         # a die at the far end of point 1
    >>> bool(still_rows(prof, None, before)[0])
    True
    >>> prof[0, 51:69] = 1.0                                    # a third man laid beside the two
    >>> bool(still_rows(prof, None, before)[0])
    False
    """
    clear = row_means(profiles, before, most_places, man_mm) <= share
    if faint is None:
        return clear
    return clear & (row_means(faint, before, most_places, man_mm) <= faint_share)
