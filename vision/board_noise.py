"""This board's own noise in the comparison with the frame before, learnt at the table.

A point whose row of men did not change since the frame before holds its
men (``footprints.still_rows``): its row changed by at most
``TurnConfig.unchanged_share`` at the clear colour difference, and by at
most ``TurnConfig.still_row_faint_share`` at the fainter one.  The fainter
difference is the one a camera's own noise reaches: a grainy sensor, a lamp
that flickers, a shadow that drifts move many pixels a little, so on some
boards nearly every still row shows a few hundredths of faint change, and
then no row is taken as still however clear the picture is.

So the referee learns it, as it learns the board's look: after each turn it
settled (a play ruled legal, a question answered), the points where the
board before and the board after hold the same men are points where
nothing moved, and what their rows show at the fainter difference is this
board's noise, under this camera and this light.  The fainter limit for a
still row is then this board's own (:meth:`RowNoise.faint_share`): the
house limit, or a little above the noise of its still rows where that is
higher, never above ``FAINT_CAP``.  The clear limit is never learnt: it is
what keeps a moved man from being taken for a still one.

>>> import numpy as np
>>> noise = RowNoise()
>>> board = {"light": [2] + [0] * 23, "dark": [0] * 5 + [3] + [0] * 18}
>>> clear, faint = np.zeros((24, 140)), np.full((24, 140), 0.08)     # a grainy camera: 8% faint everywhere
>>> for _ in range(3):
...     _ = noise.observe(clear, faint, board, board, share=0.004)
>>> round(noise.faint_share(0.05), 3)
0.1
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .classes import board_classes
from .footprints import row_means

__all__ = ["RowNoise", "FAINT_CAP"]

#: the fainter limit of a still row is never learnt above this: a man of nearly the board's colour, moved, may
#: change his row's picture only faintly (at seed 2718, rows of such men came or went at 0.11 to 0.24 of a place)
FAINT_CAP = 0.15


@dataclass
class RowNoise:
    """The fainter change of this board's still rows, turn after turn (the
    latest ``most`` of them), and the limit they set (see the module)."""

    #: each still row's share of faint change, as learnt (oldest first)
    faint: list[float] = field(default_factory=list)
    most: int = 2000
    #: how many rows must be learnt before the limit is this board's own
    least: int = 48
    #: the limit is the noise's ``quantile`` ...
    quantile: float = 0.95
    #: ... times this
    margin: float = 1.25

    def observe(self, profiles: np.ndarray, faint: np.ndarray, before: Mapping[str, Any],
                after: Mapping[str, Any], share: float) -> int:
        """Learn from one settled turn: *profiles* and *faint* compare the
        frame before (which showed *before*) with the frame after (which
        showed *after*, as the referee settled it). Each point where both
        boards hold the same men and whose row changed by at most *share* at
        the clear difference (the turn reader's ``unchanged_share``) is a
        still row, and its faint share is noise.
        Returns how many rows were learnt."""
        still = board_classes(before) == board_classes(after)
        clear = row_means(profiles, before) <= share
        values = row_means(faint, before)[still & clear]
        if not np.all(np.isfinite(values)):
            raise ValueError("the change profiles hold values that are not numbers")
        self.faint.extend(float(v) for v in values)
        if len(self.faint) > self.most:
            del self.faint[:len(self.faint) - self.most]
        return int(values.size)

    def faint_share(self, default: float) -> float:
        """The fainter limit of a still row on this board: *default* (the
        house's), or the noise's ``quantile`` times ``margin`` where that is
        higher, at most :data:`FAINT_CAP` (and never below *default*);
        *default* until ``least`` rows are learnt."""
        if len(self.faint) < self.least:
            return default
        learnt = float(np.quantile(np.asarray(self.faint), self.quantile)) * self.margin
        return max(default, min(FAINT_CAP, learnt))

    def to_json(self) -> dict[str, Any]:
        return {"format": "willughby-row-noise/1", "faint": [round(v, 5) for v in self.faint]}

    @classmethod
    def from_json(cls, doc: Any) -> "RowNoise":
        from .errors import CalibrationError

        try:
            if doc.get("format") != "willughby-row-noise/1":
                raise ValueError("not a willughby-row-noise/1 object")
            values = [float(v) for v in doc["faint"]]
            if not all(0.0 <= v <= 1.0 for v in values):
                raise ValueError("a share of changed picture is between 0 and 1")
            noise = cls()
            noise.faint = values[-noise.most:]
            return noise
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"the calibration's row noise is not one: {exc}") from None
