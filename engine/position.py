"""Positions: what stands on the board, as a frozen value.

A :class:`Position` holds the men of both colours in *physical* numbering
(light's own numbering, ``docs/board-document.md``), the bar, the men
borne off, the men still waiting to enter (games that start off the board),
the piles of the unstacking games, and whose turn it is.  It converts to and
from the board document, to and from its own compact id, and to and from GNU
Backgammon Position IDs; ``str`` draws it.

>>> p = Position.from_board({"format": "board/1",
...     "light": [0,0,0,0,0,5, 0,3,0,0,0,0, 5,0,0,0,0,0, 0,0,0,0,0,2],
...     "dark":  [2,0,0,0,0,0, 0,0,0,0,0,5, 0,0,0,0,3,0, 5,0,0,0,0,0],
...     "turn": "light"})
>>> Position.from_id(p.id()) == p
True
>>> p.gnubg_id()
'4HPwATDgc/ABMA'
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .errors import InvalidBoardError

__all__ = [
    "Position",
    "COLOURS",
    "LIGHT",
    "DARK",
    "other",
    "colour_index",
    "physical_point",
    "own_point",
]

LIGHT = "light"
DARK = "dark"
COLOURS = (LIGHT, DARK)
PHASES = ("unstack", "restack", "bear_off")
_ZEROS: tuple[int, ...] = (0,) * 24
MAX_PER_PLACE = 15


def other(colour: str) -> str:
    """The other colour.

    >>> other("light")
    'dark'
    """
    return DARK if colour == LIGHT else LIGHT


def colour_index(colour: str) -> int:
    """0 for light, 1 for dark."""
    if colour == LIGHT:
        return 0
    if colour == DARK:
        return 1
    raise InvalidBoardError(f"colour must be 'light' or 'dark', not {colour!r}")


def physical_point(colour: str, own: int) -> int:
    """The physical point (light's numbering) of *colour*'s own point *own*.

    >>> physical_point("dark", 24)
    1
    """
    return own if colour == LIGHT else 25 - own


def own_point(colour: str, physical: int) -> int:
    """*colour*'s own number of physical point *physical* (the map is its own inverse)."""
    return physical if colour == LIGHT else 25 - physical


@dataclass(frozen=True)
class Position:
    """What stands on the board.

    ``light`` and ``dark`` are 24 counts over physical points 1..24; ``bar``,
    ``off`` (borne off) and ``waiting`` (not yet entered) are pairs
    ``(light, dark)``; ``stacked`` gives, per colour, how many men of each
    point stand in a pile; ``phase`` is the unstacking games' phase per colour
    where the board cannot show it; ``turn`` is ``"light"``, ``"dark"`` or None.
    """

    light: tuple[int, ...]
    dark: tuple[int, ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    waiting: tuple[int, int] = (0, 0)
    turn: str | None = None
    stacked: tuple[tuple[int, ...], tuple[int, ...]] = field(default=(_ZEROS, _ZEROS))
    phase: tuple[str | None, str | None] = (None, None)

    def __post_init__(self) -> None:
        for name in ("light", "dark"):
            _check_counts(name, getattr(self, name), 24)
        for name in ("bar", "off", "waiting"):
            _check_counts(name, getattr(self, name), 2)
        if len(self.stacked) != 2:
            raise InvalidBoardError(f"stacked must give two colours, not {self.stacked!r}")
        for i, colour in enumerate(COLOURS):
            _check_counts(f"stacked.{colour}", self.stacked[i], 24)
        if self.turn not in (None, LIGHT, DARK):
            raise InvalidBoardError(f"turn must be 'light' or 'dark', not {self.turn!r}")
        if len(self.phase) != 2 or any(p not in (None, *PHASES) for p in self.phase):
            raise InvalidBoardError(f"phase must be one of {', '.join(PHASES)}, not {self.phase!r}")
        for p in range(24):
            if self.light[p] and self.dark[p]:
                raise InvalidBoardError(
                    f"point {p + 1} holds men of both colours "
                    f"({self.light[p]} light, {self.dark[p]} dark)"
                )
            for i, colour in enumerate(COLOURS):
                men = (self.light, self.dark)[i][p]
                if self.stacked[i][p] > men:
                    raise InvalidBoardError(
                        f"stacked.{colour}[{p}] is {self.stacked[i][p]} but point {p + 1} "
                        f"holds {men} {colour} men"
                    )

    @classmethod
    def _trusted(cls, light: tuple[int, ...], dark: tuple[int, ...], bar: tuple[int, int],
                 off: tuple[int, int], waiting: tuple[int, int], turn: str | None,
                 stacked: tuple[tuple[int, ...], tuple[int, ...]],
                 phase: tuple[str | None, str | None]) -> "Position":
        """Build without validation: only for values made from a valid position
        by the engine's own moves (the hot path of move generation)."""
        self = object.__new__(cls)
        for name, value in (("light", light), ("dark", dark), ("bar", bar), ("off", off),
                            ("waiting", waiting), ("turn", turn), ("stacked", stacked),
                            ("phase", phase)):
            object.__setattr__(self, name, value)
        return self

    # ----------------------------------------------------------------- counts
    def points(self, colour: str) -> tuple[int, ...]:
        """The 24 physical counts of *colour*."""
        return self.light if colour == LIGHT else self.dark

    def men(self, colour: str) -> int:
        """All men of *colour*: on points, on the bar, off and waiting."""
        i = colour_index(colour)
        return sum(self.points(colour)) + self.bar[i] + self.off[i] + self.waiting[i]

    def with_turn(self, turn: str | None) -> "Position":
        """A copy with *turn* set."""
        return Position(self.light, self.dark, self.bar, self.off, self.waiting, turn,
                        self.stacked, self.phase)

    def physical_key(self) -> tuple[Any, ...]:
        """What a camera can see: points, bar, men beside the board, piles (no turn).

        Men borne off and men waiting to enter look alike, so they are added.
        """
        return (self.light, self.dark, self.bar,
                (self.off[0] + self.waiting[0], self.off[1] + self.waiting[1]), self.stacked)

    # ---------------------------------------------------------- board JSON
    def to_board(self) -> dict[str, Any]:
        """The board document (``docs/board-document.md``) of this position."""
        doc: dict[str, Any] = {
            "format": "board/1",
            "light": list(self.light),
            "dark": list(self.dark),
            "bar": {"light": self.bar[0], "dark": self.bar[1]},
            "off": {"light": self.off[0] + self.waiting[0], "dark": self.off[1] + self.waiting[1]},
        }
        if any(self.stacked[0]) or any(self.stacked[1]):
            doc["stacked"] = {"light": list(self.stacked[0]), "dark": list(self.stacked[1])}
        if self.phase != (None, None):
            doc["phase"] = {c: p for c, p in zip(COLOURS, self.phase) if p is not None}
        if self.turn is not None:
            doc["turn"] = self.turn
        return doc

    @classmethod
    def from_board(
        cls,
        doc: Mapping[str, Any] | str,
        *,
        men: int | None = None,
        starts_off_board: bool = False,
        require_turn: bool = False,
    ) -> "Position":
        """Read a board document (a mapping or JSON text), validating it.

        *men* is the variant's men per side: with it, colour totals above it
        are rejected, fewer are rejected where ``off`` is given, and ``off`` is
        derived where it is absent.  *starts_off_board* says the men beside the
        board may be men waiting to enter (``dutch``): they are taken as
        waiting unless every man of that colour on the board stands in his home
        table and the bar is empty (then they were borne off) -- the choice of
        this program where the board alone cannot tell.
        """
        if isinstance(doc, (str, bytes)):
            try:
                doc = json.loads(doc)
            except json.JSONDecodeError as exc:
                raise InvalidBoardError(f"board document is not valid JSON: {exc}") from None
        if not isinstance(doc, Mapping):
            raise InvalidBoardError(f"board document must be a JSON object, not {type(doc).__name__}")
        fmt = doc.get("format")
        if fmt != "board/1":
            raise InvalidBoardError(f"format must be \"board/1\", not {fmt!r}")
        known = {"format", "light", "dark", "bar", "off", "stacked", "turn", "phase",
                 "confidence", "settled"}
        for key in doc:
            if key not in known:
                raise InvalidBoardError(f"unknown field {key!r} in board document")
        light = _counts_field(doc, "light", 24)
        dark = _counts_field(doc, "dark", 24)
        bar = _pair_field(doc, "bar")
        off_given = "off" in doc
        off = _pair_field(doc, "off")
        stacked_doc = doc.get("stacked")
        stacked: tuple[tuple[int, ...], tuple[int, ...]] = (_ZEROS, _ZEROS)
        if stacked_doc is not None:
            if not isinstance(stacked_doc, Mapping):
                raise InvalidBoardError(f"stacked must be an object, not {stacked_doc!r}")
            stacked = (
                _counts_field(stacked_doc, "light", 24, prefix="stacked.", optional=True),
                _counts_field(stacked_doc, "dark", 24, prefix="stacked.", optional=True),
            )
        turn = doc.get("turn")
        if turn is None and require_turn:
            raise InvalidBoardError("turn is required: say whose turn it is ('light' or 'dark')")
        if turn is not None and turn not in COLOURS:
            raise InvalidBoardError(f"turn must be 'light' or 'dark', not {turn!r}")
        phase_doc = doc.get("phase")
        phase: tuple[str | None, str | None] = (None, None)
        if phase_doc is not None:
            if not isinstance(phase_doc, Mapping):
                raise InvalidBoardError(f"phase must be an object, not {phase_doc!r}")
            for key, value in phase_doc.items():
                if key not in COLOURS:
                    raise InvalidBoardError(f"phase names an unknown colour {key!r}")
                if value not in PHASES:
                    raise InvalidBoardError(f"phase.{key} must be one of {', '.join(PHASES)}, not {value!r}")
            phase = (phase_doc.get(LIGHT), phase_doc.get(DARK))

        waiting = [0, 0]
        off_l = list(off)
        if men is not None:
            for i, (colour, pts) in enumerate(((LIGHT, light), (DARK, dark))):
                on_board = sum(pts) + bar[i]
                if off_given:
                    total = on_board + off_l[i]
                    if total > men:
                        raise InvalidBoardError(
                            f"{colour} has {total} men (points {sum(pts)}, bar {bar[i]}, off "
                            f"{off_l[i]}) but the game has {men} a side"
                        )
                    if total < men:
                        raise InvalidBoardError(
                            f"{colour} has {total} men (points {sum(pts)}, bar {bar[i]}, off "
                            f"{off_l[i]}) but the game has {men} a side"
                        )
                else:
                    if on_board > men:
                        raise InvalidBoardError(
                            f"{colour} has {on_board} men on the points and bar but the game "
                            f"has {men} a side"
                        )
                    off_l[i] = men - on_board
                if starts_off_board and off_l[i]:
                    own = pts if colour == LIGHT else tuple(reversed(pts))
                    all_home = on_board > 0 and bar[i] == 0 and sum(own[6:]) == 0
                    if not all_home:
                        waiting[i], off_l[i] = off_l[i], 0
        return cls(light, dark, bar, (off_l[0], off_l[1]), (waiting[0], waiting[1]), turn,
                   stacked, phase)

    # ------------------------------------------------------------- the id
    def id(self) -> str:
        """The compact text form: url-safe base64 of the counts, 4 bits each.

        >>> Position.from_id(Position.empty().id()) == Position.empty()
        True
        """
        nibbles = list(self.light) + list(self.dark) + list(self.bar) + list(self.off) + list(self.waiting)
        flags = {None: 0, LIGHT: 1, DARK: 2}[self.turn]
        has_stacked = any(self.stacked[0]) or any(self.stacked[1])
        has_phase = self.phase != (None, None)
        if has_stacked:
            flags |= 4
            nibbles += list(self.stacked[0]) + list(self.stacked[1])
        if has_phase:
            flags |= 8
            nibbles += [(None, *PHASES).index(p) for p in self.phase]
        if len(nibbles) % 2:
            nibbles.append(0)
        data = bytes([1, flags]) + bytes(
            (nibbles[k] << 4) | nibbles[k + 1] for k in range(0, len(nibbles), 2)
        )
        return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")

    @classmethod
    def from_id(cls, text: str) -> "Position":
        """The position of an id made by :meth:`id`."""
        if not isinstance(text, str) or not text:
            raise InvalidBoardError(f"position id must be a non-empty string, not {text!r}")
        try:
            data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (ValueError, TypeError):
            raise InvalidBoardError(f"position id {text!r} is not url-safe base64") from None
        if len(data) < 2 or data[0] != 1:
            raise InvalidBoardError(f"position id {text!r} is not a version 1 id")
        flags = data[1]
        nibbles = [n for b in data[2:] for n in (b >> 4, b & 15)]
        need = 54 + (48 if flags & 4 else 0) + (2 if flags & 8 else 0)
        if len(nibbles) < need or flags & ~15 or (flags & 3) == 3:
            raise InvalidBoardError(f"position id {text!r} is truncated or malformed")
        turn = (None, LIGHT, DARK)[flags & 3]
        light = tuple(nibbles[0:24])
        dark = tuple(nibbles[24:48])
        bar = (nibbles[48], nibbles[49])
        off = (nibbles[50], nibbles[51])
        waiting = (nibbles[52], nibbles[53])
        k = 54
        stacked: tuple[tuple[int, ...], tuple[int, ...]] = (_ZEROS, _ZEROS)
        if flags & 4:
            stacked = (tuple(nibbles[k:k + 24]), tuple(nibbles[k + 24:k + 48]))
            k += 48
        phase: tuple[str | None, str | None] = (None, None)
        if flags & 8:
            if nibbles[k] > 3 or nibbles[k + 1] > 3:
                raise InvalidBoardError(f"position id {text!r} has a bad phase")
            phase = ((None, *PHASES)[nibbles[k]], (None, *PHASES)[nibbles[k + 1]])
        return cls(light, dark, bar, off, waiting, turn, stacked, phase)

    # ------------------------------------------------------ GNU Backgammon
    def gnubg_id(self, on_roll: str | None = None) -> str:
        """The GNU Backgammon Position ID, seen by the player *on_roll*
        (default: whose turn it is).  Men waiting to enter count as on the bar;
        piles are not shown."""
        colour = on_roll or self.turn
        if colour is None:
            raise InvalidBoardError("a GNU Backgammon id needs the player on roll")
        return encode_gnubg_id(self.gnubg_board(colour))

    def gnubg_board(self, on_roll: str) -> tuple[list[int], list[int]]:
        """GNU Backgammon's board: (opponent, player on roll), each 25 counts in
        that player's own numbering, the bar last."""
        def side(colour: str) -> list[int]:
            pts = self.points(colour)
            i = colour_index(colour)
            own = [pts[physical_point(colour, k) - 1] for k in range(1, 25)]
            return own + [self.bar[i] + self.waiting[i]]
        return side(other(on_roll)), side(on_roll)

    @classmethod
    def from_gnubg_id(cls, text: str, on_roll: str = LIGHT, men: int = 15) -> "Position":
        """Read a GNU Backgammon Position ID; the player on roll becomes *on_roll*
        (light by default) and has the turn.  Men not on the board are off."""
        opponent, player = decode_gnubg_id(text)
        light_own, dark_own = (player, opponent) if on_roll == LIGHT else (opponent, player)
        light = tuple(light_own[:24])
        dark = tuple(dark_own[k] for k in range(23, -1, -1))
        for name, side in ((LIGHT, light_own), (DARK, dark_own)):
            if sum(side) > men:
                raise InvalidBoardError(
                    f"GNU Backgammon id {text!r} gives {name} {sum(side)} men, more than {men}"
                )
        bar = (light_own[24], dark_own[24])
        off = (men - sum(light_own), men - sum(dark_own))
        return cls(light, dark, bar, off, (0, 0), on_roll)

    # -------------------------------------------------------------- drawing
    @classmethod
    def empty(cls) -> "Position":
        """A board with nothing on it."""
        return cls(_ZEROS, _ZEROS)

    def __repr__(self) -> str:
        return f"Position.from_id({self.id()!r})"

    def __str__(self) -> str:
        def cell(p: int) -> str:
            n_l, n_d = self.light[p - 1], self.dark[p - 1]
            if n_l:
                s = f"{n_l}L"
            elif n_d:
                s = f"{n_d}D"
            else:
                return "  ."
            piles = self.stacked[0][p - 1] + self.stacked[1][p - 1]
            return (s + "^" if piles else s).rjust(3)

        top = list(range(13, 19)), list(range(19, 25))
        bottom = list(range(12, 6, -1)), list(range(6, 0, -1))
        def row(halves: tuple[list[int], list[int]], fn: Any) -> str:
            return " " + "".join(fn(p) for p in halves[0]) + " |" + "".join(fn(p) for p in halves[1])
        lines = [
            row(top, lambda p: f"{p:3d}"),
            " " + "-" * 18 + "-+" + "-" * 18,
            row(top, cell),
            row(bottom, cell),
            " " + "-" * 18 + "-+" + "-" * 18,
            row(bottom, lambda p: f"{p:3d}"),
            f" bar L{self.bar[0]} D{self.bar[1]}  off L{self.off[0]} D{self.off[1]}"
            + (f"  waiting L{self.waiting[0]} D{self.waiting[1]}" if any(self.waiting) else "")
            + (f"  turn {self.turn}" if self.turn else ""),
        ]
        return "\n".join(lines)


# --------------------------------------------------------------- helpers
def _check_counts(name: str, values: Sequence[int], length: int) -> None:
    if not isinstance(values, tuple):
        raise InvalidBoardError(f"{name} must be a tuple of {length} counts, not {values!r}")
    if len(values) != length:
        raise InvalidBoardError(f"{name} must have {length} counts, not {len(values)}")
    for k, v in enumerate(values):
        if not isinstance(v, int) or isinstance(v, bool):
            raise InvalidBoardError(f"{name}[{k}] must be a whole number, not {v!r}")
        if v < 0:
            raise InvalidBoardError(f"{name}[{k}] is negative ({v})")
        if v > MAX_PER_PLACE:
            raise InvalidBoardError(f"{name}[{k}] is {v}, more than {MAX_PER_PLACE} men")


def _counts_field(doc: Mapping[str, Any], name: str, length: int, *, prefix: str = "",
                  optional: bool = False) -> tuple[int, ...]:
    if name not in doc:
        if optional:
            return (0,) * length
        raise InvalidBoardError(f"{prefix}{name} is missing: it must list {length} counts")
    values = doc[name]
    if not isinstance(values, list):
        raise InvalidBoardError(f"{prefix}{name} must be a list of {length} counts, not {values!r}")
    _check_counts(prefix + name, tuple(values), length)
    return tuple(values)


def _pair_field(doc: Mapping[str, Any], name: str) -> tuple[int, int]:
    value = doc.get(name)
    if value is None:
        return (0, 0)
    if not isinstance(value, Mapping):
        raise InvalidBoardError(f"{name} must be an object like {{\"light\": 0, \"dark\": 0}}, not {value!r}")
    out = []
    for colour in COLOURS:
        v = value.get(colour, 0)
        if not isinstance(v, int) or isinstance(v, bool):
            raise InvalidBoardError(f"{name}.{colour} must be a whole number, not {v!r}")
        if v < 0:
            raise InvalidBoardError(f"{name}.{colour} is negative ({v})")
        if v > MAX_PER_PLACE:
            raise InvalidBoardError(f"{name}.{colour} is {v}, more than {MAX_PER_PLACE} men")
        out.append(v)
    for key in value:
        if key not in COLOURS:
            raise InvalidBoardError(f"{name} names an unknown colour {key!r}")
    return out[0], out[1]


def encode_gnubg_id(board: tuple[Sequence[int], Sequence[int]]) -> str:
    """Encode GNU Backgammon's (opponent, player on roll) board as a Position ID.

    The 80-bit key lists, for each side in turn and each of its 25 places,
    as many 1 bits as men and then a 0 bit, packed from the low bit of the
    first byte; its base64 form without padding is the id.
    """
    bits: list[int] = []
    for side in board:
        for count in side:
            bits.extend([1] * count)
            bits.append(0)
    if len(bits) > 80:
        raise InvalidBoardError("too many men for a GNU Backgammon Position ID")
    key = bytearray(10)
    for k, bit in enumerate(bits):
        if bit:
            key[k >> 3] |= 1 << (k & 7)
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def decode_gnubg_id(text: str) -> tuple[list[int], list[int]]:
    """Decode a GNU Backgammon Position ID into (opponent, player on roll) boards."""
    if not isinstance(text, str) or len(text.strip()) != 14:
        raise InvalidBoardError(f"GNU Backgammon Position ID must be 14 characters, not {text!r}")
    try:
        key = base64.b64decode(text.strip() + "==", validate=True)
    except ValueError:
        raise InvalidBoardError(f"GNU Backgammon Position ID {text!r} is not base64") from None
    sides: list[list[int]] = [[], []]
    side, count = 0, 0
    for k in range(80):
        if side > 1:
            break
        if key[k >> 3] >> (k & 7) & 1:
            count += 1
        else:
            sides[side].append(count)
            count = 0
            if len(sides[side]) == 25:
                side += 1
    if side < 2:
        raise InvalidBoardError(f"GNU Backgammon Position ID {text!r} does not describe two sides")
    return sides[0], sides[1]
