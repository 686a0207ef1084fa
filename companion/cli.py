"""The ``willughby`` command (``../shared/specs/cli.md``).

Bad input -- an unknown preset or option, a malformed board, dice the game
cannot throw -- exits with status 2 and one line on standard error naming
what was wrong; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, NoReturn, Sequence

from willughby.engine.errors import EngineError, InvalidBoardError, InvalidDiceError, InvalidOptionError
from willughby.engine.moves import legal_plays, sorted_plays, validate_dice
from willughby.engine.position import Position
from willughby.engine.referee import judge
from willughby.engine.rules import PRESETS, Rules, get_preset
from willughby.companion.config import ConfigError
from willughby.firmware_bridge.errors import BridgeError
from willughby.vision.errors import VisionError

EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2 (cli.md)
        raise UsageError(f"{self.prog}: {message}")


def _rules(args: argparse.Namespace) -> tuple[str, Rules]:
    preset = get_preset(args.variant)
    overrides: dict[str, str] = {}
    for item in args.option or []:
        if "=" not in item:
            raise InvalidOptionError(f"option {item!r} must be written name=value")
        name, value = item.split("=", 1)
        overrides[name.strip()] = value.strip()
    return preset.id, preset.rules.with_options(overrides)


def _dice(text: str) -> list[int]:
    parts = [p for p in text.replace(" ", ",").replace("-", ",").split(",") if p]
    out = []
    for p in parts:
        if not p.isdigit():
            raise InvalidDiceError(f"--dice takes numbers like 3,1, not {text!r}")
        out.append(int(p))
    return out


def _board(text: str, rules: Rules, what: str, require_turn: bool) -> Position:
    raw: Any = text
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            raw = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidBoardError(f"{what}: cannot read {path}: {exc.strerror}") from None
    try:
        return Position.from_board(raw, men=rules.men, starts_off_board=rules.start_waiting > 0,
                                   require_turn=require_turn)
    except InvalidBoardError as exc:
        raise InvalidBoardError(f"{what}: {exc}") from None


def cmd_variants(args: argparse.Namespace) -> int:
    presets = [p.to_json() for p in PRESETS.values()]
    if args.json:
        print(json.dumps({"presets": presets}))
        return 0
    for p in PRESETS.values():
        differs = {k: v for k, v in p.rules.options().items() if Rules().options()[k] != v}
        opts = " ".join(f"{k}={v}" for k, v in differs.items())
        alias = f" (also: {', '.join(p.aliases)})" if p.aliases else ""
        print(f"{p.id:22} {p.name}{alias}\n{'':22} {opts or 'all options at their defaults'}\n"
              f"{'':22} source: {p.source}")
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    preset_id, rules = _rules(args)
    if (args.board is None) == (args.gnubg_id is None):
        raise UsageError("willughby moves: give exactly one of --board or --gnubg-id")
    if args.board is not None:
        before = _board(args.board, rules, "--board", require_turn=True)
    else:
        before = Position.from_gnubg_id(args.gnubg_id, men=rules.men)
    dice = validate_dice(rules, _dice(args.dice))
    plays = [p for p in sorted_plays(legal_plays(rules, before, dice)) if p.steps]
    with_gnubg = rules.family == "race" and rules.men == 15
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


def cmd_judge(args: argparse.Namespace) -> int:
    preset_id, rules = _rules(args)
    before = _board(args.before, rules, "--before", require_turn=True)
    if (args.after is None) == (args.after_image is None):
        raise UsageError("willughby judge: give the board after the turn: --after (a board document) or --after-image (a photo)")
    if args.after_image is None and (args.before_image or args.corners):
        raise UsageError("willughby judge: --before-image and --corners go with --after-image")
    dice = validate_dice(rules, _dice(args.dice))
    if args.after_image is not None:
        return _judge_photo(args, rules, before, dice)
    after = _board(args.after, rules, "--after", require_turn=False)
    ruling = judge(rules, before, dice, after)
    if args.json:
        print(json.dumps(ruling.to_json()))
        return 0
    if ruling.legal:
        print(f"legal: {ruling.play}")
        for e in ruling.events:
            bits = [e.type.replace("_", " "), e.player]
            if e.point is not None:
                bits.append(f"point {e.point}")
            if e.die is not None:
                bits.append(f"die {e.die}")
            print("  " + ", ".join(bits))
        if ruling.game_over:
            g = ruling.game_over
            print(f"  {g.winner} wins: {g.kind}, stake {g.stake}")
    else:
        print(f"illegal: {ruling.reason} ({ruling.citation})")
        if ruling.closest:
            print("  closest legal plays: " + "; ".join(ruling.closest))
    return 0


def _judge_photo(args: argparse.Namespace, rules: Rules, before: Position, dice: Sequence[int]) -> int:
    """``judge --after-image``: the turn read from a photo by the turn reader,
    knowing the board before and the throw (the camera's "A turn judged from
    a photo"). Rules only what the photo settles; otherwise ``unsure``."""
    from willughby.engine.referee import turn_outcomes
    from willughby.vision.cli import locate, read_image
    from willughby.vision.reader import read_board
    from willughby.vision.turns import OTHER, Candidate, TurnEvidence, TurnReader, point_changes

    image = read_image(args.after_image)
    corners, look = locate(image, args.corners)
    if args.corners:
        # corners marked on the photo by hand, a few pixels off: moved along the board to the points'
        # edges (a saved calibration's were refined when it was made)
        from willughby.vision.config import VisionConfig
        from willughby.vision.refine import refine_corners

        corners = refine_corners(VisionConfig(), image, corners).corners.tolist()
    earlier = read_image(args.before_image) if args.before_image else None
    if earlier is not None and earlier.shape == image.shape:
        # the photo before, from the same camera, shows this board as it is: what it learns of the board
        # (its colours, and its frame's picture, so only what changed since can be a hand) is used to read
        from dataclasses import replace

        from willughby.vision.reader import learn_look

        learnt = learn_look(earlier, corners)
        look = learnt if look is None else replace(look, rails=learnt.rails)
    reading = read_board(image, corners, look=look)
    changes = None
    if earlier is not None:
        changes = point_changes(earlier, image, corners)
    outcomes = turn_outcomes(rules, before, dice)
    by_play = {(o.play.notation or "(no play)"): o for o in outcomes}
    found = TurnReader().judge([Candidate(p, o.position.to_board()) for p, o in by_play.items()],
                               TurnEvidence.from_reading(reading, changes), before=before.to_board(), men=rules.men)
    read_doc = reading.to_board(men_per_side=rules.men)
    read_doc["confidence"] = {k: round(v, 3) for k, v in reading.location_confidence.items()}
    candidates = [{"play": r["play"], "board": r["board"], "p": round(r["p"], 4)} for r in found.ranked]
    if found.verdict == "legal":
        ruling = judge(rules, before, dice, by_play[found.play].position)
        doc = ruling.to_json()
    elif found.verdict == "illegal" and _possible(found.board, rules) is not None:
        ruling = judge(rules, before, dice, _possible(found.board, rules))
        doc = ruling.to_json()
    else:
        doc = {"verdict": "unsure", "play": None, "after": None, "events": [], "reason": None, "citation": None,
               "game_over": None}
    doc.update(reading=read_doc, candidates=candidates, settled=found.settled, notes=list(found.notes))
    if args.json:
        print(json.dumps(doc))
        return 0
    if doc["verdict"] == "legal":
        print(f"legal: {doc['play']}")
    elif doc["verdict"] == "illegal":
        print(f"illegal: {doc['reason']} ({doc['citation']})")
    else:
        print("unsure: the photo does not settle this turn; ask the players" +
              ("" if found.settled else " (the board cannot be read: " + "; ".join(found.notes) + ")"))
    for r in candidates[:4] if found.settled else []:
        if r["p"] >= 0.001:
            print(f"  {r['play'] if r['play'] != OTHER else 'a board no play leads to'}: {100 * r['p']:.1f}%")
    return 0


def _possible(board: Any, rules: Rules) -> Position | None:
    """The position of a board read from a photo, or None where no position can be it."""
    try:
        return Position.from_board({k: board[k] for k in ("format", "light", "dark", "bar", "off")}, men=rules.men)
    except (EngineError, KeyError, TypeError):
        return None


def _port(text: str) -> int:
    """``--port``: a port number, or 0 for any free port."""
    from willughby.companion.config import port_problem

    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a port number from 0 to 65535, not {text!r}") from None
    problem = port_problem(port, allow_any=True)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return port


def _host(text: str) -> str:
    """``--host``: an address or host name to listen on."""
    from willughby.companion.config import host_problem

    problem = host_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def _watchers(text: str) -> int:
    """``--max-watchers``: how many pages may follow the game at once."""
    from willughby.companion.config import watchers_problem

    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    problem = watchers_problem(count)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return count


def _banner(what: str, host: str, port: int, max_watchers: int) -> list[str]:
    """Where the page can be opened: on this machine, and from phones when it listens for them."""
    from willughby.web_ui.server import lan_addresses, listens_on_all, mdns_name, page_url

    if not listens_on_all(host):
        lines = [f"{what} on {page_url(host, port)}"]
        if host in ("127.0.0.1", "::1", "localhost"):
            lines.append("only this machine can open it; for phones at the table listen on every address "
                         "(--host 0.0.0.0, or host = \"0.0.0.0\" under [web])")
    else:
        lines = [f"{what} on port {port} of every address of this machine: {page_url('127.0.0.1', port)} here"]
        addresses = [page_url(a, port) for a in lan_addresses()]
        name = mdns_name()
        if name:
            addresses.append(page_url(name, port))
        if addresses:
            lines.append("phones on the same network can open " + " or ".join(addresses))
        else:
            lines.append(f"phones on the same network can open http://<this machine's address>:{port}/")
    lines.append(f"at most {max_watchers} pages may follow the game at once")
    return lines


def _run_service(runtime: Any, host: str, port: int, what: str) -> int:
    """Serve the page until SIGTERM or Ctrl-C (``web_ui.server``), then close everything."""
    import signal

    from willughby.web_ui.server import PageServer

    try:
        server = PageServer(runtime.app, host, port)
    except OSError as exc:
        runtime.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    for line in _banner(what, host, server.port, runtime.config.max_watchers):
        print(line, flush=True)
    print(f"control PIN {runtime.config.pin}" + (" (new: saved under the data directory)"
                                                 if runtime.pin_created else ""), flush=True)
    print(f"games are kept in {runtime.config.store_path}", flush=True)
    try:
        server.serve()  # SIGTERM and Ctrl-C stop it
    finally:
        # closing the devices takes a moment: a second SIGTERM must not cut it short
        previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            runtime.close()
        finally:
            signal.signal(signal.SIGTERM, previous)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from willughby.companion.config import CompanionConfig
    from willughby.companion.runtime import build, limit_malloc_arenas

    limit_malloc_arenas()
    config = CompanionConfig()
    changes: dict[str, Any] = {"speech": "auto" if args.speak else "off", "preset": args.preset,
                               "players": {"light": "Ann", "dark": "Bob"}}
    if args.data_dir:
        changes["data_dir"] = Path(args.data_dir)
    if args.max_watchers is not None:
        changes["max_watchers"] = args.max_watchers
    config = replace(config, **changes)
    if args.speed <= 0:
        raise UsageError("willughby demo: --speed must be above 0")
    start = None
    if args.start:
        from willughby.engine.rules import preset_rules

        rules = preset_rules(args.preset)
        start = _board(args.start, rules, "--start", require_turn=True).to_board()
    runtime = build(config, demo=True, speed=args.speed, seed=args.seed, games=args.games, start=start)
    return _run_service(runtime, args.host, args.port, "Willughby demo")


def cmd_serve(args: argparse.Namespace) -> int:
    from willughby.companion.config import load_config
    from willughby.companion.runtime import build, limit_malloc_arenas

    limit_malloc_arenas()
    config = load_config(args.config)
    runtime = build(config)
    return _run_service(runtime, config.host, config.port, "Willughby")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="willughby", description="A referee for tables games.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("variants", help="list the games and their options")
    p.add_argument("--json", action="store_true", help="one JSON document on standard output")
    p.set_defaults(func=cmd_variants)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--variant", required=True, help="preset id or alias (willughby variants)")
        p.add_argument("-o", dest="option", action="append", metavar="NAME=VALUE",
                       help="override an option (repeatable)")
        p.add_argument("--dice", required=True, help="the dice thrown, e.g. 3,1")
        p.add_argument("--json", action="store_true", help="one JSON document on standard output")

    p = sub.add_parser("moves", help="list every legal play of a throw")
    common(p)
    p.add_argument("--board", help="board document: inline JSON or @path")
    p.add_argument("--gnubg-id", help="GNU Backgammon Position ID; the player on roll is light")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("judge", help="rule on one turn: the board before, the throw, the board after")
    common(p)
    p.add_argument("--before", required=True, help="board document before the turn (with turn)")
    p.add_argument("--after", help="board document after the turn")
    p.add_argument("--after-image", metavar="IMG", help="a photo of the board after the turn, read knowing the "
                   "board before and the throw (instead of --after)")
    p.add_argument("--before-image", metavar="IMG", help="a photo of the same board before the turn, same camera")
    p.add_argument("--corners", metavar='"x1,y1 x2,y2 x3,y3 x4,y4"',
                   help="the playing surface's corners in the photo (else the saved calibration)")
    p.set_defaults(func=cmd_judge)

    from willughby.vision.cli import add_reader_commands, add_vision_commands

    add_reader_commands(add_vision_commands(sub))

    from willughby.firmware_bridge.cli import add_bridge_commands

    add_bridge_commands(sub)

    p = sub.add_parser("demo", help="a whole refereed game on drawn frames and a fake dice box, in the browser")
    p.add_argument("--host", type=_host, default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; "
                        "0.0.0.0: every address, for phones at the table)")
    p.add_argument("--port", type=_port, default=8080, help="port (default 8080; 0 picks a free one)")
    p.add_argument("--max-watchers", type=_watchers, default=None,
                   help="pages that may follow the game at once (default 300); one more is asked to come back later")
    p.add_argument("--speed", type=float, default=1.0, help="pace: 1 a person can watch, 50 fifty times faster")
    p.add_argument("--data-dir", help="where the game store lives (default under ~/.local/share/willughby)")
    p.add_argument("--preset", default="backgammon", help="the game the demo's players play")
    p.add_argument("--seed", type=int, default=None, help="seed for the players' choices")
    p.add_argument("--games", type=int, default=None, help="stop playing after this many games")
    p.add_argument("--speak", action="store_true", help="speak the announcements (espeak-ng)")
    p.add_argument("--start", metavar="BOARD", help="begin each game from this board (with turn): inline JSON or @file")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("serve", help="run the companion on the devices of a configuration file")
    p.add_argument("--config", help="the TOML configuration (default: every setting's default)")
    p.set_defaults(func=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.func(args))
    except UsageError as exc:
        print(str(exc).replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    except (EngineError, VisionError, BridgeError, ConfigError) as exc:
        print(f"willughby: {exc}".replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
