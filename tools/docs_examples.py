"""Make the example files of ``docs/examples/`` that are not board documents.

- ``start.jpg`` and ``after-8-5-6-5.jpg``: one table drawn by the project's
  painter (``willughby.vision.synth``), at the start of a backgammon game and
  after light's 3-1 played 8/5 6/5; the commands of the README and
  ``docs/command-line.md`` judge and read them. Their playing surface's
  corners C1..C4 are printed, as the docs give them to ``--corners``.
- ``game-stills/`` and ``throws.txt``: a short game recorded on the same
  table, as ``willughby watch`` takes it: the start, the board after light's
  3-1 played 8/5 6/5, the board after dark's 6-4 played 24/18 13/9, and the
  two throws.
- ``capture.bin``: what a dice box sends in a short session, as
  ``willughby bridge decode`` reads it: its hello, a throw of 6-3, DONE.

Run from the repository's root; the same files come out every time::

    python tools/docs_examples.py docs/examples
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.firmware_bridge.codec import Hello, Press, Throw, encode
from willughby.vision.synth import Scene, SceneSpec

SESSION = 0x0BADCAFE


#: the recorded game's throws and plays (``game``): light's 3-1, then dark's 6-4
GAME = (((3, 1), "8/5 6/5"), ((6, 4), "24/18 13/9"))


def _table() -> Scene:
    """The drawn table every example photo shows."""
    return Scene(np.random.default_rng(7), SceneSpec(image_size=(960, 540), n_dice=0, tilt_deg=8.0, wood="walnut",
                                                     men="white_black", points="red_cream", field="felt_green",
                                                     lighting="overhead"))


def photos(out: Path) -> str:
    """Write the two photos; their corners as ``--corners`` takes them."""
    rules = preset_rules("backgammon")
    start = start_position(rules, "light")
    after = next(o for o in turn_outcomes(rules, start, (3, 1)) if o.play.notation == "8/5 6/5").position
    scene = _table()
    label: dict = {}
    for name, position, seed in (("start", start, 0), ("after-8-5-6-5", after, 1)):
        image, label = scene.render(position.to_board(), np.random.default_rng([7, seed]))
        cv2.imwrite(str(out / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return " ".join(f"{round(x)},{round(y)}" for x, y in label["corners"])


def game(out: Path) -> None:
    """Write a recorded game for ``willughby watch``: ``game-stills/`` (one still of the board at the start
    and after each turn of ``GAME``, in name order) and ``throws.txt``."""
    rules = preset_rules("backgammon")
    position = start_position(rules, "light")
    scene = _table()
    folder = out / "game-stills"
    folder.mkdir(exist_ok=True)
    boards = [position]
    for dice, notation in GAME:
        position = next(o for o in turn_outcomes(rules, position, dice) if o.play.notation == notation).position
        boards.append(position)
    for n, board in enumerate(boards):
        image, _label = scene.render(board.to_board(), np.random.default_rng([7, 10 + n]))
        cv2.imwrite(str(folder / f"{n + 1:02d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    (out / "throws.txt").write_text("".join(f"{a},{b}\n" for (a, b), _play in GAME), encoding="utf-8")


def capture(out: Path) -> None:
    """Write the box's bytes of a short session."""
    messages = [Hello(protocol=1, session=SESSION, oldest=0, next=0, firmware="willughby-box 1.0"),
                Throw(session=SESSION, seq=0, source="box", dice=(6, 3)),
                Press(session=SESSION, seq=1, button="done")]
    (out / "capture.bin").write_bytes(b"".join(encode(m) for m in messages))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the folder to write (docs/examples)")
    args = ap.parse_args()
    print("corners", photos(args.out))
    game(args.out)
    capture(args.out)


if __name__ == "__main__":
    main()
