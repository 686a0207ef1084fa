"""How real boards and real photographs differ from the plainly painted
board (``SceneSpec.real_look``), and the board's own proportions
(``SceneSpec.varied_board``): each a randomised parameter with a range,
drawn from the scene's generator only when asked, so every other frame is
drawn as before.

The looks were chosen by setting photographs of real boards beside painted
frames of the same positions and listing what the painter did not draw
(docs/vision-painter.md): the rails' inner walls shading the surface near
them, points inlaid in grained veneer, felt with printed points, mosaic
bands and panels, a thin line round each point, men with raised rims and
hollow tops, of wood, stone or glossy plastic, their darker shadows, a
window's reflection on varnish, tall columns of thick men seen from a low
camera, the board filling the frame, harsh JPEG and frames squashed to a
square, very dark exposures, a stock photograph's faint text.

>>> look = draw_look(np.random.default_rng(1), real=True)
>>> sorted(look.values) == sorted(LOOK_RANGES)
True
>>> draw_look(np.random.default_rng(1), real=False, named={"dark": 1.5}).values["dark"]
1.5
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

# name: (share of scenes that show it, (low, high) of its value when shown);
# a look not shown has the value 0.  The order is the order of the draws.
LOOK_RANGES: dict[str, tuple[float, tuple[float, float]]] = {
    # the rails' (and a raised bar's) inner walls hide part of the room's
    # light from the surface near them: the share of light lost at the wall
    "rail_shadow": (0.7, (0.15, 0.6)),
    # how far from the wall that shade reaches (mm, where it is 1/e of it)
    "rail_shadow_mm": (1.0, (8.0, 40.0)),
    # the points inlaid in grained veneer (how much of the grain shows)
    "grain": (0.45, (0.35, 1.0)),
    # men with a raised rim and a hollow top (how strongly it shows)
    "men_rim": (0.6, (0.3, 1.0)),
    # darker, wider shadows and contact shade round the men
    "men_shadow": (0.6, (0.3, 1.0)),
    # what the men are made of: 1 glossy plastic, 2 wood (grain on the
    # tops), 3 stone (mottled); 0 plain paint.  Drawn as a choice.
    "men_material": (0.7, (1.0, 3.0)),
    # varnish: a window's reflection on the surface and highlights on the men's rims
    "varnish": (0.35, (0.25, 0.8)),
    # a low camera (28-45 degrees from straight down) and thick men (13-18 mm)
    "tall_view": (0.25, (1.0, 1.0)),
    # the frame stored squashed or stretched to a square of this many pixels
    "squash": (0.3, (480.0, 800.0)),
    # a harsher JPEG quality than the lens's
    "jpeg_q": (0.35, (18.0, 60.0)),
    # stops under-exposed (a dim room, a dark photograph)
    "dark": (0.12, (1.0, 2.4)),
    # a felt field: fibrous, its points printed with soft edges
    "felt": (0.25, (0.4, 1.0)),
    # inlaid mosaic: striped bands along the points' sides and round the
    # surface, and a panel in the middle of each half
    "mosaic": (0.2, (0.5, 1.0)),
    # a thin line of a contrasting colour round each point (mm wide), on
    # some boards with a dot beyond each point's tip
    "outline": (0.3, (0.6, 2.5)),
    # faint text over the whole picture, as stock photographs carry (opacity)
    "watermark": (0.12, (0.08, 0.25)),
    # the board filling the frame this much (its rails may be cut)
    "crop": (0.55, (0.9, 1.08)),
}
MEN_MATERIALS = ("plain", "plastic", "wood", "stone")

@dataclass(frozen=True)
class Look:
    """The looks drawn for one scene (``LOOK_RANGES``' names; 0 is off) and
    a key that seeds their own textures, so a look switched on or off
    changes nothing else of the frame."""

    values: Mapping[str, float]
    key: int

    def __getitem__(self, name: str) -> float:
        return float(self.values.get(name, 0.0))

    @property
    def men_material(self) -> str:
        return MEN_MATERIALS[int(round(self["men_material"]))]

    def rng(self, stream: int) -> np.random.Generator:
        """A generator of its own for one look's textures."""
        return np.random.default_rng([self.key, stream])

    def label(self) -> dict[str, float]:
        """The looks shown, for the label's style."""
        return {k: round(float(v), 3) for k, v in self.values.items() if v}


def draw_look(rng: np.random.Generator, real: bool, named: Mapping[str, float] | None = None) -> Look:
    """Draw every look from *rng* (always all of them, in ``LOOK_RANGES``'
    order, so naming one leaves the others' draws as they were); where
    *real* is false every look not *named* is off; a *named* value wins."""
    values: dict[str, float] = {}
    for name, (share, (lo, hi)) in LOOK_RANGES.items():
        on = rng.random() < share
        if name == "men_material":
            v = float(rng.integers(1, len(MEN_MATERIALS)))
        elif name in ("squash", "jpeg_q"):
            v = float(round(rng.uniform(lo, hi)))
        else:
            v = float(rng.uniform(lo, hi))
        values[name] = v if (on or name == "rail_shadow_mm") else 0.0
    key = int(rng.integers(0, 2 ** 63))
    if not real:
        values = {k: (v if k == "rail_shadow_mm" else 0.0) for k, v in values.items()}
    for k, v in (named or {}).items():
        values[k] = float(v)
    return Look(values, key)
