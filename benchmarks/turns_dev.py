"""The labelled dev frames judged as turns through ``willughby judge --after-image``.

Each labelled frame (the dev set: ``--dev DIR``, default ``$WILLUGHBY_VISION_DEV``
where the maintainers keep it; docs/vision-labels.md) shows a board. From its
label this builds turns as a referee would meet them (``labelled_turns.py``,
shared with ``real_photos.py``):

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

    python benchmarks/turns_dev.py --dev DIR [--jitter 6]
"""

from __future__ import annotations

import argparse
import os
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from labelled_turns import (Turn, after_position, build_turns, corners_text, judge_turn,  # noqa: E402
                            labelled_pictures, moved_corners, score)

DEFAULT_DEV = Path(os.environ.get("WILLUGHBY_VISION_DEV", "."))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", default=str(DEFAULT_DEV), help="a folder of labelled frames (docs/vision-labels.md)")
    ap.add_argument("--jitter", type=float, default=0.0, help="move each corner up to this many pixels (a finger)")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    folder = Path(args.dev)
    pictures = labelled_pictures(folder)
    if not pictures:
        print(f"no labelled frames in {folder}: give --dev DIR (docs/vision-labels.md)", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    tally = {"legal": Counter(), "illegal": Counter()}
    covered = Counter()
    locations = right = 0
    ms: list[float] = []
    tmp = Path(tempfile.mkdtemp())
    for path, image in pictures:
        label = json.loads(path.read_text())
        text = corners_text(moved_corners(label["corners"], args.jitter, rng))
        turns = build_turns(label, rng)
        if label.get("occluded"):
            if not turns:
                after = after_position(label)
                if after is None:
                    continue
                turns = [Turn(after.with_turn("light"), (6, 5), True)]
            code, doc, _, _ = judge_turn(turns[0], image, text, tmp)
            covered["unsure, unsettled" if doc.get("verdict") == "unsure" and not doc.get("settled")
                    else f"{doc.get('verdict', 'error')} (settled {doc.get('settled')})"] += 1
            continue
        for t in turns:
            code, doc, err, took = judge_turn(t, image, text, tmp)
            ms.append(took)
            if code != 0:
                tally[t.kind]["error"] += 1
                print(f"  {path.name}: {err.strip()}", file=sys.stderr)
                continue
            outcome = score(t, doc)
            tally[t.kind][outcome] += 1
            if outcome == "wrong":
                print(f"  wrong: {path.name} {t.kind} turn (dice {t.dice}) ruled {doc['verdict']} {doc.get('play')}; "
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
