"""``willughby analyse m-<id>``: GNU Backgammon's analysis of a finished match, kept with it.

The match is read from the store (opened only to read), written as a ``.mat`` file, analysed by gnubg
(``analysis.py``), printed (each player's error rate and gnubg's rating, the moves that cost most) and kept
beside the store (``analyses/<match id>.json``), where ``export m-<id>`` finds it. ``--show`` prints the
analysis kept without running gnubg again. A match still in play, a match that is not there, a store with
none, a match of a game gnubg does not play, or gnubg missing or failing: status 2 and one line.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from willughby.companion.cli_games import UsageError


def add_analyse_command(sub: Any) -> None:
    """Add ``analyse`` to the ``willughby`` command's subparsers *sub*."""
    from willughby.companion.cli_records import _where

    p = sub.add_parser("analyse", help="GNU Backgammon's analysis of a finished match: error rates, worst moves",
                       description="Have GNU Backgammon (gnubg, where installed) analyse a finished match of the "
                                   "store: each player's error rate and the moves that cost most; the analysis "
                                   "is kept with the match (docs/matches.md).")
    p.add_argument("match", metavar="MATCH", help="the match's id (m- and 12 hex digits: willughby games, the page)")
    p.add_argument("--plies", type=int, default=0, choices=(0, 1, 2),
                   help="gnubg's look-ahead: 0 (quick; the default), 1 or 2 (what players quote; slower)")
    p.add_argument("--worst", type=int, default=5, metavar="N", help="the N moves that cost most (default 5)")
    p.add_argument("--show", action="store_true", help="print the analysis kept with the match; run nothing")
    p.add_argument("--json", action="store_true", help="the analysis as one JSON document")
    p.add_argument("--gnubg", metavar="PROGRAM", help="the gnubg program (default: gnubg on the PATH or "
                                                      "/usr/games/gnubg)")
    _where(p)
    p.set_defaults(func=cmd_analyse)


def cmd_analyse(args: argparse.Namespace) -> int:
    from willughby.companion.analysis import (AnalysisError, analyse_mat, find_gnubg, report_text, save_report,
                                              saved_report)
    from willughby.companion.cli_records import _open, _store_path
    from willughby.companion.errors import CompanionError, UnknownError
    from willughby.companion.store import StoreError
    from willughby.companion.views import stored_match, stored_match_mat

    if not 1 <= args.worst <= 100:
        raise UsageError(f"willughby analyse: --worst is 1 to 100 moves, not {args.worst}")
    data_dir = _store_path(args).parent
    store = _open(args, "analyse")
    if store is None:
        raise UsageError(f"willughby analyse: no games stored in {data_dir}")
    with store:
        try:
            doc = stored_match(store, args.match)
            if doc["status"] == "playing" and not args.show:
                raise UsageError(f"willughby analyse: match {args.match} is still in play ({len(doc['games'])} "
                                 "games so far): gnubg's analysis is of a finished match")
            mat = None if args.show else stored_match_mat(store, args.match)
        except CompanionError as exc:
            raise UsageError(f"willughby analyse: match {args.match} cannot be analysed by gnubg: {exc}") from None
        except (UnknownError, StoreError) as exc:
            raise UsageError(f"willughby analyse: {exc}") from None
    if mat is None:
        report = saved_report(data_dir, args.match)
        if report is None:
            raise UsageError(f"willughby analyse: match {args.match} has no analysis kept: run willughby analyse "
                             f"{args.match}")
    else:
        games = len(doc["games"])
        try:
            program = find_gnubg(args.gnubg)
            print(f"willughby analyse: gnubg is analysing the match to {doc['length']} ({games} game"
                  f"{'s' if games != 1 else ''}, {args.plies}-ply) ...", file=sys.stderr)
            report = analyse_mat(mat, players=doc["players"], plies=args.plies, gnubg=program, worst=args.worst)
        except AnalysisError as exc:
            raise UsageError(f"willughby analyse: {exc}") from None
        try:
            path = save_report(data_dir, args.match, report)
        except OSError as exc:
            print(f"willughby analyse: note: the analysis is not kept: {exc.strerror or exc}", file=sys.stderr)
        else:
            print(f"willughby analyse: kept with the match in {path}", file=sys.stderr)
    if args.json:
        print(json.dumps(report, indent=1, ensure_ascii=False))
    else:
        sys.stdout.write(report_text(report))
    return 0
