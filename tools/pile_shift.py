"""How far the camera sees the top of a pile move when the pile has one man
more or fewer: the evidence a reader has for a pile's height.

For every pile (a ``stacked`` count) in the labelled frames of a folder,
this projects the centre of the pile's top through the camera recovered from
the frame's corners (``camera.camera_from_corners``) for the labelled number
of men and for one man fewer, and prints how far apart the two appear: in
the frame's own pixels, and in millimetres on the rectified board (the point
reader's strips have 2 mm to a pixel).  The men's thickness is the label's
(``style.men_thick``, a share of the diameter) when it gives one.

    python tools/pile_shift.py DEV_FOLDER     # the dev set, or any folder of labelled frames

A pile whose top moves by a pixel or two for a whole man is one no reader of
that frame can be sure of from the picture alone; and the men's thickness,
9 to 12.6 mm in the dev set, is not known to the reader (three thin men
stand 27 mm high, two thick ones 25 mm).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from willughby.vision.camera import camera_from_corners
from willughby.vision.config import VisionConfig
from willughby.vision.geometry import BoardGeometry, homography


def pile_shifts(label: dict, config: VisionConfig) -> list[dict]:
    """For each pile of *label*: its side, point, men, and how far its top
    moves (pixels, rectified mm) for one man fewer."""
    import cv2

    geometry = BoardGeometry(config)
    camera = camera_from_corners(label["corners"], tuple(label["image_size"]), geometry)
    to_image = np.linalg.inv(homography(label["corners"], geometry, 1.0))
    thick = float(label.get("style", {}).get("men_thick", config.man_thickness / config.man_diameter))
    thick_mm = thick * config.man_diameter
    out = []
    for side in ("light", "dark"):
        for p, men in enumerate(label["stacked"][side], start=1):
            if men < 2:
                continue
            x, y = geometry.slot_centre(p, 0)
            tops = [camera.on_surface(x, y, k * thick_mm) for k in (men, men - 1)]
            pixels = cv2.perspectiveTransform(np.array([tops], np.float64), to_image)[0]
            out.append({"side": side, "point": p, "men": men,
                        "pixels": float(np.linalg.norm(pixels[0] - pixels[1])),
                        "mm": float(np.hypot(tops[0][0] - tops[1][0], tops[0][1] - tops[1][1]))})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    args = ap.parse_args(argv)
    config = VisionConfig()
    labels = sorted(Path(args.folder).glob("*.json"))
    if not labels:
        ap.error(f"no labelled frames (*.json) in {args.folder}")
    print("one man fewer moves the top of a pile by: pixels of the frame, and mm on the rectified board")
    print(f"{'frame':<10} {'tilt':>5} {'thick mm':>8} {'piles':>5}  {'px min':>6} {'median':>6} {'max':>6}  {'mm min':>6} {'max':>6}")
    for path in labels:
        try:
            label = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            print(f"{path.name}: skipped, not a label ({exc})", file=sys.stderr)
            continue
        if label.get("occluded") or not any(label.get("stacked", {}).get(s, [0]) for s in ("light", "dark")):
            continue
        shifts = pile_shifts(label, config)
        if not shifts:
            continue
        px = np.array([s["pixels"] for s in shifts])
        mm = np.array([s["mm"] for s in shifts])
        style = label.get("style", {})
        print(f"{path.stem:<10} {style.get('tilt_deg', float('nan')):5.1f} "
              f"{style.get('men_thick', float('nan')) * config.man_diameter:8.1f} {len(shifts):5d}  "
              f"{px.min():6.1f} {np.median(px):6.1f} {px.max():6.1f}  {mm.min():6.1f} {mm.max():6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
