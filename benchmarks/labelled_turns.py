"""Turns built from a labelled picture, and judged as a user's would be.

Shared by ``benchmarks/turns_dev.py`` and ``benchmarks/real_photos.py``. A
label (docs/vision-labels.md) says what board a picture shows; from it this
builds turns as a referee would meet them:

- **legal**: a board before and a throw from which the picture's board is a
  legal result (the mover's men stepped back by the two dice, without hits;
  with ``enter=True`` a man of a side with men on the bar may also be taken
  back off his entry point, the turn undone being an entry); every one is
  checked against the engine (``turn_outcomes``);
- **illegal**: the same board before with a throw from which no legal play
  leads to the picture's board.

Each turn is judged by ``willughby judge --after-image ... --json`` itself,
in this process (:func:`judge_turn`), and scored by :func:`score`: right,
asked (``unsure``) or wrong.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from willughby.companion.cli import main as willughby
from willughby.engine.position import Position
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules

__all__ = ["RULES", "ALL_DICE", "Turn", "after_position", "build_turns", "build_turn_set", "labelled_pictures",
           "moved_corners", "corners_text", "run", "judge_turn", "score"]

RULES = preset_rules("backgammon")
ALL_DICE = [(a, b) for a in range(1, 7) for b in range(a, 7)]
IMAGE_SUFFIXES = (".jpg", ".png", ".jpeg")


@dataclass(frozen=True)
class Turn:
    """A turn to judge: the board *before* (whose turn it is), the *dice*,
    and whether the picture's board is a legal result of them."""

    before: Position
    dice: tuple[int, int]
    legal: bool

    @property
    def kind(self) -> str:
        return "legal" if self.legal else "illegal"


def after_position(label: dict[str, Any]) -> Position | None:
    """The label's board as a position, or None where it is none (men not 15 a side...)."""
    doc = {k: label[k] for k in ("format", "light", "dark", "bar", "off")}
    try:
        return Position.from_board(doc)
    except ValueError:
        return None


def _step_back(doc: dict[str, Any], mover: str, die: int, rng: random.Random) -> bool:
    """Move one of *mover*'s men back by *die* (the play undone), onto a point the other side does not hold."""
    mine, theirs = doc[mover], doc["dark" if mover == "light" else "light"]
    spots = [i for i in range(24) if mine[i]]
    rng.shuffle(spots)
    for i in spots:
        j = i + die if mover == "light" else i - die
        if 0 <= j < 24 and not theirs[j]:
            mine[i] -= 1
            mine[j] += 1
            return True
    return False


def _unenter(doc: dict[str, Any], mover: str, die: int) -> bool:
    """Take one of *mover*'s men off the point a *die* enters him on, back to the bar (an entry undone)."""
    point = 24 - die if mover == "light" else die - 1      # light enters on 25 - die, dark on die (physical)
    if not doc[mover][point]:
        return False
    doc[mover][point] -= 1
    doc["bar"][mover] += 1
    return True


def build_turns(label: dict[str, Any], rng: random.Random, enter: bool = False) -> list[Turn]:
    """A legal turn and an illegal one (where one can be found) that end on the label's board, or none.

    Without *enter*, a side with men on the bar is never the mover (his
    turn would have been entries); with it, such a side's turn is undone as
    one or two entries, and the engine keeps only those the rules allow
    (men left on the bar: the other die could not enter)."""
    after = after_position(label)
    if after is None:
        return []
    key = after.physical_key()
    for _ in range(40):
        mover = rng.choice(("light", "dark"))
        dice = tuple(sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True))
        doc = json.loads(json.dumps({k: v for k, v in after.to_board().items() if k != "turn"}))
        if after.bar[0 if mover == "light" else 1]:
            if not enter:
                continue                  # men on the bar: stepping back would need their entry undone
            entered = dice if rng.random() < 0.5 else dice[:1]    # both dice entered men, or one (the other blocked)
            if not all(_unenter(doc, mover, d) for d in entered):
                continue
        elif not all(_step_back(doc, mover, d, rng) for d in dice):
            continue
        try:
            before = Position.from_board(dict(doc, turn=mover), require_turn=True)
        except ValueError:
            continue
        if key not in {o.position.physical_key() for o in turn_outcomes(RULES, before, dice)}:
            continue                      # the rules would have demanded another play (a bar, the larger die...)
        turns = [Turn(before, dice, True)]
        wrong = [d for d in ALL_DICE if key not in {o.position.physical_key()
                                                    for o in turn_outcomes(RULES, before, tuple(reversed(d)))}]
        if wrong:
            d = rng.choice(wrong)
            turns.append(Turn(before, (d[1], d[0]), False))
        return turns
    return []


def build_turn_set(label: dict[str, Any], rng: random.Random, count: int = 1, enter: bool = False) -> list[Turn]:
    """Up to *count* distinct legal turns ending on the label's board, each
    followed by its illegal partner (:func:`build_turns`); with *count* 1,
    exactly what :func:`build_turns` gives."""
    if count == 1:
        return build_turns(label, rng, enter)
    out: list[Turn] = []
    seen: set[tuple[str, tuple[int, int], bool]] = set()
    legal = 0
    for _ in range(4 * count):
        if legal == count:
            break
        pair = build_turns(label, rng, enter)
        if not pair or (pair[0].before.id(), pair[0].dice, True) in seen:
            continue
        for t in pair:
            if (t.before.id(), t.dice, t.legal) not in seen:
                seen.add((t.before.id(), t.dice, t.legal))
                out.append(t)
        legal += 1
    return out


def labelled_pictures(folder: Path) -> list[tuple[Path, Path]]:
    """``(label, picture)`` of every labelled picture in *folder*, by name."""
    pairs = []
    for label in sorted(Path(folder).glob("*.json")):
        image = next((p for p in (label.with_suffix(s) for s in IMAGE_SUFFIXES) if p.is_file()), None)
        if image is not None:
            pairs.append((label, image))
    return pairs


def moved_corners(corners: Sequence[Sequence[float]], px: float, rng: random.Random) -> list[list[float]]:
    """Each corner moved by up to *px* pixels each way (a finger on a phone); the rng is drawn from even at 0."""
    return [[x + rng.uniform(-px, px), y + rng.uniform(-px, px)] for x, y in corners]


def corners_text(corners: Sequence[Sequence[float]]) -> str:
    """Corners as ``--corners`` takes them."""
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)


def run(args: list[str]) -> tuple[int, str, str]:
    """Run ``willughby ARGS`` in this process: its status, standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = willughby(args)
    return code, out.getvalue(), err.getvalue()


def judge_turn(turn: Turn, image: Path, corners: str, scratch: Path) -> tuple[int, dict[str, Any], str, float]:
    """``willughby judge --variant backgammon --before B --dice D --after-image IMAGE --corners C --json``:
    its status, its document (``{}`` if it failed), its standard error and the milliseconds it took."""
    before_file = Path(scratch) / "before.json"
    before_file.write_text(json.dumps(turn.before.to_board()))
    t0 = time.perf_counter()
    code, out, err = run(["judge", "--variant", "backgammon", "--before", f"@{before_file}", "--dice",
                          ",".join(map(str, turn.dice)), "--after-image", str(image), "--corners", corners, "--json"])
    ms = (time.perf_counter() - t0) * 1000
    return code, (json.loads(out) if code == 0 else {}), err, ms


def score(turn: Turn, doc: dict[str, Any]) -> str:
    """``right``, ``asked`` (unsure) or ``wrong``: the command's verdict on *turn*; ``error`` where it gave none."""
    verdict = doc.get("verdict")
    if verdict is None:
        return "error"
    if verdict == "unsure":
        return "asked"
    return "right" if (verdict == "legal") == turn.legal else "wrong"
