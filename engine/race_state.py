"""The race games' board as the player on roll sees it: a 54-tuple of his
men and his opponent's, one man's step on it, and the way between it and a
:class:`~willughby.engine.position.Position`.

``s[0]`` is his men borne off, ``s[1..24]`` his men on his own points,
``s[25]`` on the bar (:data:`BAR`), ``s[26]`` waiting to enter
(:data:`WAITING`); ``s[27 + j]`` the same for the opponent in the
opponent's own numbering (so the opponent's men on my point *k* are
``s[52 - k]``, :func:`their`). Flipping the halves gives the opponent's
view. The move generator (``moves.py``), the notation (``notation.py``)
and the referee (``referee.py``) all read the board this way.

>>> from willughby.engine.position import Position
>>> s = to_state(Position.from_gnubg_id("4HPwATDgc/ABMA"), "light")
>>> s[6], s[BAR], s[their(19)]
(5, 0, 5)
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from .errors import InvalidBoardError
from .position import DARK, LIGHT, Position, colour_index, other

__all__ = ["OFF", "BAR", "WAITING", "OPP", "OPP_BAR", "HOME", "BEYOND_HOME", "ENTRY", "TOP", "their", "landing",
           "rank", "Step", "STEPS", "to_state", "from_state", "apply_step"]

# The slots of the mover's 54-tuple (see the module docstring).
OFF = 0            # his men borne off
BAR = 25           # his men on the bar
WAITING = 26       # his men waiting to enter
OPP = 27           # the opponent's half starts here, laid out alike
OPP_BAR = OPP + BAR
HOME = slice(1, 7)            # his own points 1..6
BEYOND_HOME = slice(7, 27)    # his points 7..24, the bar and men waiting
#: the point a man entering (from the bar or waiting) counts from: a die of n enters him on point 25 - n,
#: the opponent's home table
ENTRY = 25
#: the rank of the bar (see :func:`rank`), above men waiting to enter and every point
TOP = 27


def their(point: int) -> int:
    """The slot of the opponent's men on the mover's own *point* (1..24)."""
    return OPP + 25 - point


def landing(src: int, die: int) -> int:
    """The own point a man on *src* reaches with *die*; 0 where he is borne off.

    >>> landing(6, 4), landing(BAR, 4), landing(3, 5)
    (2, 21, 0)
    """
    dst = (ENTRY if src >= BAR else src) - die
    return dst if dst > 0 else 0


def rank(src: int) -> int:
    """A source's place in the order men are taken: the bar first (:data:`TOP`:
    it must be entered before anything moves), then men waiting to enter
    (:data:`WAITING`), then the points from the highest down."""
    return TOP if src == BAR else src


class Step(NamedTuple):
    """One man moved by one die, in the mover's own numbering.

    ``src`` :data:`BAR` is the bar and :data:`WAITING` a man waiting to
    enter; ``dst`` 0 is off (:data:`OFF`).  The move generator takes its
    steps ready made from :data:`STEPS`.
    """

    src: int
    dst: int
    die: int
    hit: bool = False

    @property
    def enters(self) -> bool:
        """Whether the man comes from the bar or from those waiting to enter."""
        return self.src >= BAR

    @property
    def bears_off(self) -> bool:
        """Whether the man is borne off."""
        return self.dst == OFF

    @property
    def overshoots(self) -> bool:
        """Whether a man borne off had fewer points to go than the die shows."""
        return self.dst == OFF and (ENTRY if self.src >= BAR else self.src) < self.die


#: every step there can be, made once: ``STEPS[die][src]`` is the pair (the step of a man on *src*
#: moved by *die*, the same step hitting), so the move generator looks its steps up instead of making
#: tens of thousands (a named tuple is made several times slower than a bare one)
STEPS: tuple[tuple[tuple[Step, Step], ...], ...] = tuple(
    tuple((Step(src, landing(src, die), die), Step(src, landing(src, die), die, True)) for src in range(WAITING + 1))
    for die in range(7))


# ------------------------------------------------------------ perspective
def to_state(position: Position, colour: str) -> tuple[int, ...]:
    """The 54-tuple of *position* seen by *colour* (see the module docstring)."""
    def half(c: str) -> list[int]:
        i = colour_index(c)
        pts = position.points(c)
        own = pts if c == LIGHT else pts[::-1]
        return [position.off[i], *own, position.bar[i], position.waiting[i]]
    return tuple(half(colour) + half(other(colour)))


def from_state(state: Sequence[int], colour: str, template: Position, turn: str | None) -> Position:
    """The :class:`Position` of *state* seen by *colour*; piles and phase from *template*."""
    mine, theirs = state[:OPP], state[OPP:]
    by_colour = {colour: mine, other(colour): theirs}
    lt, dk = by_colour[LIGHT], by_colour[DARK]
    if any(lt[k] and dk[25 - k] for k in range(1, 25)):
        bad = next(k for k in range(1, 25) if lt[k] and dk[25 - k])
        raise InvalidBoardError(f"point {bad} holds men of both colours "
                                f"({lt[bad]} light, {dk[25 - bad]} dark)")
    return Position._trusted(
        tuple(lt[1:25]), tuple(dk[24:0:-1]),
        (lt[BAR], dk[BAR]), (lt[OFF], dk[OFF]), (lt[WAITING], dk[WAITING]),
        turn, template.stacked, template.phase,
    )



def apply_step(state: tuple[int, ...], step: Step) -> tuple[int, ...]:
    """The state after *step*, unchecked (``apply`` does not check; the referee does)."""
    new = list(state)
    new[step.src] -= 1
    if step.dst == 0:
        new[OFF] += 1
    else:
        if new[their(step.dst)] == 1:
            new[their(step.dst)] = 0
            new[OPP_BAR] += 1
        new[step.dst] += 1
    return tuple(new)
