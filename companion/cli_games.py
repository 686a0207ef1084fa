"""The engine's part of the ``willughby`` command: ``variants``, ``moves`` and
``judge`` for every family of game (``docs/command-line.md``).

- the race games: a board document (or a GNU Backgammon Position ID), the
  legal plays, a ruling; ``judge --after-image`` reads the board after from a
  photo;
- the unstacking games (Doublets and its kin): a board document with its
  piles (``stacked``) and, where the board cannot show it, each side's
  ``phase``; each outcome of a throw, the opponent's use of passed dice
  included; a ruling with its events;
- the counting game (Sice-Ace): a tally document; the one outcome of a
  throw; a ruling on the tally the players kept.

Bad input exits with status 2 and one line naming what was wrong (the
command's ``main`` turns :class:`UsageError` and the engine's errors into
that line).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Sequence

from willughby.engine import unstacking
from willughby.companion.numbering import notation
from willughby.engine.counting import Tally, TallyOutcome, count_throw, judge_tally, validate_tally_dice
from willughby.engine.errors import EngineError, InvalidBoardError, InvalidDiceError, InvalidOptionError
from willughby.engine.families import family_of
from willughby.engine.moves import legal_plays, sorted_plays, validate_dice
from willughby.engine.notation import NO_PLAY
from willughby.engine.position import COLOURS, Position
from willughby.engine.referee import Outcome, judge, turn_outcomes
from willughby.engine.rules import PRESETS, Rules, get_preset
from willughby.engine.rulings import Ruling

__all__ = ["UsageError", "add_game_commands", "read_board", "outcome_notation", "draw_piles", "option_overrides"]


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit status 2."""


# ------------------------------------------------------------ reading input
def option_overrides(items: Sequence[str] | None) -> dict[str, str]:
    """The ``-o NAME=VALUE`` options given, as a dict; one not so written is an :class:`InvalidOptionError`."""
    overrides: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise InvalidOptionError(f"option {item!r} must be written name=value")
        name, value = item.split("=", 1)
        overrides[name.strip()] = value.strip()
    return overrides


def _board(rules: Rules) -> str:
    """What a game of *rules* is played on, as its family declares (``points``, ``piles``, ``tally``)."""
    return family_of(rules).board


def _rules(args: argparse.Namespace) -> tuple[str, Rules, dict[str, str]]:
    """The preset's id, its rules with the ``-o`` overrides, and the overrides."""
    preset = get_preset(args.variant)
    overrides = option_overrides(args.option)
    return preset.id, preset.rules.with_options(overrides), overrides


def _throw(rules: Rules, preset_id: str, text: str) -> tuple[int, ...]:
    """``--dice`` checked against the game: how many dice it throws, each 1 to 6."""
    try:
        if _board(rules) == "tally":
            return validate_tally_dice(rules, _dice(text))
        return validate_dice(rules, _dice(text))
    except InvalidDiceError as exc:
        raise InvalidDiceError(f"--dice: {str(exc).replace('this game', preset_id, 1)}") from None


def _dice(text: str) -> list[int]:
    parts = [p for p in text.replace(" ", ",").replace("-", ",").split(",") if p]
    out = []
    for p in parts:
        if not p.isdigit():
            raise InvalidDiceError(f"--dice takes numbers like 3,1, not {text!r}")
        out.append(int(p))
    return out


def _document(text: str, what: str) -> Any:
    """The JSON document of ``--board``-like *text*: inline JSON or ``@path``."""
    raw = text
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            raw = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidBoardError(f"{what}: cannot read {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise InvalidBoardError(f"{what}: {path} is not a text file") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidBoardError(f"{what}: not a JSON document: {exc}") from None


def _format_of(doc: Any) -> Any:
    return doc.get("format") if isinstance(doc, dict) else None


def read_board(text: str, rules: Rules, what: str, require_turn: bool, preset_id: str = "") -> Position:
    """A board document (inline JSON or ``@path``) read as a position of *rules*'
    game; *what* names the flag in any complaint."""
    doc = _document(text, what)
    if _format_of(doc) == "tally/1":
        raise InvalidBoardError(f"{what}: a tally document (\"tally/1\") is for the counting game "
                                f"(sice-ace); {preset_id or 'this game'} takes a board document (\"board/1\")")
    try:
        position = Position.from_board(doc, men=rules.men, starts_off_board=rules.start_waiting > 0,
                                       require_turn=require_turn)
        if _board(rules) == "piles" and require_turn:
            # the position before a turn must be one of the game's: men on their own points, phases
            # of this game, the game not yet over
            for colour in COLOURS:
                unstacking.phase_of(rules, position, colour)
            over = unstacking.game_over(rules, position, position.turn or "light")
            if over is not None:
                raise InvalidBoardError(f"the game is already over: {over.winner} has borne off every man")
    except InvalidBoardError as exc:
        raise InvalidBoardError(f"{what}: {exc}") from None
    return position


def _tally(text: str, what: str, players: int | None, require_turn: bool) -> Tally:
    """A tally document (inline JSON or ``@path``); *players*, where the
    ``players`` option was given, is how many players it must list."""
    doc = _document(text, what)
    if _format_of(doc) == "board/1":
        raise InvalidBoardError(f"{what}: sice-ace is refereed from the dice alone and takes a tally "
                                "document ({\"format\": \"tally/1\", \"men\": [...], \"pool\": n, \"turn\": k}), "
                                "not a board document")
    try:
        return Tally.from_doc(doc, players=players, require_turn=require_turn)
    except InvalidBoardError as exc:
        raise InvalidBoardError(f"{what}: {exc}") from None


def _counting_rules(rules: Rules, overrides: dict[str, str], tally: Tally) -> Rules:
    """Sice-Ace's rules for *tally*: without ``-o players=N`` the tally says
    how many play (docs/board-document.md: its length is the number of players)."""
    if "players" in overrides:
        return rules
    return rules.with_options({"players": str(tally.players)})


def _not_for(flag: str, preset_id: str, rules: Rules) -> None:
    """Refuse *flag* for a game it cannot apply to."""
    if flag == "--gnubg-id" and _board(rules) != "points":
        what = ("it is refereed from the dice alone: give a tally document as --board"
                if _board(rules) == "tally" else "its men stand in piles: give a board document with "
                "stacked as --board")
        raise UsageError(f"willughby moves: --gnubg-id: a GNU Backgammon Position ID holds a race game's board, "
                         f"and {preset_id} is not a race game ({what})")
    if flag == "--after-image" and _board(rules) == "tally":
        raise UsageError("willughby judge: --after-image: sice-ace is refereed from the dice alone, "
                         "not from the board; give the tally after as --after")


# ----------------------------------------------------------------- variants
def cmd_variants(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({"presets": [p.to_json() for p in PRESETS.values()]}))
        return 0
    defaults = Rules().options()
    for p in PRESETS.values():
        r = p.rules
        differs = {k: v for k, v in r.options().items() if defaults[k] != v}
        opts = " ".join(f"{k}={v}" for k, v in differs.items())
        alias = f" (also: {', '.join(p.aliases)})" if p.aliases else ""
        if _board(r) == "tally":
            kind = f"counting game: 2 to 5 players (-o players=N), {r.men} men each; refereed from the dice"
        elif _board(r) == "piles":
            kind = f"unstacking game: {r.men} men a side in piles; phases {', '.join(r.phases)}"
        else:
            kind = f"race game: {r.men} men a side"
        print(f"{p.id:22} {p.name}{alias}\n{'':22} {kind}\n{'':22} {opts or 'all options at their defaults'}\n"
              f"{'':22} source: {p.source}")
    return 0


# -------------------------------------------------------------------- moves
def cmd_moves(args: argparse.Namespace) -> int:
    preset_id, rules, overrides = _rules(args)
    if (args.board is None) == (args.gnubg_id is None):
        raise UsageError("willughby moves: give exactly one of --board or --gnubg-id")
    if args.gnubg_id is not None:
        _not_for("--gnubg-id", preset_id, rules)
    if _board(rules) == "tally":
        return _moves_counting(args, preset_id, rules, overrides)
    if _board(rules) == "piles":
        return _moves_unstacking(args, preset_id, rules)
    if args.board is not None:
        before = read_board(args.board, rules, "--board", require_turn=True, preset_id=preset_id)
    else:
        before = Position.from_gnubg_id(args.gnubg_id, men=rules.men)
    dice = _throw(rules, preset_id, args.dice)
    plays = [p for p in sorted_plays(legal_plays(rules, before, dice)) if p.steps]
    with_gnubg = rules.men == 15
    out = []
    for play in plays:
        entry: dict[str, Any] = {"notation": play.notation, "board": play.position.to_board()}
        if with_gnubg:
            entry["gnubg_id"] = play.position.gnubg_id()
        out.append(entry)
    if args.json:
        print(json.dumps({"variant": preset_id, "dice": list(dice), "count": len(out), "plays": out}))
        return 0
    print(before)
    print(f"{before.turn} to play {'-'.join(map(str, dice))} ({preset_id}): "
          f"{len(out)} legal play{'s' if len(out) != 1 else ''}")
    for entry in out:
        print(f"  {entry['notation']:28} {entry.get('gnubg_id', '')}")
    if not out:
        print("  (no play: the throw cannot be used)")
    return 0


def outcome_notation(outcome: Outcome) -> str:
    """An outcome as text: the player's play, then the opponent's use of the
    dice that passed to him (``down 5, down 2; opponent down 2``), as the
    companion writes it (:func:`~willughby.companion.numbering.notation`)."""
    return notation(outcome)


def _moves_unstacking(args: argparse.Namespace, preset_id: str, rules: Rules) -> int:
    before = read_board(args.board, rules, "--board", require_turn=True, preset_id=preset_id)
    dice = _throw(rules, preset_id, args.dice)
    # one entry per distinct outcome; an outcome in which nobody did anything leaves the board as it
    # was and is no play (as for the race games: such a throw gives count 0)
    found = [o for o in turn_outcomes(rules, before, dice)
             if o.play.steps or (o.opponent_play is not None and o.opponent_play.steps)]
    found.sort(key=outcome_notation)
    out = [{"notation": outcome_notation(o), "board": o.position.to_board()} for o in found]
    if args.json:
        print(json.dumps({"variant": preset_id, "dice": list(dice), "count": len(out), "plays": out}))
        return 0
    print(draw_piles(rules, before))
    print(f"{before.turn} to play {'-'.join(map(str, dice))} ({preset_id}): "
          f"{len(out)} legal outcome{'s' if len(out) != 1 else ''}")
    for o in found:
        nxt = o.position.turn
        then = f"{nxt} throws again" if nxt == before.turn else f"then {nxt} throws"
        print(f"  {outcome_notation(o):44}  {then}")
    if not out:
        print("  (no play: the throw cannot be used)")
    return 0


def _moves_counting(args: argparse.Namespace, preset_id: str, rules: Rules, overrides: dict[str, str]) -> int:
    players = rules.players if "players" in overrides else None
    before = _tally(args.board, "--board", players, require_turn=True)
    rules = _counting_rules(rules, overrides, before)
    dice = _throw(rules, preset_id, args.dice)
    outcome = _count(rules, before, dice, "--board")
    if args.json:
        print(json.dumps({"variant": preset_id, "dice": list(dice), "count": 1, "plays": [outcome.to_json()]}))
        return 0
    print(before)
    print(f"player {before.turn} throws {'-'.join(map(str, dice))} ({preset_id}, "
          f"read {', then '.join(map(str, outcome.dice))}):")
    _print_tally_outcome(outcome.events, outcome.after, outcome.game_over)
    return 0


def _count(rules: Rules, before: Tally, dice: Sequence[int], what: str) -> TallyOutcome:
    try:
        return count_throw(rules, before, dice)
    except InvalidBoardError as exc:  # the tally before: a game over, a player out on turn
        raise InvalidBoardError(f"{what}: {exc}") from None


def _print_tally_outcome(events: Sequence[Any], after: Tally, game_over: Any) -> None:
    said = {"hand_left": "hands a man to player {to} (a 1)", "bear_off": "bears a man off (a 6)",
            "pool_in": "puts a man into the pool (a 5)", "pool_out": "takes a man from the pool (a 2)",
            "throw_again": "throws again", "out": "has no men left: out"}
    for e in events:
        print(f"  player {e.player} " + said.get(e.type, e.type).format(to=e.to))
    if not events:
        print("  nothing counts (3s and 4s, or dice that find nothing to act on)")
    print("\n".join("  " + line for line in str(after).splitlines()))
    if game_over is not None:
        print(f"  game over: player {game_over.loser} is the last with men and pays ({game_over.kind}, "
              f"stake {game_over.stake})")
    elif after.turn is not None:
        print(f"  next: player {after.turn} throws")


# -------------------------------------------------------------------- judge
def cmd_judge(args: argparse.Namespace) -> int:
    preset_id, rules, overrides = _rules(args)
    if (args.after is None) == (args.after_image is None):
        raise UsageError("willughby judge: give the board after the turn: --after (a board document) or "
                         "--after-image (a photo)")
    if args.after_image is None and (args.before_image or args.corners):
        raise UsageError("willughby judge: --before-image and --corners go with --after-image")
    if args.after_image is not None:
        _not_for("--after-image", preset_id, rules)
    if _board(rules) == "tally":
        return _judge_counting(args, preset_id, rules, overrides)
    if args.dice is None and args.after_image is None:
        raise UsageError("willughby judge: give the dice thrown (--dice 3,1); only with --after-image may the "
                         "throw be read from the photo")
    before = read_board(args.before, rules, "--before", require_turn=True, preset_id=preset_id)
    if args.after_image is not None:
        return judge_photo(args, rules, before, None if args.dice is None else _throw(rules, preset_id, args.dice))
    dice = _throw(rules, preset_id, args.dice)
    after = read_board(args.after, rules, "--after", require_turn=False, preset_id=preset_id)
    ruling = judge(rules, before, dice, after)
    doc = ruling.to_json()
    if ruling.legal and not doc["play"]:
        doc["play"] = NO_PLAY  # the player himself did nothing (his dice lost or passed)
    if args.json:
        print(json.dumps(doc))
        return 0
    _print_ruling(rules, ruling, doc["play"])
    return 0


_SAID = {"unstack": "played down a man on his {point} point", "restack": "piled a man up again on his {point} point",
         "bear_off": "bore a man off his {point} point", "hit": "hit a blot on his {point} point",
         "enter": "entered a man on his {point} point", "pass": "could play nothing",
         "lost_die": "lost a {die}: it could not be used", "opponent_uses_die": "used the {die} passed to him",
         "bound": "has bound his home table", "win": "wins"}


def _print_ruling(rules: Rules, ruling: Ruling, play: str | None) -> None:
    if not ruling.legal:
        print(f"illegal: {ruling.reason} ({ruling.citation})")
        if ruling.closest:
            print("  closest legal plays: " + "; ".join(ruling.closest))
        return
    text = play or ""
    if ruling.opponent_play:
        text += f"; opponent {ruling.opponent_play}"
    print(f"legal: {text}")
    for e in ruling.events:
        if e.type == "win":
            continue  # said with the stake below
        if e.type in _SAID and (e.point is not None or "{point}" not in _SAID[e.type]):
            print(f"  {e.player} " + _SAID[e.type].format(point=e.point, die=e.die))
        else:  # an event without its point (a man borne off from the bar's count, say)
            bits = [e.type.replace("_", " "), e.player]
            if e.point is not None:
                bits.append(f"point {e.point}")
            if e.die is not None:
                bits.append(f"die {e.die}")
            print("  " + ", ".join(bits))
    if ruling.game_over:
        g = ruling.game_over
        print(f"  {g.winner} wins: {g.kind}, stake {g.stake}")
    if _board(rules) == "piles" and ruling.after is not None:
        print(draw_piles(rules, ruling.after))
        if not ruling.game_over and ruling.after.turn is not None:
            again = ruling.after.turn == ruling.player
            print(f"  {ruling.after.turn} throws {'again (a doublet)' if again else 'next'}")


def _judge_counting(args: argparse.Namespace, preset_id: str, rules: Rules, overrides: dict[str, str]) -> int:
    players = rules.players if "players" in overrides else None
    before = _tally(args.before, "--before", players, require_turn=True)
    rules = _counting_rules(rules, overrides, before)
    after = _tally(args.after, "--after", before.players, require_turn=False)
    dice = _throw(rules, preset_id, args.dice)
    _count(rules, before, dice, "--before")  # a tally no throw can be made from is bad input
    ruling = judge_tally(rules, before, dice, after)
    if args.json:
        print(json.dumps(ruling.to_json()))
        return 0
    if ruling.legal:
        print(f"legal: player {ruling.player} threw {'-'.join(map(str, ruling.dice))}")
    else:
        print(f"illegal: {ruling.reason} ({ruling.citation})")
        print("  the throw should have given:")
    _print_tally_outcome(ruling.events, ruling.after, ruling.game_over)
    return 0


# ------------------------------------------------------------ from a photo
def judge_photo(args: argparse.Namespace, rules: Rules, before: Position, dice: Sequence[int] | None) -> int:
    """``judge --after-image``: the turn read from a photo by the turn reader,
    knowing the board before and the throw (the camera's "A turn judged from
    a photo", :func:`~willughby.companion.photo_judge.judge_photo`). Rules
    only what the photo settles; otherwise ``unsure``. Without *dice*, the
    throw is read from the dice lying in the photo
    (:func:`~willughby.companion.photo_judge.read_throw`): dice not read surely
    make the turn ``unsure``, never a ruling on a guessed throw, and a board no
    play of the throw read leads to is ``unsure`` too (asked), never ruled
    illegal on the dice read alone."""
    from willughby.vision.cli import locate, read_image
    from willughby.vision.turns import OTHER

    from .photo_judge import judge_photo as judge_image
    from .photo_judge import read_throw, unsure_of_throw

    image = read_image(args.after_image)
    corners, look = locate(image, args.corners, args.calibration)
    earlier = read_image(args.before_image) if args.before_image else None
    dice_read = None
    if dice is None:
        dice, dice_read, why = read_throw(rules, image, corners)
        if dice is None:
            doc = unsure_of_throw(rules, image, corners, marked_by_hand=bool(args.corners), look=look,
                                  earlier=earlier, dice_read=dice_read, why=why)
            print(json.dumps(doc) if args.json else f"unsure: {why}; ask the players")
            return 0
    doc = judge_image(rules, before, dice, image, corners, marked_by_hand=bool(args.corners), look=look,
                      earlier=earlier, throw_read=dice_read is not None)
    doc.pop("corners", None)
    if dice_read is not None:
        doc["dice_read"] = dice_read
        doc["dice"] = list(dice)
    if args.json:
        print(json.dumps(doc))
        return 0
    if doc["verdict"] == "legal":
        print(f"legal: {doc['play']}")
    elif doc["verdict"] == "illegal":
        print(f"illegal: {doc['reason']} ({doc['citation']})")
    else:
        read = f" (the camera read the throw {'-'.join(map(str, dice))})" if dice_read is not None else ""
        print(f"unsure: the photo does not settle this turn{read}; ask the players" +
              ("" if doc["settled"] else " (the board cannot be read: " + "; ".join(doc["notes"]) + ")"))
    for r in doc["candidates"][:4] if doc["settled"] else []:
        if r["p"] >= 0.001:
            print(f"  {r['play'] if r['play'] != OTHER else 'a board no play leads to'}: {100 * r['p']:.1f}%")
    return 0


def _cell(men: int, piled: int) -> str:
    if not men:
        return "."
    return (f"[{'o' * piled}]" if piled else "") + "o" * (men - piled)


def draw_piles(rules: Rules, position: Position) -> str:
    """An unstacking game's board, each side's six points in his own
    numbering: ``[ooo]`` a pile of three, ``o`` a man laid flat, then the
    men borne off and the phase.

    >>> from willughby.engine.rules import preset_rules, start_position
    >>> print(draw_piles(preset_rules("doblet"), start_position(preset_rules("doblet"), "light")))
    point          1      2      3      4      5      6    off  phase
    light >     [oo]   [oo]   [oo]   [oo]   [oo]   [oo]      0  unstack
    dark        [oo]   [oo]   [oo]   [oo]   [oo]   [oo]      0  unstack
    [..] men in a pile, o a man laid flat; light's point n is physical n, dark's 25 - n
    """
    lines = ["point    " + "".join(f"{n:>7}" for n in range(1, 7)) + "    off  phase"]
    for i, colour in enumerate(COLOURS):
        cells = []
        for own in range(1, 7):
            p = unstacking.table_point(rules, colour, own) - 1
            cells.append(_cell(position.points(colour)[p], position.stacked[i][p]))
        try:
            phase = unstacking.phase_of(rules, position, colour)
        except EngineError:
            phase = "?"
        mark = ">" if position.turn == colour else " "
        off = position.off[i] + position.waiting[i]
        lines.append(f"{colour:5} {mark}  " + "".join(f"{c:>7}" for c in cells) + f"  {off:>5}  {phase}")
    dark_is = "12 + n" if rules.tables == "right-hand" else "25 - n"
    lines.append(f"[..] men in a pile, o a man laid flat; light's point n is physical n, dark's {dark_is}")
    return "\n".join(lines)


# ------------------------------------------------------------------ parsers
def add_game_commands(sub: Any) -> None:
    """Add ``variants``, ``moves`` and ``judge`` to the command's subparsers."""
    p = sub.add_parser("variants", help="list the games and their options")
    p.add_argument("--json", action="store_true", help="one JSON document on standard output")
    p.set_defaults(func=cmd_variants)

    def common(p: argparse.ArgumentParser, dice_read: bool = False) -> None:
        p.add_argument("--variant", required=True, help="preset id or alias (willughby variants)")
        p.add_argument("-o", dest="option", action="append", metavar="NAME=VALUE",
                       help="override an option (repeatable); for sice-ace, players=N (else the tally's count)")
        p.add_argument("--dice", required=not dice_read,
                       help="the dice thrown, e.g. 3,1" + ("; with --after-image, where not given, read from "
                                                           "the photo (the dice still lying on the board)"
                                                           if dice_read else ""))
        p.add_argument("--json", action="store_true", help="one JSON document on standard output")

    p = sub.add_parser("moves", help="list every legal play of a throw")
    common(p)
    p.add_argument("--board", help="board document (a tally document for sice-ace): inline JSON or @path")
    p.add_argument("--gnubg-id", help="GNU Backgammon Position ID (race games); the player on roll is light")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("judge", help="rule on one turn: the board before, the throw, the board after")
    common(p, dice_read=True)
    p.add_argument("--before", required=True,
                   help="board document before the turn, with turn (a tally document for sice-ace)")
    p.add_argument("--after", help="board document after the turn (a tally document for sice-ace)")
    p.add_argument("--after-image", metavar="IMG", help="a photo of the board after the turn, read knowing the "
                   "board before and the throw (instead of --after; race games)")
    p.add_argument("--before-image", metavar="IMG", help="a photo of the same board before the turn, same camera")
    p.add_argument("--corners", metavar='"x1,y1 x2,y2 x3,y3 x4,y4"',
                   help="the playing surface's corners in the photo (else the saved calibration)")
    p.add_argument("--calibration", metavar="FILE",
                   help="with --after-image: the calibration to read the photo with (default: the one in the "
                        "data directory, where 'vision calibrate' writes it)")
    p.set_defaults(func=cmd_judge)
