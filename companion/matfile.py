"""A game record as a Jellyfish ``.mat`` match file, the text format that GNU
Backgammon (``import mat``), eXtreme Gammon, Snowie and BGBlitz read.

The format has no written standard; this module writes what GNU Backgammon's
importer (``import.c``: ``ImportMatVariation``, ``ImportGame``,
``ParseMatMove``; ``drawboard.c``: ``ParseMove``) reads, laid out as
Jellyfish and the programs after it write it::

    ; [Site "Willughby"]
    ; [Variation "Backgammon"]

     0 point match

     Game 1
     Ann : 0                        Bob : 0
      1) 31: 8/5 6/5                 64: 24/18 13/9
      2) 62: 13/7* 8/6               55: 25/20 8/3 8/3 6/1*
      3)  Doubles => 2                Takes
      4) 21:                         43: 20/16 16/13
    ...
                                      Wins 2 points

* ``N point match`` gives the match length; ``0 point match`` is a money
  game.  Lines before it starting ``;`` are comments (gnubg reads ``[Event``,
  ``[Site``, ``[EventDate`` and ``[Variation``; the rest are for XG).
* `` Game 1`` (one leading space) starts a game; the next line gives the two
  players and their scores, ``name : score``, twice.  Player one (the left
  column) is light, player two (the right column) dark.
* Each numbered line holds a turn of the left player, then one of the right
  player; the right column begins at the 34th character.  gnubg splits a
  line at the second ``dd:`` roll, else at the first double space after the
  15th character, so at least two spaces always part the columns.  The first
  line's left column is empty when dark won the opening roll.
* A turn is the roll, its two dice as one number (the higher first), a
  colon and the play: one ``from/to`` move per die, in the mover's own
  numbering, ``25`` the bar, ``0`` off, ``*`` after a hit (``62: 13/7* 7/5``;
  a doublet gives four moves), in the order gnubg puts them in (from the
  highest point first), which is an order they can be played in.
  Each die is written on its own, never gnubg's shorthand ``13/5`` or
  ``6/4(2)``: gnubg only expands a consolidated move where a simple rule
  guesses its dice, and a move it cannot read stops the import.
  A roll that cannot be played has nothing after the colon.
* A cube turn is `` Doubles => 4`` (the new value), answered by `` Takes`` or
  `` Drops`` in the other column.
* A board the players placed (a ``placed`` action: a play the camera
  missed, ``Game.place``) cannot be set in a ``.mat`` file: the turns
  before it are written, and the turns after it, which gnubg could not
  play from its board, are not; a tag in the file's head
  (``; [Willughby "after turn 1 of game 1, ..."]``) names the gap and the
  board placed (its GNU Backgammon Position ID and who throws next).
  gnubg skips it there (a ``;`` line between the turns it takes for a
  move). The end (``Wins``) is still written: gnubg takes it as a
  resignation of the board it holds, so the score agrees.
* ``Wins N point(s)`` (with `` and the match`` when it ends the match) stands
  in the winner's column after the last turn, on a line of its own without a
  number unless the winner's column of the last line is free.  gnubg ignores
  it when the board already shows the game over (a bear-off or a drop).

Only a game whose rules are GNU Backgammon's can be written: the
``backgammon`` preset (with or without the cube; either opening rule), or
any preset whose options come to the same.

>>> from willughby.engine.game import Game
>>> m = Game.new("backgammon", players={"light": "Ann", "dark": "Bob"})
>>> m.start_roll(3, 1)
>>> m.play_notation("8/5 6/5").verdict
'legal'
>>> print(to_mat(m.record(), match_length=5))
; [Site "Willughby"]
; [Player 1 "Ann"]
; [Player 2 "Bob"]
; [Variation "Backgammon"]
; [Crawford "On"]
; [Jacoby "Off"]
<BLANKLINE>
 5 point match
<BLANKLINE>
 Game 1
 Ann : 0                        Bob : 0
  1) 31: 8/5 6/5
<BLANKLINE>
"""

from __future__ import annotations

import datetime
import re
from typing import Any, Mapping

from willughby.engine.game import Game
from willughby.engine.race_state import Step
from willughby.engine.position import DARK, LIGHT, Position
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import Rules, get_preset, start_position

__all__ = ["to_mat", "GNUBG_OPTIONS"]

#: the options of the rules GNU Backgammon plays; ``cube`` and ``opening``
#: may take either value (the .mat file has no cube or opening setting)
GNUBG_OPTIONS: dict[str, str] = {
    name: value for name, value in get_preset("backgammon").rules.options().items()
    if name not in ("cube", "opening")
}

_COLUMN = 33            # the right column starts here (0-based), as Jellyfish writes it
_NAME_MAX = 31          # gnubg keeps names of up to 31 bytes (MAX_NAME_LEN 32)
_HEADER_VALUE = re.compile(r'["\r\n\[\]]')


def to_mat(record: Mapping[str, Any], *, match_length: int = 0,
           date: datetime.date | None = None) -> str:
    """The game *record* (``Game.record()`` or ``GameStore.record()``) as the
    text of a ``.mat`` file: a money game, or game 1 of a *match_length*
    point match from 0-0.  *date* becomes the ``[EventDate]``.

    The record is replayed with :meth:`Game.from_record` (an
    :class:`~willughby.engine.errors.InvalidRecordError` if it does not
    replay); illegal turns that were put right leave no trace.  A
    ``ValueError`` names the preset where its rules are not GNU Backgammon's.
    """
    if not isinstance(match_length, int) or isinstance(match_length, bool) or not 0 <= match_length <= 64:
        raise ValueError(f"match_length must be 0 (money) to 64 points, not {match_length!r}")
    match = Game.from_record(record)
    _check_rules(record.get("preset"), match.rules)
    if match.start.physical_key() != start_position(match.rules).physical_key():
        raise ValueError("a .mat file holds a game from the opening position; this one starts "
                         f"from a position set up by hand ({match.start.id()})")
    names = _names(match.players)
    slots = _slots(record, match)
    lines = _header(names, match.rules, match_length, date)
    # a board the players placed: said in the head, where gnubg skips it (the turns end before it)
    lines[-1:-1] = [text for _colour, text, kind in slots if kind == "comment"]
    slots = [s for s in slots if s[2] != "comment"]
    first = f" {names[LIGHT]} : 0"
    lines += [f" {match_length} point match", "", " Game 1",
              first + " " * max(_COLUMN - 1 - len(first), 2) + f"{names[DARK]} : 0"]
    if match.result is not None:
        points = match.result.stake
        text = f" Wins {points} point{'s' if points != 1 else ''}"
        if match_length and points >= match_length:
            text += " and the match"
        slots.append((match.result.winner, text, "wins"))
    lines += _layout(slots)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- checks
def _check_rules(preset: Any, rules: Rules) -> None:
    options = rules.options()
    differ = [f"{name}={options[name]}" for name, value in GNUBG_OPTIONS.items()
              if options[name] != value]
    gnubg = get_preset("backgammon").rules
    if (rules.family, rules.men, rules.start, rules.start_waiting) != (
            gnubg.family, gnubg.men, gnubg.start, gnubg.start_waiting):
        differ.append("its men or where they start")
    if differ:
        raise ValueError(
            f"a .mat file holds backgammon as GNU Backgammon plays it; this game of "
            f"{preset or 'no preset'} differs in {', '.join(differ)}")


def _names(players: Mapping[str, str]) -> dict[str, str]:
    """Names gnubg reads back: no colon (it ends a name), one line, at most 31
    bytes of UTF-8, the two different."""
    def cut(text: str, size: int) -> str:
        return text.encode("utf-8")[:size].decode("utf-8", errors="ignore").strip()

    out: dict[str, str] = {}
    for colour in (LIGHT, DARK):
        name = " ".join(str(players.get(colour) or "").replace(":", " ").split())
        out[colour] = cut(name, _NAME_MAX) or colour
    if out[LIGHT] == out[DARK]:
        out[LIGHT] = cut(out[LIGHT], _NAME_MAX - 8) + " (light)"
        out[DARK] = cut(out[DARK], _NAME_MAX - 7) + " (dark)"
    return out


def _header(names: Mapping[str, str], rules: Rules, match_length: int,
            date: datetime.date | None) -> list[str]:
    def tag(key: str, value: str) -> str:
        return f'; [{key} "{_HEADER_VALUE.sub(" ", value)}"]'
    lines = [tag("Site", "Willughby"), tag("Player 1", names[LIGHT]), tag("Player 2", names[DARK])]
    if date is not None:
        lines.append(tag("EventDate", f"{date.year:04d}.{date.month:02d}.{date.day:02d}"))
    lines.append(tag("Variation", "Backgammon"))
    if match_length:
        lines.append(tag("Crawford", "On"))
    lines.append(tag("Jacoby", "Off"))
    if not rules.cube:
        lines.append(tag("CubeLimit", "1"))
    lines.append("")
    return lines


# ----------------------------------------------------------------- turns
def _slots(record: Mapping[str, Any], match: Game) -> list[tuple[str, str, str]]:
    """Each turn as (colour, text, ``roll`` or ``cube``), in order."""
    slots: list[tuple[str, str, str]] = []
    rulings = iter(match.rulings)
    position = match.start
    cube = 1
    for action in record["actions"]:
        kind = action.get("type")
        if kind == "move":
            ruling = next(rulings)
            if not ruling.legal:
                continue  # put right on the board; the legal turn follows
            assert ruling.after is not None
            before = position.with_turn(ruling.player)
            steps = _steps(match.rules, before, ruling.dice, ruling.after)
            dice = "".join(str(d) for d in sorted(ruling.dice, reverse=True))
            moves = _moves(steps)
            slots.append((ruling.player, f"{dice}: {moves}".rstrip(), "roll"))
            position = ruling.after
        elif kind == "double":
            cube *= 2
            slots.append((action["player"], f" Doubles => {cube}", "cube"))
        elif kind == "take":
            slots.append((action["player"], " Takes", "cube"))
        elif kind == "drop":
            slots.append((action["player"], " Drops", "cube"))
        elif kind == "start_roll":
            if action["light"] != action["dark"]:
                position = position.with_turn(LIGHT if action["light"] > action["dark"] else DARK)
        elif kind == "placed":
            # the file has no way to set a board: what follows cannot be played from the board before
            slots.append((action["player"], _placed_comment(action, sum(1 for s in slots if s[2] == "roll")),
                          "comment"))
            break
        elif kind != "throw":  # a throw shows in the turn it starts
            raise ValueError(f"a .mat file has no place for a {kind!r} action")
    return slots


def _placed_comment(action: Mapping[str, Any], rolls: int) -> str:
    """The tag that says a board the players placed ends the turns written (after *rolls* of them), for
    the file's head: gnubg's importer skips ``;`` lines there, but takes one between the turns for a
    move."""
    after = Position.from_id(action["after"])
    assert after.turn is not None
    dice = action.get("dice")
    thrown = f"'s {''.join(str(d) for d in sorted(dice, reverse=True))}" if dice else "'s turn"
    mover = action["player"]
    after_it = {2: f" and {DARK if mover == LIGHT else LIGHT}'s turn after it",
                3: f" and {DARK if mover == LIGHT else LIGHT}'s and {mover}'s turns after it"}
    gap = f"{mover}{thrown}" + after_it.get(int(action["turns"]), "")
    return (f'; [Willughby "after turn {rolls} of game 1, {gap} not seen; the players placed the board, '
            f"GNU Backgammon Position ID {after.gnubg_id(on_roll=after.turn)}, {after.turn} to throw; a .mat "
            "file cannot set a board, so the game's later turns are not written\"]")


def _steps(rules: Rules, before: Position, dice: tuple[int, ...], after: Position) -> tuple[Step, ...]:
    """The die-by-die moves of the legal turn from *before* to *after*."""
    key = after.physical_key()
    for outcome in turn_outcomes(rules, before, dice):
        if outcome.position.physical_key() == key:
            steps: tuple[Step, ...] = outcome.play.steps
            return steps
    raise AssertionError("a legal ruling's board is one of the turn's outcomes")  # pragma: no cover


def _moves(steps: tuple[Step, ...]) -> str:
    """One ``from/to`` a die, in gnubg's order (``CanonicalMoveOrder``: by the
    point left, highest first, then by the point reached, highest first),
    which is also an order they can be played in.  ``*`` marks the first man
    to reach a point where a blot was hit (a point is hit at most once a turn)."""
    hit = {s.dst for s in steps if s.hit}
    out = []
    for step in sorted(steps, key=lambda s: (-s.src, -s.dst)):
        star = step.dst in hit
        hit.discard(step.dst)
        out.append(f"{step.src}/{step.dst}{'*' if star else ''}")
    return " ".join(out)


def _layout(slots: list[tuple[str, str, str]]) -> list[str]:
    """The lines of the game, light's turns on the left and dark's on the
    right.  A turn of light's begins a line; a turn of dark's fills the right
    half of the line light's turn began, or begins one with the left half
    empty.  A line that only says who won has no number."""
    lines: list[str] = []
    number = 0
    pending: str | None = None  # a line whose right half is still free
    for colour, text, kind in slots:
        if colour == LIGHT or pending is None:
            if pending is not None:
                lines.append(pending)
            if kind == "wins":
                pending = "     "
            else:
                number += 1
                pending = f"{number:3d}) "
            if colour == LIGHT:
                pending += text
                continue
        # gnubg finds the right half at its roll's "dd:", else after two spaces
        gap = max(_COLUMN - len(pending), 1 if kind == "roll" else 2)
        lines.append(pending + " " * gap + text)
        pending = None
    if pending is not None:
        lines.append(pending)
    return lines
