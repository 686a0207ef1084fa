"""``willughby watch``: referee a recorded game (``companion/replay.py``).

    willughby watch SOURCE --throws FILE --first light|dark [--variant ID] [-o NAME=VALUE ...]
                    (--corners "x1,y1 x2,y2 x3,y3 x4,y4" | --calibration FILE) [--answers FILE]
                    [--data-dir DIR] [--json]

SOURCE is a folder of stills (one settled view of the board each, in name
order, the opening position first) or a video file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Iterator

import numpy as np

__all__ = ["add_watch_command", "cmd_watch"]


def _frames(source: str) -> tuple[Iterator[np.ndarray], bool]:
    """The recording's frames, and whether they are stills (a folder) or a video's."""
    from willughby.hardware.camera import FolderSource, VideoFileSource

    path = Path(source)
    if not path.exists():
        raise _usage(f"no such folder or video: {source}")
    feed = FolderSource(path) if path.is_dir() else VideoFileSource(path)

    def frames() -> Iterator[np.ndarray]:
        try:
            while True:
                frame = feed.read()
                if frame is None:
                    return
                yield frame
        finally:
            feed.close()

    return frames(), path.is_dir()


def _usage(text: str) -> Exception:
    from willughby.companion.cli_games import UsageError

    return UsageError(f"willughby watch: {text}")


def _text(line: dict[str, Any]) -> str:
    dice = "-".join(str(d) for d in line.get("dice") or []) or "no throw"
    head = f"still {line['still']}: turn {line.get('turn')}"
    if line.get("attempt"):
        head += f" attempt {line['attempt']}"
    head += f", {line.get('player')} {dice}: {line['verdict']}"
    if line.get("play"):
        head += f" {line['play']}"
    if line.get("reason"):
        head += f" ({line['reason']})"
    if line.get("citation"):
        head += f" [{line['citation']}]"
    answer = line.get("answer")
    if answer:
        head += f"; answered: {answer.get('verdict')}" + (f" {answer['play']}" if answer.get("play") else "")
    return head


def cmd_watch(args: argparse.Namespace) -> int:
    from willughby.companion.cli_games import option_overrides
    from willughby.companion.errors import CompanionError
    from willughby.companion.replay import RecordedReferee, read_answers, read_throws
    from willughby.engine.rules import get_preset
    from willughby.hardware.camera import CameraError
    from willughby.vision.cli import parse_corners

    options = option_overrides(args.option)
    try:
        variant = get_preset(args.variant).id
        corners = parse_corners(args.corners) if args.corners else None
        throws = read_throws(args.throws)
        answers = read_answers(args.answers) if args.answers else None
        frames, stills = _frames(args.source)
        with RecordedReferee(variant, args.first, throws, options=options, corners=corners,
                             calibration=args.calibration, answers=answers, data_dir=args.data_dir) as referee:
            for line in referee.lines(frames, stills=stills):
                print(json.dumps(line) if args.json else _text(line), flush=True)
    except (CompanionError, CameraError) as exc:
        raise _usage(str(exc)) from None
    return 0


def add_watch_command(sub: Any) -> None:
    p = sub.add_parser("watch", help="referee a recorded game: a folder of stills or a video, and its throws")
    p.add_argument("source", metavar="SOURCE", help="a folder of stills (name order, the opening position first) "
                   "or a video file")
    p.add_argument("--throws", required=True, metavar="FILE", help="the throws, one a line (5,2), in the order thrown")
    p.add_argument("--first", required=True, choices=("light", "dark"), help="whose throw is the first")
    p.add_argument("--variant", default="backgammon", help="preset id or alias (willughby variants; default "
                   "backgammon)")
    p.add_argument("-o", dest="option", action="append", metavar="NAME=VALUE", help="override an option (repeatable)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--corners", metavar='"x1,y1 x2,y2 x3,y3 x4,y4"',
                       help="the playing surface's corners in the recording (the first still is then its "
                       "calibration photo)")
    where.add_argument("--calibration", metavar="FILE", help="a saved calibration of this camera and board")
    p.add_argument("--answers", metavar="FILE", help="the board each still after the first truly shows, one board "
                   "document a line: used only where the referee would ask the players")
    p.add_argument("--data-dir", metavar="DIR", help="keep the game's record and what was learnt of the board "
                   "here (default: a temporary folder, removed at the end)")
    p.add_argument("--json", action="store_true", help="one JSON line per still after the first")
    p.set_defaults(func=cmd_watch)
