"""Sice-Ace's state: a :class:`Tally` of each player's men and the pool.

The counting game has no board: ``docs/board-document.md`` ("The tally")
gives its document, ``{"format": "tally/1", "men": [6, 6, 6], "pool": 0,
"turn": 0}``.  A tally is a frozen value with one compact text form
(docs/house-conventions.md, convention 1); :mod:`~willughby.engine.counting` reads throws on
it and :mod:`~willughby.engine.counting_game` plays whole games.

>>> t = Tally.start(3)
>>> Tally.from_id(t.id()) == t, t.to_doc()["men"]
(True, [6, 6, 6])
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .errors import InvalidBoardError

__all__ = ["Tally", "MEN_EACH", "MIN_PLAYERS", "MAX_PLAYERS", "TALLY_FORMAT"]

MEN_EACH = 6
"""Men each player takes ("Each player takes six pieces")."""
MIN_PLAYERS = 2
MAX_PLAYERS = 5
TALLY_FORMAT = "tally/1"

_ID_RE = re.compile(r"^(\d+(?:\.\d+){1,4}):(\d+):(\d+|-)$")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --------------------------------------------------------------------- tally
@dataclass(frozen=True)
class Tally:
    """Each player's men in play, in turn order, the pool, and whose throw it is.

    ``men[k]`` is player *k*'s count (player 0 throws first); ``pool`` the men
    in the pool in the middle; ``turn`` the index of the player to throw, or
    None (unknown, or the game is over).  Men borne off are not drawn: they are
    what is missing of six a player (:attr:`off`).  A player with no men is
    out.

    >>> t = Tally((6, 5, 0), pool=1, turn=1)
    >>> t.players, t.players_in, t.out, t.off
    (3, (0, 1), (2,), 6)
    >>> Tally.from_id(t.id()) == t
    True
    """

    men: tuple[int, ...]
    pool: int = 0
    turn: int | None = None

    def __post_init__(self) -> None:
        men = self.men
        if isinstance(men, (str, bytes)) or not isinstance(men, Sequence):
            raise InvalidBoardError(f"men must be a list of counts, one a player, not {men!r}")
        men = tuple(men)
        object.__setattr__(self, "men", men)
        if not MIN_PLAYERS <= len(men) <= MAX_PLAYERS:
            raise InvalidBoardError(
                f"men must list {MIN_PLAYERS} to {MAX_PLAYERS} players' counts, not {len(men)}: {list(men)}"
            )
        for k, n in enumerate(men):
            if not _is_int(n):
                raise InvalidBoardError(f"men[{k}] must be a whole number, not {n!r}")
            if n < 0:
                raise InvalidBoardError(f"men[{k}] is negative ({n})")
        if not _is_int(self.pool):
            raise InvalidBoardError(f"pool must be a whole number, not {self.pool!r}")
        if self.pool < 0:
            raise InvalidBoardError(f"pool is negative ({self.pool})")
        most = MEN_EACH * len(men)
        if sum(men) + self.pool > most:
            raise InvalidBoardError(
                f"men {list(men)} and pool {self.pool} make {sum(men) + self.pool} men, "
                f"more than the {most} of {len(men)} players with {MEN_EACH} each"
            )
        if self.turn is not None:
            if not _is_int(self.turn):
                raise InvalidBoardError(f"turn must be a player's index, not {self.turn!r}")
            if not 0 <= self.turn < len(men):
                raise InvalidBoardError(
                    f"turn must be a player's index 0 to {len(men) - 1}, not {self.turn}"
                )

    # ------------------------------------------------------------ reading
    @property
    def players(self) -> int:
        """How many players the game has (in or out)."""
        return len(self.men)

    @property
    def players_in(self) -> tuple[int, ...]:
        """The players still in (with men), in turn order."""
        return tuple(k for k, n in enumerate(self.men) if n > 0)

    @property
    def out(self) -> tuple[int, ...]:
        """The players who are out (no men left), in turn order."""
        return tuple(k for k, n in enumerate(self.men) if n == 0)

    @property
    def off(self) -> int:
        """Men borne off (laid aside): what is missing of six a player."""
        return MEN_EACH * self.players - sum(self.men) - self.pool

    @property
    def over(self) -> bool:
        """Whether the game is over: no more than one player still has men."""
        return len(self.players_in) <= 1

    def with_turn(self, turn: int | None) -> "Tally":
        """A copy with *turn* set."""
        return Tally(self.men, self.pool, turn)

    # ----------------------------------------------------------- building
    @classmethod
    def start(cls, players: int) -> "Tally":
        """The tally a game of *players* starts from: six men each, the pool
        empty, player 0 to throw (seed 003: "Each player takes six pieces").

        >>> Tally.start(3)
        Tally(men=(6, 6, 6), pool=0, turn=0)
        """
        if not _is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise InvalidBoardError(
                f"Sice-Ace is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}"
            )
        return cls((MEN_EACH,) * players, 0, 0)

    # ------------------------------------------------------ the document
    def to_doc(self) -> dict[str, Any]:
        """The tally document (``docs/board-document.md``); ``turn`` only where known.

        >>> Tally.start(2).to_doc()
        {'format': 'tally/1', 'men': [6, 6], 'pool': 0, 'turn': 0}
        """
        doc: dict[str, Any] = {"format": TALLY_FORMAT, "men": list(self.men), "pool": self.pool}
        if self.turn is not None:
            doc["turn"] = self.turn
        return doc

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any] | str | bytes, players: int | None = None,
                 require_turn: bool = False) -> "Tally":
        """Read a tally document (a mapping or JSON text), validating it.

        *players*, where given (the ``players`` option), is the number of
        counts ``men`` must list; *require_turn* asks for ``turn`` (a tally
        to judge).

        >>> Tally.from_doc('{"format": "tally/1", "men": [6, 6, 6], "turn": 0}', players=3)
        Tally(men=(6, 6, 6), pool=0, turn=0)
        """
        if isinstance(doc, (str, bytes)):
            try:
                doc = json.loads(doc)
            except json.JSONDecodeError as exc:
                raise InvalidBoardError(f"tally document is not valid JSON: {exc}") from None
        if not isinstance(doc, Mapping):
            raise InvalidBoardError(f"tally document must be a JSON object, not {type(doc).__name__}")
        fmt = doc.get("format")
        if fmt != TALLY_FORMAT:
            raise InvalidBoardError(f"format must be \"{TALLY_FORMAT}\", not {fmt!r}")
        for key in doc:
            if key not in ("format", "men", "pool", "turn"):
                raise InvalidBoardError(f"unknown field {key!r} in tally document")
        if "men" not in doc:
            raise InvalidBoardError("men is missing: it must list each player's men, in turn order")
        men = doc["men"]
        if not isinstance(men, list):
            raise InvalidBoardError(f"men must be a list of counts, one a player, not {men!r}")
        if players is not None and len(men) != players:
            raise InvalidBoardError(
                f"men lists {len(men)} players, but the game has players={players}"
            )
        pool = doc.get("pool", 0)
        turn = doc.get("turn")
        if turn is None and require_turn:
            raise InvalidBoardError("turn is required: say whose throw it is (a player's index from 0)")
        return cls(tuple(men), pool, turn)

    # ---------------------------------------------------------- compact id
    def id(self) -> str:
        """The compact text form: counts joined by dots, the pool, the turn
        (``-`` where unknown), separated by colons.

        >>> Tally((6, 5, 0), pool=1, turn=1).id()
        '6.5.0:1:1'
        """
        turn = "-" if self.turn is None else str(self.turn)
        return f"{'.'.join(str(n) for n in self.men)}:{self.pool}:{turn}"

    @classmethod
    def from_id(cls, text: str) -> "Tally":
        """Read a compact id made by :meth:`id`.

        >>> Tally.from_id("6.6:0:-")
        Tally(men=(6, 6), pool=0, turn=None)
        """
        if not isinstance(text, str):
            raise InvalidBoardError(f"a tally id is text like '6.6.6:0:0', not {text!r}")
        match = _ID_RE.match(text.strip())
        if not match:
            raise InvalidBoardError(
                f"not a tally id: {text!r} (it looks like '6.6.6:0:0': men, pool, turn)"
            )
        men, pool, turn = match.groups()
        return cls(tuple(int(n) for n in men.split(".")), int(pool),
                   None if turn == "-" else int(turn))

    def __str__(self) -> str:
        """A short drawing: one line a player (``>`` marks whose throw), then
        the pool and the men laid aside.

        >>> print(Tally((2, 0, 7), pool=1, turn=2))
          player 0  oo       2
          player 1           out
        > player 2  ooooooo  7
        pool o 1, borne off 8
        """
        width = max(MEN_EACH, max(self.men))
        lines = []
        for k, n in enumerate(self.men):
            mark = ">" if k == self.turn else " "
            count = "out" if n == 0 else str(n)
            lines.append(f"{mark} player {k}  {'o' * n:<{width}}  {count}")
        lines.append(f"pool {'o' * self.pool + ' ' if self.pool else ''}{self.pool}, borne off {self.off}")
        return "\n".join(lines)
