"""Every number the camera part uses, in one frozen record (DESIGN.md,
convention 10).  A TOML file may override any of them::

    [vision]
    scale = 1.2
    settle_frames = 6

>>> VisionConfig().man_diameter
36.0
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Mapping

__all__ = ["VisionConfig", "VisionConfigError"]


class VisionConfigError(ValueError):
    """A configuration value that cannot be used (names the key and value)."""


@dataclass(frozen=True)
class VisionConfig:
    """Board geometry (millimetres) and the reader's settings.

    The geometry defaults are those of a standard tournament-size board as in
    the dev set (``docs/vision-labels.md``): a playing surface of 530 x 450 mm, halves of
    240 mm with six points of 40 mm, a 50 mm bar, points 180 mm long, men
    36 mm across.  A board of other proportions sets them in its TOML file.
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

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise VisionConfigError(f"vision.{f.name} must be a number, not {value!r}")
            if value <= 0:
                raise VisionConfigError(f"vision.{f.name} must be positive, not {value!r}")
        if 2 * self.half_width + self.bar_width > self.surface_width + 1e-6:
            raise VisionConfigError("vision: two halves and the bar are wider than the surface")
        if 6 * self.point_width > self.half_width + 1e-6:
            raise VisionConfigError("vision: six points are wider than a half")

    def with_values(self, values: Mapping[str, Any]) -> "VisionConfig":
        """A copy with some values replaced; unknown keys are errors."""
        names = {f.name: f for f in fields(self)}
        changes: dict[str, Any] = {}
        for key, value in values.items():
            if key not in names:
                raise VisionConfigError(f"unknown vision setting {key!r}")
            want = type(getattr(self, key))
            if want is int and isinstance(value, float) and value.is_integer():
                value = int(value)
            if want is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, want) or isinstance(value, bool):
                raise VisionConfigError(f"vision.{key} must be {want.__name__}, not {value!r}")
            changes[key] = value
        return replace(self, **changes)

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
