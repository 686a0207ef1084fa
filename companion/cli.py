"""The ``willughby`` command (``docs/command-line.md``): the parser, the
page's ``demo`` and ``serve``; the engine's ``variants``, ``moves`` and
``judge`` are in :mod:`willughby.companion.cli_games`.

Bad input -- an unknown preset or option, a malformed board, dice the game
cannot throw -- exits with status 2 and one line on standard error naming
what was wrong; never a traceback. A device the configuration names that is
not there yet (a camera that cannot be opened) exits with 75 (EX_TEMPFAIL)
and its one line: the service's unit restarts after 75, never after 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NoReturn, Sequence

from willughby.engine.errors import EngineError
from willughby.companion.cli_games import UsageError, add_game_commands, read_board
from willughby.companion.cli_watch import add_watch_command
from willughby.companion.cli_analyse import add_analyse_command
from willughby.companion.cli_records import add_record_commands
from willughby.companion.config import ConfigError, DeviceAbsentError
from willughby.companion.store_schema import CorruptStoreError, StoreError
from willughby.firmware_bridge.errors import BridgeError
from willughby.vision.errors import VisionError

EXIT_BAD_INPUT = 2
#: a device not there yet (sysexits.h's EX_TEMPFAIL): another try may find it (hardware/willughby.service)
EXIT_DEVICE_ABSENT = 75


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2 (docs/command-line.md)
        raise UsageError(f"{self.prog}: {message}")


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


def _game_line(runtime: Any, how_new: str) -> str | None:
    """One line on the game the service found in progress: carried on (and how to start the asked one
    instead), or left unfinished for the asked one; None when there was none."""
    if runtime.resumed is not None:
        g = runtime.resumed
        return (f"carrying on game {g['game_id']} of {g['preset']} ({g['players']}), turn {g['turn']}: "
                f"{g['awaiting']}; {how_new}")
    if runtime.left is not None:
        g = runtime.left
        return (f"left game {g['game_id']} of {g['preset']} ({g['players']}) unfinished at turn {g['turn']} "
                f"(kept in the store as abandoned): a new game of {runtime.config.preset} starts")
    return None


def _run_service(runtime: Any, host: str, port: int, what: str, game_line: str | None = None) -> int:
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
    if game_line:
        print(game_line, flush=True)
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


def keep_frame_memory(keep_mb: int) -> None:
    """For a program that reads frames for as long as it runs (serve, demo):
    the C library keeps a frame's working memory for the next
    (``vision/memory.py``): a setting of the whole process, made here, by
    the program that owns it, not by a library's first read."""
    from willughby.vision.memory import keep_frame_memory as keep

    keep(keep_mb)


def cmd_demo(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from willughby.companion.config import CompanionConfig
    from willughby.companion.runtime import build, limit_malloc_arenas

    limit_malloc_arenas()
    config = CompanionConfig()
    keep_frame_memory(config.vision_config.reader.keep_memory_mb)
    # the game asked for: --preset, --start or --players name one; without them the demo carries on
    # the game in progress, whatever its preset (backgammon when there is none)
    asked = args.preset is not None or args.start is not None or args.players is not None or args.match is not None
    if args.preset is None:
        args.preset = "backgammon"
    changes: dict[str, Any] = {"speech": "on" if args.speak else "off", "preset": args.preset,
                               "players": {"light": "Ann", "dark": "Bob"}}
    if args.data_dir:
        changes["data_dir"] = Path(args.data_dir)
    if args.max_watchers is not None:
        changes["max_watchers"] = args.max_watchers
    config = replace(config, **changes)
    if args.speed <= 0:
        raise UsageError("willughby demo: --speed must be above 0")
    if args.match is not None:
        from willughby.engine.families import family_of
        from willughby.engine.rules import preset_rules

        if not 1 <= args.match <= 64:
            raise UsageError(f"willughby demo: --match is the points a match is played to, 1 to 64, not {args.match}")
        if not family_of(preset_rules(args.preset)).matches or args.start:
            raise UsageError(f"willughby demo: --match: a match is played with a race game from its start, not "
                             f"{args.preset}{' from --start' if args.start else ''} (docs/matches.md)")
    if args.players is not None:
        from willughby.engine.families import family_of
        from willughby.engine.rules import preset_rules

        if family_of(preset_rules(args.preset)).board != "tally":
            raise UsageError(f"willughby demo: --players applies to the counting game (sice-ace); "
                             f"{args.preset} is played by two")
        if not 2 <= args.players <= 5:
            raise UsageError(f"willughby demo: --players must be 2 to 5, not {args.players}")
    start = None
    if args.start:
        from willughby.engine.families import family_of
        from willughby.engine.rules import preset_rules

        rules = preset_rules(args.preset)
        if family_of(rules).board == "tally":
            raise UsageError(f"willughby demo: --start: {args.preset} starts from six men each and is played "
                             "from the dice alone; --start takes a board for the board games")
        start = read_board(args.start, rules, "--start", require_turn=True, preset_id=args.preset).to_board()
    runtime = build(config, demo=True, speed=args.speed, seed=args.seed, games=args.games, start=start,
                    seats=args.players, new_game=args.new_game or start is not None,
                    resume_other_preset=not asked, match=args.match)
    line = _game_line(runtime, "willughby demo --new-game starts afresh, --preset ID another game")
    return _run_service(runtime, args.host, args.port, "Willughby demo", line)


def cmd_serve(args: argparse.Namespace) -> int:
    from willughby.companion.config import load_config
    from willughby.companion.runtime import build, limit_malloc_arenas

    limit_malloc_arenas()
    config = load_config(args.config)
    keep_frame_memory(config.vision_config.reader.keep_memory_mb)
    runtime = build(config, new_game=args.new_game)
    again = "willughby serve" + (f" --config {args.config}" if args.config else "") + " --new-game"
    line = _game_line(runtime, f"{again} starts a new game of the configured {config.preset} instead, "
                               "or New game on the page")
    return _run_service(runtime, config.host, config.port, "Willughby", line)


def cmd_doctor(args: argparse.Namespace) -> int:
    from willughby.companion.config import load_config
    from willughby.companion.doctor import run_doctor

    return run_doctor(load_config(args.config))


def version() -> str:
    """The installed package's version (its metadata), as ``willughby --version`` prints it."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("willughby")
    except PackageNotFoundError:        # run from a source tree never installed
        return "unknown (not installed: pip install --no-deps --no-build-isolation -e ., after the lock)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="willughby", description="A referee for tables games.")
    parser.add_argument("--version", action="version", version=f"willughby {version()}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    add_game_commands(sub)
    add_watch_command(sub)
    add_record_commands(sub)
    add_analyse_command(sub)

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
    p.add_argument("--preset", default=None,
                   help="the game the demo's players play (default: the game in progress, else backgammon); "
                        "a game in progress of another preset is left unfinished")
    p.add_argument("--seed", type=int, default=None, help="seed for the players' choices")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="how many play Sice-Ace (2 to 5; default three to five by the seed)")
    p.add_argument("--games", type=int, default=None, help="stop playing after this many games")
    p.add_argument("--match", type=int, default=None, metavar="N",
                   help="play a match to N points (1 to 64; docs/matches.md), game after game to its end; "
                        "a match in play is carried on")
    p.add_argument("--speak", action="store_true", help="speak the announcements (espeak-ng)")
    p.add_argument("--start", metavar="BOARD",
                   help="begin each game from this board (with turn): inline JSON or @file; starts a new game now")
    p.add_argument("--new-game", action="store_true",
                   help="start a new game even if one is in progress (that one is kept, as abandoned)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("serve", help="run the companion on the devices of a configuration file")
    p.add_argument("--config", help="the TOML configuration (default: every setting's default)")
    p.add_argument("--new-game", action="store_true",
                   help="start the configured game even if one is in progress (that one is kept, as abandoned)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("doctor", help="check that this machine has what a configuration needs (camera, pins, "
                                      "box, espeak-ng, data directory, picamera2 beside numpy)")
    p.add_argument("--config", help="the TOML configuration (default: every setting's default)")
    p.set_defaults(func=cmd_doctor)
    return parser


def _config_words(argv: Sequence[str] | None) -> str:
    """The ``--config``/``--data-dir`` the command was given, to repeat in a command it suggests."""
    words = list(sys.argv[1:] if argv is None else argv)
    kept = []
    for k, word in enumerate(words):
        for flag in ("--config", "--data-dir"):
            if word == flag and k + 1 < len(words):
                kept.append(f" {flag} {words[k + 1]}")
            elif word.startswith(flag + "="):
                kept.append(f" {word}")
    return "".join(kept)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.func(args))
    except UsageError as exc:
        print(str(exc).replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    except DeviceAbsentError as exc:
        print(f"willughby: {exc}".replace("\n", " "), file=sys.stderr)
        return EXIT_DEVICE_ABSENT
    except (EngineError, VisionError, BridgeError, ConfigError) as exc:
        print(f"willughby: {exc}".replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    except CorruptStoreError as exc:    # at start: the fix named
        print(f"willughby: {exc}; willughby recover{_config_words(argv)} keeps it aside, untouched, and "
              "recovers every game that can be read into a new store".replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    except StoreError as exc:           # a full disk, a read-only store: the message names the file and the fix
        print(f"willughby: {exc}".replace("\n", " "), file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
