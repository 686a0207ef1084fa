"""The point strips: each point cut out the same way, its edge at the top."""

import numpy as np
import pytest

from willughby.vision.config import VisionConfig
from willughby.vision.reader import observe
from willughby.vision.strips import CHANNELS, STRIP_PX, point_strips
from willughby.vision.synth import SceneSpec, render


def _position(light_on: dict[int, int], dark_on: dict[int, int]) -> dict:
    light = [light_on.get(p, 0) for p in range(1, 25)]
    dark = [dark_on.get(p, 0) for p in range(1, 25)]
    return {"format": "board/1", "light": light, "dark": dark, "bar": {"light": 0, "dark": 0},
            "off": {"light": 15 - sum(light), "dark": 15 - sum(dark)}}


@pytest.fixture(scope="module")
def strips():
    spec = SceneSpec(position=_position({1: 3, 19: 1}, {13: 5, 6: 2}), tilt_deg=0.0, board_yaw_deg=0.0,
                     mirror=False, n_dice=0, occluded=False, camera_effects=False, row_max=5)
    image, label = render(np.random.default_rng(3), spec)
    config = VisionConfig()
    obs = observe(image, label["corners"], config)
    return obs.strips()


def _men_along(strip_channel: np.ndarray) -> float:
    """How far from the edge (mm) the strip's middle column is covered by men."""
    middle = strip_channel[:, strip_channel.shape[1] // 2 - 3: strip_channel.shape[1] // 2 + 3].mean(axis=1)
    covered = np.flatnonzero(middle > 0.25)
    return 0.0 if covered.size == 0 else (covered.max() + 1) * 2.0 - 30.0


def test_shapes(strips):
    assert strips.maps.shape == (24, CHANNELS, STRIP_PX[1], STRIP_PX[0])
    assert strips.aux.shape[0] == 24 and np.all(np.isfinite(strips.aux))


def test_a_row_starts_at_the_strip_top_on_both_sides_of_the_board(strips):
    # 3 light men on point 1 (near edge) and 5 dark on point 13 (far edge):
    # each row runs from the edge, which is the strip's top, 36 mm a man
    assert _men_along(strips.maps[0, 0]) == pytest.approx(3 * 36, abs=8)
    assert _men_along(strips.maps[12, 1]) == pytest.approx(5 * 36, abs=8)
    assert _men_along(strips.maps[5, 1]) == pytest.approx(2 * 36, abs=8)
    assert _men_along(strips.maps[18, 0]) == pytest.approx(36, abs=8)


def test_an_empty_point_shows_no_men(strips):
    for p in (2, 9, 16, 24):
        assert _men_along(strips.maps[p - 1, 0]) < 10 and _men_along(strips.maps[p - 1, 1]) < 10


def test_straight_down_the_tops_barely_move(strips):
    # the camera numbers: the displacement of a 33 mm high top, in cm
    assert np.abs(strips.aux[:, :4]).max() < 1.5


def test_needs_the_margin():
    from willughby.vision.geometry import BoardGeometry
    from willughby.vision.camera import Camera
    g = BoardGeometry(VisionConfig())
    lab = np.zeros((450, 530, 3), np.float32)
    with pytest.raises(ValueError, match="margin"):
        point_strips(g, Camera((265.0, 225.0), 1000.0, 1000.0, 0.0), {}, lab, 50.0, 0.0)


def test_a_mirrored_strip_is_flipped_across_with_its_across_numbers_negated(strips):
    from willughby.vision.strips import AUX_ACROSS
    st = strips
    rows = np.array([0, 5, 17])
    assert np.abs(st.aux[rows][:, list(AUX_ACROSS)]).max() > 0.05     # something to negate
    m = st.mirrored(rows)
    assert m.maps.shape == (3,) + st.maps.shape[1:]
    assert np.array_equal(m.maps[1], st.maps[5][..., ::-1])
    along = [k for k in range(st.aux.shape[1]) if k not in AUX_ACROSS]
    assert np.allclose(m.aux[:, list(AUX_ACROSS)], -st.aux[rows][:, list(AUX_ACROSS)])
    assert np.allclose(m.aux[:, along], st.aux[rows][:, along])
    twice = st.mirrored().mirrored()
    assert np.array_equal(twice.maps, st.maps) and np.allclose(twice.aux, st.aux)
