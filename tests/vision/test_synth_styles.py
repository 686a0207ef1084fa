"""The painter's held-out styles: boards, men, light and lenses the shipped
point reader never learnt from.  They are drawn only when named or through a
held-out style set, never when a scene leaves its styles open, so the
training frames of every seed stay as they were."""

from __future__ import annotations

import json

import numpy as np
import pytest

from willughby.vision.synth import (
    FIELDS,
    HELD_OUT,
    LENSES,
    LIGHTINGS,
    MEN_COLOURS,
    RANDOMIZED,
    POINT_COLOURS,
    STYLE_FIELDS,
    STYLE_SETS,
    STYLES,
    TABLES,
    WOODS,
    SceneSpec,
    SynthError,
    main,
    plan_scene,
    render,
    style_choices,
)
from willughby.vision.synth.plan import _lum
from willughby.vision.synth.randomized import RANGES, rgb_to_lab

TINY = (320, 180)
TRAINING_TABLES = {"wood": WOODS, "men": MEN_COLOURS, "points": POINT_COLOURS, "field": FIELDS,
                   "table": TABLES, "lighting": LIGHTINGS, "lens": LENSES}
PLAN_NAMES = {"wood": "wood", "men": "men_style", "points": "points", "field": "field", "table": "table",
              "lighting": "lighting", "lens": "lens"}


def names_of(plan) -> dict[str, str]:
    return {f: getattr(plan, PLAN_NAMES[f]) for f in STYLE_FIELDS}


HELD_OUT_ENTRIES = [(f, n) for f in STYLE_FIELDS for n in HELD_OUT[f]]


@pytest.mark.parametrize("field,name", HELD_OUT_ENTRIES)
def test_a_frame_of_each_held_out_style_renders(field, name):
    image, label = render(np.random.default_rng(3), SceneSpec(image_size=TINY, **{field: name}))
    assert image.shape == (TINY[1], TINY[0], 3) and image.std() > 5
    assert label["style"][field] == name
    json.dumps(label)


def test_the_training_set_is_exactly_todays_tables_and_weights():
    for f in STYLE_FIELDS:
        assert STYLE_SETS["training"][f] == tuple(TRAINING_TABLES[f])
        assert not set(HELD_OUT[f]) & set(TRAINING_TABLES[f])
        assert set(STYLES[f]) == set(TRAINING_TABLES[f]) | set(HELD_OUT[f])
    assert style_choices(None, "wood") == (tuple(WOODS), (3, 2, 2, 1, 1, 3))
    assert style_choices(None, "lighting") == (tuple(LIGHTINGS), (5, 3, 2))


def test_the_held_out_sets_are_disjoint_from_each_other_and_from_training():
    fit, test, training = STYLE_SETS["held-out-fit"], STYLE_SETS["held-out-test"], STYLE_SETS["training"]
    for f in STYLE_FIELDS:
        assert fit[f] and test[f], f                         # something held out in every field
        assert not set(fit[f]) & set(test[f]), f
        assert not (set(fit[f]) | set(test[f])) & set(training[f]), f
        assert set(fit[f]) | set(test[f]) == set(HELD_OUT[f]), f
    # and no palette appears in both sets under two names
    for table in ("wood", "field", "points", "men", "table"):
        fit_entries = [repr(HELD_OUT[table][n]) for n in fit[table]]
        assert not {repr(HELD_OUT[table][n]) for n in test[table]} & set(fit_entries)


def test_open_styles_never_draw_a_held_out_name():
    for seed in range(400):
        plan = plan_scene(np.random.default_rng(seed), SceneSpec(image_size=TINY))
        for f, name in names_of(plan).items():
            assert name in STYLE_SETS["training"][f], (seed, f, name)


def test_default_frames_are_drawn_as_before():
    """The styles of the first seeds, as the painter drew them before the
    held-out styles came (a frame's every other choice follows from these
    draws staying in step)."""
    expected = [
        ("cherry", "ivory_brown", "red_black", "same_wood", "blue_cloth", "warm_lamp"),
        ("tan_leather", "ivory_brown", "brown_sand", "leather_cream", "white_cloth", "overhead"),
        ("walnut", "ivory_brown", "red_black", "same_wood", "white_cloth", "overhead"),
        ("tan_leather", "white_black", "ivory_ebony", "same_wood", "dark_table", "overhead"),
    ]
    for seed, want in enumerate(expected):
        p = plan_scene(np.random.default_rng(seed), SceneSpec())
        assert (p.wood, p.men_style, p.points, p.field, p.table, p.lighting) == want
    _, label = render(np.random.default_rng(0), SceneSpec(image_size=TINY))
    assert "style_set" not in label["style"] and "lens" not in label["style"]


@pytest.mark.parametrize("style_set", ["held-out-fit", "held-out-test"])
def test_a_style_set_draws_every_open_style_from_the_set_and_says_so(style_set):
    seen = {f: set() for f in STYLE_FIELDS}
    for seed in range(60):
        plan = plan_scene(np.random.default_rng(seed), SceneSpec(image_size=TINY, style_set=style_set))
        for f, name in names_of(plan).items():
            assert name in STYLE_SETS[style_set][f], (seed, f, name)
            seen[f].add(name)
    assert all(seen[f] == set(STYLE_SETS[style_set][f]) for f in STYLE_FIELDS)
    _, label = render(np.random.default_rng(1), SceneSpec(image_size=TINY, style_set=style_set))
    assert label["style"]["style_set"] == style_set
    assert label["style"]["lens"] in STYLE_SETS[style_set]["lens"]


def test_a_named_style_wins_over_the_set():
    plan = plan_scene(np.random.default_rng(2), SceneSpec(style_set="held-out-test", wood="walnut",
                                                          lighting="overhead_glare"))
    assert plan.wood == "walnut" and plan.lighting == "overhead_glare"
    assert plan.men_style in STYLE_SETS["held-out-test"]["men"]


def test_the_training_set_by_name_draws_the_same_picture_as_none():
    a_img, a = render(np.random.default_rng(4), SceneSpec(image_size=TINY))
    b_img, b = render(np.random.default_rng(4), SceneSpec(image_size=TINY, style_set="training"))
    assert np.array_equal(a_img, b_img)
    assert b["style"].pop("style_set") == "training" and b["style"].pop("lens") == "pi_camera"
    assert a == b


def test_held_out_men_stay_two_clearly_different_colours():
    for name, (light, dark, _) in HELD_OUT["men"].items():
        assert _lum(light) - _lum(dark) >= 60, name


def test_held_out_light_and_lens_reach_the_picture_settings():
    _, glare = render(np.random.default_rng(5), SceneSpec(image_size=TINY, lighting="overhead_glare"))
    x, y, radius, strength = glare["style"]["glare"]
    assert 50 <= radius <= 110 and 0.45 <= strength <= 0.75
    _, low = render(np.random.default_rng(5), SceneSpec(image_size=TINY, lighting="low_side_sun"))
    assert 14 <= low["style"]["light_elev_deg"] <= 22
    _, grainy = render(np.random.default_rng(5), SceneSpec(image_size=TINY, lens="grainy_phone"))
    assert grainy["style"]["post"]["noise"] >= 5.0 and grainy["style"]["lens"] == "grainy_phone"


def test_unknown_sets_and_styles_are_refused():
    with pytest.raises(SynthError, match="style_set"):
        SceneSpec(style_set="held-out")
    with pytest.raises(SynthError, match="fisheye"):
        SceneSpec(lens="fisheye")


def test_the_command_draws_a_style_set(tmp_path):
    assert main([str(tmp_path), "--count", "2", "--seed", "3", "--style-set", "held-out-test", "--quiet"]) == 0
    for i in (1, 2):
        style = json.loads((tmp_path / f"img_{i:04d}.json").read_text())["style"]
        assert style["style_set"] == "held-out-test"
        assert style["wood"] in STYLE_SETS["held-out-test"]["wood"]


# ------------------------------------------------------- the randomised set
# (``SceneSpec(style_set="randomized")``: every scene draws its own palettes,
# light and lens from wide ranges, for training by domain randomisation)

def _lch(rgb) -> tuple[float, float]:
    L, a, b = rgb_to_lab(rgb)
    return float(L), float(np.hypot(a, b))


def _randomized_plans(n: int, **spec):
    return [plan_scene(np.random.default_rng(seed), SceneSpec(image_size=TINY, style_set=RANDOMIZED, **spec))
            for seed in range(n)]


def test_the_randomized_set_draws_a_new_palette_every_scene():
    plans = _randomized_plans(60)
    for f in ("wood_e", "points_e", "men_e"):
        assert len({repr(getattr(p, f)) for p in plans}) == 60, f
    coloured = [p.field_e["colour"] for p in plans if p.field_e["colour"] is not None]
    assert len(set(coloured)) == len(coloured) >= 30     # (a field of the board's own wood has no colour)
    assert len({p.lighting_e["cast"] for p in plans}) == 60
    assert len({repr(p.table_e) for p in plans}) == 60
    # every kind turns up: grain and leather boards, felt, leather and wooden fields,
    # grooved and plain men, wooden and cloth tables, every fall-off, glare and none
    assert {p.wood_e["kind"] for p in plans} == {"grain", "leather"}
    assert {p.field_e["kind"] for p in plans} == {"felt", "leather", "wood"}
    assert {p.men_e[2] for p in plans} == {True, False}
    assert {p.table_e["kind"] for p in plans} == {"wood", "cloth"}
    assert {p.lighting_e["falloff"] for p in plans} == {"gradient", "spot", "spot_wide"}
    assert {"glare" in p.lighting_e for p in plans} == {True, False}
    # the men's lightness gap is sometimes small and sometimes large
    gaps = [_lch(p.men_e[0])[0] - _lch(p.men_e[1])[0] for p in plans]
    assert min(gaps) < 30 and max(gaps) > 60


def test_the_randomized_set_stays_in_its_ranges():
    r = RANGES
    for p in _randomized_plans(80):
        for rgb in (p.wood_e["light"], p.wood_e["dark"], *p.points_e, p.men_e[0], p.men_e[1], p.table_e["light"]):
            assert len(rgb) == 3 and all(isinstance(c, int) and 0 <= c <= 255 for c in rgb)
        L, C = _lch(p.wood_e["light"])
        assert r["wood"]["L"][0] - 1 <= L <= r["wood"]["L"][1] + 1 and C <= r["wood"]["C"][1] + 1
        assert _lch(p.wood_e["dark"])[0] < L
        if p.field_e["colour"] is not None:
            L, C = _lch(p.field_e["colour"])
            assert r["field"]["L"][0] - 1 <= L <= r["field"]["L"][1] + 1 and C <= r["field"]["C"][1] + 1
        a, b = (rgb_to_lab(c) for c in p.points_e)
        assert np.linalg.norm(a - b) >= r["points"]["min_delta_e"]
        light, dark, _ = p.men_e
        assert r["men"]["light_L"][0] - 1 <= _lch(light)[0] <= r["men"]["light_L"][1] + 1
        assert _lum(light) - _lum(dark) >= r["men"]["min_luma_gap"]
        lit = p.lighting_e
        assert r["lighting"]["exposure"][0] <= lit["exposure"] <= r["lighting"]["exposure"][1]
        assert all(0.6 < c < 1.5 for c in lit["cast"])
        assert r["lighting"]["elev_deg"][0] <= np.degrees(p.elev) <= r["lighting"]["elev_deg"][1]
        assert r["lighting"]["ambient"][0] <= p.light.ambient <= r["lighting"]["ambient"][1]
        assert p.lens_e == r["lens"]


def test_the_randomized_ranges_hold_every_named_style():
    """Wide enough for every named entry, training and held-out alike (the
    ranges are generic; this only checks they reach that far)."""
    r = RANGES
    for e in STYLES["wood"].values():
        (L, C), (dL, _) = _lch(e["light"]), _lch(e["dark"])
        assert r["wood"]["L"][0] <= L <= r["wood"]["L"][1] and C <= r["wood"]["C"][1]
        scale = 0.6 if e["kind"] == "leather" else 1.0
        assert r["wood"]["dark_drop"][0] * scale - 3 <= L - dL <= r["wood"]["dark_drop"][1] * scale
    for e in STYLES["field"].values():
        if e["colour"] is not None:
            L, C = _lch(e["colour"])
            assert r["field"]["L"][0] <= L <= r["field"]["L"][1] and C <= r["field"]["C"][1]
    for pair in STYLES["points"].values():
        for c in pair:
            L, C = _lch(c)
            assert r["points"]["L"][0] <= L <= r["points"]["L"][1] and C <= r["points"]["C"][1]
        assert np.linalg.norm(rgb_to_lab(pair[0]) - rgb_to_lab(pair[1])) >= r["points"]["min_delta_e"]
    for light, dark, _ in STYLES["men"].values():
        (L, C), (dL, dC) = _lch(light), _lch(dark)
        assert r["men"]["light_L"][0] <= L <= r["men"]["light_L"][1] and C <= r["men"]["light_C"][1]
        assert r["men"]["gap"][0] <= L - dL <= r["men"]["gap"][1] and dC <= r["men"]["dark_C"][1]
    for e in STYLES["table"].values():
        L, C = _lch(e["light"])
        assert r["table"]["L"][0] <= L <= r["table"]["L"][1] and C <= r["table"]["C"][1]
    lr = r["lighting"]
    for e in STYLES["lighting"].values():
        assert e["falloff"] in lr["falloffs"]
        red, green, blue = np.log(e["cast"])
        # the cast as a warmth and a tint: log(r/g) = a w - t, log(b/g) = b w - t
        a, b = lr["red_per_warmth"], lr["blue_per_warmth"]
        w = ((red - green) - (blue - green)) / (a - b)
        t = a * w - (red - green)
        assert lr["warmth"][0] <= w <= lr["warmth"][1] and lr["tint"][0] - 0.02 <= t <= lr["tint"][1] + 0.02
        assert lr["exposure"][0] <= e.get("exposure", 0) <= lr["exposure"][1]
        for key in ("elev_deg", "ambient", "glare"):
            if key in e:
                assert lr[key][0] <= e[key][0] and e[key][1] <= lr[key][1], key
    for e in STYLES["lens"].values():
        for key, (lo, hi) in e.items():
            assert r["lens"][key][0] <= lo and hi <= r["lens"][key][1], key


def test_the_randomized_set_never_names_or_reads_a_held_out_style():
    import inspect

    from willughby.vision.synth import randomized

    code = inspect.getsource(randomized).split('"""', 2)[2]     # less the module's docstring
    assert "HELD_OUT" not in code and "import" not in code.replace("from __future__ import annotations", "") \
        .replace("import math", "").replace("from typing import Any, Sequence", "").replace("import numpy as np", "")
    for f in STYLE_FIELDS:
        for name in HELD_OUT[f]:
            assert name not in code, name
    held_out_entries = {repr(e) for f in ("wood", "field", "points", "men", "table") for e in HELD_OUT[f].values()}
    for p in _randomized_plans(40):
        assert set(names_of(p).values()) == {"random"}
        assert not {repr(p.wood_e), repr(p.field_e), repr(p.points_e), repr(p.men_e), repr(p.table_e)} \
            & held_out_entries


def test_a_randomized_frame_renders_and_its_label_says_what_was_drawn():
    image, label = render(np.random.default_rng(7), SceneSpec(image_size=TINY, style_set=RANDOMIZED))
    assert image.shape == (TINY[1], TINY[0], 3) and image.std() > 5
    style = label["style"]
    assert style["style_set"] == RANDOMIZED and style["wood"] == "random" and style["lens"] == "random"
    assert set(style["randomized"]) == set(STYLE_FIELDS)
    json.dumps(label)
    again, label2 = render(np.random.default_rng(7), SceneSpec(image_size=TINY, style_set=RANDOMIZED))
    assert np.array_equal(image, again) and label == label2


def test_a_named_style_wins_in_the_randomized_set_and_leaves_the_others_as_drawn():
    open_ = plan_scene(np.random.default_rng(3), SceneSpec(image_size=TINY, style_set=RANDOMIZED))
    named = plan_scene(np.random.default_rng(3), SceneSpec(image_size=TINY, style_set=RANDOMIZED, wood="walnut",
                                                           lighting="overhead"))
    assert named.wood == "walnut" and named.wood_e == WOODS["walnut"]
    assert named.lighting == "overhead" and named.lighting_e == LIGHTINGS["overhead"]
    assert (named.men_e, named.points_e, named.field_e, named.table_e) == \
        (open_.men_e, open_.points_e, open_.field_e, open_.table_e)
    _, label = render(np.random.default_rng(3), SceneSpec(image_size=TINY, style_set=RANDOMIZED, wood="walnut"))
    assert "wood" not in label["style"]["randomized"] and label["style"]["wood"] == "walnut"


def test_the_randomized_set_leaves_the_named_sets_frames_as_they_were():
    """The named sets draw nothing from the ranges: a plan of each is the
    same whether or not a randomised scene was drawn before it."""
    for style_set in (None, "training", "held-out-fit", "held-out-test"):
        spec = SceneSpec(image_size=TINY, style_set=style_set)
        a = plan_scene(np.random.default_rng(11), spec)
        plan_scene(np.random.default_rng(11), SceneSpec(image_size=TINY, style_set=RANDOMIZED))
        b = plan_scene(np.random.default_rng(11), spec)
        assert names_of(a) == names_of(b) and a.men_e == b.men_e
        assert a.style_e == {f: STYLES[f][n] for f, n in names_of(a).items()}


def test_the_commands_draw_the_randomized_set(tmp_path):
    assert main([str(tmp_path), "--count", "1", "--seed", "3", "--style-set", RANDOMIZED, "--quiet"]) == 0
    style = json.loads((tmp_path / "img_0001.json").read_text())["style"]
    assert style["style_set"] == RANDOMIZED and "randomized" in style
    import subprocess
    import sys
    from pathlib import Path

    tool = Path(__file__).resolve().parents[2] / "tools" / "point_reader_data.py"
    out = tmp_path / "r.npz"
    done = subprocess.run([sys.executable, str(tool), str(out), "--count", "2", "--seed", "20000",
                           "--style-set", RANDOMIZED], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(np.load(out)["cls"]) == 48
