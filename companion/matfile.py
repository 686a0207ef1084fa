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
* A game lost on time (a flag fell on the match's clock: the match is lost) is written as far as it
  went, with no end, and a tag in the head says so: gnubg reads a ``Wins`` line as a resignation of
  at most three times the cube, which cannot carry the match won on time.
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
from willughby.engine.match import Match
from willughby.engine.race_state import Step
from willughby.engine.position import DARK, LIGHT, Position
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import Rules, get_preset, start_position

__all__ = ["to_mat", "match_to_mat", "GNUBG_OPTIONS"]

#: the options of the rules GNU Backgammon plays; ``cube`` and ``opening``
#: may take either value (the .mat file has no cube or opening setting), and
#: so may ``jacoby`` (the head's ``[Jacoby]``) and ``beavers`` (a beaver made
#: is refused: the file has no place for one)
GNUBG_OPTIONS: dict[str, str] = {
    name: value for name, value in get_preset("backgammon").rules.options().items()
    if name not in ("cube", "opening", "jacoby", "beavers")
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
    game = Game.from_record(record)
    _check_rules(record.get("preset"), game.rules)
    names = _names(game.players)
    lines = _header(names, game.rules, match_length, date, crawford=bool(match_length))
    notes, body = _game_lines(record, game, 1, {LIGHT: 0, DARK: 0}, names, match_length)
    lines[-1:-1] = notes
    return "\n".join(lines + [f" {match_length} point match", ""] + body) + "\n"


def match_to_mat(record: Mapping[str, Any], *, date: datetime.date | None = None) -> str:
    """The match *record* (``Match.record()``) as the text of a ``.mat`` file: every game in order, each
    with the score before it, the cube's turns and who won how many points (and the match).  GNU
    Backgammon marks the Crawford game itself, as Jellyfish files leave it to: the game in which one player
    first needs one point, where the head says ``[Crawford "On"]`` (as ``Match.record()``'s ``crawford``).
    A game in play is written as far as it has gone."""
    match = Match.from_record(record)
    _check_rules(match.preset, match.rules)
    names = _names(match.players)
    lines = _header(names, match.rules, match.length, date, crawford=match.crawford_rule)
    body: list[str] = []
    score = {LIGHT: 0, DARK: 0}
    for number, (game, doc) in enumerate(zip(match.games, record["games"]), start=1):
        notes, block = _game_lines(doc, game, number, score, names, match.length)
        lines[-1:-1] = notes
        body += block + [""]
        if game.result is not None:
            score[game.result.winner] += game.result.stake
    return "\n".join(lines + [f" {match.length} point match", ""] + body).rstrip("\n") + "\n"


def _game_lines(record: Mapping[str, Any], game: Game, number: int, score: Mapping[str, int],
                names: Mapping[str, str], match_length: int) -> tuple[list[str], list[str]]:
    """Game *number* of a file: the notes for the file's head (a board the players placed) and its lines,
    from *score* before it."""
    if game.start.physical_key() != start_position(game.rules).physical_key():
        raise ValueError("a .mat file holds a game from the opening position; this one starts "
                         f"from a position set up by hand ({game.start.id()})")
    slots = _slots(record, game, number)
    notes = [text for _colour, text, kind in slots if kind == "comment"]
    slots = [s for s in slots if s[2] != "comment"]
    first = f" {names[LIGHT]} : {score[LIGHT]}"
    lines = [f" Game {number}", first + " " * max(_COLUMN - 1 - len(first), 2) + f"{names[DARK]} : {score[DARK]}"]
    if game.result is not None and game.result.kind != "flag":
        points = game.result.stake
        text = f" Wins {points} point{'s' if points != 1 else ''}"
        if match_length and score[game.result.winner] + points >= match_length:
            text += " and the match"
        slots.append((game.result.winner, text, "wins"))
    return notes, lines + _layout(slots)


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
            date: datetime.date | None, crawford: bool) -> list[str]:
    def tag(key: str, value: str) -> str:
        return f'; [{key} "{_HEADER_VALUE.sub(" ", value)}"]'
    lines = [tag("Site", "Willughby"), tag("Player 1", names[LIGHT]), tag("Player 2", names[DARK])]
    if date is not None:
        lines.append(tag("EventDate", f"{date.year:04d}.{date.month:02d}.{date.day:02d}"))
    lines.append(tag("Variation", "Backgammon"))
    if match_length:
        lines.append(tag("Crawford", "On" if crawford else "Off"))
    lines.append(tag("Jacoby", "On" if rules.jacoby else "Off"))
    if not rules.cube:
        lines.append(tag("CubeLimit", "1"))
    lines.append("")
    return lines


# ----------------------------------------------------------------- turns
def _slots(record: Mapping[str, Any], match: Game, number: int = 1) -> list[tuple[str, str, str]]:
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
            slots.append((action["player"], _placed_comment(action, sum(1 for s in slots if s[2] == "roll"),
                                                            number), "comment"))
            break
        elif kind == "flag":
            # the file has no clock: the end (Wins ... and the match) stands for it, a tag in the head says why
            # the file has no clock, and gnubg takes a "Wins" line as a resignation worth three times the cube
            # at most: the game is written as far as it went, unfinished, and a tag in the head says why
            slots.append((action["player"], f'; [Willughby "game {number}: {action["player"]}\'s flag fell: his '
                                            f'reserve of time ran out and he lost the match on time; a .mat file '
                                            f'has no clock, so the game is written unfinished"]', "comment"))
        elif kind != "throw":  # a throw shows in the turn it starts
            raise ValueError(f"a .mat file has no place for a {kind!r} action")
    return slots


def _placed_comment(action: Mapping[str, Any], rolls: int, number: int = 1) -> str:
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
    return (f'; [Willughby "after turn {rolls} of game {number}, {gap} not seen; the players placed the board, '
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
