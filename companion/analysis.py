"""GNU Backgammon's analysis of a finished match: each player's error rate and the worst mistakes.

``willughby analyse m-<id>`` writes the match as a ``.mat`` file (``matfile.py``), has gnubg import and
analyse it (gnubg's own evaluation, at the plies asked: 0 is quick, 2 is what players quote), and reads
back gnubg's account: for each player the decisions he had (unforced moves, close cube decisions), what
his errors cost in gnubg's normalised equity (EMG: a point of equity of a money game), his error rate in
thousandths of it a decision (mEMG, as gnubg prints it) and gnubg's rating words for it; and the moves that
cost the most, with the play gnubg prefers. The report is kept beside the store, one JSON file a match
(``analyses/<match id>.json`` in the data directory), and ``export m-<id>`` carries it with the match.

Nothing here plays or judges: the rules are the engine's, the evaluation is gnubg's. gnubg runs in a
process of its own with a time limit; where it is not installed, or fails, one line says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Mapping

__all__ = ["AnalysisError", "analyse_mat", "find_gnubg", "report_text", "save_report", "saved_report",
           "REPORT_FORMAT"]

REPORT_FORMAT = "willughby-analysis/1"
#: gnubg's columns: X is the file's first player (light), O the second (dark)
_COLOURS = {"X": "light", "O": "dark"}
#: gnubg's rating of an error rate a decision (mEMG), as its manual's "rating" table gives the words
_RATINGS = ((2.0, "supernatural"), (5.0, "world class"), (8.0, "expert"), (12.0, "advanced"),
            (18.0, "intermediate"), (26.0, "casual player"), (35.0, "beginner"))

# Run inside gnubg's own Python (it gives a script no argv: the file names come in the environment). It
# imports the match, analyses it at the plies asked, and writes gnubg's record of it, with the analysis and
# the statistics, as JSON.
_SCRIPT = r'''
import json, os
import gnubg
gnubg.command("set confirm new off")
gnubg.command("set jacoby off")
plies = int(os.environ["WILLUGHBY_PLIES"])
for what in ("chequerplay", "cubedecision"):
    gnubg.command("set analysis %s evaluation plies %d" % (what, plies))
gnubg.command('import mat "%s"' % os.environ["WILLUGHBY_MAT"])
gnubg.command("analyse match")
def plain(v):
    if isinstance(v, dict):
        return dict((str(k), plain(x)) for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v
record = gnubg.match(analysis=1, boards=0, statistics=1, verbose=0)
with open(os.environ["WILLUGHBY_OUT"], "w") as f:
    json.dump(plain(record), f)
'''


class AnalysisError(RuntimeError):
    """gnubg is not there, failed, or gave what cannot be read (the message says which, in one line)."""


def find_gnubg(given: str | None = None) -> str:
    """The gnubg program: *given*, else on the PATH, else Debian's ``/usr/games/gnubg``."""
    found = shutil.which(given) if given else (shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games"))
    if not found:
        raise AnalysisError(f"GNU Backgammon is not installed{f' at {given}' if given else ''}: the analysis is "
                            "gnubg's (Debian: apt-get install gnubg)")
    return found


def analyse_mat(mat: str, *, players: Mapping[str, str], plies: int = 0, gnubg: str | None = None,
                timeout_s: float = 900.0, worst: int = 5) -> dict[str, Any]:
    """gnubg's analysis of the match file *mat* (its text), as a report (see the module docstring)."""
    if not 0 <= plies <= 3:
        raise AnalysisError(f"gnubg analyses at 0 to 3 plies, not {plies}")
    program = find_gnubg(gnubg)
    with tempfile.TemporaryDirectory(prefix="willughby-analyse-") as tmp:
        folder = Path(tmp)
        (folder / "match.mat").write_text(mat, encoding="utf-8")
        (folder / "analyse.py").write_text(_SCRIPT, encoding="utf-8")
        env = dict(os.environ, WILLUGHBY_MAT=str(folder / "match.mat"), WILLUGHBY_OUT=str(folder / "out.json"),
                   WILLUGHBY_PLIES=str(plies))
        started = time.monotonic()
        try:
            proc = subprocess.run([program, "-t", "-q", "-r", "-p", str(folder / "analyse.py")], env=env,
                                  cwd=folder, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise AnalysisError(f"gnubg did not finish the analysis in {timeout_s:g} s (try fewer --plies)") from None
        except OSError as exc:
            raise AnalysisError(f"gnubg could not be run ({program}): {exc.strerror or exc}") from None
        out = folder / "out.json"
        if proc.returncode != 0 or not out.is_file():
            said = (proc.stderr or proc.stdout).strip().splitlines()
            raise AnalysisError(f"gnubg failed (exit {proc.returncode}): {said[-1] if said else 'no word why'}")
        try:
            record = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise AnalysisError(f"gnubg's analysis cannot be read: {exc}") from None
        version = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30,
                                 stdin=subprocess.DEVNULL).stdout.strip().splitlines()
    report = _report(record, players, worst)
    report.update(plies=plies, gnubg=version[0] if version else "gnubg", seconds=round(time.monotonic() - started, 1),
                  made=time.time())
    return report


def _report(record: Mapping[str, Any], players: Mapping[str, str], worst: int) -> dict[str, Any]:
    """The report from gnubg's record of the analysed match."""
    try:
        stats = record["stats"]
        games = record["games"]
    except (KeyError, TypeError):
        raise AnalysisError("gnubg's analysis has no statistics: was the match empty?") from None
    per_player: dict[str, Any] = {}
    for side, name in _COLOURS.items():
        s = stats.get(side) or {}
        moves, cube = s.get("moves") or {}, s.get("cube") or {}
        decisions = int(moves.get("unforced-moves", 0)) + int(cube.get("close-cube", 0))
        error = float(moves.get("error-skill", 0.0)) + float(cube.get("error-skill", 0.0))
        rate = 1000.0 * error / decisions if decisions else 0.0
        per_player[name] = {
            "name": players.get(name, name), "moves": int(moves.get("total-moves", 0)),
            "unforced_moves": int(moves.get("unforced-moves", 0)), "close_cube_decisions": int(cube.get("close-cube", 0)),
            "move_error": round(float(moves.get("error-skill", 0.0)), 4),
            "cube_error": round(float(cube.get("error-skill", 0.0)), 4),
            "error_rate_memg": round(rate, 1), "rating": rating(rate) if decisions else None,
            "luck": round(float((s.get("dice") or {}).get("luck", 0.0)), 4)}
    mistakes: list[dict[str, Any]] = []
    for number, game in enumerate(games, start=1):
        made = {"light": 0, "dark": 0}
        for rec in game.get("game") or []:
            colour = _COLOURS.get(str(rec.get("player")))
            if rec.get("action") != "move" or colour is None:
                continue
            made[colour] += 1
            analysis = rec.get("analysis") or {}
            options, chosen = analysis.get("moves") or [], analysis.get("imove")
            if not isinstance(chosen, int) or not 0 <= chosen < len(options) or chosen == 0:
                continue
            lost = float(options[0]["score"]) - float(options[chosen]["score"])
            mistakes.append({"game": number, "move": made[colour], "player": colour,
                             "dice": list(rec.get("dice") or []), "played": notation(rec.get("move") or []),
                             "best": notation(options[0].get("move") or []), "lost": round(lost, 4)})
    mistakes.sort(key=lambda m: (-m["lost"], m["game"], m["move"]))
    return {"format": REPORT_FORMAT, "players": per_player, "worst": mistakes[:worst],
            "games": len(games)}


def rating(rate_memg: float) -> str:
    """gnubg's words for an error rate (thousandths of an EMG a decision).

    >>> rating(4.1), rating(40.0)
    ('world class', 'awful!')
    """
    return next((words for below, words in _RATINGS if rate_memg < below), "awful!")


def notation(move: Any) -> str:
    """gnubg's move (pairs of points from the mover's side, 25 the bar, 0 off) in the project's notation.

    >>> notation([[25, 21], [20, 14]]), notation([[6, 0], [5, 0]])
    ('bar/21 20/14', '6/off 5/off')
    """
    def point(p: int, into: bool) -> str:
        return "bar" if p == 25 else "off" if p == 0 and into else str(p)
    return " ".join(f"{point(int(a), False)}/{point(int(b), True)}" for a, b in move) or "(no move)"


def report_text(report: Mapping[str, Any]) -> str:
    """The report in words, as the command prints it."""
    lines = [f"{report.get('gnubg', 'gnubg')}, {report.get('plies', 0)}-ply analysis of {report.get('games', 0)} "
             f"game{'s' if report.get('games') != 1 else ''}:"]
    for colour in ("light", "dark"):
        p = report["players"][colour]
        rated = f" ({p['rating']})" if p.get("rating") else ""
        lines.append(f"  {p['name']} ({colour}): error rate {p['error_rate_memg']:.1f} mEMG{rated} over "
                     f"{p['unforced_moves']} unforced moves and {p['close_cube_decisions']} close cube decisions; "
                     f"moves {p['move_error']:.3f}, cube {p['cube_error']:.3f} EMG; luck {p['luck']:+.3f}")
    if report.get("worst"):
        lines.append("  the moves that cost most (equity lost, gnubg's best play):")
        for m in report["worst"]:
            name = report["players"][m["player"]]["name"]
            dice = "-".join(map(str, m["dice"]))
            lines.append(f"    game {m['game']}, {name}'s move {m['move']}, {dice}: {m['played']} "
                         f"(-{m['lost']:.3f}; best {m['best']})")
    return "\n".join(lines) + "\n"


def save_report(data_dir: Path, match_id: str, report: Mapping[str, Any]) -> Path:
    """Keep *report* with the match: ``analyses/<match id>.json`` under *data_dir*, written whole or not at
    all (a new file renamed over the old)."""
    folder = Path(data_dir) / "analyses"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{match_id}.json"
    part = path.with_suffix(".json.part")
    with open(part, "w", encoding="utf-8") as f:
        json.dump(dict(report, match=match_id), f, indent=1, ensure_ascii=False)
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, path)
    return path


def saved_report(data_dir: Path, match_id: str) -> dict[str, Any] | None:
    """The analysis kept with match *match_id*, or None (none made, or one that cannot be read)."""
    path = Path(data_dir) / "analyses" / f"{match_id}.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("format") == REPORT_FORMAT else None
