"""Every number the camera part uses, in one frozen record.  A TOML file may override any of them; each stage's own
numbers sit in a table of their own::

    [vision]
    scale = 1.2
    settle_frames = 6

    [vision.reader]          # ReaderConfig: finding men's tops, the board's look, evidence
    find_dice = true

    [vision.dice]            # DiceConfig: the dice finder (vision/dice.py)
    min_score = 0.85

    [vision.occlusion]       # OcclusionConfig: the check for a hand across the frame
    z_frame = 4.0

    [vision.refine]          # RefineConfig: finding the surface's edges from rough corners
    enabled = true

    [vision.layout]          # LayoutConfig: the board's own points, bar and men found in the picture
    find = false

>>> VisionConfig().man_diameter
36.0
>>> VisionConfig().with_values({"dice": {"min_score": 0.9}}).dice.min_score
0.9
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, fields, is_dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["VisionConfig", "VisionConfigError", "ReaderConfig", "DiceConfig", "OcclusionConfig", "RefineConfig",
           "LayoutConfig"]


class VisionConfigError(ValueError):
    """A configuration value that cannot be used (names the key and value)."""


# ------------------------------------------------------------------ checking and overriding
# How a field's value is checked (the field's metadata "check"; numbers inside
# a tuple are each checked): "pos" > 0 (the default), "nonneg" >= 0, "share"
# 0..1, "any" any finite number.  "length" fixes a tuple's length.

def _f(default: Any, check: str = "pos", length: int | None = None, item: type | None = None) -> Any:
    meta: dict[str, Any] = {"check": check}
    if length is not None:
        meta["length"] = length
    if item is not None:
        meta["item"] = item
    return field(default=default, metadata=meta)


def _numbers(value: Any) -> Iterator[int | float]:
    if isinstance(value, tuple):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


def _check_fields(obj: Any, prefix: str) -> None:
    """Each field of the stage's record is a value its check allows."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        name = f"{prefix}.{f.name}"
        if is_dataclass(value) or isinstance(value, (bool, str)):
            continue
        if isinstance(value, tuple):
            length = f.metadata.get("length")
            if length is not None and len(value) != length:
                raise VisionConfigError(f"{name} must hold {length} values, not {value!r}")
        elif not isinstance(value, (int, float)):
            raise VisionConfigError(f"{name} must be a number, not {value!r}")
        check = f.metadata.get("check", "pos")
        for v in _numbers(value):
            ok = math.isfinite(v) and {"pos": v > 0, "nonneg": v >= 0, "share": 0 <= v <= 1,
                                       "any": True}[check]
            if not ok:
                what = {"pos": "positive", "nonneg": "zero or more", "share": "between 0 and 1",
                        "any": "a finite number"}[check]
                raise VisionConfigError(f"{name} must be {what}, not {value!r}")


def _coerce(value: Any, like: Any, name: str, item: type | None = None) -> Any:
    """*value* (from TOML) as the type of the default *like*: a whole float
    for an int, an int for a float, a list for a tuple (element by element)."""
    bad = VisionConfigError(f"{name} must be {type(like).__name__}, not {value!r}")
    if isinstance(like, bool):
        if not isinstance(value, bool):
            raise bad
        return value
    if isinstance(value, bool):
        raise bad
    if isinstance(like, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            raise bad
        return value
    if isinstance(like, float):
        if not isinstance(value, (int, float)):
            raise bad
        return float(value)
    if isinstance(like, str):
        if not isinstance(value, str):
            raise bad
        return value
    if isinstance(like, tuple):
        if not isinstance(value, (list, tuple)):
            raise VisionConfigError(f"{name} must be a list, not {value!r}")
        if like and len({type(x) for x in like}) > 1:         # a record: (name, weight)
            if len(value) != len(like):
                raise VisionConfigError(f"{name} must hold {len(like)} values, not {value!r}")
            return tuple(_coerce(v, x, name) for v, x in zip(value, like))
        template = like[0] if like else (item or float)()
        return tuple(_coerce(v, template, name) for v in value)
    raise bad


_Record = TypeVar("_Record", bound="DataclassInstance")


def _with_values(obj: _Record, values: Mapping[str, Any], prefix: str) -> _Record:
    """A copy of the record *obj* with some values replaced (a nested stage's
    values from a table of their own); unknown keys are errors."""
    if not isinstance(values, Mapping):
        raise VisionConfigError(f"{prefix} must be a table, not {values!r}")
    names = {f.name: f for f in fields(obj)}
    changes: dict[str, Any] = {}
    for key, value in values.items():
        if key not in names:
            raise VisionConfigError(f"unknown {prefix.replace('.', ' ')} setting {key!r}")
        current = getattr(obj, key)
        if is_dataclass(current) and not isinstance(current, type):     # a nested stage's record
            changes[key] = _with_values(current, value, f"{prefix}.{key}")
        else:
            changes[key] = _coerce(value, current, f"{prefix}.{key}", names[key].metadata.get("item"))
    return replace(obj, **changes)


# ------------------------------------------------------------------ the stages' own numbers
@dataclass(frozen=True)
class ReaderConfig:
    """The reader's method (``vision/reader.py``): finding the round tops of
    men, learning the board's look, weighing the evidence, the bar, and the
    older fitting reader.  Lengths in mm, shares of a man's radius where
    named so."""

    # --- when to look for dice (dice.find_dice): the men are read without it
    find_dice: bool = False          # find the dice on every read (Reading.dice); the point reader
                                     # has learnt dice and needs no mask, so the read is cheaper without
    # --- the process's memory (vision/memory.py): what a read frees, the C library keeps for the next
    keep_memory_mb: int = _f(64, "nonneg")  # megabytes of freed memory kept (0: the allocator as it is)
    # --- round tops of men (cv2.HoughCircles on the rectified grey board)
    top_min_apart: float = _f(0.8)   # share of a man's radius: least distance between two tops found
    top_edge: float = _f(80.0)       # Canny's upper threshold (grey levels 0..255) of the circle finder
    top_votes: float = _f(20.0)      # accumulator votes a circle needs (fewer: more, weaker circles)
    top_radius_min: float = _f(0.85)  # share of a man's radius: the smallest top looked for ...
    top_radius_max: float = _f(1.3)   # ... and the largest (a top seen nearer the camera looks larger)
    one_man_apart: float = _f(0.7)   # share of a man's diameter: tops nearer than this are one man
                                     # (his top and the rim of his base both look round)
    # --- the board's look (learn_board)
    tip_from: float = _f(0.45, "share")  # share of a point's length from the edge where its tip half begins ...
    tip_to: float = _f(0.92, "share")    # ... and ends: where men seldom lie, so the point's colour shows
    field_clear_mm: float = _f(8.0, "nonneg")  # mm kept clear of the points' tips when sampling the open field
    sample_step: int = _f(3)         # every n-th pixel of the field, bar and margin is sampled (same median)
    men_mask_radius: float = _f(1.15)  # share of a top's radius left out of the bare board's colours
    least_tip_pixels: int = _f(20)   # fewer free pixels than this at a tip: its men are sampled too
    least_region_pixels: int = _f(50)  # ... the same for the field, the bar and the margin
    top_middle: float = _f(0.5, "share")  # share of a top's radius sampled for its colour (its middle)
    two_colours_apart: float = _f(12.0)  # Lab lightness (0..100): two groups of tops this far apart are two colours
    light_from: float = _f(50.0)     # Lab lightness: a lone colour of men this light or more is "light"
    # --- evidence (per pixel: how much better a man explains it than the board)
    lightness_weight: float = _f(0.5)  # lightness counts this much against hue in colour distances (shading moves it)
    distance_cap: float = _f(60.0)   # Lab distance beyond which all colours are equally far
    evidence_scale: float = _f(0.1)  # evidence per Lab unit of distance won
    evidence_clip: float = _f(2.0)   # evidence is clipped to +- this
    evidence_bias: float = _f(0.25, "any")  # subtracted from the evidence (a man must win clearly)
    field_lightness: float = _f(50.0)  # Lab lightness assumed for the field where none was learnt
    # --- the bar
    bar_slack_mm: float = _f(2.0, "nonneg")  # a top this far outside the bar's sides is still on the bar
    bar_reach: float = _f(0.5, "share")  # share of a point's length from either edge where the bar holds no men
    # --- the fitting reader (method "fit", counting.fit_point)
    fit_half_width_mm: float = _f(45.0)  # mm either side of a point's centre line it looks at
    fit_rows: tuple[int, ...] = _f((5, 6))  # most men in a row tried (the set's row length)
    fit_confidence_scale: float = _f(150.0)  # a fit's margin over the next best, in score units, for confidence 1 - 1/e
    net_row: int = _f(5)             # men in a row assumed for the outlines of men the point reader read

    def __post_init__(self) -> None:
        _check_fields(self, "vision.reader")
        if self.top_radius_min >= self.top_radius_max:
            raise VisionConfigError("vision.reader: top_radius_min must be below top_radius_max")
        if self.tip_from >= self.tip_to:
            raise VisionConfigError("vision.reader: tip_from must be below tip_to")


# the dice finder's logistic score, fitted (logistic regression, pieces of
# men weighted x5) to the candidates of 400 synthetic frames
# (``python -m willughby.vision.synth OUT --count 400 --seed 101``), checked
# on other seeds and on the dev set (docs/vision-labels.md)
_DICE_MEASURES: tuple[tuple[str, float], ...] = (
    ('size', -1.0618),
    ('too_big', 0.4071),
    ('too_small', 0.2634),
    ('elongation', -1.3153),
    ('unexplained_elongation', -1.5614),
    ('rectness', 9.9379),
    ('coherence', 4.7238),
    ('contrast', 3.2488),
    ('contrast_30', 5.9217),
    ('board_distance', -0.2760),
    ('board_distance_15', 1.4953),
    ('along_layout', -11.2340),
)


@dataclass(frozen=True)
class DiceConfig:
    """The dice finder's method (``vision/dice.py``, whose docstring tells
    the method): lengths in mm of the rectified board, whiteness in 0..255
    (the least of a pixel's three channels), colour distances in Lab."""

    die_mm: float = _f(16.0)         # a die's edge; its top face is this high above the surface
    # --- candidate regions
    min_side_mm: float = _f(10.0)    # shortest side of a candidate's enclosing rectangle ...
    max_side_mm: float = _f(24.0)    # ... and longest such short side (a die seen askew with its sides)
    max_long_mm: float = _f(40.0)    # longest side of a candidate's enclosing rectangle
    min_area_mm2: float = _f(70.0)   # least area (mm^2) of a candidate region
    min_outline_mm: float = _f(12.0)  # least length (mm) of a candidate's outline
    box_slack: float = _f(0.9, "share")  # share of min_side_mm a candidate's upright bounding box may shrink to
    levels: tuple[int, ...] = _f((), "nonneg", item=int)  # whiteness levels (0..255) the board is cut at
                                                          # (none: see local_margins)
    local_margins: tuple[int, ...] = _f((25, 40, 50, 60))  # margins (0..255) above the local mean whiteness it is cut at
    local_window_mm: float = _f(31.0)  # side (mm) of the square the local mean is taken over
    close_mm: float = _f(5.0)        # the closing (mm) that fills the pips (a pip is about 3 mm across)
    refine: bool = True              # cut each candidate again half way between it and its surroundings
    # --- where a die may lie
    frame_clear_mm: float = _f(2.0, "nonneg")  # a candidate must keep this far (mm) from the frame as seen
    bar_clear_mm: float = _f(2.0, "nonneg")    # ... and its centre this far from the bar
    # --- measures
    ring_mm: tuple[float, ...] = _f((1.0, 3.0), length=2)  # the ring (mm, inner and outer) outside a
                                                          # candidate its contrast is measured against
    layout_tolerance_mm: float = _f(2.0)  # an outline this near (mm) an edge of the bare board runs along it ...
    along_angle_deg: float = _f(20.0)     # ... when its direction is within this many degrees of the edge's
    tangent_span_mm: float = _f(2.0)      # an outline's direction is taken over this length (mm) either side
    board_sample_mm: float = _f(8.0)      # the bare board's colours are sampled every this many mm ...
    board_sample_inset_mm: float = _f(5.0)  # ... this far inside each region's borders
    least_board_samples: int = _f(10)     # a region with fewer samples has no colour
    unknown_board_distance: float = _f(50.0)  # colour distance (Lab) taken where the board's colour is unknown
    lab_lightness_weight: float = _f(0.3)  # lightness counts this much in colour distances (light falls off)
    # --- the score: sigmoid(bias + sum of weight x measure), and what it takes
    bias: float = _f(-17.1528, "any")
    measures: tuple[tuple[str, float], ...] = _f(_DICE_MEASURES, "any")  # (measure, weight) pairs
    min_score: float = _f(0.8, "share")  # least score (0..1) of a die; set so no piece of a man is a die
    settled_score: float = _f(0.99, "share")  # a place with a candidate this sure needs no more looking at
    same_place_mm: float = _f(10.0)   # candidates closer than this (mm) are one place (the best is kept)
    # --- the gap between the men of two points, which looks like a die
    gap_near_mm: float = _f(7.0)     # a candidate this near (mm) a gap between men of two points ...
    gap_patch_mm: float = _f(10.0)   # ... has patches this wide (mm) looked at where the men round it would be
    gap_foreign: float = _f(15.0)    # ... a patch this far (Lab) from the bare board's colour holds a man,
    gap_plain: float = _f(8.0)       # ... a patch whose channels vary less than this (0..255) is plain,
    gap_alike: float = _f(8.0)       # ... and two patches this near (Lab) look alike
    # --- the pips
    pip_square_mm: float = _f(2.5, "nonneg")  # a candidate this near square (mm) is the top face alone; its pips are read:
    pip_face_inset: float = _f(0.85, "share")  # ... the share of the face's side looked at (its edges left out),
    pip_face_level: float = _f(0.8, "share")   # ... the face's whiteness is this quantile of it,
    pip_dark: float = _f(0.55, "share")  # ... a pip is darker than this share of the face's whiteness,
    pip_min_size: float = _f(0.08, "share")  # ... at least this share of the face's side across ...
    pip_max_size: float = _f(0.35, "share")  # ... and at most this (larger: a blot, not a pip),
    pip_grid: float = _f(0.09, "share")  # ... and lies this near (share of the side) a point of the face's 3 x 3 grid
    # --- what is reported and masked
    max_face: float = _f(1.25)       # share of die_mm: the largest top face reported
    mask_least_side: float = _f(0.8)  # share of die_mm: dice_mask covers at least a face this wide ...
    mask_margin_mm: float = _f(4.0, "nonneg")  # ... and this much (mm) round each die (shadow, blur)

    def __post_init__(self) -> None:
        _check_fields(self, "vision.dice")
        if self.min_side_mm > self.max_side_mm:
            raise VisionConfigError("vision.dice: min_side_mm must not exceed max_side_mm")
        if self.ring_mm[0] >= self.ring_mm[1]:
            raise VisionConfigError(f"vision.dice.ring_mm must run from inner to outer, not {self.ring_mm!r}")
        if self.pip_min_size >= self.pip_max_size:
            raise VisionConfigError("vision.dice: pip_min_size must be below pip_max_size")
        known = {name for name, _ in _DICE_MEASURES} | {"solidity"}
        for name, _ in self.measures:
            if name not in known:
                raise VisionConfigError(f"vision.dice.measures: unknown measure {name!r} "
                                        f"(known: {', '.join(sorted(known))})")
        if not self.levels and not self.local_margins:
            raise VisionConfigError("vision.dice: levels and local_margins are both empty: nothing is cut")


@dataclass(frozen=True)
class OcclusionConfig:
    """The check for something lying across the frame (``vision/occlusion.py``,
    whose docstring tells the method): the frame is sampled in strips of
    columns straight out from the playing surface; lengths in mm, colour
    differences in Lab units, z in spreads of a row along its side.  Chosen
    on the dev set and synthetic frames (seeds 7, 11, 21, 22, 23) and
    checked on other seeds; ``python -m willughby.vision.occlusion FOLDER``
    measures them."""

    step_mm: float = _f(3.0)         # sampling step of the strips (mm); an arm is >= 40 mm wide
    ring_in_mm: float = _f(-6.0, "any")  # rows start this far (mm) outside the surface's edge (negative: inside;
                                         # the edge itself is a cue)
    ring_out_mm: float = _f(90.0)    # ... and end this far outside it: past any frame and its shadow, on the table
    corner_ext_mm: float = _f(18.0, "nonneg")  # each strip runs on this far past its corners, over the frame's corner block
    corner_ext_inner_mm: float = _f(4.0, "any")  # ... where the surface's edge is missing: nearer rows are not used
    edge_from_mm: float = _f(2.0, "any")  # the edge cue uses rows from here out (the surface's edge: men lie there)
    frame_rows_extra_mm: float = _f(4.0, "any")  # rows out to frame_band_outer plus this are the frame's top;
                                                 # beyond, wall and table
    bar_inner_mm: float = _f(6.0, "any")  # at the bar the surface's edge is missing: nearer rows are not used there
    bar_pad_mm: float = _f(4.0, "nonneg")  # the bar's columns reach this far beyond its sides
    knots: int = _f(10)              # stretches along a side whose medians give its usual look ...
    knots_dropped: int = _f(3, "nonneg")  # ... the most unusual of them left out (an arm covers up to three)
    gain_window_mm: float = _f(160.0)  # a column's lightness change, smoothed (running median) over this, is light
    blur: tuple[int, ...] = _f((5, 3), length=2)  # samples (along, across) a difference from the usual look is averaged over
    spread_floor: float = _f(1.0)    # Lab units: the least spread a row is credited with
    z_cap: float = _f(12.0)          # z beyond this counts as this (one wild sample does not make a column)
    z_frame: float = _f(3.5)         # colour cue: the frame's rows are foreign at this mean z ...
    z_beyond: float = _f(9.0)        # ... and the rows beyond them at this
    colour_veto_corr: float = _f(0.7, "any")  # ... unless the column's usual edges are all there (correlation this or more)
    mix_colour: float = _f(0.5)      # both cues half-way (colour ratio this, correlation below mix_corr) also cross
    mix_corr: float = _f(0.5, "any")  # ... (the correlation's half-way mark)
    corr_crossed: float = _f(0.25, "any")  # edge cue: a column whose edges correlate less than this with the usual ones ...
    corr_blur: int = _f(3)           # ... (the correlation averaged over this many neighbouring columns)
    edge_snr: float = _f(2.0)        # ... if its usual edges carry this much more energy than the texture ...
    edge_share: float = _f(0.25, "share")  # ... and it keeps this share of its side's usual edge energy
    min_seen_mm: float = _f(24.0)    # a column must show this much (mm) of the ring to be judged
    min_seen_corner_mm: float = _f(12.0)  # ... near a corner
    shears: tuple[float, ...] = _f((0.0, -0.6, 0.6), "any")  # slants (tangents) of the columns tried: an arm may cross aslant
    reference_delta_e: float = _f(12.0)  # with a clear photo's frame as reference: a sample this far from it
                                         # (Lab, averaged as the colour cue is) has changed ...
    reference_share: float = _f(0.15, "share")  # ... and a column with more than this share of its rows changed
                                                # may be crossed; the others look as they did, and are not
    reference_cover: float = _f(0.5, "share")  # ... and one with this share of its frame's rows and of the rows
                                               # beyond changed is crossed, whatever the cues say
    reference_gain: bool = True      # ... the picture's exposure and white balance matched to the reference's
                                     # first (a gain per channel, the median over the ring and over the surface)
    reference_shift_mm: float = _f(2.0, "nonneg")  # ... and a place changed only where the reference, moved by up to
                                                   # this much either way, changed there too (a camera nudged)
    marker_chroma: float = _f(12.0)  # a marker's black and white: Lab chroma below this, and
    marker_black: float = _f(30.0)   # ... lightness below this (ink)
    marker_white: float = _f(75.0)   # ... or above this (paper)
    marker_near_mm: float = _f(10.0)  # ... ink and paper this near each other
    marker_pad_mm: float = _f(12.0, "nonneg")  # ... and this much round them is left out too (the paper's edge, its shadow)
    marker_column_share: float = _f(0.25, "share")  # a column this much of whose judged rows are a marker's is not judged
    l_weight: float = _f(0.7)        # lightness counts this much against colour (light varies more than hue)
    # --- what a covering object does (occlusion.check_frame, cover_cues): chosen on the twelve real dev
    #     photos (docs/vision-reader.md gives the leave-one-board-out figures), checked on the painter's frames
    ring_seen: float = _f(0.75, "share")  # a crossed frame refuses alone with the calibration photo, or where the
                                          # picture shows this share of the ring round it (a camera over the table) ...
    beyond_z: float = _f(3.0, "nonneg")  # ... the table beyond the crossed frame unlike its side's (the rows beyond
                                         # at this mean z or more: an arm comes from outside; 0: not asked) ...
    onto_delta_e: float = _f(10.0)   # ... else what continues the crossing's colour (Lab, lightness at
    onto_l_weight: float = _f(0.7)   # ... this weight), within its outline (no strong edge), onto the board ...
    onto_mm: float = _f(20.0)        # ... must hold a disc this large (radius, mm) on the surface
    onto_reach_mm: float = _f(160.0)  # ... (looked for this far round the crossing)
    view_step_mm: float = _f(2.0)    # the surface and the frame, rectified top-down at this many mm per pixel ...
    view_margin_mm: float = _f(24.0)  # ... with this much round the surface
    men_band_mm: float = _f(110.0)   # the men's places: this far in from each long edge (three men) ...
    men_reach_mm: float = _f(36.0)   # ... and a man beyond the men read
    edge_pct: float = _f(90.0)       # strong edges: the points' gradient at this percentile ...
    edge_strong: float = _f(0.5, "share")  # ... this share of it or more (the points' sides, men's rims; not grain)
    cover_clear_mm: float = _f(8.0)  # a place this far from every strong edge hides the edges that cross it there
    support_band_mm: float = _f(8.0)  # unlike the board: a colour found, within this depth ...
    support_near_mm: float = _f(40.0)  # ... and farther than this along the board (not the object itself) ...
    support_bin: float = _f(8.0)     # ... (binned by this many Lab units, lightness at l_weight) ...
    support_share: float = _f(0.03, "share")  # ... in less than this share of the places there ...
    grain_share: float = _f(0.3, "share")  # ... or smoother than this share of the grain the board's places of
    grain_least: float = _f(1.5)     # ... its colour there have, where they have this much (L units against
    grain_dark: float = _f(10.0)     # ... the light, L + this, times 50)
    men_delta_e: float = _f(14.0)    # a place in a man read, this near the men's colours, is that man
    cover_mm: float = _f(25.0)       # what covers the men's places holds a disc this large (radius, mm; a man's
                                     # top or a point's base holds 18-22): refused
    round_cover: tuple[float, ...] = _f((1.45, 2.1), length=2)  # a round top this many men's radii across ...
    round_votes: float = _f(30.0)    # ... with this many votes (HoughCircles' accumulator, at 1 px a mm) ...
    round_smooth_mm: float = _f(1.5)  # ... in the lightness smoothed by this much, over the men's places: a cup

    def __post_init__(self) -> None:
        _check_fields(self, "vision.occlusion")
        if self.ring_out_mm <= self.ring_in_mm:
            raise VisionConfigError("vision.occlusion: ring_out_mm must lie beyond ring_in_mm")
        if self.knots_dropped >= self.knots:
            raise VisionConfigError("vision.occlusion: knots_dropped must be fewer than knots")
        if not self.shears:
            raise VisionConfigError("vision.occlusion.shears must name at least one slant")


@dataclass(frozen=True)
class RefineConfig:
    """Finding the playing surface's true corners from rough ones
    (``vision/refine.py``, whose docstring tells the method): along the
    board, from the points' sides.  Lengths in px of the camera's picture."""

    enabled: bool = False            # refine along the board at the start of every read (read_board, observe);
                                     # the companion refines once, at calibration, instead
    max_move_px: float = _f(15.0)    # no corner moves further
    rounds: int = _f(3)              # the rows found again from the corners moved, at most this many times in all
    side_samples: int = _f(24)       # places looked at on each of the points' 48 sides
    side_from: float = _f(0.2, "share")  # ... from this share of the way from a point's base to its tip
    side_to: float = _f(0.95, "share")   # ... to this
    smooth_px: float = _f(1.2)       # Gaussian smoothing (sigma) of the picture before its edges are measured
    search_px: tuple[float, ...] = _f((12.0, 6.0, 3.0))  # how far across each side its edge is looked for, round by round
    search_step_px: float = _f(0.5)  # the step of that search
    min_edge: float = _f(2.0)        # Lab units per px: a sample whose strongest edge is weaker has none
    min_support: float = _f(0.3, "share")  # the share of samples with an edge below which the corners are kept
    fit_rounds: int = _f(6)          # reweighting rounds of the robust fit
    min_spread_px: float = _f(0.5)   # the smallest spread of the fit's residuals its weights assume

    def __post_init__(self) -> None:
        _check_fields(self, "vision.refine")
        if self.side_from >= self.side_to:
            raise VisionConfigError(f"vision.refine.side_from ({self.side_from}) must be below side_to ({self.side_to})")


@dataclass(frozen=True)
class LayoutConfig:
    """The board's own layout (``vision/board_layout.py``, whose docstring
    tells the method): where its points, its bar and its men's size are,
    found in the picture rather than assumed, and where they were found.
    Lengths in mm of the rectified surface the corners give (the
    proportions' ``surface_width`` x ``surface_depth``)."""

    find: bool = True                # find the layout in the picture (at calibration, and in a photo read
                                     # without one); off: the proportions below and in [vision] are the board's
    # --- a layout found (or measured by hand): what the reader reads with; empty: from the proportions
    centres: tuple[float, ...] = _f((), "any")  # the 24 points' centres, mm along the surface from C3's edge
                                                # (index: point - 1)
    bar: tuple[float, ...] = _f((), "any")      # the bar's two edges, mm along the surface (equal: no bar)
    # --- where the points' sides are looked for
    band: tuple[float, ...] = _f((0.03, 0.30), "share", length=2)  # share of the depth from each long edge
    slopes: tuple[float, ...] = _f((0.04, 0.2), length=2)  # a side's slant (half its base over its length): range
    slope_step: float = _f(0.01)
    pitch: tuple[float, ...] = _f((1 / 17.5, 1 / 11.8), "share", length=2)  # the points' pitch, share of the width
    pitch_step_mm: float = _f(0.5)
    half_base: tuple[float, ...] = _f((0.28, 0.52), "share", length=2)  # half a point's base, share of the pitch
    half_base_step: float = _f(0.02, "share")
    samples_per_mm: int = _f(2)      # the profiles' resolution
    smooth_px: float = _f(1.0)       # Gaussian smoothing (sigma) of the rectified picture
    highpass_mm: float = _f(9.0)     # a profile less its mean over this width: sharp sides stand out
    z_range: tuple[float, ...] = _f((-2.0, 5.0), "any", length=2)  # a profile's values in spreads, clipped
    tolerance_mm: float = _f(1.0, "nonneg")  # a side found this near where the model puts it counts
    end_sigma_mm: float = _f(12.0)   # the rows' ends lie about this near the corners given, inside them (a prior:
                                     # a board may have a border between its rail and its points) ...
    end_beyond_sigma_mm: float = _f(6.0)  # ... and about this near beyond them (only as far as the corners are off)
    # --- what is certain
    min_evidence: float = _f(2.0)    # mean evidence (spreads) per side a group of six must show ...
    max_disagree_mm: float = _f(8.0)  # ... and the two long sides' points agree this well (one row shifted and
                                      # stretched onto the other)
    men_share: float = _f(0.9)       # men's diameter, share of the pitch (men are about a point wide)
    longest_point: float = _f(0.44, "share")  # a point's length read with is at most this share of the depth (the
                                              # length found, half base over slope, is rough; the open field
                                              # between the tips must stay)
    # --- the surface's depth against its width (the corners alone cannot say how deep it is)
    aspect_from_camera: bool = True  # from the corners' perspective where it fixes the camera's focal length ...
    aspect: tuple[float, ...] = _f((0.65, 1.05), length=2)  # ... and lies within this (depth / width);
                                                           # otherwise the proportions' surface_depth / surface_width
    round_votes: float = _f(30.0)    # ... and more men's tops look round there (HoughCircles' votes for one)
    aspect_tolerance: float = _f(0.07, "share")  # ... and the proportions' are kept where it is within this share of
                                                # them (the corners' estimate scatters by a few per cent)
    # --- ... else from the men's columns (men on a point touch: they repeat every man's diameter; men_depth.py)
    men_depth: bool = True           # measure the depth by the men where the corners do not fix it
    column_men: float = _f(2.5)      # a column reaches this many men's diameters from the edge ...
    period_gap: float = _f(0.1, "share")  # ... with no gap in the men seen longer than this share of a diameter
    period_band: float = _f(0.5, "share")  # the middle share of the point's width followed along it
    period_reach: float = _f(0.6, "share")  # ... from the edge to this share of the depth
    period_range: tuple[float, ...] = _f((0.55, 1.6), length=2)  # a column's repeat is looked for between these
                                                               # shares of a man's diameter ...
    period_strength: float = _f(0.2, "share")  # ... and counts where its autocorrelation is at least this

    def __post_init__(self) -> None:
        _check_fields(self, "vision.layout")
        if self.centres and len(self.centres) != 24:
            raise VisionConfigError(f"vision.layout.centres must hold 24 values (or none), not {len(self.centres)}")
        if self.bar and (len(self.bar) != 2 or self.bar[1] < self.bar[0]):
            raise VisionConfigError(f"vision.layout.bar must be two edges, left to right (or none), not {self.bar!r}")
        for name in ("band", "slopes", "pitch", "half_base", "z_range", "aspect", "period_range"):
            lo, hi = getattr(self, name)
            if lo >= hi:
                raise VisionConfigError(f"vision.layout.{name} must run from low to high, not {(lo, hi)!r}")


@dataclass(frozen=True)
class VisionConfig:
    """Board geometry (millimetres) and the reader's settings.

    The geometry defaults are one maker's proportions: a playing surface of
    530 x 450 mm, halves of 240 mm with six points of 40 mm, a 50 mm bar,
    points 180 mm long, men 36 mm across.  They are not assumed of the board
    watched: its own layout is found in the picture (``board_layout``,
    ``[vision.layout]``), and the reader reads with that -- the surface
    scaled so that its points are ``point_width`` wide, the points and the
    bar where they were found.  The proportions here are the frame the
    corners are first rectified onto, and what is read with where the
    picture shows nothing certain (the reading then says so).
    """

    # --- the board (mm)
    surface_width: float = 530.0
    surface_depth: float = 450.0
    half_width: float = 240.0
    bar_width: float = 50.0
    point_width: float = 40.0
    point_length: float = 180.0
    man_diameter: float = 36.0
    # --- rectification
    scale: float = 1.0               # pixels per millimetre of the rectified board
    margin: float = 30.0             # mm round the surface also rectified (tops of piles, frame)
    man_thickness: float = 11.0      # mm: a man's height (men are 9-12.6 mm thick)
    # --- settling
    settle_frames: int = 5           # frames the board must stay still
    motion_threshold: float = 6.0    # mean absolute grey change (0..255) that counts as motion
    # --- trust
    min_confidence: float = 0.6      # a location read below this is not trusted
    # --- settling (cont.)
    settle_thumb_width: int = 64     # width in pixels of the grey thumbnail motion is measured on
    motion_tile: int = 8             # side (thumbnail pixels) of the squares motion is averaged over;
                                     # the busiest square counts (>= settle_thumb_width: the whole board)
    # --- occlusion: something lying across the frame
    frame_height: float = 15.0       # mm the frame's top stands above the playing surface
    frame_band_outer: float = 18.0   # mm: the frame is at least this wide
    frame_corner_skip: float = 50.0  # mm left out at each corner (the markers' place)
    frame_run_mm: float = 30.0       # a foreign stretch this long (mm) is something across the frame
    # --- markers
    marker_max_error: float = 4.0    # pixels: markers that disagree by more than this do not locate the board
    # --- each stage's own method numbers ([vision.reader], [vision.dice], [vision.occlusion], [vision.refine],
    #     [vision.layout])
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    dice: DiceConfig = field(default_factory=DiceConfig)
    occlusion: OcclusionConfig = field(default_factory=OcclusionConfig)
    refine: RefineConfig = field(default_factory=RefineConfig)
    layout: LayoutConfig = field(default_factory=LayoutConfig)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if is_dataclass(value):
                continue                   # a stage's record, checked when it was made
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise VisionConfigError(f"vision.{f.name} must be a number, not {value!r}")
            if value <= 0:
                raise VisionConfigError(f"vision.{f.name} must be positive, not {value!r}")
        if 2 * self.half_width + self.bar_width > self.surface_width + 1e-6:
            raise VisionConfigError("vision: two halves and the bar are wider than the surface")
        if 6 * self.point_width > self.half_width + 1e-6:
            raise VisionConfigError("vision: six points are wider than a half")

    @classmethod
    def default(cls) -> "VisionConfig":
        """The defaults, made and checked once (the record is frozen, so one
        copy serves every read that is given none)."""
        return _default_config()

    def with_values(self, values: Mapping[str, Any]) -> "VisionConfig":
        """A copy with some values replaced; a stage's values come as a
        mapping of their own (``{"dice": {"min_score": 0.9}}``, the TOML
        table ``[vision.dice]``).  Unknown keys are errors."""
        return _with_values(self, values, "vision")

    @classmethod
    def from_toml(cls, path: str | Path) -> "VisionConfig":
        """Read the ``[vision]`` table of a TOML file (absent: the defaults)."""
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except OSError as exc:
            raise VisionConfigError(f"cannot read {path}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise VisionConfigError(f"{path} is not valid TOML: {exc}") from None
        table = data.get("vision", {})
        if not isinstance(table, dict):
            raise VisionConfigError(f"{path}: [vision] must be a table")
        return cls().with_values(table)


@lru_cache(maxsize=1)
def _default_config() -> VisionConfig:
    return VisionConfig()
