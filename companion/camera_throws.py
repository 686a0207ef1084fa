"""Throws read by the camera from the players' own dice.

Most tables have ordinary dice, not a box. The dice thrown into the table
lie still before the man moves, and the camera that reads the men sees them
in the same settled frames (``vision/dice_reader.py``). :class:`CameraThrows`
is handed the dice of each settled frame, before the frame's board is
judged, and gives the companion the throw where the frame shows one:

- the game must be waiting for a throw, and the frame must show as many dice
  as the game throws (two, or three), every one read surely: a die cocked or
  unreadable is not guessed, the players are told to enter the throw or
  throw again;
- the throw must be new: the dice were picked up since the throw in play
  was made (a settled frame with none of them), or lie in new places (the
  same faces in new places are a new throw; dice that never moved are not).
  The throw in play is known however it was made (the camera, the page, the
  box, the roll for the start): the dice are read while it is played too,
  so that where they lie then is not taken for the next player's throw.
  Dice already lying when the camera starts (a restart in the middle of a
  game) may be a throw made before: they are not taken until picked up or
  thrown anew, and the players are told;
- where the throw and the move land in one settled frame, the throw is taken
  first and the move is judged against it (the watcher hands the dice before
  the board);
- the referee learns the board it watches: a place the reader takes for a
  die that lies still through ``FIXTURE_TURNS`` turns (a man's dimple read as
  a one, a mark on the board, a watermark) is no thrown die, and is passed
  over from then on, so that it no longer stands in the way of the throw.

A throw taken from the camera is announced as thrown, like any other, and
the players correct it with UNDO and the page. The referee never rules a
turn illegal on the camera's dice alone: a board no play of the throw read
leads to is asked about (``judging.py``). Where the dice box is the source,
its dice win: the camera's reading is only compared with them, and a
difference logged (``compare_only``).

>>> class Game:
...     def __init__(self): self.entered = []
...     def state(self): return {"phase": "throw", "dice_wanted": 2, "dice": None}
...     def enter_dice(self, dice, who, ident): self.entered.append((dice, who))
...     def notice(self, text): pass
>>> from willughby.vision.dice_reader import SeenDie
>>> game = Game(); throws = CameraThrows(game)
>>> throws.on_dice([])               # a settled frame with no dice on the board
>>> throws.on_dice([SeenDie(3, (100.0, 100.0), 20.0, 0.99), SeenDie(5, (140.0, 90.0), 20.0, 0.99)])
>>> throws.on_dice([SeenDie(3, (100.0, 100.0), 20.0, 0.99), SeenDie(5, (140.0, 90.0), 20.0, 0.99)])
>>> game.entered                     # the dice that never moved are the same throw
[([3, 5], 'camera')]
"""

from __future__ import annotations

import logging
import math
import secrets
from typing import Any, Mapping, Protocol, Sequence

from .errors import CompanionError, NotNowError

__all__ = ["CameraThrows", "SeesDice"]

log = logging.getLogger(__name__)

#: turns a place taken for a die must lie still through to be known as part of the board, not a die
FIXTURE_TURNS = 3
#: how near (in sides of the die) a report must lie to a place seen before to be the same place
SAME_PLACE = 0.25


class SeenDieLike(Protocol):
    """A die the camera saw (``vision.dice_reader.SeenDie``)."""

    @property
    def value(self) -> int | None: ...

    @property
    def center(self) -> tuple[float, float]: ...

    @property
    def side(self) -> float: ...


class SeesDice(Protocol):
    """What the camera's throws ask of the companion."""

    def state(self) -> Mapping[str, Any]: ...

    def enter_dice(self, dice: Sequence[int], who: str, ident: str | None) -> Any: ...

    def notice(self, text: str) -> None: ...


class CameraThrows:
    """The throws the camera reads (see the module docstring)."""

    def __init__(self, game: SeesDice, compare_only: bool = False) -> None:
        self._game = game
        self.compare_only = compare_only
        #: where the dice of the throw in play lay, however it was made (the camera, the page, the box, the
        #: roll for the start): None until the first settled frame read, since what lies on the board when the
        #: camera starts may be a throw made before (a restart), which it cannot tell from one made since
        #: ([] where a settled frame showed no dice since: they were picked up)
        self._last: list[tuple[float, float, float]] | None = None
        self._unread_at: list[tuple[float, float, float]] | None = None   # dice the players were told of
        self._count = 0
        # each throw's ident names this run too: the store remembers the idents taken, across restarts
        self._session = secrets.randbits(32)
        #: what the camera read of the last throw it saw (compared with the box's, where the box throws)
        self.last_read: list[int] | None = None
        #: places taken for a die, each (x, y, side) with the turns it was seen in, lying still
        self._stays: list[tuple[float, float, float, set[Any]]] = []

    @property
    def fixtures(self) -> list[tuple[float, float]]:
        """The places learnt to be part of the board, not dice (see the module docstring)."""
        return [(x, y) for x, y, _, turns in self._stays if len(turns) >= FIXTURE_TURNS]

    def _passed_over(self, seen: Sequence[SeenDieLike], turn: Any) -> list[SeenDieLike]:
        """*seen* less the places known to be the board's own; each place's stay counted for *turn*."""
        out = []
        for d in seen:
            x, y = d.center
            stay = next((st for st in self._stays
                         if math.hypot(x - st[0], y - st[1]) <= SAME_PLACE * max(d.side, st[2])), None)
            if stay is None:
                self._stays.append((x, y, d.side, {turn}))
                del self._stays[:-64]                         # the newest places are enough to learn from
                out.append(d)
                continue
            if turn not in stay[3] and len(stay[3]) + 1 == FIXTURE_TURNS:
                log.info("the place (%.0f, %.0f) taken for a die has lain still through %d turns: the board's "
                         "own, passed over from now on", stay[0], stay[1], FIXTURE_TURNS)
            stay[3].add(turn)
            if len(stay[3]) < FIXTURE_TURNS:
                out.append(d)
        return out

    def wanted(self) -> bool:
        """Whether the next settled frame's dice are wanted: while a throw is awaited, and while it is played
        (to see where the dice of the throw in play lie, however it was made, so that they are not taken for
        the next player's throw); with the box throwing, always, to compare. Reading the dice costs a frame
        some 14 ms on one core, more on a board whose men the reader takes for dice by the dozen
        (``docs/dice-reader.md``), so the watcher asks first."""
        return self.compare_only or self._game.state().get("phase") in ("throw", "move")

    def on_dice(self, seen: Sequence[SeenDieLike]) -> None:
        """The dice of a settled frame, before its board is judged."""
        state = self._game.state()
        seen = self._passed_over(seen, state.get("turn_number"))
        if not seen:
            self._last = []                                 # picked up: any dice seen next are a new throw
            self._unread_at = None
            return
        places = [(d.center[0], d.center[1], d.side) for d in seen]
        wanted = int(state.get("dice_wanted") or 2)
        throwing = state.get("phase") == "throw" and not self.compare_only
        if self._last is None:
            # the first dice seen since the camera started: a throw made before (and played, perhaps) or one
            # made since, the camera cannot tell; they are not taken, but a throw is once they are picked up
            # or lie anew
            self._taken(places)
            if throwing and len(seen) == wanted:
                self._game.notice("the camera does not know whether the dice on the board were thrown since it "
                                  "started: throw again, or enter the throw on the page")
            return
        if not self._moved(places, self._last):
            return                                          # the dice of the throw in play, lying still
        if not self.compare_only and state.get("phase") != "throw":
            # the dice of the throw in play (entered on the page, thrown by the box for the start, or taken
            # by the camera) where they now lie: not the next player's throw
            self._taken(places)
            return
        if len(seen) != wanted:
            return                                          # a die still rolling, or one off the board
        values = [d.value for d in seen]
        if self.compare_only:
            if self._compare(values, state):
                self._taken(places)
            return
        if any(v is None for v in values):
            if self._unread_at is None or self._moved(places, self._unread_at):
                self._game.notice("the camera cannot read the dice (one is cocked, covered or blurred): "
                                  "throw again, or enter the throw on the page")
                self._unread_at = places
            return
        read = [int(v) for v in values if v is not None]
        self._count += 1
        try:
            self._game.enter_dice(read, who="camera", ident=f"camera-{self._session:08x}-{self._count}")
        except (CompanionError, NotNowError) as exc:
            # the game moved on since its state was read (a throw entered on the page meanwhile): the frame's
            # board is still judged, against the throw the game holds
            log.info("the camera's throw %s not taken: %s", read, exc)
            return
        self.last_read = read
        self._taken(places)

    def _taken(self, places: list[tuple[float, float, float]]) -> None:
        """The dice lying at *places* are the throw in play's."""
        self._last = places
        self._unread_at = None

    @staticmethod
    def _moved(places: list[tuple[float, float, float]], before: list[tuple[float, float, float]]) -> bool:
        """Whether any die lies away from every die *before* (by half a die or more), or their number differs."""
        if len(places) != len(before):
            return True
        return any(min(math.hypot(x - lx, y - ly) for lx, ly, _ in before) > 0.5 * side
                   for x, y, side in places)

    def _compare(self, values: list[int | None], state: Mapping[str, Any]) -> bool:
        """With the box throwing: what the camera read, beside the box's throw (logged where they differ);
        False where the box has not thrown yet (its throw still on its way: a later frame compares)."""
        self.last_read = [int(v) for v in values if v is not None]
        thrown = state.get("dice")
        if not thrown:
            return False
        if sorted(self.last_read) != sorted(int(d) for d in thrown):
            log.info("the camera read the dice %s where the box threw %s", values, list(thrown))
        return True
