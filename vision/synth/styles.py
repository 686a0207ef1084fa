"""The painter's style tables: woods and leathers of the board, its field,
the colours of its points, the men's colours, the table under the board and
the room's light, each a named entry.

Colours are sRGB (r, g, b) as the lit surface should come out in the
picture.  Which names a scene may draw when its spec leaves a style open is
the business of ``STYLE_SETS`` (the training set is exactly these tables).
"""

from __future__ import annotations

from typing import Any


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

_STYLE_TABLES = {
    "wood": WOODS, "men": MEN_COLOURS, "points": POINT_COLOURS, "field": FIELDS,
    "table": TABLES, "lighting": LIGHTINGS,
}
