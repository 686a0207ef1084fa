"""The looks of real boards and photographs (``SceneSpec.real_look``,
``SceneSpec.look``) and boards of other proportions (``varied_board``):
each look is drawn where asked and shows in the picture as it should, and
nothing is drawn where it is not asked."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from willughby.vision.config import VisionConfig
from willughby.vision.geometry import BoardGeometry, homography
from willughby.vision.synth import SceneSpec, SynthError, plan_scene, render
from willughby.vision.synth.looks import LOOK_RANGES, MEN_MATERIALS, draw_look
from willughby.vision.synth.styles import BOARD_RANGES

SIZE = (640, 480)
EMPTY = {"format": "board/1", "light": [0] * 24, "dark": [0] * 24, "bar": {"light": 0, "dark": 0},
         "off": {"light": 15, "dark": 15}}


def one_man(point: int = 1, colour: str = "light") -> dict:
    doc = {**EMPTY, "light": [0] * 24, "dark": [0] * 24, "off": {"light": 15, "dark": 15}}
    doc[colour] = [1 if p == point else 0 for p in range(1, 25)]
    doc["off"] = {**doc["off"], colour: 14}
    return doc


def pair(name: str, value: float, seed: int = 3, **fields):
    """The same scene without and with one look: (off, on, label off, label on)."""
    base = dict(image_size=SIZE, position=EMPTY, n_dice=0, occluded=False, camera_effects=False, tilt_deg=8.0,
                board_yaw_deg=0.0, fill=0.9, field="felt_beige", points="red_black", wood="walnut")
    base.update(fields)
    off, l_off = render(np.random.default_rng(seed), SceneSpec(look={name: 0.0}, **base))
    on, l_on = render(np.random.default_rng(seed), SceneSpec(look={name: value}, **base))
    return off, on, l_off, l_on


def rectified(image: np.ndarray, label: dict) -> np.ndarray:
    """The playing surface top-down at 1 px per mm (the label's geometry)."""
    config = VisionConfig().with_values(label["geometry"]) if "geometry" in label else VisionConfig()
    geo = BoardGeometry(config)
    H = homography(label["corners"], geo, scale=1.0)
    return cv2.warpPerspective(image, H, (int(geo.width), int(geo.depth)))


def grey(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float64)


# ---------------------------------------------------------------- drawing
def test_looks_are_drawn_only_when_asked_and_labelled():
    plain = plan_scene(np.random.default_rng(5), SceneSpec(image_size=SIZE))
    assert plain.look is None
    _, label = render(np.random.default_rng(5), SceneSpec(image_size=(320, 240)))
    assert "look" not in label["style"] and "geometry" not in label and "bar_kind" not in label["style"]
    real = plan_scene(np.random.default_rng(5), SceneSpec(image_size=SIZE, real_look=True))
    assert real.look is not None and set(real.look.values) == set(LOOK_RANGES)


def test_every_look_is_drawn_in_its_range_across_scenes():
    seen = {name: 0 for name in LOOK_RANGES}
    for seed in range(150):
        look = draw_look(np.random.default_rng(seed), real=True)
        for name, (share, (lo, hi)) in LOOK_RANGES.items():
            v = look[name]
            if v:
                seen[name] += 1
                assert lo - 1e-9 <= v <= hi + 1e-9, (name, v)
        assert look.men_material in MEN_MATERIALS
    assert all(n > 0 for n in seen.values()), seen


def test_a_named_look_wins_and_leaves_the_others_as_drawn():
    a = draw_look(np.random.default_rng(9), real=True)
    b = draw_look(np.random.default_rng(9), real=True, named={"dark": 2.0})
    assert b["dark"] == 2.0
    assert {k: v for k, v in a.values.items() if k != "dark"} == {k: v for k, v in b.values.items() if k != "dark"}
    only = draw_look(np.random.default_rng(9), real=False, named={"grain": 0.5})
    assert [k for k, v in only.values.items() if v and k != "rail_shadow_mm"] == ["grain"]


def test_the_same_seed_gives_the_same_real_looking_frame():
    spec = SceneSpec(image_size=SIZE, real_look=True, varied_board=True, style_set="randomized")
    a, la = render(np.random.default_rng(21), spec)
    b, lb = render(np.random.default_rng(21), spec)
    assert np.array_equal(a, b) and la == lb


def test_bad_looks_and_boards_are_refused_with_the_value_named():
    for kwargs, word in (({"look": {"sparkle": 1}}, "sparkle"), ({"look": {"dark": -1}}, "dark"),
                         ({"bar_kind": "floating"}, "floating"), ({"surface_aspect": 2.0}, "2.0"),
                         ({"bar_width_mm": 200}, "200"), ({"point_width_mm": 10}, "10")):
        with pytest.raises(SynthError, match=word):
            SceneSpec(**kwargs)


# ---------------------------------------------------------- each look shows
def test_the_rail_shadow_darkens_the_strip_near_the_rails():
    off, on, lo, ln = pair("rail_shadow", 0.6)
    a, b = grey(rectified(off, lo)), grey(rectified(on, ln))
    near = (slice(3, 12), slice(60, 200))            # 3-12 mm from the top rail, over points 13-17
    middle = (slice(200, 250), slice(60, 200))
    assert b[near].mean() < a[near].mean() * 0.85
    assert abs(b[middle].mean() - a[middle].mean()) < 0.05 * a[middle].mean()


def test_darker_shadows_round_the_men():
    off, on, lo, ln = pair("men_shadow", 1.0, position=one_man(18))
    a, b = grey(rectified(off, lo)), grey(rectified(on, ln))
    assert (b < a - 1).sum() > 100                  # darker somewhere
    assert (b > a + 1).sum() < 10                   # lighter nowhere


def test_grained_veneer_shows_in_the_points():
    off, on, lo, ln = pair("grain", 1.0, points="cream_green")
    a, b = grey(rectified(off, lo)), grey(rectified(on, ln))
    for x in (20, 60):                              # inside points 13 and 14, between base and tip
        inside = (slice(60, 120), slice(x - 5, x + 5))
        assert b[inside].std() > 1.5 * a[inside].std()


def test_felt_softens_the_points_edges():
    off, on, lo, ln = pair("felt", 1.0)
    a, b = grey(rectified(off, lo)), grey(rectified(on, ln))
    band = (slice(20, 150), slice(5, 235))
    ga = np.abs(np.diff(a[band], axis=1)).max(0).mean()
    gb = np.abs(np.diff(b[band], axis=1)).max(0).mean()
    assert gb < ga


def test_a_line_is_drawn_round_each_point():
    off, on, lo, ln = pair("outline", 2.5)
    a, b = grey(rectified(off, lo)), grey(rectified(on, ln))
    assert np.abs(b - a).mean() > 1.0
    assert np.abs(b[215:235, 60:200] - a[215:235, 60:200]).mean() < 2.0     # the open middle as it was


def test_mosaic_adds_bands_and_panels():
    off, on, lo, ln = pair("mosaic", 1.0)
    a, b = grey(rectified(off, lo)), grey(rectified(on, ln))

    def edges(g):
        return (cv2.Canny(g.astype(np.uint8), 40, 120) > 0).mean()
    assert edges(b) > 1.5 * edges(a)


@pytest.mark.parametrize("material", [1, 2, 3])
def test_the_mens_material_and_rim_show_on_their_tops(material):
    base = dict(position=one_man(18, "dark"), men="white_red")
    off, _, lo, _ = pair("men_rim", 0.0, **base)
    _, on, _, ln = pair("men_material", float(material), **base)
    _, rim, _, lr = pair("men_rim", 1.0, **base)
    x, y = 20 + 40 * 5, 18                         # point 18's first man, rectified (mm)
    top = (slice(y - 8, y + 8), slice(x - 8, x + 8))
    a, b, c = grey(rectified(off, lo)), grey(rectified(on, ln)), grey(rectified(rim, lr))
    assert np.abs(b[top] - a[top]).max() > 3          # the top drawn otherwise
    assert c[top].std() > a[top].std()                # rim and hollow: not one flat colour
    assert MEN_MATERIALS[material] in ("plastic", "wood", "stone")


def test_varnish_brightens_and_never_darkens():
    off, on, lo, ln = pair("varnish", 0.8, position=one_man(20))
    a, b = grey(off), grey(on)
    assert (b > a + 15).sum() > 200
    assert (b < a - 3).sum() < 20


def test_a_tall_view_is_a_low_camera_over_thick_men():
    plan = plan_scene(np.random.default_rng(4), SceneSpec(image_size=SIZE, look={"tall_view": 1.0}))
    d = plan.board.geo.config.man_diameter
    assert plan.tilt >= 28 and plan.thick >= 0.36 * d


def test_the_stretch_squashes_the_frame_and_its_label():
    off, on, lo, ln = pair("squash", 500.0)
    assert off.shape[:2] == (SIZE[1], SIZE[0]) and on.shape[:2] == (500, 500)
    assert ln["image_size"] == [500, 500]
    want = np.array(lo["corners"]) * [500 / SIZE[0], 500 / SIZE[1]]
    assert np.allclose(ln["corners"], want, atol=0.02)


def test_a_harsh_jpeg_loses_the_fine_detail():
    off, on, lo, ln = pair("jpeg_q", 18.0, camera_effects=True, position=one_man(3))
    assert ln["style"]["post"]["jpeg_q"] == 18 and lo["style"]["post"]["jpeg_q"] > 18

    def fine(img):
        """The mean size of the high frequencies of JPEG's own 8 x 8 blocks."""
        g = grey(img) - 128
        blocks = g.reshape(SIZE[1] // 8, 8, SIZE[0] // 8, 8).transpose(0, 2, 1, 3).reshape(-1, 8, 8)
        d = np.array([cv2.dct(b) for b in blocks])
        u, v = np.meshgrid(range(8), range(8), indexing="ij")
        return float(np.abs(d[:, u + v >= 6]).mean())
    assert fine(on) < 0.3 * fine(off)


def test_a_dark_exposure_darkens_the_whole_frame():
    off, on, _, ln = pair("dark", 2.0)
    assert grey(on).mean() < 0.45 * grey(off).mean()
    assert ln["style"]["exposure"] < -1.5


def test_a_watermark_is_faint_text_over_the_frame():
    off, on, _, _ = pair("watermark", 0.2)
    diff = np.abs(grey(on) - grey(off))
    assert 0.005 < (diff > 2).mean() < 0.5
    assert diff.max() <= 0.2 * 255 + 2


def test_crop_fills_the_frame_with_the_board():
    plan = plan_scene(np.random.default_rng(4), SceneSpec(image_size=SIZE, look={"crop": 1.05}))
    assert plan.fill_actual == pytest.approx(1.05, abs=0.02)


# ------------------------------------------------------------ varied boards
def test_a_varied_board_says_its_geometry_and_stays_in_its_ranges():
    for seed in range(30):
        plan = plan_scene(np.random.default_rng(seed), SceneSpec(image_size=SIZE, varied_board=True))
        c = plan.board.geo.config
        lo, hi = BOARD_RANGES["surface_aspect"]
        assert lo - 1e-3 <= c.surface_depth / c.surface_width <= hi + 1e-3
        assert 2 * c.half_width + c.bar_width <= c.surface_width + 1e-6
        assert 6 * c.point_width <= c.half_width + 1e-6 and c.man_diameter <= c.point_width
        assert plan.board.bar_kind in BOARD_RANGES["bar_kinds"]
        assert (plan.board.bh == 0) == (plan.board.bar_kind == "flush")
        assert plan.row_max * c.man_diameter <= c.surface_depth / 2


def test_named_proportions_are_drawn_as_named():
    spec = SceneSpec(image_size=SIZE, position=EMPTY, surface_aspect=0.75, bar_width_mm=8.0, point_width_mm=38.0,
                     bar_kind="flush", camera_effects=False, n_dice=0, occluded=False)
    image, label = render(np.random.default_rng(2), spec)
    g = label["geometry"]
    assert g["surface_depth"] == pytest.approx(530 * 0.75) and g["bar_width"] == 8.0 and g["point_width"] == 38.0
    assert label["style"]["bar_kind"] == "flush"
    VisionConfig().with_values(g)                   # the reader can take it as its settings


def test_the_points_lie_where_the_labelled_geometry_puts_them():
    spec = SceneSpec(image_size=(800, 600), position=EMPTY, varied_board=True, camera_effects=False, n_dice=0,
                     occluded=False, tilt_deg=5.0, points="ivory_ebony", field="felt_green")
    for seed in (1, 2, 3):
        image, label = render(np.random.default_rng(seed), spec)
        rect = rectified(image, label)
        geo = BoardGeometry(VisionConfig().with_values(label["geometry"]))
        lum = [grey(rect)[6:14, int(geo.point_centre_x(p)) - 3:int(geo.point_centre_x(p)) + 3].mean()
               for p in range(13, 25)]
        # neighbouring points alternate light and dark
        signs = np.sign(np.diff(lum))
        assert np.all(signs[1:] == -signs[:-1]), (seed, np.round(lum))
