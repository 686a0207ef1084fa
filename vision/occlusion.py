"""Is the board covered: does something (a hand, an arm, a sleeve, a cup)
hide men, or the places where men stand?

A real board is not a painted one: hinges, brass corners, inlays, printed
numbers, the rails' shadows, glare on varnish, a photo cut at the board's
edge are the board's own and hide nothing.  So the check judges what a
covering object *does*, three ways (:func:`check_frame`):

1. **It crosses the frame from outside** (``frame_cues``, below): a stretch
   of the frame unlike the rest of its side.  The frame's look alone is
   trusted where it can be known: with the calibration photo's frame as the
   reference (only what changed since can cross it), or where the picture
   shows the frame and the table all round (``ring_seen`` of the ring the
   strips sample: a camera over the table) and the table beyond the
   crossing is unlike the rest of its side as well (``beyond_z``: an arm
   comes from outside).  Otherwise, as in a photo cut close to the
   board, a crossing must also **go on over the board** as one thing: the
   places connected to the crossing, of its colour (``onto_delta_e``) and
   within its outline (no strong edge between), hold a disc of radius
   ``onto_mm`` on the playing surface.  The board's own frame does not: a
   hinge or a corner stops at the frame's edge, and the board beyond is
   not of its colour.
2. **It hides the points and the men** (:func:`cover_cues`): on the surface
   rectified top-down (``view_step_mm``), where men stand (``men_band_mm``
   from each long edge, a man further than the men read, not the bar), the
   places far from every strong edge (``cover_clear_mm``: a point's sides
   and a man's rim run everywhere there, and an object hides them) that are
   also unlike the board at their depth -- a colour found nowhere else
   along the board at that depth, beyond the place's own neighbourhood
   (points and men recur along the board, a hand's colour does not), or
   much smoother than the board's own places of that colour there (skin is
   smooth, the wood of its colour has grain) -- less the men read (inside
   their outlines and of the men's colours).  A disc of radius ``cover_mm``
   fitting there is wider than any man's top or point's base: refused.  A
   cup on the tips of empty points lies outside the men's places and is
   not counted.  And a round top half as wide again as a man or more
   (``round_covers``: an upright dice cup seen from above) over the men's
   places is refused too: a cup the men's own colour is otherwise taken
   for men read, and no man's top is that wide.  This is judged in a photo
   cut close to the board, and, against the calibration photo, on what has changed since
   (``reference_delta_e``); a camera over the table without one judges by
   the frame (its shadows, not weighed against a photo never taken, would
   otherwise be taken for something lying there).
3. **It comes and goes**: with the calibration photo (:func:`rails_picture`
   keeps its frame and its surface), a change on the frame's rows and
   beyond them is an arm whatever the cues say, an unchanged frame is not
   crossed, and only what changed on the surface can cover the men.  The
   photo is first brought to this picture's exposure and white balance (a
   gain per channel, ``reference_gain``), and on the frame a place has
   changed only if it did against the photo moved a little either way too
   (``reference_shift_mm``): the camera's own drift and a nudge are not a
   hand.

What follows is the frame check itself (1).

An arm reaches the board from outside it, so it crosses the board's frame.
Seen from above, each side of the frame has one cross-section that repeats
along its whole length: the playing surface's edge, the frame's top, its
outer edge (and outer wall, when the camera looks from that side), the
board's shadow, the table.  Sampled on the plane of the frame's top
(``frame_height`` above the surface) in *columns* straight out from the
playing surface, every column of a side looks like its neighbours; a stretch
of columns that does not is something lying across the frame.

Each column is compared with its side's *usual look*: per row, a slow trend
along the side (a parabola through the medians of ten stretches of it, the
three most unusual stretches left out, so an arm does not teach it), and a
lightness change shared by the whole column that varies slowly along the side
(a lamp's fall-off, vignetting) is taken for light.  Two cues then judge the
column:

* **colour**: the frame's own rows *and* the rows beyond them (wall, shadow,
  table) are both far from the usual look, each measured against how much
  that row varies along the side anyway.  Light that varies over the table
  alone is not an arm: an arm lies on the frame too; and a column whose
  edges are all where they should be is lit differently (a lamp's spot
  burning the table and frame white), not covered.
* **edges**: the edges across the column (surface to frame, frame to wall,
  wall to table, the board's shadow) are not where the usual look has them.
  A hand or forearm is one smooth blob that hides them whatever its colour,
  so this catches skin against wood of the same colour; it is only asked
  where the side has edges that stand out of its texture.

Either cue alone, or both half-way, marks the column crossed.  An arm may
cross a side aslant, so columns are also summed along slanted lines.  A run
of crossed columns ``frame_run_mm`` long or longer is a crossing (refused as
1 above says).

Men are not mistaken for a hand: the outlines of the men the reader found
(``men``) are left out, the edge cue does not use the surface's own edge
(where men lie), and a man overhanging the frame covers only the frame's
inner rows, never the table beyond.  The corners (``frame_corner_skip``),
where the printed markers go, are judged without the surface's rows, and
there black ink and white paper side by side are taken for a marker.  The
strips run on past each corner over the frame's corner block, so an arm
crossing at a corner is seen by both sides.

Of the configuration, ``frame_height``, ``frame_band_outer`` (the frame is at
least this wide), ``frame_corner_skip``, ``frame_run_mm`` and ``point_length``
are used.  The
method's own numbers are :class:`~willughby.vision.config.OcclusionConfig`,
``config.occlusion`` (the ``[vision.occlusion]`` table of a TOML file).  What
the check cannot see it does not refuse: a frame
wholly outside the picture, or an arm that matches frame, table and their
edges alike and lies on the frame alone; nor, over the men's places,
something as small as a man or of a man's colour where the reader read one.

>>> import numpy as np
>>> from willughby.vision.config import VisionConfig
>>> image = np.full((720, 1280, 3), 120, np.uint8)
>>> corners = [[1000, 620], [280, 620], [280, 100], [1000, 100]]
>>> check_frame(VisionConfig(), image, corners).occluded
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .camera import Camera, camera_from_corners
from .config import VisionConfig
from .geometry import BoardGeometry, Corners, corners_array
from .cover_cues import CoverCues, cover_cues
from .cover_view import View, as_bgr8, strong_edges, view_of
from .frame_cues import SideCues, frame_cues, rails_picture, split_reference

__all__ = ["CoverCues", "FrameCheck", "check_frame", "covered_why", "cover_cues", "frame_cues", "rails_picture",
           "round_covers", "SideCues"]

@dataclass(frozen=True)
class FrameCheck:
    """The result: whether the board is covered (refused), on which side
    (of the frame crossed, or the long side nearer what covers the men's
    places), how long the longest crossed stretch is (mm; a crossing from
    ``frame_run_mm``) or how far along the side the cover spans, the
    strongest colour evidence of that side (its largest colour ratio, 1.0
    being the colour cue's bar), why it was refused, and the largest discs
    (radius, mm) found in what covers the men's places and in what goes on
    from a crossing over the board."""

    occluded: bool
    side: str | None
    run_mm: float
    contrast: float
    reason: str | None = None        # "across the frame", "across the frame onto the board",
                                     # "over the men's places", "a round top wider than a man",
                                     # or None (not refused)
    cover_mm: float = 0.0            # the largest disc (radius, mm) in what covers the men's places
    onto_mm: float = 0.0             # ... in what crosses the frame and goes on over the points
    #: the playing surface as this check saw it (8-bit BGR, top-down at ``view_step_mm``), where it looked:
    #: the *recent* of the next frame's check, once this one settled (see :func:`check_frame`)
    surface: np.ndarray | None = field(default=None, repr=False, compare=False)


def covered_why(check: FrameCheck) -> str:
    """Why a frame was refused, in a player's words: what was seen, where,
    and how far it reaches (the reading's note, and the turn's)."""
    where = f"{check.side} side" if check.side else "the board"
    if check.reason == "over the men's places":
        return f"something covers the men's places ({where}, {check.run_mm:.0f} mm along it)"
    if check.reason == "a round top wider than a man":
        return (f"something round and wider than a man stands over the men's places ({where}, "
                f"{check.run_mm:.0f} mm across): a dice cup?")
    if check.reason == "across the frame onto the board":
        return f"something lies across the frame and over the points ({where}, {check.run_mm:.0f} mm)"
    return f"something lies across the frame ({where}, {check.run_mm:.0f} mm)"


def _side_box(config: VisionConfig, view: View, name: str, t0: float, t1: float, s0: float,
              s1: float) -> tuple[int, int, int, int]:
    """The view's pixels (row0, row1, col0, col1) of the stretch *t0*..*t1*
    of side *name*, *s0*..*s1* mm out from the surface (clipped)."""
    W, D = view.geometry.width, view.geometry.depth
    x0, y0, x1, y1 = {"top": (t0, -s1, t1, -s0), "bottom": (t0, D + s0, t1, D + s1),
                      "left": (-s1, t0, -s0, t1), "right": (W + s0, t0, W + s1, t1)}[name]
    h, w = view.known.shape
    return (max(0, view.px(min(y0, y1))), min(h, view.px(max(y0, y1)) + 1),
            max(0, view.px(min(x0, x1))), min(w, view.px(max(x0, x1)) + 1))


def _onto_points(config: VisionConfig, view: View, cue: SideCues, start: int, stop: int) -> float:
    """How far something crossing the frame (the columns *start*:*stop* of
    *cue*) goes on over the points: the largest disc (radius, mm) on the
    surface inside the region connected to the crossing whose colour is the
    crossing's (its median on the frame, ``onto_delta_e``, lightness weighted
    ``onto_l_weight`` for the shading across an arm)."""
    oc = config.occlusion
    g = view.geometry
    W, D = g.width, g.depth
    t0, t1 = float(cue.t[start]), float(cue.t[stop - 1])
    s0, s1 = 3.0, config.frame_band_outer
    r0, r1, c0, c1 = _side_box(config, view, cue.name, t0, t1, s0, s1)
    if c1 <= c0 or r1 <= r0:
        return 0.0
    seen = view.known[r0:r1, c0:c1]
    if seen.sum() < 4:
        return 0.0
    weight = np.array([oc.onto_l_weight, 1.0, 1.0], np.float32)
    samples = view.lab[r0:r1, c0:c1][seen] * weight
    # what crosses may share the stretch with the frame beside it and its shadow: its colour, and the
    # two colours the stretch splits into (two means from its darkest and lightest)
    centres = [np.median(samples, axis=0)]
    if len(samples) >= 8:
        two = samples[[int(np.argmin(samples[:, 0])), int(np.argmax(samples[:, 0]))]].copy()
        for _ in range(5):
            near = ((samples[:, None, :] - two[None]) ** 2).sum(-1).argmin(1)
            two = np.array([samples[near == i].mean(0) if (near == i).any() else two[i] for i in range(2)])
        centres += list(two)
    # looked at within reach of the crossing (an arm's length onto the board)
    reach = int(round(oc.onto_reach_mm / view.step))
    h, w = view.known.shape
    wr0, wr1, wc0, wc1 = max(0, r0 - reach), min(h, r1 + reach), max(0, c0 - reach), min(w, c1 + reach)
    edge = strong_edges(config, view)[wr0:wr1, wc0:wc1]
    surface = np.zeros(edge.shape, bool)
    surface[max(0, view.px(0) - wr0):max(0, view.px(D) - wr0), max(0, view.px(0) - wc0):max(0, view.px(W) - wc0)] = True
    lab = view.lab[wr0:wr1, wc0:wc1] * weight
    box = (slice(r0 - wr0, r1 - wr0), slice(c0 - wc0, c1 - wc0))
    best = 0.0
    for colour in centres:
        # of its colour and within its outline (an edge stops it: the board's own colour beyond is not it)
        like = (((lab - colour) ** 2).sum(-1) < oc.onto_delta_e ** 2) & ~edge
        n, labels = cv2.connectedComponents(like.astype(np.uint8), connectivity=4)
        seeds = np.unique(labels[box][like[box]])
        seeds = seeds[seeds > 0]
        if seeds.size == 0:
            continue
        keep = np.zeros(n, bool)
        keep[seeds] = True
        inside = (keep[labels] & surface).astype(np.uint8)
        if inside.any():
            best = max(best, float(cv2.distanceTransform(inside, cv2.DIST_L2, 5).max()) * view.step)
    return best


def _ring_seen(config: VisionConfig, shape: tuple[int, ...], corners: Corners) -> float:
    """The share of the ring round the surface the frame check samples (out
    to ``ring_out_mm``, on the surface's plane) that lies in the picture: all
    of it from a camera over the table, much less in a photo cut close to the
    board."""
    geometry = BoardGeometry(config)
    W, D, out = geometry.width, geometry.depth, config.occlusion.ring_out_mm
    xs, ys = np.meshgrid(np.arange(-out, W + out, 6.0), np.arange(-out, D + out, 6.0))
    ring = (xs < 0) | (xs > W) | (ys < 0) | (ys > D)
    pts = np.column_stack([xs[ring], ys[ring]]).astype(np.float32).reshape(-1, 1, 2)
    H = cv2.getPerspectiveTransform(geometry.surface_corners().astype(np.float32),
                                    corners_array(corners).astype(np.float32))
    img = cv2.perspectiveTransform(pts, H).reshape(-1, 2)
    h, w = shape[:2]
    inside = (img[:, 0] >= 0) & (img[:, 1] >= 0) & (img[:, 0] <= w - 1) & (img[:, 1] <= h - 1)
    return float(inside.mean()) if inside.size else 0.0


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of every run of True."""
    f = np.concatenate([[0], flags.astype(np.int8), [0]])
    d = np.diff(f)
    return list(zip(np.nonzero(d == 1)[0].tolist(), np.nonzero(d == -1)[0].tolist()))


def _beyond_changed(config: VisionConfig, cue: SideCues, start: int, stop: int) -> bool:
    """Whether the table beyond the frame's crossed columns *start*:*stop* is unlike the rest of its
    side too (the median of the rows' mean z there, ``beyond_z``): an arm reaches the board from
    outside.  A stretch of the frame alone that looks crossed (its edges blurred, a pile of men
    rising over the far rail, a shadow) with the table beyond as it is elsewhere must go on over
    the points to be refused."""
    if cue.zout is None or stop <= start:
        return True
    return float(np.median(cue.zout[start:stop])) >= config.occlusion.beyond_z


def check_frame(config: VisionConfig, image: np.ndarray, corners: Corners,
                men: list[np.ndarray] | None = None, camera: Camera | None = None,
                reference: np.ndarray | None = None, recent: np.ndarray | None = None) -> FrameCheck:
    """Is the board covered (see the module's description)?  *corners* are
    the playing surface's C1..C4 in *image*; *men* are the outlines (surface
    mm, as the camera sees them) of men read on the board: a man on an edge
    point, seen from the side, may overhang the frame, and the frame under
    him is not looked at, nor is a man read taken for something covering the
    points; *camera* (from
    :func:`~willughby.vision.camera.camera_from_corners`) puts the strips on
    the plane of the frame's top rather than the surface's; *reference*
    (:func:`rails_picture` of a clear photo of this board, from this camera,
    such as the calibration photo) keeps the board's own look from being
    taken for an arm: only what has changed since can be one, and what
    changed on the frame and beyond it is an arm; *recent* (with
    *reference*: the ``surface`` of the check of the frame settled last,
    from the same camera) narrows what may cover the men's places to what
    has changed since that frame too: something lying there comes and goes
    between frames, the board's own look stays."""
    oc = config.occlusion
    image = as_bgr8(image)
    if camera is None:
        camera = camera_from_corners(corners, (image.shape[1], image.shape[0]), BoardGeometry(config))
    rails_ref, surface_ref = split_reference(config, reference)
    referenced = rails_ref is not None
    whole = _ring_seen(config, image.shape, corners) >= oc.ring_seen
    view: View | None = None
    worst = FrameCheck(False, None, 0.0, 0.0)
    cues = frame_cues(config, image, corners, men, camera, reference=rails_ref)
    for cue in cues:
        contrast = float(cue.colour.max()) if cue.colour.size else 0.0
        for start, stop in _runs(cue.crossed):
            run_mm = (stop - start) * oc.step_mm
            if run_mm < config.frame_run_mm:
                if not worst.occluded and run_mm > worst.run_mm:
                    worst = FrameCheck(False, None, run_mm, contrast)
                continue
            # the frame is judged alone where the calibration photo tells its own look, or where the
            # picture shows it and the table round it (a camera over the table); in a photo cut close to
            # the board the frame's own look (a hinge, a brass corner, the picture's edge) can look
            # crossed: an arm also goes on over the points
            if referenced or (whole and _beyond_changed(config, cue, start, stop)):
                onto = math.inf
            else:
                view = view or view_of(config, image, corners)
                onto = _onto_points(config, view, cue, start, stop)
            measured = onto if math.isfinite(onto) else 0.0
            if onto >= oc.onto_mm and run_mm > worst.run_mm:
                why = "across the frame onto the board" if math.isfinite(onto) else "across the frame"
                worst = FrameCheck(True, cue.name, run_mm, contrast, why, worst.cover_mm, measured)
            elif not worst.occluded and run_mm > worst.run_mm:
                worst = FrameCheck(False, None, run_mm, contrast, None, 0.0, measured)
    # what lies over the men's places: in a photo cut close to the board (whose frame tells little), or
    # against the calibration photo (what has changed since); a camera over the table without one sees
    # an arm on the frame and the table round it, and the board's own shadows are not weighed against
    # the light of a photo that was never taken
    if whole and surface_ref is None:
        return worst
    view = view or view_of(config, image, corners)
    assert view.bgr is not None                   # view_of keeps the picture it rectified
    seen = view.surface(view.bgr)
    cover = cover_cues(config, image, corners, men, view, exact=False, reference=surface_ref, recent=recent)
    if not worst.occluded and cover.cover_mm >= oc.cover_mm:
        return FrameCheck(True, cover.side, cover.extent_mm, worst.contrast, "over the men's places",
                          cover.cover_mm, worst.onto_mm, seen)
    if not worst.occluded:
        rounds = round_covers(config, view)
        if rounds:
            _, y, r = max(rounds, key=lambda c: c[2])
            side = "top" if y < view.geometry.depth / 2 else "bottom"
            return FrameCheck(True, side, 2 * r, worst.contrast, "a round top wider than a man", cover.cover_mm,
                              worst.onto_mm, seen)
    return FrameCheck(worst.occluded, worst.side, worst.run_mm, worst.contrast, worst.reason, cover.cover_mm,
                      worst.onto_mm, seen)


def round_covers(config: VisionConfig, view: View) -> list[tuple[float, float, float]]:
    """Round tops much wider than any man over the men's places, as an
    upright dice cup shows from above (``round_cover`` of a man's radius
    across, with ``round_votes``, in the view's lightness at 1 px a mm):
    ``(x, y, r)`` in mm of the playing surface.  No man's top is that wide,
    and a point's base is no circle; in a photo of one frame, a cup the
    colour of the men is otherwise a man read."""
    oc = config.occlusion
    g = view.geometry
    scale = view.step                                   # view pixels to 1 px a mm
    L: np.ndarray = np.clip(view.lab[..., 0] * 2.55, 0, 255).astype(np.uint8)
    L = cv2.resize(L, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    grey = cv2.GaussianBlur(L, (0, 0), oc.round_smooth_mm)
    r = config.man_diameter / 2
    found = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1, minDist=r, param1=80, param2=oc.round_votes,
                             minRadius=int(oc.round_cover[0] * r), maxRadius=int(math.ceil(oc.round_cover[1] * r)))
    out = []
    for x, y, rr in ([] if found is None else found[0]):
        x, y = float(x) - view.margin, float(y) - view.margin
        if 0 <= x <= g.width and (0 <= y <= oc.men_band_mm or g.depth - oc.men_band_mm <= y <= g.depth):
            out.append((x, y, float(rr)))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m willughby.vision.occlusion FOLDER...``: over labelled
    frames (``img_NNNN.jpg`` + ``.json`` with ``corners`` and ``occluded``),
    how many frames with a hand are refused, how many clear ones are, the
    longest crossed run seen on each kind, and the time per frame (one
    thread).  The men's outlines are not used (``men=None``)."""
    import argparse
    import json
    import time
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m willughby.vision.occlusion", description=main.__doc__)
    parser.add_argument("folders", nargs="+", help="folders of labelled frames")
    parser.add_argument("--misses", action="store_true", help="name every wrong verdict")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    config = VisionConfig()
    geometry = BoardGeometry(config)
    for folder in args.folders:
        hit = miss = wrong = clear = 0
        runs: dict[bool, list[float]] = {True: [], False: []}
        millis = []
        for label_path in sorted(Path(folder).glob("img_*.json")):
            label = json.loads(label_path.read_text())
            image = cv2.imread(str(label_path.with_suffix(".jpg")))
            if image is None:
                continue
            camera = camera_from_corners(label["corners"], (image.shape[1], image.shape[0]), geometry)
            t0 = time.perf_counter()
            result = check_frame(config, image, label["corners"], None, camera)
            millis.append((time.perf_counter() - t0) * 1000)
            occluded = bool(label["occluded"])
            runs[occluded].append(result.run_mm)
            if occluded:
                hit += result.occluded
                miss += not result.occluded
            else:
                wrong += result.occluded
                clear += not result.occluded
            if args.misses and result.occluded != occluded:
                print(f"  {'missed' if occluded else 'wrongly refused'}: {label_path.stem} {result}")
        if not millis:
            print(f"{folder}: no labelled frames")
            continue
        print(f"{folder}: hand refused {hit}/{hit + miss}, clear wrongly refused {wrong}/{wrong + clear}, "
              f"shortest run with a hand {min(runs[True], default=float('nan')):.0f} mm, "
              f"longest clear {max(runs[False], default=float('nan')):.0f} mm (refusal at {config.frame_run_mm:.0f}), "
              f"{np.median(millis):.1f} ms per frame (median)")
    return 0


