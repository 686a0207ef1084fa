"""The synthetic frame generator: its labels are board documents in the dev
set's format, its corners are where the board is, it is deterministic, and
its command writes the dev set's layout."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from willughby.engine.position import Position
from willughby.vision.geometry import BoardGeometry, corners_array, homography
from willughby.vision.synth import (
    POSITION_KINDS,
    SceneSpec,
    SynthError,
    _layout_men,
    main,
    render,
    render_jpeg,
)

IMAGE_KEYS = ("corners", "image_size", "occluded", "dice", "position_kind", "style")
DEV_KEYS = {"format", "light", "dark", "bar", "off", "stacked", *IMAGE_KEYS}
GEO = BoardGeometry()
SMALL = (640, 360)


def board_doc(label: dict) -> dict:
    return {k: v for k, v in label.items() if k not in IMAGE_KEYS}


def empty_doc(**extra) -> dict:
    doc = {"format": "board/1", "light": [0] * 24, "dark": [0] * 24}
    doc.update(extra)
    return doc


def to_image(label: dict, x: float, y: float) -> tuple[float, float]:
    """Where the surface point (x, y) mm (origin C3) lies in the picture, by the label's corners."""
    H = np.linalg.inv(homography(label["corners"], GEO, scale=1.0))
    p = H @ np.array([x, y, 1.0])
    return p[0] / p[2], p[1] / p[2]


def pixel(image: np.ndarray, label: dict, x: float, y: float) -> np.ndarray:
    u, v = to_image(label, x, y)
    return image[int(round(v)), int(round(u))].astype(int)  # BGR


@pytest.mark.parametrize("seed", range(8))
def test_label_is_a_board_document_in_the_dev_format(seed):
    image, label = render(np.random.default_rng(seed), SceneSpec(image_size=SMALL))
    assert set(label) == DEV_KEYS
    assert label["position_kind"] in POSITION_KINDS
    pos = Position.from_board(board_doc(label), men=15)
    assert pos.to_board()["light"] == label["light"]
    assert image.shape == (SMALL[1], SMALL[0], 3) and image.dtype == np.uint8
    assert label["image_size"] == list(SMALL)
    assert isinstance(label["occluded"], bool)
    for die in label["dice"]:
        assert die["value"] in range(1, 7)
        assert 0 <= die["center"][0] < SMALL[0] and 0 <= die["center"][1] < SMALL[1]
    json.dumps(label)  # plain JSON values only


@pytest.mark.parametrize("kind", POSITION_KINDS)
def test_every_position_kind_gives_a_valid_document(kind):
    for seed in range(3):
        _, label = render(np.random.default_rng(seed), SceneSpec(position_kind=kind, image_size=SMALL))
        assert label["position_kind"] == kind
        Position.from_board(board_doc(label), men=15)


def test_doublets_start_has_piles_on_each_sides_first_table():
    _, label = render(np.random.default_rng(3), SceneSpec(position_kind="doublets_start", image_size=SMALL))
    piles = [2, 2, 2, 3, 3, 3]
    assert label["light"][:6] == piles and sum(label["light"]) == 15
    assert label["dark"][18:] == piles[::-1] and sum(label["dark"]) == 15
    assert label["stacked"]["light"] == label["light"]
    assert label["stacked"]["dark"] == label["dark"]


@pytest.mark.parametrize("seed", range(6))
def test_corners_are_inside_the_image_and_go_round_the_board(seed):
    spec = SceneSpec(tilt_deg=35.0 if seed % 2 else 0.0, fill=0.95 if seed < 3 else 0.6,
                     focal_mm=24.0 if seed % 3 == 0 else 60.0)
    _, label = render(np.random.default_rng(seed), spec)
    w, h = label["image_size"]
    corners = corners_array(label["corners"])  # four, convex, in order
    assert np.all((corners >= 0) & (corners < [w, h]))


def test_corners_are_the_surface_corners_in_the_picture():
    """Read the picture through the label's corners: the point triangles and
    the field are where the geometry says, within a few millimetres."""
    doc = empty_doc()
    for seed, (yaw, mirror, tilt) in enumerate([(0, False, 0), (180, True, 20), (8, True, 35),
                                                (-12, False, 30), (90, False, 10), (270, True, 25)]):
        spec = SceneSpec(position=doc, board_yaw_deg=yaw, mirror=mirror, tilt_deg=tilt, n_dice=0,
                         occluded=False, field="felt_green", points="red_black",
                         lighting="daylight_window", camera_effects=False, image_size=(1280, 720))
        image, label = render(np.random.default_rng(seed), spec)
        for p in range(1, 25):
            x = GEO.point_centre_x(p)
            y = 90.0 if p >= 13 else GEO.depth - 90.0     # halfway along the point: 20 mm wide
            for dx in (-6.0, 6.0):
                b, g, r = pixel(image, label, x + dx, y)
                assert not (g > r + 15 and g > b + 15), (yaw, mirror, p, dx, (b, g, r))   # on the point
            for dx in (-15.0, 15.0):
                if min(abs(x + dx - e) for e in (0.0, *GEO.bar_x, GEO.width)) < 12:
                    continue        # a raised bar or rail may hide the field this near
                b, g, r = pixel(image, label, x + dx, y)
                assert g > r + 15 and g > b + 15, (yaw, mirror, p, dx, (b, g, r))         # on the field
        b, g, r = pixel(image, label, GEO.width / 4, GEO.depth / 2)
        assert g > r + 15 and g > b + 15


@pytest.mark.parametrize("mirror", [False, True])
@pytest.mark.parametrize("yaw", [0.0, 90.0, 180.0, 270.0])
def test_the_men_stand_on_the_points_the_label_names(mirror, yaw):
    doc = empty_doc(light=[1] + [0] * 23, dark=[0] * 23 + [3])   # light on 1, dark on 24
    spec = SceneSpec(position=doc, board_yaw_deg=yaw, mirror=mirror, tilt_deg=0.0, n_dice=0,
                     occluded=False, men="white_black", field="felt_green", points="red_black",
                     lighting="daylight_window", camera_effects=False, image_size=SMALL, fill=0.8)
    image, label = render(np.random.default_rng(11), spec)
    white = pixel(image, label, *GEO.slot_centre(1, 0)).mean()
    black = [pixel(image, label, *GEO.slot_centre(24, k)).mean() for k in (0, 1, 2)]
    empty = [pixel(image, label, *GEO.slot_centre(p, 0)).mean() for p in (2, 12, 13, 23)]
    assert white > max(black + empty) + 40

    def green(p: int, k: float) -> bool:
        # 15 mm beside a point's axis, off the triangle from k = 2 on: only
        # a man (36 mm across) hides the green field there
        x, y = GEO.slot_centre(p, k)
        b, g, r = pixel(image, label, x + (15 if x < GEO.width / 2 else -15), y)
        return bool(g > r + 15 and g > b + 15)

    assert not green(24, 2) and green(24, 3)     # the third dark man, and no fourth
    assert green(1, 2)
    assert all(green(p, 2) for p in (2, 12, 13, 23))


def test_the_same_seed_gives_the_same_picture_and_label():
    a_img, a_label = render(np.random.default_rng(42), SceneSpec(image_size=SMALL))
    b_img, b_label = render(np.random.default_rng(42), SceneSpec(image_size=SMALL))
    c_img, c_label = render(np.random.default_rng(43), SceneSpec(image_size=SMALL))
    assert np.array_equal(a_img, b_img) and a_label == b_label
    assert not np.array_equal(a_img, c_img)


def test_the_jpeg_bytes_decode_to_the_rendered_picture():
    data, label = render_jpeg(np.random.default_rng(5), SceneSpec(image_size=SMALL))
    image, label2 = render(np.random.default_rng(5), SceneSpec(image_size=SMALL))
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, image) and label == label2


def test_the_label_counts_the_men_the_spec_asked_for():
    light = [0] * 24
    dark = [0] * 24
    light[5], light[7], light[12] = 10, 3, 1          # a point of 10: two layers
    dark[18], dark[23] = 6, 2
    doc = {"format": "board/1", "light": light, "dark": dark, "bar": {"light": 1, "dark": 2}}
    _, label = render(np.random.default_rng(1), SceneSpec(position=doc, image_size=SMALL))
    assert label["light"] == light and label["dark"] == dark
    assert label["bar"] == {"light": 1, "dark": 2}
    assert label["off"] == {"light": 0, "dark": 5}
    pos = Position.from_board(board_doc(label), men=15)
    assert pos == Position.from_board(doc, men=15)


def test_a_position_value_is_taken_as_well_as_a_document():
    from willughby.engine.rules import preset_rules, start_position

    start = start_position(preset_rules("backgammon"))
    _, label = render(np.random.default_rng(2), SceneSpec(position=start, image_size=SMALL))
    assert label["position_kind"] == "backgammon_start"
    assert Position.from_board(board_doc(label), men=15).physical_key() == start.physical_key()


@pytest.mark.parametrize("row_max", [5, 6])
def test_the_men_laid_out_are_the_men_of_the_label(row_max):
    stacked_light = [0] * 24
    stacked_light[0] = 3
    light = [3, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10]
    dark = [0] * 24
    dark[11] = 9
    doc = {"format": "board/1", "light": light, "dark": dark, "bar": {"light": 0, "dark": 1},
           "stacked": {"light": stacked_light, "dark": [0] * 24}}
    _, label = render(np.random.default_rng(4), SceneSpec(position=doc, image_size=SMALL))
    men = _layout_men(label, GEO, row_max, 1, np.random.default_rng(0))
    for colour, name in enumerate(("light", "dark")):
        for p in range(1, 25):
            assert sum(1 for m in men if m.colour == colour and m.point == p) == label[name][p - 1]
        assert sum(1 for m in men if m.colour == colour and m.on_bar) == label["bar"][name]
    pile = sorted(m.level for m in men if m.point == 1)
    assert pile == [0.0, 1.0, 2.0]                    # a pile of three at the edge
    ten = [m for m in men if m.point == 24]
    assert sum(m.level == 0 for m in ten) == row_max  # a full row, then men on top
    assert all(abs(m.x - GEO.point_centre_x(24)) < 4 for m in ten)


def test_occluded_scenes_say_so():
    _, label = render(np.random.default_rng(9), SceneSpec(occluded=True, image_size=SMALL))
    assert label["occluded"] is True and label["style"]["occluded"] is True
    _, label = render(np.random.default_rng(9), SceneSpec(occluded=False, image_size=SMALL))
    assert label["occluded"] is False
    shares = [render(np.random.default_rng(s), SceneSpec(occluded_share=1.0, image_size=(320, 180)))[1]["occluded"]
              for s in range(3)]
    assert all(shares)


def test_a_hand_covers_part_of_the_board():
    spec = SceneSpec(position=empty_doc(), occluded=False, n_dice=0, camera_effects=False, image_size=SMALL)
    clear, _ = render(np.random.default_rng(8), spec)
    covered, label = render(np.random.default_rng(8), replace(spec, occluded=True))
    quad = np.array(label["corners"], np.float32)
    mask = np.zeros(clear.shape[:2], np.uint8)
    cv2.fillPoly(mask, [quad.astype(np.int32)], 1)
    changed = (np.abs(clear.astype(int) - covered.astype(int)).sum(2) > 30) & (mask > 0)
    assert changed.sum() > 0.05 * mask.sum()


def test_dice_lie_on_the_surface_and_are_labelled():
    spec = SceneSpec(dice_values=(3, 5), position=empty_doc(), image_size=SMALL)
    _, label = render(np.random.default_rng(6), spec)
    assert [d["value"] for d in label["dice"]] == [3, 5]
    quad = np.array(label["corners"], np.float32).reshape(-1, 1, 2)
    for die in label["dice"]:
        assert cv2.pointPolygonTest(quad, tuple(die["center"]), False) > 0


def test_bad_specs_are_refused_with_the_value_named():
    with pytest.raises(SynthError, match="plaid"):
        SceneSpec(wood="plaid")
    with pytest.raises(SynthError, match="tilt_deg"):
        SceneSpec(tilt_deg=80)
    with pytest.raises(SynthError, match="16"):
        render(np.random.default_rng(0), SceneSpec(position=empty_doc(light=[16] + [0] * 23)))


def test_the_command_writes_n_pairs_in_the_dev_layout(tmp_path, capsys):
    out = tmp_path / "set"
    assert main([str(out), "--count", "3", "--seed", "7", "--occluded-share", "0.5"]) == 0
    printed = capsys.readouterr().out
    assert "3/3" in printed
    names = sorted(p.name for p in out.iterdir())
    assert names == ["img_0001.jpg", "img_0001.json", "img_0002.jpg", "img_0002.json",
                     "img_0003.jpg", "img_0003.json"]
    for i in (1, 2, 3):
        label = json.loads((out / f"img_{i:04d}.json").read_text())
        image = cv2.imread(str(out / f"img_{i:04d}.jpg"))
        assert image.shape[1::-1] == tuple(label["image_size"])
        Position.from_board(board_doc(label), men=15)
    again = tmp_path / "again"
    main([str(again), "--count", "2", "--seed", "7", "--occluded-share", "0.5", "--quiet"])
    assert (again / "img_0002.jpg").read_bytes() == (out / "img_0002.jpg").read_bytes()
    assert (again / "img_0002.json").read_text() == (out / "img_0002.json").read_text()


def test_palette_jitter_spreads_the_colours_but_keeps_light_men_lighter():
    from willughby.vision.synth import MEN_COLOURS, _jittered_palettes, _lum
    seen = set()
    for i in range(200):
        rng = np.random.default_rng(i)
        wood, field, points, men = _jittered_palettes(rng, 0.2, "walnut", "felt_green", "ivory_ebony",
                                                      "ivory_black")
        light, dark, grooved = men
        assert _lum(light) - _lum(dark) >= 60 or (light, dark) == MEN_COLOURS["ivory_black"][:2]
        assert grooved is MEN_COLOURS["ivory_black"][2]
        seen.add(light)
        assert len(points) == 2 and field["kind"] == "felt"
    assert len(seen) > 150          # spread, not one colour


def test_palette_jitter_changes_the_look_not_the_position():
    spec = SceneSpec(image_size=SMALL, position_kind="backgammon_start", occluded=False, camera_effects=False)
    plain_img, plain = render(np.random.default_rng(3), spec)
    spread_img, spread = render(np.random.default_rng(3), replace(spec, palette_jitter=0.15))
    assert board_doc(plain) == board_doc(spread) and plain["corners"] == spread["corners"]
    assert spread["style"]["palette_jitter"] == 0.15
    assert np.abs(plain_img.astype(int) - spread_img.astype(int)).mean() > 2
    with pytest.raises(SynthError, match="palette_jitter"):
        SceneSpec(palette_jitter=0.9)


def test_edge_gap_sets_the_men_off_the_edge_and_apart():
    from willughby.vision.config import VisionConfig
    from willughby.vision.synth import _layout_men
    geo = BoardGeometry(VisionConfig())
    doc = {"light": [0] * 24, "dark": [0] * 24, "bar": {"light": 0, "dark": 0},
           "stacked": {"light": [0] * 24, "dark": [0] * 24}}
    doc["light"][0] = 4            # a row on point 1 (bottom edge)
    doc["dark"][12] = 4            # and on point 13 (top edge)
    doc["light"][5] = doc["stacked"]["light"][5] = 3     # a pile on point 6

    def from_edge(men):
        out = {}
        for m in men:
            out.setdefault(m.point, []).append(m.y if geo.is_top(m.point) else geo.depth - m.y)
        return {p: sorted(v) for p, v in out.items()}

    flush, set_off = [], []
    for seed in range(20):
        flush.append(from_edge(_layout_men(doc, geo, 5, 1, np.random.default_rng(seed))))
        set_off.append(from_edge(_layout_men(doc, geo, 5, 1, np.random.default_rng(seed), gap=3.0, spread=0.4)))
    for p in (1, 13):
        for k in range(4):         # k-th man of the row: 3 mm more, and 0.4 mm more for each man before him
            moved = np.mean([s[p][k] for s in set_off]) - np.mean([f[p][k] for f in flush])
            assert abs(moved - (3.0 + 0.4 * k)) < 0.8, (p, k, moved)
    pile_moved = np.mean([np.mean(s[6]) for s in set_off]) - np.mean([np.mean(f[6]) for f in flush])
    assert abs(pile_moved - 3.0) < 0.8


def test_edge_gap_is_drawn_only_when_asked_and_labelled():
    spec = SceneSpec(image_size=SMALL, position_kind="backgammon_start", occluded=False, camera_effects=False)
    _, plain = render(np.random.default_rng(5), spec)
    _, gapped = render(np.random.default_rng(5), replace(spec, edge_gap=4.0))
    assert plain["style"]["edge_gap_mm"] == 0 and plain["style"]["row_spread_mm"] == 0
    assert 0 <= gapped["style"]["edge_gap_mm"] <= 4.0 and 0 <= gapped["style"]["row_spread_mm"] <= 0.4
    assert board_doc(plain) == board_doc(gapped)
    with pytest.raises(SynthError, match="edge_gap"):
        SceneSpec(edge_gap=-1)
    with pytest.raises(SynthError, match="edge_gap"):
        SceneSpec(edge_gap=20)


def test_cli_edge_gap_reaches_the_frames_and_bad_values_are_refused(tmp_path, capsys):
    from willughby.vision.synth import main
    assert main([str(tmp_path), "--count", "1", "--seed", "4", "--edge-gap", "3", "--quiet"]) == 0
    label = json.loads((tmp_path / "img_0001.json").read_text())
    assert 0 < label["style"]["edge_gap_mm"] <= 3
    with pytest.raises(SystemExit):
        main([str(tmp_path / "no"), "--count", "1", "--edge-gap", "30"])
    assert "edge_gap" in capsys.readouterr().err


def test_varied_men_change_the_finish_not_the_position_and_are_drawn_only_when_asked():
    spec = SceneSpec(image_size=SMALL, position_kind="doublets_start", occluded=False, camera_effects=False)
    plain_img, plain = render(np.random.default_rng(6), spec)
    again_img, _ = render(np.random.default_rng(6), spec)
    assert np.array_equal(plain_img, again_img) and "men_finish" not in plain["style"]
    finishes = []
    for seed in range(12):
        img, label = render(np.random.default_rng(seed), replace(spec, varied_men=True))
        _, same_seed_plain = render(np.random.default_rng(seed), spec)
        assert board_doc(label) == board_doc(same_seed_plain)
        finishes.append(label["style"]["men_finish"])
    assert all(0.85 <= f["side_gain"] <= 1.3 and 0 <= f["askew"] <= 1 for f in finishes)
    assert {tuple(f["grooved"]) for f in finishes} >= {(True, False), (False, True)}
    assert any(f["askew"] == 0 for f in finishes) and any(f["askew"] > 0 for f in finishes)


def test_a_squared_pile_has_its_men_one_above_another():
    from willughby.vision.config import VisionConfig
    geo = BoardGeometry(VisionConfig())
    doc = {"light": [0] * 24, "dark": [0] * 24, "bar": {"light": 0, "dark": 0},
           "stacked": {"light": [0] * 24, "dark": [0] * 24}}
    doc["light"][3] = doc["stacked"]["light"][3] = 3
    for askew, most in ((0.0, 1e-9), (1.0, 8.0)):
        spreads = []
        for seed in range(10):
            pile = [m for m in _layout_men(doc, geo, 5, 1, np.random.default_rng(seed), askew=askew) if m.point == 4]
            assert sorted(m.level for m in pile) == [0, 1, 2]
            xy = np.array([[m.x, m.y] for m in pile])
            spreads.append(float(np.ptp(xy, axis=0).max()))
        assert max(spreads) <= most
        if askew:
            assert max(spreads) > 0.3       # askew piles are askew



def test_men_contrast_brings_the_colours_nearer_but_keeps_them_apart():
    from willughby.vision.synth import MEN_COLOURS, _lum
    spec = SceneSpec(image_size=SMALL, position_kind="backgammon_start", occluded=False, camera_effects=False,
                     men="white_black")
    _, plain = render(np.random.default_rng(8), spec)
    assert "men_rgb" not in plain["style"]
    light0, dark0, _ = MEN_COLOURS["white_black"]
    gaps = []
    for seed in range(20):
        _, label = render(np.random.default_rng(seed), replace(spec, men_contrast=0.3))
        light, dark = label["style"]["men_rgb"]
        assert _lum(light) <= _lum(light0) + 1 and _lum(dark) >= _lum(dark0) - 1
        assert _lum(light) >= 0.7 * _lum(light0) - 1 and _lum(dark) <= 1.6 * _lum(dark0) + 1
        assert _lum(light) - _lum(dark) >= 34
        gaps.append(_lum(light) - _lum(dark))
        assert board_doc(label) == board_doc(plain) or seed != 8
    assert min(gaps) < _lum(light0) - _lum(dark0) - 40       # nearer, and by a good deal at times
    with pytest.raises(SynthError, match="men_contrast"):
        SceneSpec(men_contrast=0.9)


def test_render_like_dev_draws_the_same_position_from_the_same_camera(tmp_path):
    """tools/render_like_dev.py (a diagnostic: the dev set's scenes drawn by
    this generator) keeps each label's position, camera and styles."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "tools" / "render_like_dev.py"
    spec = importlib.util.spec_from_file_location("render_like_dev", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for k, kind in enumerate(("doublets_start", "random"), start=1):
        img, label = render(np.random.default_rng(k), SceneSpec(image_size=SMALL, position_kind=kind, occluded=False))
        (src / f"img_{k:04d}.json").write_text(json.dumps(label))
    (src / "img_0003.json").write_text("{not json")
    assert tool.main([str(src), str(out), "--edge-gap", "2"]) == 0
    for k in (1, 2):
        a = json.loads((src / f"img_{k:04d}.json").read_text())
        b = json.loads((out / f"img_{k:04d}.json").read_text())
        assert board_doc(a) == board_doc(b)
        for key in ("tilt_deg", "focal_mm", "men", "points", "mirror", "image_size", "row_max"):
            assert a["style"][key] == b["style"][key], key
        assert (out / f"img_{k:04d}.jpg").stat().st_size > 1000
    assert not (out / "img_0003.json").exists()
