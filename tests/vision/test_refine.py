"""Corner refinement (vision/refine.py): rough corners, the board's own points."""

from __future__ import annotations

import numpy as np
import pytest

from willughby.vision.config import VisionConfig, VisionConfigError
from willughby.vision.reader import read_board
from willughby.vision.refine import along_points, refine_corners
from willughby.vision.synth import SceneSpec, render

CONFIG = VisionConfig()


def _frame(seed: int):
    image, label = render(np.random.default_rng(seed), SceneSpec(occluded=False))
    return image, np.array(label["corners"], np.float64)


def _along(corners: np.ndarray) -> np.ndarray:
    """Unit directions along the board's length at each corner (C1, C2 on the bottom edge, C3, C4 on the top)."""
    out = []
    for a, b in ((1, 0), (1, 0), (2, 3), (2, 3)):
        d = corners[b] - corners[a]
        out.append(d / np.linalg.norm(d))
    return np.array(out)


def test_a_flat_grey_picture_keeps_the_corners_and_says_so():
    image = np.full((480, 640, 3), 128, np.uint8)
    given = [[600, 420], [40, 420], [40, 40], [600, 40]]
    result = refine_corners(CONFIG, image, given)
    assert not result.refined
    assert result.corners.tolist() == given
    assert any("not clear enough" in note for note in result.notes)
    assert any("points were not found" in note for note in result.notes)


@pytest.mark.parametrize("seed", [502, 511, 520])
def test_corners_marked_8_px_off_along_the_board_are_found_to_a_pixel_and_a_half(seed):
    image, true = _frame(seed)
    given = true + 8.0 * _along(true) * np.array([[1], [-1], [1], [-1]])
    found, support, why = along_points(CONFIG, image, given)
    assert not why and support > 0.5
    error_along = np.abs(((found - true) * _along(true)).sum(axis=1))
    assert error_along.max() <= 1.5, error_along
    # across the board the points' sides say little: that move is left alone
    move, along = found - given, _along(given)
    assert np.abs(move[:, 0] * along[:, 1] - move[:, 1] * along[:, 0]).max() < 1e-6


@pytest.mark.parametrize("seed", [502, 511])
def test_good_corners_stay_within_a_pixel(seed):
    image, true = _frame(seed)
    result = refine_corners(CONFIG, image, true)
    assert result.moved_px.max() <= 1.0


@pytest.mark.parametrize("seed", [501, 506])
def test_no_corner_moves_further_than_the_limit(seed):
    image, true = _frame(seed)
    rng = np.random.default_rng(seed)
    given = true + rng.uniform(-10, 10, (4, 2))
    result = refine_corners(CONFIG, image, given)
    assert np.all(result.moved_px <= CONFIG.refine.max_move_px + 1e-6)


def test_refinement_of_every_read_is_off_by_default_and_then_the_reading_is_unchanged():
    assert not CONFIG.refine.enabled
    image, true = _frame(511)
    a = read_board(image, true.tolist(), CONFIG)
    b = read_board(image, true.tolist(), VisionConfig().with_values({"refine": {"enabled": False}}))
    assert (a.light, a.dark, a.bar, a.stacked, a.notes) == (b.light, b.dark, b.bar, b.stacked, b.notes)
    assert a.location_confidence == pytest.approx(b.location_confidence, abs=1e-5)


def test_refinement_switched_on_reads_and_notes_corners_kept():
    image = np.full((480, 640, 3), 128, np.uint8)
    config = VisionConfig().with_values({"refine": {"enabled": True}})
    reading = read_board(image, [[600, 420], [40, 420], [40, 40], [600, 40]], config)
    assert any("kept as given" in note for note in reading.notes)
    assert reading.rect is None          # read with other corners than given: not for comparing


def test_the_refine_table_of_a_toml_file_overrides(tmp_path):
    path = tmp_path / "willughby.toml"
    path.write_text("[vision.refine]\nenabled = true\nmax_move_px = 12\nsearch_px = [8.0, 3.0]\n")
    config = VisionConfig.from_toml(path)
    assert config.refine.enabled and config.refine.max_move_px == 12.0
    assert config.refine.search_px == (8.0, 3.0)
    with pytest.raises(VisionConfigError):
        VisionConfig().with_values({"refine": {"max_move_px": -1}})
    with pytest.raises(VisionConfigError, match="side_from"):
        VisionConfig().with_values({"refine": {"side_from": 0.9, "side_to": 0.5}})


# ------------------------------------------------------------------ this board's own rows (board_layout)
def _wide_bar_frame(seed: int):
    image, label = render(np.random.default_rng(seed), SceneSpec(occluded=False, n_dice=0, tilt_deg=15.0,
                                                                bar_kind="raised", bar_width_mm=80.0,
                                                                point_width_mm=37.0))
    return image, np.array(label["corners"], np.float64)


@pytest.mark.parametrize("seed", [1, 4])
def test_corners_off_along_a_board_with_a_wide_bar_go_to_the_ends_of_its_own_rows(seed):
    # the configured layout (a 50 mm bar, 40 mm points) is not this board's: its own rows say where
    image, true = _wide_bar_frame(seed)
    given = true + 8.0 * _along(true) * np.array([[1], [-1], [1], [-1]])
    result = refine_corners(CONFIG, image, given)
    assert np.abs(((result.corners - true) * _along(true)).sum(axis=1)).max() <= 1.0, result.corners - true
    move, along = result.corners - given, _along(given)
    assert np.abs(move[:, 0] * along[:, 1] - move[:, 1] * along[:, 0]).max() < 1e-3    # across: as given


def test_each_long_side_is_refined_on_its_own():
    # one corner marked off along its side (a box's halves at slightly different angles do the same to a
    # whole row): that corner comes back, the others stay
    image, true = _wide_bar_frame(1)
    given = true.copy()
    given[2] += 10.0 * _along(true)[2]
    result = refine_corners(CONFIG, image, given)
    assert np.linalg.norm(result.corners[2] - true[2]) <= 1.0
    assert np.linalg.norm(result.corners[[0, 1, 3]] - true[[0, 1, 3]], axis=1).max() <= 1.0


def test_a_row_ending_further_off_than_the_limit_keeps_its_corner_and_says_so():
    # a border between the rail and the points (a felt case's margin) looks like this: the points begin
    # 20 px inside the corner; the corner stays where it was given and the layout holds the border
    image, true = _wide_bar_frame(1)
    given = true.copy()
    given[2] -= 20.0 * _along(true)[2]
    result = refine_corners(CONFIG, image, given)
    assert np.array_equal(result.corners[2], given[2])
    assert any("C3" in note and "further off" in note for note in result.notes)
