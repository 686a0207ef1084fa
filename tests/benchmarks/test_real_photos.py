"""The real-photo benchmark's own parts (``benchmarks/real_photos.py``,
``benchmarks/labelled_turns.py``, shared with ``turns_dev.py``): the turns
built from a label are what they claim, checked with the engine's referee;
a photo's reading is counted as ``willughby vision evaluate`` counts it; a
candidate reader is the one read with, and only while measured; a setting
left out of one photo is chosen on the others. Run on frames of the
project's own painter, never the real photos (which are not shipped)."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from willughby.engine.referee import judge
from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
RULES = preset_rules("backgammon")
START = start_position(RULES, "light").to_board()
SPEC = dict(image_size=(1280, 720), tilt_deg=8.0, board_yaw_deg=2.0, cam_az_deg=0.0, cam_roll_deg=0.5, mirror=False,
            focal_mm=35.0, fill=0.85, n_dice=0, wood="walnut", men="white_black", points="red_cream",
            field="felt_green", table="light_table", lighting="overhead", row_max=5, men_thick_mm=9.0)


def _load(name):
    """A benchmark script as a module (the one it imports, ``labelled_turns``, loaded first)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


turns_of = _load("labelled_turns")
bench = _load("real_photos")


def _board(light, dark, bar=(0, 0)):
    off = {"light": 15 - sum(light) - bar[0], "dark": 15 - sum(dark) - bar[1]}
    return {"format": "board/1", "light": light, "dark": dark, "bar": {"light": bar[0], "dark": bar[1]}, "off": off}


def _check_claims(label, turns):
    after = turns_of.after_position(label)
    for t in turns:
        ruling = judge(RULES, t.before, t.dice, after)
        assert ruling.verdict == t.kind, (t.before.to_board(), t.dice, t.kind, ruling.reason)
        assert t.before.turn in ("light", "dark")


@pytest.mark.parametrize("seed", range(6))
def test_the_turns_built_from_a_label_are_legal_and_illegal_as_they_claim(seed):
    # a middle game: both sides can have moved
    label = _board([0, 2, 0, 3, 0, 4, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
                   [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 3, 0, 3, 0, 2, 0, 1, 0])
    turns = turns_of.build_turn_set(label, random.Random(seed), count=3)
    assert [t.legal for t in turns].count(True) >= 1
    assert len({(t.before.id(), t.dice, t.legal) for t in turns}) == len(turns)        # no turn twice
    _check_claims(label, turns)


def test_with_men_on_the_bar_a_turn_is_undone_as_entries_and_still_checked_by_the_engine():
    light, dark = list(START["light"]), list(START["dark"])
    light[12] -= 2
    light[20] += 1            # a man entered on light's 21 point (a 4), another on the bar ...
    dark[11] -= 2
    dark[3] += 1              # ... and the same for dark
    label = _board(light, dark, bar=(1, 1))
    assert turns_of.build_turns(label, random.Random(0)) == []        # as turns_dev.py builds: no mover
    built = [t for seed in range(8) for t in turns_of.build_turn_set(label, random.Random(seed), 3, enter=True)]
    assert any(t.legal for t in built) and any(not t.legal for t in built)
    assert all(t.before.bar[0 if t.before.turn == "light" else 1] > 1 for t in built)   # he had more on the bar
    _check_claims(label, built)


def test_one_turn_a_label_is_what_turns_dev_has_always_built():
    label = _board([0, 2, 0, 3, 0, 4, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2], list(START["dark"]))
    a, b = random.Random(9), random.Random(9)
    assert turns_of.build_turn_set(label, a, count=1) == turns_of.build_turns(label, b)
    assert a.random() == b.random()                       # the same draws: turns_dev.py's figures stand


@pytest.mark.parametrize("legal, verdict, outcome", [
    (True, "legal", "right"), (False, "illegal", "right"), (True, "illegal", "wrong"), (False, "legal", "wrong"),
    (True, "unsure", "asked"), (False, "unsure", "asked")])
def test_a_verdict_is_scored_against_what_the_turn_was(legal, verdict, outcome):
    t = turns_of.Turn(start_position(RULES, "light"), (3, 1), legal)
    assert turns_of.score(t, {"verdict": verdict}) == outcome
    assert turns_of.score(t, {}) == "error"


@pytest.fixture(scope="module")
def painted(tmp_path_factory):
    """A painted photo of the start and its label, as the real photos' folder holds them."""
    from willughby.vision.synth import SceneSpec, render

    d = tmp_path_factory.mktemp("painted")
    image, label = render(np.random.default_rng(5), SceneSpec(position=START, occluded=False, **SPEC))
    cv2.imwrite(str(d / "start.jpg"), image)
    (d / "start.json").write_text(json.dumps(label))
    return d


needs_net = pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")


@needs_net
def test_a_photo_s_reading_is_counted_as_the_evaluation_counts_it(painted, tmp_path):
    photos = bench.plan(painted, jitter=0.0, turns=2, seed=3)
    assert [p.name for p in photos] == ["start.jpg"] and photos[0].turns
    _check_claims(photos[0].label, photos[0].turns)
    [result] = bench.measure(bench.Reader("shipped"), photos, tmp_path, quiet=True)
    assert result.read and sum(sum(result.tally[k].values()) for k in bench.KINDS) == len(photos[0].turns)
    # the label made wrong at one point: that point and light's men off are counted wrong, nothing else
    wrong = json.loads(json.dumps(photos[0].label))
    wrong["light"][5] -= 1
    doctored = [bench.Photo("start.jpg", wrong, photos[0].image, photos[0].corners, photos[0].turns[:1])]
    [worse] = bench.measure(bench.Reader("shipped"), doctored, tmp_path, quiet=True)
    assert (result.points_right - worse.points_right, result.locations_right - worse.locations_right) == (1, 2)
    assert result.locations == worse.locations == 52 and not worse.exact
    assert "light:6 4->5" in worse.diffs and "light:off 1->0" in worse.diffs
    lines = bench.table([bench.Reader("shipped")], [[result]])
    assert lines[2].startswith("| start.jpg | read | ") and lines[-1].startswith("| **total** | 1/1 |")


def test_a_candidate_is_read_with_only_while_it_is_measured(tmp_path):
    from willughby.vision import turns
    from willughby.vision.config import VisionConfig

    net = tmp_path / "other.onnx"
    net.write_bytes(b"")
    calibration = tmp_path / "turns.json"
    calibration.write_text(json.dumps({"temperature": 2.5, "config": {"legal_min": 0.9991}}))
    config = VisionConfig().with_values({"occlusion": {"z_frame": 6.0}})
    loaded = []
    real_net = pointnet._net
    try:
        pointnet._net = loaded.append
        real_parts = pointnet._parts
        with bench.installed(bench.Reader("candidate", config, net, calibration)):
            assert VisionConfig.default().occlusion.z_frame == 6.0
            # the shipped network's two parts are never read for the candidate: it is read whole
            assert pointnet._parts(str(pointnet.MODEL_PATH)) is None
            pointnet._net(str(pointnet.MODEL_PATH))
            pointnet._net("/somewhere/else.onnx")
            assert (turns.TurnReader().config.temperature, turns.TurnReader().config.legal_min) == (2.5, 0.9991)
        assert loaded == [str(net), "/somewhere/else.onnx"]
        assert pointnet._parts is real_parts
    finally:
        pointnet._net = real_net
    assert VisionConfig.default().occlusion.z_frame == VisionConfig().occlusion.z_frame
    assert turns.TurnReader().config.temperature != 2.5


def test_a_setting_is_chosen_on_the_other_photos_for_each_photo():
    def photo(name, wrong=0, right=0, locations=0):
        r = bench.PhotoResult(name, read=True, locations_right=locations)
        r.tally["legal"].update({"wrong": wrong, "right": right})
        return r

    # value 1 rules more right on a and b, but one wrong on c: left out, a and b take 2 (fewer wrong counts
    # before more right), and c takes 1 (more right on a and b)
    per_value = {1: [photo("a", right=2), photo("b", right=2), photo("c", wrong=1, right=3)],
                 2: [photo("a", right=1), photo("b", right=1), photo("c", right=3)]}
    held = bench.leave_one_out(per_value, shipped=2)
    assert [(v, r.name, r.tally["legal"]["right"]) for v, r in held] == [(2, "a", 1), (2, "b", 1), (1, "c", 3)]
    # where the others tie, the shipped value is kept, else the first listed
    per_value = {1: [photo("a", right=2), photo("b", right=2)], 2: [photo("a", right=2), photo("b", right=2)],
                 3: [photo("a", right=1), photo("b", right=1)]}
    assert [v for v, _ in bench.leave_one_out(per_value, shipped=2)] == [2, 2]
    assert [v for v, _ in bench.leave_one_out(per_value, shipped=5)] == [1, 1]


def test_a_dotted_setting_is_set_on_the_configuration():
    from willughby.vision.config import VisionConfig

    config = bench.with_setting(VisionConfig(), "reader.top_votes", 25)
    assert bench.current_value(config, "reader.top_votes") == 25.0
    assert bench.with_setting(VisionConfig(), "man_thickness", 9).man_thickness == 9.0
