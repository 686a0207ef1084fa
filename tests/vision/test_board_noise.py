"""This board's own noise in the comparison with the frame before (vision/board_noise.py): learnt from the
rows of the points a settled turn moved no man on, raising the fainter limit of a still row on a grainy
camera, never above its cap, and never from a row that moved or changed clearly."""

from __future__ import annotations

import numpy as np
import pytest

from willughby.vision.board_noise import FAINT_CAP, RowNoise
from willughby.vision.errors import CalibrationError
from willughby.vision.footprints import still_rows
from willughby.vision.turns import TurnConfig

SHARE = TurnConfig.unchanged_share             # the clear limit of a still row

BEFORE = {"light": [2] + [0] * 4 + [5] + [0] * 18, "dark": [0] * 18 + [5] + [0] * 5}
# one light man moved from point 6 to point 3: points 3 and 6 changed, the 22 others did not
AFTER = {"light": [2, 0, 1, 0, 0, 4] + [0] * 18, "dark": [0] * 18 + [5] + [0] * 5}


def _grainy(level: float) -> tuple[np.ndarray, np.ndarray]:
    """Profiles of a grainy camera: nothing at the clear difference, *level* at the fainter one, and the
    two points the man left and reached changed at both."""
    clear, faint = np.zeros((24, 140)), np.full((24, 140), level)
    for i in (2, 5):
        clear[i, 15:90] = faint[i, 15:90] = 1.0
    return clear, faint


def test_only_the_rows_of_points_no_man_moved_on_that_did_not_change_clearly_are_learnt():
    noise = RowNoise()
    clear, faint = _grainy(0.07)
    clear[18, 20:40] = 1.0                       # point 19 changed clearly (a die on its men): not noise either
    assert noise.observe(clear, faint, BEFORE, AFTER, SHARE) == 21
    assert noise.faint == pytest.approx([0.07] * 21)


def test_the_limit_is_the_houses_until_enough_rows_are_learnt_then_a_little_above_their_noise():
    noise = RowNoise()
    clear, faint = _grainy(0.07)
    noise.observe(clear, faint, BEFORE, AFTER, SHARE)
    assert noise.faint_share(0.05) == 0.05                      # 22 rows: not yet
    for _ in range(2):
        noise.observe(clear, faint, BEFORE, AFTER, SHARE)
    assert noise.faint_share(0.05) == pytest.approx(0.07 * 1.25)
    quiet = RowNoise()
    for _ in range(3):
        quiet.observe(*_grainy(0.01), BEFORE, AFTER, SHARE)
    assert quiet.faint_share(0.05) == 0.05                      # a quiet camera keeps the house's limit


def test_a_very_noisy_camera_never_raises_the_limit_above_its_cap():
    noise = RowNoise()
    for _ in range(3):
        noise.observe(*_grainy(0.4), BEFORE, AFTER, SHARE)
    assert noise.faint_share(0.05) == FAINT_CAP


def test_only_the_latest_rows_are_kept():
    noise = RowNoise(most=30)
    for level in (0.01, 0.09):
        noise.observe(*_grainy(level), BEFORE, AFTER, SHARE)
    assert len(noise.faint) == 30 and noise.faint[-1] == pytest.approx(0.09)


def test_what_was_learnt_is_saved_and_read_back_and_a_bad_document_is_refused():
    noise = RowNoise()
    for _ in range(3):
        noise.observe(*_grainy(0.07), BEFORE, AFTER, SHARE)
    again = RowNoise.from_json(noise.to_json())
    assert again.faint == pytest.approx(noise.faint) and again.faint_share(0.05) == noise.faint_share(0.05)
    for bad in ({"format": "willughby-row-noise/1", "faint": [0.1, 2.0]}, {"format": "other", "faint": []},
                {"format": "willughby-row-noise/1"}, ["not", "a", "document"]):
        with pytest.raises(CalibrationError, match="row noise"):
            RowNoise.from_json(bad)
    clear, faint = _grainy(0.07)
    faint[0, 0] = np.nan
    with pytest.raises(ValueError, match="not numbers"):
        RowNoise().observe(clear, faint, BEFORE, AFTER, SHARE)


def test_a_row_the_house_limit_leaves_unsure_is_still_at_the_boards_learnt_limit():
    clear, faint = _grainy(0.07)
    assert not still_rows(clear, faint, BEFORE, SHARE, 0.05)[0]
    noise = RowNoise()
    for _ in range(3):
        noise.observe(clear, faint, BEFORE, AFTER, SHARE)
    assert still_rows(clear, faint, BEFORE, SHARE, noise.faint_share(0.05))[0]
    assert not still_rows(clear, faint, BEFORE, SHARE, noise.faint_share(0.05))[2]    # the man came there
