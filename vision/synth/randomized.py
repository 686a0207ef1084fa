"""The randomised style set (``SceneSpec(style_set="randomized")``): every
scene draws its own board, field, points, men, table, light and lens from
wide continuous ranges instead of naming an entry of the style tables, so a
network trained on such frames learns what a point's men look like on any
board, not on a few palettes (domain randomisation).

The ranges are generic: colours uniform in CIE L*C*h (lightness, chroma,
hue; chroma leaning to the soft end) within bounds that say what kind of thing is painted (a wood is mostly
brown and never very colourful, men are one light and one dark colour),
light as a colour temperature, a green-magenta tint and an exposure, the
lens as plain ranges of blur, noise, vignetting and JPEG quality.  They
were chosen wide enough to hold every named style, training and held-out
alike (``tests/vision/test_synth_styles.py`` checks that), and no range is
built from or centred on a held-out entry: nothing here reads ``HELD_OUT``.

Every draw comes from the scene's generator, in a fixed order, so a seed
gives the same scene; the named style sets draw nothing here.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

RANDOMIZED = "randomized"
#: the name a randomised field carries in the plan and the label
RANDOM_NAME = "random"

# -------------------------------------------------------------- the ranges
# Lightness L* (0 black .. 100 white), chroma C* (0 grey .. ~70 vivid), hue h
# in degrees (about 30..90 are the reds, oranges and yellows of wood).
WOOD_HUE = (30.0, 90.0)
RANGES: dict[str, Any] = {
    # wood: the grain's light colour, the dark one some way below it;
    # leather (a quarter of boards) has less between them
    "wood": {"L": (24.0, 94.0), "C": (0.0, 42.0), "warm_share": 0.75, "dark_drop": (6.0, 36.0),
             "leather_share": 0.25},
    # the field: felt, leather or the board's own wood; any colour
    "field": {"L": (10.0, 94.0), "C": (0.0, 60.0), "kinds": ("felt", "leather", "wood"),
              "kind_p": (0.4, 0.3, 0.3)},
    # the points: two colours of any kind, at least 25 apart (CIE76)
    "points": {"L": (8.0, 96.0), "C": (0.0, 72.0), "min_delta_e": 25.0},
    # the men: a light colour and a dark one, the gap in lightness sometimes
    # small and sometimes large, hues anywhere; a third are wooden-looking
    # (warm hues, like boxwood and rosewood); half have a turned groove
    "men": {"light_L": (58.0, 97.0), "light_C": (0.0, 62.0), "gap": (16.0, 88.0), "small_gap_share": 0.35,
            "small_gap": (16.0, 36.0), "dark_C": (0.0, 64.0), "min_dark_L": 4.0, "wooden_share": 0.3,
            "min_luma_gap": 30.0, "grooved_share": 0.5},
    # the table: wood (planks) or cloth; any colour, dark to light
    "table": {"L": (8.0, 92.0), "C": (0.0, 50.0), "wood_share": 0.5, "dark_drop": (6.0, 26.0)},
    # the light: its fall-off, a colour temperature (warmth -1 cold blue
    # daylight .. +1 a dim incandescent lamp) and a green-magenta tint, an
    # exposure shift in stops, the lamp's elevation and the ambient share,
    # and (sometimes) a hot spot of reflected lamp light
    "lighting": {"falloffs": ("gradient", "spot", "spot_wide"), "warmth": (-1.0, 1.0), "red_per_warmth": 0.19,
                 "blue_per_warmth": -0.32, "tint": (-0.06, 0.1), "exposure": (-0.8, 0.4),
                 "elev_deg": (12.0, 72.0), "ambient": (0.1, 0.72), "glare_share": 0.3, "glare": (0.3, 0.85)},
    # the lens and sensor: the camera effects' ranges themselves
    "lens": {"vignette": (0.0, 0.85), "blur": (0.2, 1.7), "noise": (1.0, 9.0), "jpeg_q": (40, 97)},
}

# ------------------------------------------------------------- colour maths
_XYZ_TO_RGB = np.array([[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]])
_RGB_TO_XYZ = np.linalg.inv(_XYZ_TO_RGB)
_WHITE = np.array([0.95047, 1.0, 1.08883])


def _lab_to_linear(L: float, a: float, b: float) -> np.ndarray:
    fy = (L + 16) / 116
    f = np.array([fy + a / 500, fy, fy - b / 200])
    d = 6 / 29
    t = np.where(f > d, f ** 3, 3 * d * d * (f - 4 / 29))
    linear: np.ndarray = _XYZ_TO_RGB @ (t * _WHITE)
    return linear


def _gamma(c: np.ndarray) -> np.ndarray:
    c = np.clip(c, 0, 1)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


def lch_to_rgb(L: float, C: float, h: float) -> tuple[int, int, int]:
    """sRGB (0..255) of CIE L*C*h; a colour outside sRGB loses chroma (not
    lightness or hue) until it fits."""
    for _ in range(40):
        lin = _lab_to_linear(L, C * math.cos(math.radians(h)), C * math.sin(math.radians(h)))
        if lin.min() >= -1e-4 and lin.max() <= 1 + 1e-4:
            break
        C *= 0.85
    rgb = _gamma(lin) * 255
    r, g, b = (int(round(float(v))) for v in np.clip(rgb, 0, 255))
    return r, g, b


def rgb_to_lab(rgb: Sequence[float]) -> np.ndarray:
    """CIE L*a*b* of an sRGB colour (0..255)."""
    c = np.asarray(rgb, float) / 255
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    t = (_RGB_TO_XYZ @ lin) / _WHITE
    d = 6 / 29
    f = np.where(t > d ** 3, np.cbrt(t), t / (3 * d * d) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _luma(rgb: Sequence[float]) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def _u(rng: np.random.Generator, lo_hi: Sequence[float]) -> float:
    return float(rng.uniform(lo_hi[0], lo_hi[1]))


def _chroma(rng: np.random.Generator, lo_hi: Sequence[float]) -> float:
    """A chroma in the range, greys and soft colours more often than vivid ones."""
    return float(lo_hi[0] + (lo_hi[1] - lo_hi[0]) * rng.random() ** 1.5)


def _hue(rng: np.random.Generator, warm: bool) -> float:
    return _u(rng, WOOD_HUE) if warm else float(rng.uniform(0, 360))


# ------------------------------------------------------------------ draws
def random_wood(rng: np.random.Generator) -> dict[str, Any]:
    r = RANGES["wood"]
    kind = "leather" if rng.random() < r["leather_share"] else "grain"
    h = _hue(rng, rng.random() < r["warm_share"])
    L, C = _u(rng, r["L"]), _chroma(rng, r["C"])
    drop = _u(rng, r["dark_drop"]) * (0.6 if kind == "leather" else 1.0)
    dark = lch_to_rgb(max(3.0, L - drop), C * float(rng.uniform(0.8, 1.2)), h + float(rng.uniform(-8, 8)))
    return {"light": lch_to_rgb(L, C, h), "dark": dark, "kind": kind}


def random_field(rng: np.random.Generator) -> dict[str, Any]:
    r = RANGES["field"]
    kind = r["kinds"][int(rng.choice(len(r["kinds"]), p=r["kind_p"]))]
    colour = lch_to_rgb(_u(rng, r["L"]), _chroma(rng, r["C"]), float(rng.uniform(0, 360)))
    return {"colour": None if kind == "wood" else colour, "kind": kind}


def random_points(rng: np.random.Generator) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    r = RANGES["points"]
    for _ in range(30):
        a = lch_to_rgb(_u(rng, r["L"]), _chroma(rng, r["C"]), float(rng.uniform(0, 360)))
        b = lch_to_rgb(_u(rng, r["L"]), _chroma(rng, r["C"]), float(rng.uniform(0, 360)))
        if np.linalg.norm(rgb_to_lab(a) - rgb_to_lab(b)) >= r["min_delta_e"]:
            break
    return a, b


def random_men(rng: np.random.Generator) -> tuple[tuple[int, int, int], tuple[int, int, int], bool]:
    r = RANGES["men"]
    wooden = rng.random() < r["wooden_share"]
    for _ in range(30):
        lL, lC, lh = _u(rng, r["light_L"]), _chroma(rng, r["light_C"]), _hue(rng, wooden)
        gap = _u(rng, r["small_gap"] if rng.random() < r["small_gap_share"] else r["gap"])
        dL, dC, dh = max(r["min_dark_L"], lL - gap), _chroma(rng, r["dark_C"]), _hue(rng, wooden)
        light, dark = lch_to_rgb(lL, lC, lh), lch_to_rgb(dL, dC, dh)
        if _luma(light) - _luma(dark) >= r["min_luma_gap"]:
            break
    grooved = bool(rng.random() < r["grooved_share"])
    return light, dark, grooved


def random_table(rng: np.random.Generator) -> dict[str, Any]:
    r = RANGES["table"]
    wood = rng.random() < r["wood_share"]
    h = _hue(rng, wood and rng.random() < 0.7)
    L, C = _u(rng, r["L"]), _chroma(rng, r["C"])
    if not wood:
        return {"light": lch_to_rgb(L, C, h), "kind": "cloth"}
    return {"light": lch_to_rgb(L, C, h), "dark": lch_to_rgb(max(3.0, L - _u(rng, r["dark_drop"])), C, h),
            "kind": "wood"}


def random_lighting(rng: np.random.Generator) -> dict[str, Any]:
    """A lighting entry as the held-out ones are written: the cast and
    fall-off, an exposure shift, the elevation and ambient ranges the
    planner draws from, and sometimes a glare's strength range."""
    r = RANGES["lighting"]
    falloff = r["falloffs"][int(rng.integers(0, len(r["falloffs"])))]
    warmth, tint = _u(rng, r["warmth"]), _u(rng, r["tint"])
    jitter = rng.uniform(-0.02, 0.02, 3)
    cast = (math.exp(r["red_per_warmth"] * warmth + jitter[0]), math.exp(tint + jitter[1]),
            math.exp(r["blue_per_warmth"] * warmth + jitter[2]))
    out: dict[str, Any] = {"cast": tuple(round(c, 3) for c in cast), "falloff": falloff,
                           "exposure": round(_u(rng, r["exposure"]), 2),
                           "elev_deg": r["elev_deg"], "ambient": r["ambient"]}
    if rng.random() < r["glare_share"]:
        out["glare"] = r["glare"]
    return out


def random_lens(rng: np.random.Generator) -> dict[str, Any]:
    """The lens's ranges: the camera effects are drawn from them as from a
    named lens's (nothing is drawn here)."""
    return dict(RANGES["lens"])


DRAWS = {"wood": random_wood, "men": random_men, "points": random_points, "field": random_field,
         "table": random_table, "lighting": random_lighting, "lens": random_lens}


def random_styles(rng: np.random.Generator, fields: Sequence[str]) -> dict[str, Any]:
    """One randomised entry for every style field of *fields* (in their
    order; every field is drawn, so a field named outright by the scene
    leaves the others' draws as they were)."""
    return {f: DRAWS[f](rng) for f in fields}
