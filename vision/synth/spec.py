"""What a scene must show: :class:`SceneSpec`, every field left open being
drawn at random by the planner, and :class:`SynthError` for a scene that
cannot be drawn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from willughby.engine.position import Position

from .looks import LOOK_RANGES
from .randomized import RANDOMIZED
from .styles import BOARD_RANGES, STYLE_FIELDS, STYLE_SETS, STYLES

MEN_PER_SIDE = 15
POSITION_KINDS = ("random", "backgammon_start", "doublets_start", "doublets_played")
_IMAGE_KEYS = ("corners", "image_size", "occluded", "dice", "position_kind", "style")


class SynthError(ValueError):
    """A scene that cannot be drawn (names the bad value)."""


# ------------------------------------------------------------------- spec
@dataclass(frozen=True)
class SceneSpec:
    """What a scene must show; every field left as None is drawn at random.

    *position* is a :class:`~willughby.engine.position.Position` or a board
    document (extra image keys of a label are ignored); *position_kind*
    chooses the kind of random position when *position* is None.  Angles are
    in degrees: *tilt_deg* from straight down, *board_yaw_deg* the board's
    whole turn in the picture (0 or 180, give or take 15, is the usual
    landscape view; 90 and 270 turn it upright).  *mirror* swaps the
    direction of play (light's home table on the left).  *fill* is the
    share of the frame's width or height (whichever is fuller) that the
    board's outer frame takes.  *camera_effects* False skips blur, noise
    and JPEG (for exact tests).

    The style fields (*wood*, *men*, *points*, *field*, *table*, *lighting*,
    *lens*) take any name of ``STYLES``; one left open is drawn from the
    *style_set* (``STYLE_SETS``): the training styles when it is None, or
    the held-out ones of "held-out-fit" or "held-out-test"; or, with
    "randomized", every scene draws its own palettes, light and lens from
    wide continuous ranges (``randomized``), for training a network that
    does not learn the named palettes.  A field named outright is drawn as
    named whatever the set.

    >>> SceneSpec(style_set="held-out-test", wood="walnut").wood
    'walnut'
    """

    position: Position | Mapping[str, Any] | None = None
    position_kind: str | None = None
    image_size: tuple[int, int] | None = None
    tilt_deg: float | None = None
    board_yaw_deg: float | None = None
    cam_az_deg: float | None = None
    cam_roll_deg: float | None = None
    mirror: bool | None = None
    focal_mm: float | None = None
    fill: float | None = None
    row_max: int | None = None
    men_thick_mm: float | None = None
    n_dice: int | None = None
    dice_values: tuple[int, ...] | None = None
    occluded: bool | None = None
    occluded_share: float = 0.15
    wood: str | None = None
    men: str | None = None
    points: str | None = None
    field: str | None = None
    table: str | None = None
    lighting: str | None = None
    camera_effects: bool = True
    # spread the palettes' colours (0: as listed; 0.1: about 10% per colour),
    # so a network trained on these frames does not learn the exact palettes
    palette_jitter: float = 0.0
    # men stand up to this many mm off the board's edge (0: touching it, give
    # or take a millimetre), and the men of a row up to a tenth of it apart:
    # players do not push every man home, and a renderer may not either
    edge_gap: float = 0.0
    # vary how the men are finished, frame by frame: a turned groove on
    # either colour's tops or none, side walls from shaded to as bright as
    # the tops, and piles from neatly squared to a little askew.  The dev
    # set's renderer squares its piles and lights their sides more than
    # this one did, and a network trained on one finish reads another's
    # piles worse (docs/point-reader.md)
    varied_men: bool = False
    # bring the two colours of men nearer each other: the light men up to
    # this share darker and the dark men up to twice it lighter (0.3: light
    # men at 70%, dark at 160%), never closer than about 35 in luminance.
    # The dev set's renderer lights its black men grey and its white men
    # dimmer than this one's palettes (docs/point-reader.md)
    men_contrast: float = 0.0
    # the camera's lens and sensor (``LENSES``, ``HELD_OUT["lens"]``): the
    # ranges of its blur, noise, vignetting and JPEG quality
    lens: str | None = None
    # where the open style fields are drawn from (``STYLE_SETS``): None is
    # the training styles, as "training" is (the label then says which)
    style_set: str | None = None
    # draw how real boards and photographs differ from the plain painted
    # board (``looks.LOOK_RANGES``: the rails' shade, grained and felt and
    # mosaic surfaces, men's rims, materials and shadows, varnish, low
    # cameras over thick men, squashed frames and harsh JPEG, dark
    # exposures, stock photographs' text), each at random
    real_look: bool = False
    # looks named outright ((name, value) pairs, or a mapping), whatever
    # *real_look*; without it only the named looks are drawn
    look: tuple[tuple[str, float], ...] | Mapping[str, float] = ()
    # vary the board's proportions (``styles.BOARD_RANGES``): the surface's
    # aspect, the bar's kind and width, the points' width and length, the
    # men's size; the label then carries the board's ``geometry`` (the
    # reader's ``VisionConfig`` fields).  A field below named outright wins
    # (and one named varies the board even without *varied_board*).
    varied_board: bool = False
    surface_aspect: float | None = None      # depth / width (standard 0.85)
    bar_width_mm: float | None = None        # of a board 530 mm wide (standard 50)
    point_width_mm: float | None = None      # (standard 40)
    bar_kind: str | None = None              # "raised", "hinge" (a folding box's two rails), "flush"

    def __post_init__(self) -> None:
        look = self.look.items() if isinstance(self.look, Mapping) else self.look
        try:
            look = tuple((str(k), float(v)) for k, v in look)
        except (TypeError, ValueError):
            raise SynthError(f"look must be (name, value) pairs, not {self.look!r}") from None
        object.__setattr__(self, "look", look)
        for name, value in look:
            if name not in LOOK_RANGES:
                raise SynthError(f"unknown look {name!r} (known: {', '.join(LOOK_RANGES)})")
            if value < 0:
                raise SynthError(f"look {name} must be 0 or more, not {value!r}")
        lo, hi = BOARD_RANGES["surface_aspect"]
        if self.surface_aspect is not None and not lo <= self.surface_aspect <= hi:
            raise SynthError(f"surface_aspect must be {lo}..{hi}, not {self.surface_aspect!r}")
        if self.bar_kind is not None and self.bar_kind not in BOARD_RANGES["bar_kinds"]:
            raise SynthError(f"bar_kind must be one of {', '.join(BOARD_RANGES['bar_kinds'])}, "
                             f"not {self.bar_kind!r}")
        if self.bar_width_mm is not None and not 2 <= self.bar_width_mm <= 90:
            raise SynthError(f"bar_width_mm must be 2..90, not {self.bar_width_mm!r}")
        if self.point_width_mm is not None and not 25 <= self.point_width_mm <= 44:
            raise SynthError(f"point_width_mm must be 25..44, not {self.point_width_mm!r}")
        for key in STYLE_FIELDS:
            value, table = getattr(self, key), STYLES[key]
            if value is not None and value not in table:
                raise SynthError(f"unknown {key} style {value!r} (known: {', '.join(table)})")
        if self.style_set is not None and self.style_set not in (*STYLE_SETS, RANDOMIZED):
            raise SynthError(f"style_set must be one of {', '.join((*STYLE_SETS, RANDOMIZED))}, "
                             f"not {self.style_set!r}")
        if self.position_kind is not None and self.position_kind not in POSITION_KINDS:
            raise SynthError(f"position_kind must be one of {', '.join(POSITION_KINDS)}, "
                             f"not {self.position_kind!r}")
        if self.image_size is not None:
            w, h = self.image_size
            if not (64 <= int(w) <= 8192 and 64 <= int(h) <= 8192):
                raise SynthError(f"image_size must be two sizes of 64..8192 pixels, not {self.image_size!r}")
        if self.tilt_deg is not None and not 0 <= self.tilt_deg <= 45:
            raise SynthError(f"tilt_deg must be 0..45, not {self.tilt_deg!r}")
        if self.fill is not None and not 0.2 <= self.fill <= 1.0:
            raise SynthError(f"fill must be 0.2..1.0, not {self.fill!r}")
        if self.focal_mm is not None and not 10 <= self.focal_mm <= 200:
            raise SynthError(f"focal_mm must be 10..200, not {self.focal_mm!r}")
        if self.row_max is not None and not 3 <= self.row_max <= 6:
            raise SynthError(f"row_max must be 3..6, not {self.row_max!r}")
        if self.men_thick_mm is not None and not 4 <= self.men_thick_mm <= 20:
            raise SynthError(f"men_thick_mm must be 4..20, not {self.men_thick_mm!r}")
        if self.n_dice is not None and not 0 <= self.n_dice <= 2:
            raise SynthError(f"n_dice must be 0..2, not {self.n_dice!r}")
        if self.dice_values is not None and (
                len(self.dice_values) > 2 or any(v not in range(1, 7) for v in self.dice_values)):
            raise SynthError(f"dice_values must be up to two values 1..6, not {self.dice_values!r}")
        if not 0 <= self.occluded_share <= 1:
            raise SynthError(f"occluded_share must be 0..1, not {self.occluded_share!r}")
        if not 0 <= self.palette_jitter <= 0.3:
            raise SynthError(f"palette_jitter must be 0..0.3, not {self.palette_jitter!r}")
        if not 0 <= self.men_contrast <= 0.4:
            raise SynthError(f"men_contrast must be 0..0.4, not {self.men_contrast!r}")
        if not 0 <= self.edge_gap <= 8:
            raise SynthError(f"edge_gap must be 0..8 mm, not {self.edge_gap!r}")
