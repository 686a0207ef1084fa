"""Writing data sets: numbered JPEG and label pairs in the dev set's
layout, and the command line (``python -m willughby.vision.synth``)."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .render import render_jpeg
from .spec import SceneSpec, SynthError
from .randomized import RANDOMIZED
from .styles import STYLE_SETS


def write_dataset(outdir: str | Path, count: int, seed: int, *, occluded_share: float = 0.15,
                  spec: SceneSpec | None = None, start: int = 1, progress: Any = None) -> list[Path]:
    """Write img_0001.jpg + img_0001.json ... (the dev set's layout) into *outdir*.

    Image *i* is drawn from ``numpy.random.default_rng([seed, i])``, so a
    seed always gives the same set, whatever the count.
    """
    if count < 0:
        raise SynthError(f"count must be 0 or more, not {count}")
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    base = replace(spec or SceneSpec(), occluded_share=occluded_share)
    written = []
    t0 = time.perf_counter()
    for i in range(start, start + count):
        data, label = render_jpeg(np.random.default_rng([seed, i]), base)
        stem = out / f"img_{i:04d}"
        stem.with_suffix(".jpg").write_bytes(data)
        with open(stem.with_suffix(".json"), "w") as f:
            json.dump(label, f, indent=1)
            f.write("\n")
        written.append(stem.with_suffix(".jpg"))
        if progress is not None:
            n = i - start + 1
            progress(f"{n}/{count} {stem.name}.jpg {label['position_kind']}"
                     f"{' occluded' if label['occluded'] else ''} "
                     f"({(time.perf_counter() - t0) / n:.3f} s per image)")
    return written


def add_scene_options(parser: argparse.ArgumentParser) -> None:
    """The command-line options for how the men lie and look (``SceneSpec``'s
    *edge_gap*, *varied_men* and *men_contrast*), shared by this command and
    the tools that make frames with the generator."""
    parser.add_argument("--edge-gap", type=float, default=0.0,
                        help="men stand up to this many mm off the board's edge (default 0: touching it)")
    parser.add_argument("--varied-men", action="store_true",
                        help="vary the men's finish frame by frame (grooves, side walls' shade, squared piles)")
    parser.add_argument("--men-contrast", type=float, default=0.0,
                        help="bring the men's two colours up to this share nearer each other (e.g. 0.3)")
    parser.add_argument("--real-look", action="store_true",
                        help="draw the looks of real boards and photographs at random (rails' shade, veneer, felt, "
                             "mosaic, men's rims and materials, varnish, low cameras, squashed frames, harsh JPEG, "
                             "dark exposures)")
    parser.add_argument("--varied-board", action="store_true",
                        help="vary the board's proportions (aspect, bar kind and width, points, men); the label "
                             "gives the board's geometry")


def scene_options(args: argparse.Namespace) -> dict[str, Any]:
    """``SceneSpec`` keyword arguments from the options of ``add_scene_options``."""
    return {"edge_gap": args.edge_gap, "varied_men": args.varied_men, "men_contrast": args.men_contrast,
            "real_look": args.real_look, "varied_board": args.varied_board}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m willughby.vision.synth OUTDIR --count N --seed S [--occluded-share 0.15] [--edge-gap MM]
    [--varied-men] [--men-contrast SHARE] [--style-set NAME]``."""
    parser = argparse.ArgumentParser(
        prog="python -m willughby.vision.synth",
        description="Write labelled synthetic frames of a tables board (the vision dev set's layout).")
    parser.add_argument("outdir", help="folder for img_0001.jpg + img_0001.json ...")
    parser.add_argument("--count", type=int, default=100, help="how many images (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed: the same seed gives the same images")
    parser.add_argument("--occluded-share", type=float, default=0.15,
                        help="share of images with a hand over the board (default 0.15)")
    add_scene_options(parser)
    parser.add_argument("--style-set", choices=[*STYLE_SETS, RANDOMIZED], default=None,
                        help="draw the board, men, light and lens from this set of styles (default: the "
                             "training styles); the held-out sets hold styles the shipped reader never saw, "
                             f"and {RANDOMIZED!r} draws every scene's own from wide ranges")
    parser.add_argument("--quiet", action="store_true", help="print no progress")
    args = parser.parse_args(argv)
    if args.count < 0:
        parser.error(f"--count must be 0 or more, not {args.count}")
    if not 0 <= args.occluded_share <= 1:
        parser.error(f"--occluded-share must be 0..1, not {args.occluded_share}")
    try:
        spec = SceneSpec(**scene_options(args), style_set=args.style_set)
    except SynthError as exc:
        parser.error(str(exc))
    say = None if args.quiet else (lambda s: print(s, flush=True))
    t0 = time.perf_counter()
    write_dataset(args.outdir, args.count, args.seed, occluded_share=args.occluded_share, spec=spec,
                  progress=say)
    if not args.quiet:
        print(f"wrote {args.count} images to {args.outdir} in {time.perf_counter() - t0:.1f} s")
    return 0
