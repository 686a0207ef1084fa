"""The turn reader's thresholds (:class:`TurnConfig`) and its shipped calibration.

Every threshold of the turn reader (``vision/turns.py``) is a field of
:class:`TurnConfig`.  The point reader's probabilities are sharpened or
softened by a *temperature* fitted on generated frames of styles the network
never learnt from (``tools/fit_turn_reader.py``), which also chooses some of
the thresholds; both ship, with their provenance, in
``vision/data/turn_calibration.json`` (:data:`CALIBRATION_PATH`), and
:func:`default_config` is the defaults with them.

>>> TurnConfig().legal_min
0.995
>>> default_config().temperature == load_temperature()
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from .changes import CHANGE_BLUR_MM, CHANGE_CORE, CHANGE_DELTA_E
from .footprints import PLACES

CALIBRATION_PATH = Path(__file__).with_name("data") / "turn_calibration.json"


@lru_cache(maxsize=4)
def load_calibration(path: Path = CALIBRATION_PATH) -> dict[str, Any]:
    """The shipped calibration of the turn reader (``tools/fit_turn_reader.py``):
    ``{"temperature", "config": {threshold: value}, "fitted_on", "command", ...}``,
    or ``{}`` where none ships (the network's probabilities are then taken as
    they are, with :class:`TurnConfig`'s defaults)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def load_temperature(path: Path = CALIBRATION_PATH) -> float:
    """The fitted temperature of the point reader's probabilities, or 1.0 without a calibration."""
    try:
        value = float(load_calibration(path).get("temperature", 1.0))
    except (TypeError, ValueError):
        return 1.0
    return value if 0.05 <= value <= 20.0 else 1.0


def default_config(path: Path = CALIBRATION_PATH) -> "TurnConfig":
    """:class:`TurnConfig` with the shipped calibration's temperature and the
    thresholds it chose on generated frames."""
    chosen = load_calibration(path).get("config") or {}
    known = {f for f in TurnConfig.__dataclass_fields__}
    values: dict[str, Any] = {k: float(v) if k != "show" else int(v) for k, v in chosen.items()
                              if k in known and isinstance(v, (int, float)) and not isinstance(v, bool)}
    return replace(TurnConfig(), **values, temperature=load_temperature(path),
                   point_errors=load_point_errors(path))


def load_point_errors(path: Path = CALIBRATION_PATH) -> tuple[tuple[float, float], ...]:
    """The shipped table of the point reader's errors by confidence (``TurnConfig.point_errors``): pairs of
    (lowest tempered probability, error rate bound), rising; empty where none ships or it is malformed (each
    probability in [0, 1], rising, each bound in [0, 1] and none above a less sure bin's)."""
    doc = load_calibration(path).get("point_errors")
    if not isinstance(doc, dict):
        return ()
    edges, upper = doc.get("edges"), doc.get("upper")
    if not isinstance(edges, list) or not isinstance(upper, list) or len(edges) != len(upper) or not edges:
        return ()
    try:
        pairs = tuple((float(e), float(u)) for e, u in zip(edges, upper))
    except (TypeError, ValueError):
        return ()
    ok = (all(0.0 <= e <= 1.0 and 0.0 <= u <= 1.0 for e, u in pairs)
          and all(a[0] < b[0] and a[1] >= b[1] for a, b in zip(pairs, pairs[1:])))
    return pairs if ok else ()


@dataclass(frozen=True)
class TurnConfig:
    """Every threshold of the turn reader, in one record. The
    defaults were chosen on generated frames (``benchmarks/turns.py``,
    styles held out from the network's training), never on the frames the
    measurement reports."""

    #: the point reader's probabilities are raised to 1/temperature and renormalised; None: the fitted one
    temperature: float | None = None
    #: ... but once the reader has learnt this many frames of this board beyond its start (``board_head``),
    #: this one: the fitted temperature softens a cold network on boards it never saw, and a reader fitted
    #: to this board's own frames (by their cross-entropy) needs no softening. Chosen on the held-out-fit
    #: styles (``benchmarks/turns.py --style-set held-out-fit --seed 101 --learn``, 300 turns, learning:
    #: 1.0 asked 8, 1.2 10, 1.4 9, the fitted 1.652 10; none wrong)
    learnt_temperature: float = 1.0
    learnt_after: int = 1
    #: a probability below this is taken as this (one freak pixel must not veto a board outright)
    floor: float = 1e-7
    #: how likely an illegal turn is before the picture is looked at ...
    prior_illegal: float = 0.05
    #: ... spread over about this many boards no play leads to (those a man or two from a legal one): "another
    #: board" is the best of many, so each one of them is that much less likely before the picture is seen
    other_boards: float = 300.0
    #: the posterior a play needs to be ruled legal without asking
    legal_min: float = 0.995
    #: the posterior "another board" needs to be ruled illegal ...
    illegal_min: float = 0.999
    #: ... and the probability each point of that board needs
    illegal_point_min: float = 0.99
    #: per man on the bar the picture disagrees with, the factor on a board's likelihood
    bar_mismatch: float = 1e-3
    #: a point's picture counts as unchanged when at most this share of its strip changed colour
    unchanged_share: float = 0.004
    #: ... where "changed colour" is a Lab distance above this, between the two frames each smoothed
    #: (Gaussian, this sigma in mm of the board) so that the sensor's own noise does not count ...
    change_delta_e: float = CHANGE_DELTA_E
    change_blur_mm: float = CHANGE_BLUR_MM
    #: ... counted over this middle share of the strip's width (a strip is wider than its point, and a man
    #: moved on the point beside must not make this one look changed)
    change_core: float = CHANGE_CORE
    #: the probability an unchanged point still holds what it held before
    unchanged_keep: float = 0.9999
    #: a pile read at least this surely, on a point where neither the board before nor any legal
    #: result has one, means the picture shows what no board of the turn can be: ask
    pile_alarm: float = 0.95
    #: in a game of piles, the probability the pile of each point of two men or more whose picture changed
    #: needs, in the play ruled legal
    pile_point_min: float = 0.99
    #: ... and a point the play leaves as it was must not have changed its picture by this share or more
    pile_change_min: float = 0.02
    #: where the frame before is at hand, how often a place of a man along a point that changed does not
    #: look changed, and one that did not change looks it (``vision.footprints``): the places' changes
    #: weigh each point's count and pile, and then every point whose picture changed must be read as the
    #: play's (count and pile together) at ``pile_point_min``
    #: where the places' changes weigh the points, the probability each point whose picture changed needs,
    #: count and pile together, for the play ruled legal (chosen on held-out-fit turns,
    #: ``benchmarks/turns_unstacking.py --style-set held-out-fit``: no wrong ruling from 0.5 up)
    placed_point_min: float = 0.95
    footprint_miss: float = 0.02
    footprint_stray: float = 0.04
    #: in a game of piles no man moves from point to point (he is played down beside his pile, put back on
    #: it, or borne off): each man more on a point than before the turn, and men of the other colour there,
    #: are this much less likely before the picture is looked at (a man put back from off, a mistake)
    pile_new_man: float = 1e-3
    #: how many candidates an "unsure" lists
    show: int = 4
    #: in a race game an illegal turn leaves each side as many men on the points as some legal play does (men
    #: are neither made nor lost, and a wrong move hits, enters or bears off no more than a legal one): before the
    #: picture is seen, each legal result is this many times as likely as any one such board (the prior of an
    #: illegal turn, ``prior_illegal``, spread over about this many boards a legal play), and the picture's whole
    #: weight on them, not its best one alone, is weighed against the legal plays'
    illegal_boards: float = 100.0
    #: the posterior a race game's illegal turn needs to be ruled (among the boards a wrong move of the mover's
    #: men may leave, against the legal plays: ``MenWeights.p_ruled``) ...
    wrong_move_min: float = 0.99
    #: ... and it is ruled only where every legal play is given at most this probability at some point whose
    #: picture changed where it differs from the board seen (each is refuted somewhere, not by many doubts, nor
    #: by the absence of a change alone)
    illegal_refute: float = 0.01
    #: ... and every legal play differs from the board seen at some point whose picture changed that the point
    #: reader itself (its tempered probabilities, before the frame before's change and places weigh them) reads
    #: as the board seen has it surely enough that its error rate there is at most this: the rate the
    #: calibration's table of the reader's errors by confidence gives (``point_errors``; 1 - the probability
    #: where none ships). The change's weight alone makes no point sure (held-out-test seed 18065: three legal
    #: turns ruled illegal at ``p_other`` 0.9999, each refuted only where the reader read the board seen at
    #: 0.72-0.87, or read neither board). None: not checked (the rule before 2026-12-07, for comparing)
    illegal_reader_error: float | None = 0.01
    #: the reader's errors by confidence at points whose picture changed, fitted on the held-out-fit styles
    #: (``tools/fit_turn_reader.py``): (lowest tempered probability, upper bound of the error rate from there
    #: up to the next), rising probabilities; empty: 1 - the probability is taken as the error rate
    point_errors: tuple[tuple[float, float], ...] = ()
    #: a race game's play is ruled legal only where the picture gives it at least this probability at every
    #: point whose picture changed
    legal_point_min: float = 0.01
    #: ... and, without the frame before (a photo judged alone: a dispute photo, ``judge --after-image``), only
    #: where the picture gives it at least this many times the likelihood of each board with one of the mover's
    #: men more or fewer on a point whose picture changed (``MenWeights.one_man_off``). A wrong turn that bears
    #: off, enters or hits fewer men than every legal play (a man left a pip short of off) leaves other numbers
    #: of men on the points, which none of the illegal turn's boards has: path-traced frame f00110 (light's stack
    #: of eight on his 1-point read as six to nine) had 2-2 played 8/1 ruled legal as the only legal play, 8/off,
    #: by a reader that read the board better elsewhere. 1.0: the legal result at least as likely as each such
    #: board (0.5 let f00110 through). With the frame before, the points' changes weigh such a man, and the check
    #: would cost many questions for no wrong ruling seen (``turns.py --seed 16180``, 400 turns, frame before:
    #: asked 4 -> 28 with v15, none wrong either way). None: not checked (the rule before 2026-12-07)
    alone_one_man: float | None = 1.0
    #: the board seen is looked for among each point's readings within this many nats of its best one
    illegal_window: float = 7.0
    #: a race game's turn is ruled illegal only where the point reader reads what the referee knows: each
    #: point whose picture did not change since the frame before (or, without it, each point where the board
    #: before, every legal play and the board seen have the same men) read as what it holds at this or more ...
    known_point_min: float = 0.05
    #: ... and its doubts there summed (the negative log of each such point's probability) at most this
    known_doubt_max: float = 8.0
    #: ... and only where a misread count (men made or lost where the legal plays differ) is less likely than this
    misread_max: float = 0.5
    #: without the frame before, nothing is known to check the reader on: the board seen must be read at this
    #: or more at every point
    alone_point_min: float = 0.9
    #: in a race game, where the frame before is at hand: a point whose picture changed by more than this share
    #: had men come or go (``moved_seen`` of those that did, of the points whose picture changed at all) or
    #: not (``still_seen`` of those where none did: a die thrown there, a shadow, a man moved beside it)
    moved_share: float = 0.1
    moved_seen: float = 0.9
    still_seen: float = 0.2
    #: in a race game, where the frame before is at hand: each point whose picture changed is also weighed by
    #: where along it the picture changed (its men lie in a row from the edge, so one man more or fewer is a
    #: man's worth of change just beyond or at the row's end: ``vision.footprints``), learnt from nothing; its
    #: log-likelihood ratios are weighed by this (0: not at all).  Chosen on held-out-fit turns
    #: (``benchmarks/turns.py --style-set held-out-fit --seed 101 --learn``, 300 turns, asked cold / learning:
    #: 0 gave 19 / 8, 0.3 11 / 6, 0.5 11 / 4, 0.7 14 / 3, 1.0 12 / 4; none wrong)
    race_places_weight: float = 0.5
    #: ... and a point whose row of men, and the place beyond it, did not change (``footprints.still_rows``:
    #: as strict as an unchanged strip, at the fainter colour difference at most this share) holds what it
    #: held, whatever changed farther along it (a die thrown onto its far end): its reading is the referee's,
    #: and a pile read there is the reader's, not a question (``pile_alarm``). It is not counted among the
    #: points whose picture did not change where an illegal turn is weighed (refuting a legal play, checking
    #: the reader): that stays with the whole strip.  None: not used
    still_row_faint_share: float | None = 0.05
    #: in a race game, a point that held this many men or more before the turn (its row from the edge is full:
    #: ``footprints.PLACES``) is not held to exactly what it had by an unchanged picture: a man laid on, or
    #: taken from, the layer above may change it too little to show (over the four benchmark runs, 5 of 139
    #: such moves showed no change, and each made the referee ask). There a man more or fewer of its colour
    #: is each ``tall_unseen`` likely before the picture is weighed, and the point reader's reading weighs
    #: them; any other count stays as unlikely as at any unchanged point, and the point still counts among
    #: those whose men the referee knows (checking the reader before an illegal turn is ruled). ``tall_unseen``
    #: near that rate: 0.01 to 0.15 asked the same within one turn (held-out-fit seed 101 has no such move).
    #: And where such a point's picture changed by less than ``moved_share``, that says nothing either way
    #: (``_weigh_changes``): at seed 2718 a dark man moved a pip too far between rows of seven and five
    #: changed them by 3% each, and weighing that as "likely nothing moved there" had the turn ruled legal.
    #: None: every unchanged point is held to what it had, and every change weighed alike
    tall_row: int | None = PLACES
    tall_unseen: float = 0.05
    #: where the frame before is at hand: the bar's picture changed by a man's worth when, over some man's
    #: length along it, more than this share changed colour (``changes.bar_change``: a man gone or come changes
    #: about half to three quarters of his length there, the sensor's noise nothing) ...
    bar_moved_share: float = 0.2
    #: ... which a board whose bar holds other men than the board before's shows this often ...
    bar_moved_seen: float = 0.9
    #: ... and one whose bar holds the same men this often (a die missed by the dice finder, a shadow). The
    #: bar's men are counted by finding round tops, not weighed (``bar_mismatch``), and a man gone from the
    #: bar onto a point of his own colour may change that point's picture too little to show (a tall row):
    #: without this, such an entry was taken for nothing moved
    bar_still_seen: float = 0.02
    #: whether "nothing moved" (a candidate that leaves the board as it was) is checked against the picture:
    #: where it changed clearly where men stood (``TurnReader.moved_where_men_stood``), never ruled legal.
    #: False: not checked (the reader before issue 44, for comparing)
    unmoved_check: bool = True
    #: ... where a point that held men counts as changed clearly when more than this share of its strip changed,
    #: along its row of men: a die thrown onto men changes that much rarely (held-out-test seed 18065, 600
    #: turns: a point no man moved on changed so in 7 turns at 0.2, 54 at ``moved_share``, 0.1), a man come or
    #: gone there in 134 of 557; the bar (``bar_moved_share``) tells a man gone from it cleanly (0 of 293 turns
    #: whose bar held the same men changed by more than 0.05, none of 307 where it did by less than 0.26)
    unmoved_point_share: float = 0.2

    def reader_error(self, p: float) -> float:
        """The point reader's error rate where it reads a point whose picture changed at tempered probability
        *p*: the bound of ``point_errors``' bin *p* falls in (1.0 below its lowest), or 1 - *p* without it.

        >>> TurnConfig().reader_error(0.995)
        0.0050000000000000044
        >>> TurnConfig(point_errors=((0.9, 0.03), (0.97, 0.004))).reader_error(0.98)
        0.004
        >>> TurnConfig(point_errors=((0.9, 0.03), (0.97, 0.004))).reader_error(0.8)
        1.0
        """
        if not self.point_errors:
            return 1.0 - p
        bound = 1.0
        for lowest, error in self.point_errors:
            if p >= lowest:
                bound = error
        return bound
