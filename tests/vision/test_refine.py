"""Corner refinement (vision/refine.py): rough corners, the board's own edges."""

from __future__ import annotations

import numpy as np
import pytest

from willughby.vision.config import VisionConfig, VisionConfigError
from willughby.vision.reader import read_board
from willughby.vision.refine import refine_corners
from willughby.vision.synth import SceneSpec, render

CONFIG = VisionConfig()


def _frame(seed: int):
    image, label = render(np.random.default_rng(seed), SceneSpec(occluded=False))
    return image, np.array(label["corners"], np.float64)


def _moved(corners: np.ndarray, px: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ang = rng.uniform(0, 2 * np.pi, 4)
    return corners + px * np.c_[np.cos(ang), np.sin(ang)]


def test_a_flat_grey_picture_keeps_the_corners_and_says_so():
    image = np.full((480, 640, 3), 128, np.uint8)
    given = [[600, 420], [40, 420], [40, 40], [600, 40]]
    result = refine_corners(CONFIG, image, given)
    assert not result.refined
    assert result.corners.tolist() == given
    assert not any(side.found for side in result.sides)
    assert result.notes and "kept as given" in result.notes[0]


@pytest.mark.parametrize("seed", [501, 506, 511])
def test_no_corner_moves_further_than_the_band(seed):
    image, true = _frame(seed)
    given = _moved(true, 8.0, seed)
    result = refine_corners(CONFIG, image, given)
    assert np.all(result.moved_px <= CONFIG.refine.band_px + 1e-6)


@pytest.mark.xfail(reason="issue 16 not yet met: the rail's top edge and the wall's foot are told apart only "
                          "by an assumed rail height (benchmarks/corners.py has the figures)", strict=False)
@pytest.mark.parametrize("seed", [502, 511])
def test_eight_pixels_off_are_recovered_to_a_pixel_and_a_half(seed):
    image, true = _frame(seed)
    result = refine_corners(CONFIG, image, _moved(true, 8.0, seed))
    assert np.linalg.norm(result.corners - true, axis=1).max() <= 1.5


@pytest.mark.xfail(reason="issue 16 not yet met (see above)", strict=False)
@pytest.mark.parametrize("seed", [502, 511])
def test_good_corners_stay_within_a_pixel(seed):
    image, true = _frame(seed)
    result = refine_corners(CONFIG, image, true)
    assert result.moved_px.max() <= 1.0


def test_refinement_is_off_by_default_and_then_the_reading_is_unchanged():
    assert not CONFIG.refine.enabled
    image, true = _frame(511)
    a = read_board(image, true.tolist(), CONFIG)
    b = read_board(image, true.tolist(), VisionConfig().with_values({"refine": {"enabled": False}}))
    assert (a.light, a.dark, a.bar, a.stacked, a.notes) == (b.light, b.dark, b.bar, b.stacked, b.notes)
    # (the point reader's confidences differ in the last digits from run to run by themselves)
    assert a.location_confidence == pytest.approx(b.location_confidence, abs=1e-5)


def test_refinement_switched_on_reads_and_notes_a_side_kept():
    image = np.full((480, 640, 3), 128, np.uint8)
    config = VisionConfig().with_values({"refine": {"enabled": True}})
    reading = read_board(image, [[600, 420], [40, 420], [40, 40], [600, 40]], config)
    assert any("kept as given" in note for note in reading.notes)


def test_the_refine_table_of_a_toml_file_overrides(tmp_path):
    path = tmp_path / "willughby.toml"
    path.write_text("[vision.refine]\nenabled = true\nband_px = 12\n")
    config = VisionConfig.from_toml(path)
    assert config.refine.enabled and config.refine.band_px == 12.0
    with pytest.raises(VisionConfigError):
        VisionConfig().with_values({"refine": {"band_px": -1}})
