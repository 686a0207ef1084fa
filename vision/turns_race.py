"""The turn reader in the race games (backgammon and its kin): a turn weighed by the men on the points.

``TurnReader`` (``vision/turns.py``) holds the points whose pictures did not
change to what they held and weighs the others' readings; this module then
weighs, for a race game, each legal result of the throw, an *illegal turn*
(every board no legal play leads to that leaves each side as many men on
the points as some legal play does: men are neither made nor lost) by the
picture's whole weight on all of them, and a *misread* (a board with other
numbers of men, which no player makes and a reading does): :class:`MenWeights`,
made by :func:`men_weights`, and says why an illegal-looking turn is not
ruled where it is not (:meth:`MenWeights.why_not_illegal`).

Vision never learns the rules: the candidates (the legal results of the
throw) come from the engine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .classes import (CLASS_MEN, CLASSES, MOST_MEN, POINTS, board_classes, dark_men, light_men, point_class,
                      side_classes)

if TYPE_CHECKING:
    from .turns import Candidate, TurnConfig

__all__ = ["MenWeights", "men_weights", "mover_of", "describe_difference"]


_SIDE_MEN = MOST_MEN + 1                     # 0..15 men of a side on the points
_OPTIONS = 6                                 # the most readings of a point the search for the board seen tries
_LIGHT_N = light_men(np.arange(CLASSES))     # the light men of each class ...
_DARK_N = dark_men(np.arange(CLASSES))       # ... and the dark
_APART = np.subtract.outer(np.arange(_SIDE_MEN), np.arange(_SIDE_MEN))       # i - j
_STEP = (_APART >= 1) & (_APART <= MOST_MEN)


def _men_on_points(classes: np.ndarray) -> tuple[int, int]:
    """How many light and dark men a board's classes put on the points."""
    return int(_LIGHT_N[classes].sum()), int(_DARK_N[classes].sum())


@dataclass
class MenWeights:
    """What the picture says of a race game's turn, before any threshold.

    An illegal turn leaves each side as many men on the points as some legal
    play does: men are neither made nor lost, and a wrong move (a man a pip
    too far or short, a blot left standing, a man moved that may not move)
    hits, enters and bears off no more than a legal one.  A board with other
    numbers of men is what a misread count shows (a man hidden in a tall
    stack or under a die, a die read as men), not what a player can do.  So
    three kinds of hypothesis are weighed: each legal result; another board
    with a legal play's men on the points (an illegal turn), by the
    picture's whole weight on all of them; and, where the legal plays
    differ, the best board with other numbers of men (a misread).

    A turn is ruled illegal on those of them a wrong move of the mover's own
    men may leave (the opponent's men move only when hit: "that man is
    taken", land.hit): a point the opponent held with two men or more as it
    stood, a blot standing or hit where the mover's man stands or where a
    legal play hits it (a man moved on beyond it), and only where the
    mover's men are not where a legal play leaves them.  An opponent's man
    that looks gone while the mover's men stand as a legal play leaves them
    is a man hidden (a die thrown on him), far likelier than a wrong move."""

    #: each legal result's log-likelihood (its bar weighed)
    cand_ll: np.ndarray
    #: the log of the picture's weight on all the boards no play leads to with a legal play's men on the points ...
    illegal_ll: float
    #: ... and on those of them where the opponent's men stood still but for blots hit (an illegal turn's)
    ruled_ll: float
    #: where the legal plays differ, the likeliest board with other numbers of men on the points there, and its
    #: log-likelihood (None, -inf: none)
    misread: np.ndarray | None
    misread_ll: float
    #: the points whose picture did not change since the frame before (they keep their men)
    keep: np.ndarray
    #: for each point, the classes a wrong move of the mover's men may leave there (None: any)
    allowed: np.ndarray | None = None
    #: the likeliest board an illegal turn may leave (:meth:`find_seen`) ...
    seen: np.ndarray | None = None
    seen_ll: float = -math.inf
    #: ... the legal result nearest it (fewest points apart, then the likelier), and the one with its men on
    #: the points nearest it (whose bar and men off are the seen board's)
    near: int = 0
    like: int = 0
    #: the most probability the picture gives any legal result at the surest point whose picture changed where
    #: it differs from the board seen
    refute: float = 1.0
    #: a legal result that differs from the seen board only where the picture did not change, if any
    unmoved: int | None = None
    #: whose turn it is, where known
    mover: str | None = None
    #: the point reader's own probabilities (before the frame before weighs them), where they are known
    reader: np.ndarray | None = None
    #: the board before's classes, where known, and the legal results' ((N, 24))
    known: np.ndarray | None = None
    stack: np.ndarray | None = None
    #: the points' log-probabilities weighed (the frame before's evidence in them)
    logp: np.ndarray | None = None
    #: a legal result that leaves the mover's men as the seen board has them (only the opponent's differ)
    same_mover: int | None = None
    #: the point reader's own probability (tempered, before the frame before weighs it) of the board seen at
    #: the surest point whose picture changed where the legal result least refuted so differs from it: every
    #: legal play is refuted by the reader itself at some point read at least this surely (0.0: one differs from
    #: the board seen only where the picture did not change, or the reader's own probabilities are not at hand)
    sure_p: float = 0.0

    def posterior(self, cfg: TurnConfig) -> tuple[np.ndarray, float, float]:
        """Each legal result's posterior, an illegal turn's and a misread's. Before the picture, an
        illegal turn is ``prior_illegal`` likely, spread over ``illegal_boards`` boards a legal play (each
        legal result as likely as any other); a misread is ``prior_illegal`` / ``other_boards``."""
        n = len(self.cand_ll)
        scores = np.append(self.cand_ll + math.log((1 - cfg.prior_illegal) / n),
                           [self.illegal_ll + math.log(cfg.prior_illegal / (cfg.illegal_boards * n)),
                            self.misread_ll + math.log(cfg.prior_illegal / cfg.other_boards)])
        post = np.exp(scores - scores.max())
        post /= post.sum()
        return post[:n], float(post[n]), float(post[n + 1])

    def p_ruled(self, cfg: TurnConfig) -> float:
        """The posterior of an illegal turn among the boards it may leave, against the legal plays."""
        legal = float(np.logaddexp.reduce(self.cand_ll)) + math.log(1 - cfg.prior_illegal)
        wrong = self.ruled_ll + math.log(cfg.prior_illegal / cfg.illegal_boards)
        return 1.0 / (1.0 + math.exp(min(700.0, legal - wrong))) if wrong > -math.inf else 0.0

    def holds(self, logp: np.ndarray, classes: np.ndarray, least: float) -> bool:
        """Whether the picture gives *classes* at least *least* at every point whose picture changed."""
        changed = ~self.keep
        return not changed.any() or float(np.exp(logp[np.flatnonzero(changed), classes[changed]]).min()) >= least

    def find_seen(self, logp: np.ndarray, cand_classes: np.ndarray, cand_ll: np.ndarray, window: float) -> None:
        """Find the likeliest board an illegal turn may leave (each point's reading within *window* nats of
        its best), and how it stands to the legal results (*cand_classes*, (N, 24))."""
        stack = np.asarray(cand_classes, np.int64).reshape(-1, POINTS)
        taken = {row.tobytes() for row in stack}
        light, dark = _LIGHT_N[stack].sum(axis=1), _DARK_N[stack].sum(axis=1)
        totals = set(zip(light.tolist(), dark.tolist()))
        allowed = logp if self.allowed is None else np.where(self.allowed, logp, -math.inf)
        found = _best_boards(allowed, ~self.keep, window, min(len(taken) + 1, 6), totals)
        hit = next(((ll, cls) for ll, cls in found if cls.astype(np.int64).tobytes() not in taken), None)
        if hit is None:
            return
        self.seen_ll, self.seen = hit
        apart = stack != self.seen                                   # (N, 24): where each legal result differs
        order = np.lexsort((-np.asarray(cand_ll), apart.sum(axis=1)))
        self.near = int(order[0])
        t = _men_on_points(self.seen)
        same = (light == t[0]) & (dark == t[1])
        self.like = int(next(i for i in order if same[i]))
        prob = np.exp(logp)
        given = prob[np.arange(POINTS), stack]                       # what the picture gives each legal result
        # each legal result refuted where the picture changed: the absence of a change is no ground for ruling
        # (a man laid on a tall stack, or taken off it, may change its picture too little to show)
        self.refute = float(np.where(apart & ~self.keep, given, 1.0).min(axis=1).max())
        if self.reader is not None:
            # the reader's own reading, not the one the frame before weighed: where the change or the places
            # along a strip alone make a point "sure", the reader may still read it otherwise (a man taken from
            # a point of its colour changes it little; the places' model is learnt from no board)
            sure = self.reader[np.arange(POINTS), self.seen]
            self.sure_p = float(np.where(apart & ~self.keep, sure[None, :], 0.0).max(axis=1).min())
        unmoved = np.flatnonzero(~(apart & ~self.keep).any(axis=1))
        self.unmoved = int(unmoved[0]) if len(unmoved) else None
        mine = _mover_mask(stack, self.mover)
        same_men = np.flatnonzero((np.where(mine, stack, 0) == np.where(_mover_mask(self.seen, self.mover),
                                                                         self.seen, 0)).all(axis=1))
        self.same_mover = int(same_men[0]) if len(same_men) else None

    def why_not_illegal(self, cfg: TurnConfig) -> str | None:
        """None where the turn is ruled illegal (:meth:`find_seen` first); else why not, in words ("" where
        the picture fits a legal play)."""
        p = self.p_ruled(cfg)
        if p < cfg.wrong_move_min:
            return ("the picture fits no legal play well, but not surely enough to rule the turn illegal"
                    if p >= 0.5 else "")
        if self.seen is None:
            return "no legal play fits, but no one board a wrong move leaves is read well enough to rule"
        if self.unmoved is not None:
            # the absence of a change is no ground for ruling: men of nearly the board's colour moved may not show
            return "a legal play ({play}) moves men only where the picture did not change"
        if self.same_mover is not None:
            # the turn is the mover's: his men stand as a legal play leaves them, and an opponent's man that
            # looks gone is likelier hidden (a die, a hand's shadow) or knocked than played
            return "the mover's men stand as a legal play ({play}) leaves them; only the opponent's look different"
        if self.refute > cfg.illegal_refute:
            return "no legal play fits, but not every one is refuted by a point read surely"
        if cfg.illegal_reader_error is not None and cfg.reader_error(self.sure_p) > cfg.illegal_reader_error:
            # a wrong ruling is worse than a question: every legal play must differ from the board seen at a
            # point whose picture changed that the point reader itself reads as the board seen has it, beyond
            # what its calibration says it may be wrong by there
            return (f"no legal play fits, but the camera itself is not sure of the board seen where some legal "
                    f"play differs (read at {self.sure_p:.3g} at its surest point, where it errs up to "
                    f"{cfg.reader_error(self.sure_p):.2%})")
        doubt = self.known_doubt()
        if doubt is not None and not self.keep.any():
            # without the frame before nothing is known of the points to check the reader on: the board seen
            # must itself be read surely at every point (as the games of piles rule)
            worst, _, point = doubt
            if worst < cfg.alone_point_min:
                return (f"no legal play fits, but without the frame before every point must be read surely to "
                        f"rule (point {point} at {worst:.2g})")
        elif doubt is not None:
            worst, total, point = doubt
            if worst < cfg.known_point_min or total > cfg.known_doubt_max:
                # the reader is checked where the referee knows the board: where it misreads those points it
                # may as surely misread the others (men of the board's colour, a light it never saw)
                return (f"no legal play fits, but the camera misreads points it knows (point {point} at "
                        f"{worst:.2g}): not trusted to rule the turn illegal")
        if self.misread_near_seen(cfg) >= cfg.misread_max:
            return "no legal play fits, but a misread count (men made or lost) fits the picture better"
        return None

    def misread_near_seen(self, cfg: TurnConfig) -> float:
        """The posterior of a misread (:meth:`posterior`) where it is looked for also at the points where
        the board seen differs from a legal play: the picture's best reading there, the seen board's
        elsewhere, where that has other numbers of men than every legal play."""
        if self.seen is None or self.logp is None or self.stack is None:
            return self.posterior(cfg)[2]
        where = (self.stack != self.stack[0]).any(axis=0) | (self.stack != self.seen).any(axis=0)
        best = self.seen.copy()
        best[where] = np.argmax(self.logp[where], axis=1)
        light, dark = _LIGHT_N[self.stack].sum(axis=1), _DARK_N[self.stack].sum(axis=1)
        t = _men_on_points(best)
        if ((light == t[0]) & (dark == t[1])).any():
            return self.posterior(cfg)[2]
        ll = float(self.logp[np.arange(POINTS), best].sum())
        return replace(self, misread=best, misread_ll=max(ll, self.misread_ll)).posterior(cfg)[2]

    def one_man_off(self, classes: np.ndarray) -> tuple[float, str]:
        """How well the picture tells the board *classes* (a legal result) from the boards with one of the
        mover's men more or fewer on a point whose picture changed: a man a legal play bears off left a pip
        short, a man borne off that may not be, a man not entered.  Such a wrong turn leaves other numbers of
        men on the points than every legal play, which the illegal turn's boards never do (a man moved wrongly
        from point to point is one of those, weighed there).  Returns the log of the likeliest such board's
        likelihood over the legal result's (-inf: none) and, in words, where it differs."""
        if self.logp is None:
            return -math.inf, ""
        logp, free = self.logp, ~self.keep
        rows = np.arange(POINTS)
        best, where = -math.inf, ""
        for side in ([self.mover] if self.mover in ("light", "dark") else ["light", "dark"]):
            own = side_classes(side)
            mine = (classes >= own.start) & (classes < own.stop)
            n = np.where(mine, CLASS_MEN[classes], np.where(classes == 0, 0, -1))      # -1: the opponent's point
            here = logp[rows, classes]
            for step, word in ((1, "more"), (-1, "fewer")):
                m = n + step
                ok = free & (n >= 0) & (m >= 0) & (m <= MOST_MEN)
                other = np.array([point_class(side, int(k)) if o else 0 for k, o in zip(m, ok)])
                gain = np.where(ok, logp[rows, other] - here, -math.inf)
                q = int(np.argmax(gain))
                if float(gain[q]) > best:
                    best, where = float(gain[q]), f"a {side} man {word} on point {q + 1}"
        return best, where

    def known_doubt(self) -> tuple[float, float, int] | None:
        """How the point reader reads the points whose men the referee knows, the points whose picture did
        not change since the frame before (without it, every point, as the board seen has it): the least
        probability it gives what one holds, the sum of the negative logs, and the point (1..24) of the least;
        None where the seen board is not found yet or the reader's own probabilities are not at hand."""
        if self.reader is None or self.known is None or self.seen is None:
            return None
        if self.keep.any():
            points, truth = self.keep, self.known
        else:
            # without the frame before nothing is known of the points: the board seen itself must be read surely
            points, truth = np.ones(POINTS, bool), self.seen
        given = self.reader[np.flatnonzero(points), truth[points]]
        worst = int(np.argmin(given))
        return (float(given[worst]), float(-np.log(np.maximum(given, 1e-300)).sum()),
                int(np.flatnonzero(points)[worst]) + 1)


def mover_of(before: Mapping[str, Any] | None, candidates: Sequence[Candidate]) -> str | None:
    """Whose turn it is: the board before's ``turn``, else the side whose men some legal play puts on a
    point that had fewer of them (None where no play moves a man)."""
    turn = (before or {}).get("turn")
    if turn in ("light", "dark"):
        return str(turn)
    if before is not None:
        for c in candidates:
            for side in ("light", "dark"):
                if any(int(a) > int(b) for a, b in zip(c.board[side], before[side])):
                    return side
    return None


def _allowed(before: Mapping[str, Any], mover: str, cand_classes: np.ndarray) -> np.ndarray:
    """For each point, the classes a wrong move of *mover*'s men may leave there: a point the opponent
    holds with two men or more as it stood; elsewhere any number of the mover's men, and the opponent's
    blot, if he had one, standing or hit: by the mover's man standing on it, or in passing (a man moved on
    beyond it) where a legal play hits it."""
    opponent = "dark" if mover == "light" else "light"
    own = np.arange(CLASSES)[side_classes(mover)]
    out = np.zeros((POINTS, CLASSES), bool)
    for q in range(POINTS):
        theirs = int(before[opponent][q])
        if theirs:
            was = point_class(opponent, theirs)
            out[q, was] = True
        if theirs <= 1:
            out[q, own] = True
            out[q, 0] = theirs == 0 or bool((cand_classes[:, q] != was).any())
    return out


def _mover_mask(classes: np.ndarray, mover: str | None) -> np.ndarray:
    """Where classes are the mover's men (all men, where the mover is not known)."""
    if mover is None:
        return classes > 0
    own = side_classes(mover)
    mask: np.ndarray = (classes >= own.start) & (classes < own.stop)
    return mask


def men_weights(logp: np.ndarray, keep: np.ndarray, cand_classes: np.ndarray, cand_ll: np.ndarray,
                bar_terms: Sequence[float], mover: str | None = None, before: Mapping[str, Any] | None = None,
                reader: np.ndarray | None = None) -> MenWeights:
    """The weights of a race game's turn (:class:`MenWeights`, less the seen board): *logp* the points'
    log-probabilities (those in *keep* held to the board before), *cand_classes* the legal results'
    classes ((N, 24)), *cand_ll* their log-likelihoods with their bar's term *bar_terms*; *mover* and
    *before* say what a wrong move may leave (without them, any board); *reader* the point reader's own
    probabilities, which the points the referee knows check."""
    stack = np.asarray(cand_classes, np.int64).reshape(-1, POINTS)
    rows = np.arange(POINTS)
    free = ~np.asarray(keep, bool)
    fixed = np.argmax(logp, axis=1)
    light, dark = _LIGHT_N[stack].sum(axis=1), _DARK_N[stack].sum(axis=1)
    # the bar follows from the points and the men off: each number of men on the points is weighed with the
    # best bar of the legal results that leave it
    state_bar: dict[tuple[int, int], float] = {}
    for t, b in zip(zip(light.tolist(), dark.tolist()), bar_terms):
        state_bar[t] = max(state_bar.get(t, -math.inf), float(b))
    # the legal results among the boards weighed (those that hold the unchanged points' men), each once
    inside = np.unique(stack[~(stack[:, ~free] != fixed[~free]).any(axis=1)], axis=0)
    with np.errstate(divide="ignore"):
        legal = float(np.logaddexp.reduce(
            logp[rows, inside].sum(axis=1)
            + np.array([state_bar[(int(x), int(y))] for x, y in zip(_LIGHT_N[inside].sum(axis=1),
                                                                    _DARK_N[inside].sum(axis=1))]))) \
            if len(inside) else -math.inf

    def weight_of_others(lp: np.ndarray) -> float:
        mass, scale = _men_mass(lp, free, fixed)
        with np.errstate(divide="ignore"):
            whole = float(np.logaddexp.reduce([math.log(mass[t]) + scale + b if mass[t] > 0 else -math.inf
                                               for t, b in state_bar.items()]))
        rest = -math.expm1(legal - whole) if whole > -math.inf else 0.0
        return whole + math.log(rest) if rest > 1e-9 else -math.inf

    illegal_ll = weight_of_others(logp)
    allowed = _allowed(before, mover, stack) if mover is not None and before is not None else None
    ruled_ll = illegal_ll
    if allowed is not None:
        # (the points held to the board before hold what the opponent had there: allowed)
        ruled_ll = weight_of_others(np.where(allowed | ~free[:, None], logp, -np.inf))
    # a misread, where the legal plays differ: their common reading elsewhere, the picture's best there
    disputed = (stack != stack[0]).any(axis=0)
    misread, misread_ll = None, -math.inf
    if disputed.any():
        best = stack[0].copy()
        best[disputed] = np.argmax(logp[disputed], axis=1)
        if _men_on_points(best) not in state_bar:
            misread, misread_ll = best, float(logp[rows, best].sum())
    return MenWeights(np.asarray(cand_ll, np.float64), illegal_ll, ruled_ll, misread, misread_ll,
                      np.asarray(keep, bool), allowed, mover=mover, reader=reader,
                      known=board_classes(before) if before is not None else None, stack=stack, logp=logp)


def _men_mass(logp: np.ndarray, free: np.ndarray, fixed: np.ndarray) -> tuple[np.ndarray, float]:
    """The picture's weight on every board that holds the *fixed* classes at
    the points not *free*, by how many men of each side it puts on the
    points: a (16, 16) array [light, dark] and a log scale, so that
    ``log(mass[l, d]) + scale`` is the log of the sum, over those boards with
    l light and d dark men on the points, of the product of their points'
    probabilities.  Point by point, adding a point's n light men (dark men)
    shifts the light (dark) axis by n: a matrix product each."""
    rows = np.flatnonzero(free)
    held = np.flatnonzero(~free)
    state = np.zeros((_SIDE_MEN, _SIDE_MEN))
    l0, d0 = _men_on_points(fixed[held])
    if l0 >= _SIDE_MEN or d0 >= _SIDE_MEN:
        return state, 0.0
    state[l0, d0] = 1.0
    scale = float(logp[held, fixed[held]].sum())
    if not len(rows):
        return state, scale
    sub = logp[rows]
    top = sub.max(axis=1)
    lin = np.exp(sub - top[:, None])
    scale += float(top.sum())
    light = np.where(_STEP, lin[:, np.clip(_APART, 0, MOST_MEN)], 0.0)          # light[p, i, j] = lin[p, i - j]
    dark = np.where(_STEP, lin[:, np.clip(_APART + MOST_MEN, 0, CLASSES - 1)], 0.0)
    for q in range(len(rows)):
        state = lin[q, 0] * state + light[q] @ state + state @ dark[q].T
        m = float(state.max())
        state /= m
        scale += math.log(m)
    return state, scale


def _best_boards(logp: np.ndarray, free: np.ndarray, window: float, keep: int,
                 targets: set[tuple[int, int]]) -> list[tuple[float, np.ndarray]]:
    """The *keep* likeliest boards with a number of men on the points in
    *targets*, likeliest first, as (log-likelihood, classes): each point not
    *free* holds its likeliest class, each free one a class within *window*
    nats of it.  A Viterbi search over the free points that keeps the best
    few boards for each number of light and dark men so far."""
    neg = -math.inf
    rows = np.flatnonzero(free)
    fixed = np.argmax(logp, axis=1)
    held = np.flatnonzero(~free)
    l0, d0 = _men_on_points(fixed[held])
    base = float(logp[held, fixed[held]].sum())
    score = np.full((_SIDE_MEN, _SIDE_MEN, keep), neg)
    if l0 >= _SIDE_MEN or d0 >= _SIDE_MEN:
        return []
    score[l0, d0, 0] = base
    steps = []
    for p in rows:
        row = logp[p]
        options = np.flatnonzero(row >= row.max() - window)
        if len(options) > _OPTIONS:                  # a point read that loosely: its likeliest few
            options = np.sort(options[np.argpartition(-row[options], _OPTIONS - 1)[:_OPTIONS]])
        parts = np.full((len(options), _SIDE_MEN, _SIDE_MEN, keep), neg)
        for o, k in enumerate(options):
            dl, dd = int(_LIGHT_N[k]), int(_DARK_N[k])
            parts[o, dl:, dd:] = score[:_SIDE_MEN - dl, :_SIDE_MEN - dd] + row[k]
        flat = np.moveaxis(parts, 0, 2).reshape(_SIDE_MEN, _SIDE_MEN, -1)      # [l, d, option * keep + rank]
        if flat.shape[2] > keep:
            pick = np.argpartition(-flat, keep - 1, axis=2)[:, :, :keep]
            score = np.take_along_axis(flat, pick, axis=2)
        else:                                      # one reading only: the boards so far, each one further
            pick = None
            score = flat
        steps.append((p, options, pick))
    ends = sorted(((float(score[l, d, r]), l, d, r) for l, d in targets if l < _SIDE_MEN and d < _SIDE_MEN
                   for r in range(keep) if score[l, d, r] > neg), reverse=True)
    out = []
    for ll, l, d, r in ends[:keep]:
        cls = fixed.copy()
        for p, options, pick in reversed(steps):
            j = r if pick is None else int(pick[l, d, r])
            kind = int(options[j // keep])
            cls[p] = kind
            l, d, r = l - int(_LIGHT_N[kind]), d - int(_DARK_N[kind]), j % keep
        out.append((ll, cls))
    return out


def _class_text(k: int) -> str:
    n = int(CLASS_MEN[k])
    return "no man" if n == 0 else f"{n} {'light' if k <= MOST_MEN else 'dark'} m{'a' if n == 1 else 'e'}n"


def describe_difference(seen: np.ndarray, near: np.ndarray, play: str) -> str:
    """The points where the board seen is not the nearest legal play's, in words."""
    parts = [f"point {q + 1} holds {_class_text(int(seen[q]))} where {play} leaves {_class_text(int(near[q]))}"
             for q in np.flatnonzero(seen != near)]
    return "no legal play leads to the board seen: " + "; ".join(parts)
