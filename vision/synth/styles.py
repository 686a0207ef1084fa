"""The painter's style tables: woods and leathers of the board, its field,
the colours of its points, the men's colours, the table under the board,
the room's light and the camera's lens, each a named entry.

The tables ``WOODS``, ``FIELDS``, ``POINT_COLOURS``, ``MEN_COLOURS``,
``TABLES``, ``LIGHTINGS`` and ``LENSES`` are the *training* styles: the
shipped point reader learnt from frames drawn with them, and a scene that
leaves a style open draws from them (with the weights of
``STYLE_SETS["training"]``).  ``HELD_OUT`` holds boards, men, light and
lenses the reader never saw; they are drawn only when a scene names them
or names a held-out style set (``SceneSpec.style_set``):

>>> sorted(STYLE_SETS)
['held-out-fit', 'held-out-test', 'training']
>>> STYLE_SETS["held-out-test"]["men"]
('cream_tan', 'olive_ebony', 'amber_navy')
>>> "ebony" in WOODS, "ebony" in STYLES["wood"]
(False, True)
"""

from __future__ import annotations

from typing import Any, Mapping, TypedDict


# --------------------------------------------------------------- palettes
# Colours are sRGB (r, g, b) as the lit surface should come out in the
# picture; they were matched by eye and by sampling to the dev images.

WOODS: dict[str, dict[str, Any]] = {
    "walnut": {"light": (168, 130, 96), "dark": (112, 80, 56), "kind": "grain"},
    "cherry": {"light": (200, 150, 104), "dark": (152, 102, 66), "kind": "grain"},
    "light_oak": {"light": (210, 192, 158), "dark": (170, 144, 108), "kind": "grain"},
    "maple": {"light": (224, 204, 168), "dark": (198, 172, 132), "kind": "grain"},
    "mahogany": {"light": (140, 78, 54), "dark": (96, 50, 34), "kind": "grain"},
    "tan_leather": {"light": (190, 162, 128), "dark": (164, 136, 104), "kind": "leather"},
}
FIELDS: dict[str, dict[str, Any]] = {
    "felt_beige": {"colour": (194, 180, 154), "kind": "felt"},
    "leather_tan": {"colour": (198, 168, 128), "kind": "leather"},
    "leather_cream": {"colour": (214, 200, 180), "kind": "leather"},
    "felt_burgundy": {"colour": (152, 60, 82), "kind": "felt"},
    "felt_green": {"colour": (60, 114, 66), "kind": "felt"},
    "felt_blue": {"colour": (60, 80, 120), "kind": "felt"},
    "same_wood": {"colour": None, "kind": "wood"},
}
POINT_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "red_black": ((170, 62, 54), (52, 50, 52)),
    "blue_white": ((94, 134, 194), (218, 218, 218)),
    "cream_green": ((218, 208, 188), (78, 144, 98)),
    "ivory_ebony": ((224, 218, 206), (72, 68, 70)),
    "red_cream": ((174, 50, 48), (226, 216, 192)),
    "brown_sand": ((114, 74, 50), (212, 188, 148)),
}
# (light, dark, grooved top)
MEN_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], bool]] = {
    "ivory_brown": ((226, 219, 204), (120, 80, 54), True),
    "white_black": ((230, 230, 230), (70, 70, 72), False),
    "wood_stained": ((206, 184, 148), (90, 62, 44), True),
    "white_red": ((230, 226, 218), (154, 44, 42), False),
    "ivory_black": ((228, 218, 194), (44, 42, 42), True),
    "natural_walnut": ((214, 182, 136), (98, 64, 42), True),
}
TABLES: dict[str, dict[str, Any]] = {
    "dark_table": {"light": (98, 78, 64), "dark": (64, 49, 38), "kind": "wood"},
    "light_table": {"light": (178, 168, 152), "dark": (148, 138, 124), "kind": "wood"},
    "white_cloth": {"light": (198, 198, 196), "kind": "cloth"},
    "grey_cloth": {"light": (110, 111, 116), "kind": "cloth"},
    "blue_cloth": {"light": (84, 104, 140), "kind": "cloth"},
    "green_cloth": {"light": (64, 100, 74), "kind": "cloth"},
}
# colour cast (r, g, b gains), light fall-off kind
LIGHTINGS: dict[str, dict[str, Any]] = {
    "daylight_window": {"cast": (0.97, 1.0, 1.04), "falloff": "gradient"},
    "warm_lamp": {"cast": (1.08, 1.0, 0.86), "falloff": "spot"},
    "overhead": {"cast": (1.0, 1.0, 1.0), "falloff": "spot_wide"},
}
_SKINS = ((232, 200, 182), (210, 164, 134), (176, 126, 94), (118, 82, 62))
_DICE_BODY = {"white": (236, 236, 233), "ivory": (232, 224, 204)}

_STYLE_TABLES: dict[str, Mapping[str, Any]] = {
    "wood": WOODS, "men": MEN_COLOURS, "points": POINT_COLOURS, "field": FIELDS,
    "table": TABLES, "lighting": LIGHTINGS,
}

# The camera's lens and sensor: the ranges the camera effects are drawn from
# (vignetting, Gaussian blur sigma in px, noise sd in grey levels, JPEG
# quality, the upper end exclusive).  Every training frame had this one.
LENSES: dict[str, dict[str, tuple[float, float]]] = {
    "pi_camera": {"vignette": (0.1, 0.45), "blur": (0.25, 0.9), "noise": (1.2, 3.4), "jpeg_q": (75, 96)},
}

# ------------------------------------------------------- held-out styles
# Boards, men, light and lenses the shipped reader never learnt from, for
# measuring it on what it has not seen (docs/vision-painter.md).  Each
# belongs to one held-out set: "fit" (for calibrating the reader's
# confidence) or "test" (for measuring it), never both.  Lightings may add,
# to a training lighting's cast and fall-off: the light's elevation range
# (degrees; training 30..65), the ambient share's range (training
# 0.35..0.55), an exposure shift in stops, a gain on the sensor noise, and
# a glare: a hot spot of reflected lamp light, (lowest, highest) strength.
HELD_OUT: dict[str, dict[str, Any]] = {
    "wood": {
        # fit
        "ebony": {"light": (88, 74, 66), "dark": (38, 32, 30), "kind": "grain"},
        "oxblood_leather": {"light": (126, 54, 48), "dark": (98, 40, 36), "kind": "leather"},
        "bleached_ash": {"light": (232, 226, 212), "dark": (196, 186, 166), "kind": "grain"},
        # test
        "olive_wood": {"light": (204, 184, 138), "dark": (118, 96, 60), "kind": "grain"},
        "greywashed_oak": {"light": (184, 178, 166), "dark": (128, 122, 112), "kind": "grain"},
        "black_leather": {"light": (74, 72, 72), "dark": (50, 48, 48), "kind": "leather"},
    },
    "field": {
        # fit
        "felt_navy": {"colour": (40, 50, 86), "kind": "felt"},
        "leather_oxblood": {"colour": (118, 46, 42), "kind": "leather"},
        "felt_grey": {"colour": (132, 132, 128), "kind": "felt"},
        # test
        "felt_black": {"colour": (44, 44, 46), "kind": "felt"},
        "leather_olive": {"colour": (116, 112, 70), "kind": "leather"},
        "felt_ivory": {"colour": (226, 218, 196), "kind": "felt"},
    },
    "points": {
        # fit
        "navy_gold": ((40, 54, 98), (196, 158, 72)),
        "grey_burgundy": ((118, 118, 120), (112, 36, 48)),
        "olive_rust": ((104, 108, 58), (166, 82, 44)),
        # test
        "black_white": ((34, 34, 36), (236, 236, 230)),
        "green_ivory": ((30, 84, 54), (234, 224, 198)),
        "purple_silver": ((82, 54, 98), (188, 188, 194)),
    },
    "men": {
        # fit: near greys, wooden men (boxwood and rosewood), white and green
        "pearl_grey": ((232, 232, 234), (146, 146, 152), False),
        "boxwood_rosewood": ((222, 196, 148), (118, 62, 46), True),
        "white_green": ((232, 230, 222), (40, 96, 62), False),
        # test: cream and tan (both light-ish), olive wood and ebony, amber and navy
        "cream_tan": ((236, 224, 196), (192, 152, 106), False),
        "olive_ebony": ((200, 180, 128), (46, 38, 34), True),
        "amber_navy": ((214, 162, 74), (40, 50, 92), False),
    },
    "table": {
        # fit
        "red_cloth": {"light": (128, 62, 58), "kind": "cloth"},
        "black_table": {"light": (54, 48, 46), "dark": (30, 27, 26), "kind": "wood"},
        # test
        "pine_table": {"light": (214, 184, 136), "dark": (184, 150, 102), "kind": "wood"},
        "ochre_cloth": {"light": (158, 132, 80), "kind": "cloth"},
    },
    "lighting": {
        # fit: a dim warm room in the evening, a low sun with long side
        # shadows, a kitchen's greenish tube
        "evening_lamp": {"cast": (1.16, 0.97, 0.72), "falloff": "spot", "exposure": -0.6,
                         "ambient": (0.25, 0.35), "noise_gain": 1.4},
        "low_side_sun": {"cast": (1.06, 1.0, 0.9), "falloff": "gradient", "elev_deg": (14, 22),
                         "ambient": (0.15, 0.25)},
        "fluorescent_tube": {"cast": (0.95, 1.05, 0.97), "falloff": "spot_wide", "exposure": 0.15,
                             "ambient": (0.55, 0.7)},
        # test: cold daylight from a north window, a bright lamp overhead
        # with its hot spot on the board, a low lamp with strong shadows
        "cold_daylight": {"cast": (0.9, 0.98, 1.12), "falloff": "gradient", "ambient": (0.5, 0.65)},
        "overhead_glare": {"cast": (1.0, 1.0, 1.02), "falloff": "spot_wide", "glare": (0.45, 0.75)},
        "side_lamp_shadows": {"cast": (1.1, 1.0, 0.84), "falloff": "spot", "elev_deg": (16, 26),
                              "ambient": (0.12, 0.2), "exposure": -0.2},
    },
    "lens": {
        # fit: a soft focus, an old webcam (grainy, low JPEG quality, dark corners)
        "soft_focus": {"vignette": (0.1, 0.45), "blur": (1.0, 1.5), "noise": (1.2, 3.4), "jpeg_q": (75, 96)},
        "old_webcam": {"vignette": (0.35, 0.6), "blur": (0.6, 1.1), "noise": (4.5, 7.0), "jpeg_q": (45, 66)},
        # test: a grainy phone sensor, a wide lens's dark corners and blur
        "grainy_phone": {"vignette": (0.1, 0.3), "blur": (0.2, 0.6), "noise": (5.0, 8.0), "jpeg_q": (55, 76)},
        "dark_corners": {"vignette": (0.55, 0.8), "blur": (0.9, 1.4), "noise": (2.0, 4.0), "jpeg_q": (70, 90)},
    },
}

# The board's proportions (``SceneSpec.varied_board`` and its fields), in
# the millimetres of a board 530 mm wide (only the proportions matter: the
# camera is fitted to the board).  The standard board of the reader's
# defaults is 450 mm deep (aspect 0.85), with a 50 mm raised bar and points
# of 40 mm; real boards run from nearly square felt cases with no bar at all
# (a printed line) to narrow travel boards, with points from a sixth of a
# half to a little less (a margin by the bar), and men from nearly the
# point's width to a sixth less.
BOARD_RANGES: dict[str, Any] = {
    "surface_width": 530.0,
    "surface_aspect": (0.7, 1.05),          # depth / width
    "bar_kinds": ("raised", "hinge", "flush"),
    "bar_kind_p": (0.4, 0.35, 0.25),
    # bar width (mm) by kind: a raised bar, the two inner rails of a folding
    # box with the seam between them, a line or strip printed flush
    "bar_width_mm": {"raised": (30.0, 80.0), "hinge": (18.0, 60.0), "flush": (2.0, 30.0)},
    "point_share": (0.9, 1.0),              # six points' share of a half's width
    "point_length_share": (0.34, 0.46),     # a point's length, share of the depth
    "man_share": (0.84, 0.98),              # a man's diameter, share of a point's width
}
class _StandardBoard(TypedDict):
    surface_aspect: float
    bar_width_mm: float
    point_width_mm: float
    bar_kind: str


STANDARD_BOARD: _StandardBoard = {"surface_aspect": 450.0 / 530.0, "bar_width_mm": 50.0, "point_width_mm": 40.0,
                  "bar_kind": "raised"}


STYLE_FIELDS = ("wood", "men", "points", "field", "table", "lighting", "lens")

# every named entry, training and held-out, by field: what a scene may name
STYLES: dict[str, dict[str, Any]] = {
    field: {**(LENSES if field == "lens" else _STYLE_TABLES[field]), **HELD_OUT[field]} for field in STYLE_FIELDS
}

# The weights a scene's open style is drawn with, as the painter has always
# drawn them (the order and weights of these lists fix every seed's frame).
_TRAINING_WEIGHTS: dict[str, tuple[float, ...]] = {
    "wood": (3, 2, 2, 1, 1, 3),
    "men": (3, 4, 3, 1, 1, 1),
    "points": (2, 3, 2, 2, 1, 1),
    "field": (2, 2, 1, 2, 1, 1, 4),
    "table": (3, 2, 2, 2, 2, 1),
    "lighting": (5, 3, 2),
    "lens": (1,),
}
_FIT = {
    "wood": ("ebony", "oxblood_leather", "bleached_ash"),
    "men": ("pearl_grey", "boxwood_rosewood", "white_green"),
    "points": ("navy_gold", "grey_burgundy", "olive_rust"),
    "field": ("felt_navy", "leather_oxblood", "felt_grey"),
    "table": ("red_cloth", "black_table"),
    "lighting": ("evening_lamp", "low_side_sun", "fluorescent_tube"),
    "lens": ("soft_focus", "old_webcam"),
}

# The names a scene draws from, per style field, when it leaves the field
# open: "training" is what the shipped reader learnt from (the default);
# "held-out-fit" and "held-out-test" are two disjoint groups of the held-out
# entries, for calibrating the reader's confidence and for measuring it.
STYLE_SETS: dict[str, dict[str, tuple[str, ...]]] = {
    "training": {f: tuple(LENSES if f == "lens" else _STYLE_TABLES[f]) for f in STYLE_FIELDS},
    "held-out-fit": _FIT,
    "held-out-test": {f: tuple(n for n in HELD_OUT[f] if n not in _FIT[f]) for f in STYLE_FIELDS},
}


def style_choices(style_set: str | None, field: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The names a scene draws an open *field* from, and their weights: the
    training styles with the painter's weights when *style_set* is None or
    "training", else the set's names, equally likely.

    >>> style_choices(None, "lighting")
    (('daylight_window', 'warm_lamp', 'overhead'), (5, 3, 2))
    >>> style_choices("held-out-fit", "table")
    (('red_cloth', 'black_table'), (1, 1))
    """
    names = STYLE_SETS[style_set or "training"][field]
    if style_set in (None, "training"):
        return names, _TRAINING_WEIGHTS[field]
    return names, (1,) * len(names)


assert all(len(STYLE_SETS["training"][f]) == len(_TRAINING_WEIGHTS[f]) for f in STYLE_FIELDS)
