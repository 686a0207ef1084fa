"""Build the point reader's training set from generated frames.

    python tools/point_reader_data.py OUT.npz --count 3000 --seed 1000

(``--style-set randomized`` draws every frame's palettes, light and lens
from wide ranges: domain randomisation, docs/vision-painter.md;
``--real-look`` adds the looks of real boards and photographs and
``--varied-board`` boards of other proportions.)

Each frame comes from ``willughby.vision.synth`` (never from the dev set,
which stays for evaluation), rendered, JPEG-compressed like a camera's, and
passed through the reader's own first stages (``reader.observe``), so the
strips the network learns from are exactly those it will see.  Frames with a
hand over the board are left out: those are refused, not read.

    python tools/point_reader_data.py OUT.npz --from-folder DIR

takes the labelled frames of a folder instead (``name.jpg`` + ``name.json``,
the dev set's format), such as those ``tools/blender_frames.py`` renders.

Labels per point: ``cls`` 0 for an empty point, 1..15 light men, 16..30 dark
men; ``pile`` 0 (no pile), 1 (a pile of 2), 2 (a pile of 3).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2

import numpy as np

from willughby.vision.config import VisionConfig
from willughby.vision.geometry import BoardGeometry
from willughby.vision.reader import observe
from willughby.vision.synth import (POSITION_KINDS, RANDOMIZED, STYLE_SETS, SceneSpec, SynthError, add_scene_options,
                                    render, scene_options)


def labels_of(doc) -> tuple[np.ndarray, np.ndarray]:
    cls = np.zeros(24, np.int64)
    pile = np.zeros(24, np.int64)
    for p in range(24):
        nl, nd = doc["light"][p], doc["dark"][p]
        if nl and nd:
            raise ValueError("a point with men of both colours")
        if nl:
            cls[p] = nl
            st = doc["stacked"]["light"][p]
        elif nd:
            cls[p] = 15 + nd
            st = doc["stacked"]["dark"][p]
        else:
            st = 0
        pile[p] = {0: 0, 2: 1, 3: 2}.get(int(st), 2)
    return cls, pile


def tall_position(rng: np.random.Generator) -> dict:
    """A position with men gathered on few points (up to 15 on one), which
    random play seldom gives, so the network sees tall points often."""
    light, dark = [0] * 24, [0] * 24
    free = list(rng.permutation(24))
    bar = {"light": 0, "dark": 0}
    for side in (light, dark):
        k = int(rng.integers(1, 6))
        points = [free.pop() for _ in range(k)]
        on_board = int(rng.integers(max(k, 6), 16))
        split = rng.multinomial(on_board - k, np.ones(k) / k) + 1
        for p, n in zip(points, split):
            side[p] = int(n)
    for name, side in (("light", light), ("dark", dark)):
        bar[name] = int(min(rng.integers(0, 3), 15 - sum(side))) if rng.random() < 0.2 else 0
    return {"format": "board/1", "light": light, "dark": dark, "bar": bar,
            "off": {"light": 15 - sum(light) - bar["light"], "dark": 15 - sum(dark) - bar["dark"]}}


def generated_frames(args, spec):
    for i in range(args.count):
        rng = np.random.default_rng([args.seed, i])
        yield render(rng, replace(spec, position=tall_position(rng)) if args.tall else spec)


def strips_of(image, corners, config):
    return observe(image, corners, config).strips()


def reader_strips(image, label, config):
    """The strips of a labelled frame as the reader cuts them when it finds
    the board's layout itself (``observe`` with ``layout.find``: the
    corners refined, the points found, the surface scaled so a point is
    ``point_width`` wide and its depth as the finder takes it), so the
    network learns what it will be shown; where the finder places any
    point more than a quarter of a point from the truth, or finds nothing,
    the true layout (``config_for``) instead, so no strip is learnt under
    another point's label."""
    truth = config_for(label, config)
    if getattr(getattr(config, "layout", None), "find", False):
        obs = observe(image, label["corners"], config)
        found = obs.config.layout.centres if obs.config is not None else ()
        true = truth.layout.centres or tuple(BoardGeometry(truth).point_centre_x(p) for p in range(1, 25))
        if found and max(abs(a - b) for a, b in zip(found, true)) <= truth.point_width / 4:
            return obs.strips()
    return observe(image, label["corners"], truth).strips()


def config_for(label, config):
    """The reader's settings for a frame: the board's true layout, as a
    layout finder that found it would give it (a board the painter drew in
    other proportions, ``SceneSpec.varied_board``, has them in its label's
    ``geometry``; the others are the standard board), and no search for the
    layout: the network learns from the strips of the board's own points,
    and finding them is the finder's business."""
    if "geometry" in label:
        true = config.with_values(label["geometry"])
        if hasattr(config, "layout"):
            # as the reader reads a board whose layout it found: the surface
            # scaled so that a point is ``point_width`` wide (``layout_config``)
            from willughby.vision.board_layout import layout_of
            return layout_of(true).config(config)
        config = true
    if getattr(getattr(config, "layout", None), "find", False):
        config = config.with_values({"layout": {"find": False}})
    return config


def folder_frames(folder: Path):
    """(image, label) of each clear labelled frame of *folder*, in name order."""
    for path in sorted(folder.glob("*.json")):
        try:
            label = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            print(f"{path.name}: skipped, not a label ({exc})", file=sys.stderr)
            continue
        image = cv2.imread(str(path.with_suffix(".jpg")))
        if image is None:
            print(f"{path.name}: skipped, no readable {path.stem}.jpg beside it", file=sys.stderr)
            continue
        if not label.get("occluded"):
            yield image, label


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--tall", action="store_true", help="positions with men on few, tall points")
    ap.add_argument("--palette-jitter", type=float, default=0.0,
                    help="spread the palettes' colours by about this share (e.g. 0.12)")
    add_scene_options(ap)
    ap.add_argument("--style-set", choices=[*STYLE_SETS, RANDOMIZED],
                    help="draw the styles from this set (default: the training styles); "
                         f"{RANDOMIZED!r} draws every frame's own palettes, light and lens from wide ranges")
    ap.add_argument("--position-kind", choices=POSITION_KINDS,
                    help="only positions of this kind (default: the generator's mix)")
    ap.add_argument("--from-folder", type=Path, metavar="DIR",
                    help="read the labelled frames of this folder instead of generating them")
    args = ap.parse_args(argv)
    if args.tall and args.position_kind:
        ap.error("--tall makes its own positions: give it or --position-kind, not both")
    config = VisionConfig()
    try:
        spec = SceneSpec(occluded_share=0.0, palette_jitter=args.palette_jitter, position_kind=args.position_kind,
                         style_set=args.style_set, **scene_options(args))
    except SynthError as exc:
        ap.error(str(exc))
    if args.from_folder:
        if not args.from_folder.is_dir():
            ap.error(f"no folder {args.from_folder}")
        frames = folder_frames(args.from_folder)
        args.count = sum(1 for _ in args.from_folder.glob("*.json"))
    else:
        frames = generated_frames(args, spec)
    maps, aux, cls, pile, image_of = [], [], [], [], []
    t0 = time.perf_counter()
    for i, (img, label) in enumerate(frames):
        st = reader_strips(img, label, config)
        c, p = labels_of(label)
        maps.append(st.maps.astype(np.float16))
        aux.append(st.aux)
        cls.append(c)
        pile.append(p)
        image_of.append(np.full(24, i))
        if (i + 1) % 100 == 0:
            rate = (time.perf_counter() - t0) / (i + 1)
            print(f"{i + 1}/{args.count} frames, {rate:.3f} s each, "
                  f"{rate * (args.count - i - 1):.0f} s to go", flush=True)
    if not maps:
        print("no clear labelled frames: nothing written", file=sys.stderr)
        return 1
    np.savez_compressed(args.out, maps=np.concatenate(maps), aux=np.concatenate(aux),
                        cls=np.concatenate(cls), pile=np.concatenate(pile), image=np.concatenate(image_of))
    print(f"wrote {args.out}: {len(maps) * 24} points from {len(maps)} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
