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
