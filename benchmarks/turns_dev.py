"""The labelled dev frames judged as turns through ``willughby judge --after-image``.

Each labelled frame (the dev set: ``--dev DIR``, default ``../shared/vision-dev``
where the maintainers keep it; docs/vision-labels.md) shows a board. From its
label this builds turns as a referee would meet them:

- **legal**: a board before and a throw from which the frame's board is a
  legal result (the mover's men stepped back by the two dice, without hits,
  checked against the engine);
- **illegal**: the same board before with a throw from which no legal play
  leads to the frame's board.

Every turn is judged by the command itself (in this process, ``--json``),
with the label's corners or, with ``--jitter PX``, corners each moved up to
PX pixels as a finger on a phone would mark them. It prints turns ruled
right, asked and ruled wrong (legal and illegal apart), and per-location
accuracy of the frames read. Frames with a hand over the board must come out
``unsure`` and unsettled; they are counted apart. The piles of the
unstacking games are judged as backgammon boards here (those games are not
refereed yet); their counts still have to be read right.

    python benchmarks/turns_dev.py --dev ../shared/vision-dev [--jitter 6]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from willughby.companion.cli import main as willughby  # noqa: E402
from willughby.engine.position import Position  # noqa: E402
from willughby.engine.referee import turn_outcomes  # noqa: E402
from willughby.engine.rules import preset_rules  # noqa: E402

DEFAULT_DEV = HERE.parent.parent / "shared" / "vision-dev"
RULES = preset_rules("backgammon")
ALL_DICE = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def _after_position(label: dict[str, Any]) -> Position | None:
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


def build_turns(label: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """A legal and an illegal turn that end on the label's board, where they can be built."""
    after = _after_position(label)
    if after is None:
        return []
    key = after.physical_key()
    for _ in range(40):
        mover = rng.choice(("light", "dark"))
        dice = tuple(sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True))
        doc = json.loads(json.dumps({k: v for k, v in after.to_board().items() if k != "turn"}))
        if after.bar[0 if mover == "light" else 1]:
            continue                      # men on the bar: stepping back would need their entry undone
        if not all(_step_back(doc, mover, d, rng) for d in dice):
            continue
        try:
            before = Position.from_board(dict(doc, turn=mover), require_turn=True)
        except ValueError:
            continue
        if key not in {o.position.physical_key() for o in turn_outcomes(RULES, before, dice)}:
            continue                      # the rules would have demanded another play (a bar, the larger die...)
        turns = [{"before": before, "dice": dice, "legal": True}]
        wrong = [d for d in ALL_DICE if key not in {o.position.physical_key()
                                                    for o in turn_outcomes(RULES, before, tuple(reversed(d)))}]
        if wrong:
            d = rng.choice(wrong)
            turns.append({"before": before, "dice": (d[1], d[0]), "legal": False})
        return turns
    return []


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = willughby(args)
    return code, out.getvalue(), err.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", default=str(DEFAULT_DEV), help="a folder of labelled frames (docs/vision-labels.md)")
    ap.add_argument("--jitter", type=float, default=0.0, help="move each corner up to this many pixels (a finger)")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    folder = Path(args.dev)
    labels = sorted(folder.glob("*.json"))
    if not labels:
        print(f"no labelled frames in {folder}: give --dev DIR (docs/vision-labels.md)", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    tally = {"legal": Counter(), "illegal": Counter()}
    covered = Counter()
    locations = right = 0
    ms: list[float] = []
    tmp = Path(__import__("tempfile").mkdtemp())
    for path in labels:
        label = json.loads(path.read_text())
        image = next((p for p in (path.with_suffix(s) for s in (".jpg", ".png", ".jpeg")) if p.is_file()), None)
        if image is None:
            continue
        corners = [[x + rng.uniform(-args.jitter, args.jitter), y + rng.uniform(-args.jitter, args.jitter)]
                   for x, y in label["corners"]]
        text = " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)
        turns = build_turns(label, rng)
        if label.get("occluded"):
            if not turns:
                after = _after_position(label)
                turns = [{"before": after.with_turn("light") if after else None, "dice": (6, 5), "legal": True}]
            t = turns[0]
            if t["before"] is None:
                continue
            before_file = tmp / "before.json"
            before_file.write_text(json.dumps(t["before"].to_board()))
            code, out, err = _run(["judge", "--variant", "backgammon", "--before", f"@{before_file}", "--dice",
                                   ",".join(map(str, t["dice"])), "--after-image", str(image), "--corners", text,
                                   "--json"])
            doc = json.loads(out) if code == 0 else {}
            covered["unsure, unsettled" if doc.get("verdict") == "unsure" and not doc.get("settled")
                    else f"{doc.get('verdict', 'error')} (settled {doc.get('settled')})"] += 1
            continue
        for t in turns:
            before_file = tmp / "before.json"
            before_file.write_text(json.dumps(t["before"].to_board()))
            t0 = time.perf_counter()
            code, out, err = _run(["judge", "--variant", "backgammon", "--before", f"@{before_file}", "--dice",
                                   ",".join(map(str, t["dice"])), "--after-image", str(image), "--corners", text,
                                   "--json"])
            ms.append((time.perf_counter() - t0) * 1000)
            kind = "legal" if t["legal"] else "illegal"
            if code != 0:
                tally[kind]["error"] += 1
                print(f"  {path.name}: {err.strip()}", file=sys.stderr)
                continue
            doc = json.loads(out)
            if doc["verdict"] == "unsure":
                tally[kind]["asked"] += 1
            elif (doc["verdict"] == "legal") == t["legal"]:
                tally[kind]["right"] += 1
            else:
                tally[kind]["wrong"] += 1
                print(f"  wrong: {path.name} {kind} turn (dice {t['dice']}) ruled {doc['verdict']} {doc.get('play')}; "
                      f"{[(c['play'], c['p']) for c in doc['candidates'][:3]]}; "
                      f"read {doc['reading']['light']} / {doc['reading']['dark']}; "
                      f"label {label['light']} / {label['dark']}", file=sys.stderr)
            if t is turns[0]:
                read = doc["reading"]
                locations += 24
                right += sum(read["light"][i] == label["light"][i] and read["dark"][i] == label["dark"][i]
                             for i in range(24))
    print(f"dev frames in {folder}, corners {'as labelled' if not args.jitter else f'moved up to {args.jitter} px'}")
    for kind in ("legal", "illegal"):
        c = tally[kind]
        total = sum(c.values())
        print(f"  {kind:<8} {total:3d} turns: right {c['right']:3d}  asked {c['asked']:3d}  wrong {c['wrong']:3d}"
              + (f"  errors {c['error']}" if c["error"] else ""))
    print(f"  frames with a hand over the board: {dict(covered)}")
    if locations:
        print(f"  per location (frames of legal turns): {right}/{locations} ({100 * right / locations:.2f}%)")
    if ms:
        ms.sort()
        print(f"  ms per judge (read and weigh, in process): median {ms[len(ms) // 2]:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
