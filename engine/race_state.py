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

from dataclasses import dataclass
from typing import Sequence

from .errors import InvalidBoardError
from .position import DARK, LIGHT, Position, colour_index, other

__all__ = ["OFF", "BAR", "WAITING", "OPP", "OPP_BAR", "HOME", "BEYOND_HOME", "their", "Step", "to_state",
           "from_state", "apply_step"]

# The slots of the mover's 54-tuple (see the module docstring).
OFF = 0            # his men borne off
BAR = 25           # his men on the bar
WAITING = 26       # his men waiting to enter
OPP = 27           # the opponent's half starts here, laid out alike
OPP_BAR = OPP + BAR
HOME = slice(1, 7)            # his own points 1..6
BEYOND_HOME = slice(7, 27)    # his points 7..24, the bar and men waiting


def their(point: int) -> int:
    """The slot of the opponent's men on the mover's own *point* (1..24)."""
    return OPP + 25 - point


@dataclass(frozen=True)
class Step:
    """One man moved by one die, in the mover's own numbering.

    ``src`` 25 is the bar and 26 a man waiting to enter; ``dst`` 0 is off.
    """

    src: int
    dst: int
    die: int
    hit: bool = False


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
