"""The point reader adapted to the board it watches (vision/board_head.py)."""

from __future__ import annotations

import numpy as np
import pytest

from willughby.vision import pointnet
from willughby.vision.board_head import (CLASSES, FEATURES, BoardExamples, BoardHead, HeadConfig,
                                         board_classes_of)
from willughby.vision.errors import CalibrationError, VisionError
from willughby.vision.reader import Look, learn_look, read_board
from willughby.vision.strips import Strips

needs_reader = pytest.mark.skipif(not pointnet.available(), reason="no point reader installed")


def _frame(rng: np.random.Generator, classes: np.ndarray, confused: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Features that carry each point's class (one direction per class, with noise), and a network that
    reads class k as confused[k] (all its weight there) and the others right."""
    basis = np.random.default_rng(0).normal(size=(CLASSES, FEATURES))
    f = np.maximum(basis[classes] + 0.3 * rng.normal(size=(len(classes), FEATURES)), 0).astype(np.float32)
    p = np.full((len(classes), CLASSES), 0.01 / (CLASSES - 1), np.float32)
    for i, k in enumerate(classes):
        p[i] = 0.01 / (CLASSES - 1)
        p[i, confused.get(int(k), int(k))] = 0.99
    return f, p


def test_an_empty_head_reads_as_the_network():
    p = np.random.default_rng(1).dirichlet(np.ones(CLASSES), size=24).astype(np.float32)
    f = np.ones((24, FEATURES), np.float32)
    assert np.array_equal(BoardHead.empty().apply(p, f), p)
    assert np.array_equal(BoardHead.empty().apply(p, None), p)


def test_a_class_the_network_misreads_is_read_right_once_learnt():
    rng = np.random.default_rng(2)
    # this board's single dark man (16) reads as empty to the network; two dark men (17) it reads right
    classes = np.array([16, 0, 17, 0, 2] * 4 + [0, 0, 16, 5])
    head = BoardHead.empty()
    for _ in range(3):
        f, p = _frame(rng, classes, {16: 0})
        head.learn(f, p, classes)
    f, p = _frame(rng, classes, {16: 0})
    assert (p.argmax(1)[classes == 16] == 0).all()                 # cold: the single men are missed
    assert (head.apply(p, f).argmax(1) == classes).all()            # learnt: every point read right


def test_only_the_colours_and_numbers_seen_are_corrected():
    rng = np.random.default_rng(3)
    classes = np.array([0, 2, 3, 5, 17, 18, 20] * 3 + [0, 0, 0])    # a start: empty, 2, 3, 5 of each colour
    head = BoardHead.empty()
    f, p = _frame(rng, classes, {18: 0})
    head.learn(f, p, classes, start=True)
    # four men (4, 19) and a single man (1, 16) were never seen: their count's correction stays 0, so a
    # class is corrected only through its colour, which the start showed
    four_light, two_light = head.weight[4], head.weight[2]
    light_part = head.weight[1]                                    # one light man: the light colour's part alone
    assert np.allclose(four_light, light_part)                       # no count part for 4, nor for 1
    assert not np.allclose(two_light, light_part)                    # two men were seen: a count part of its own


def test_examples_keep_the_start_and_drop_the_oldest():
    ex = BoardExamples()
    rng = np.random.default_rng(4)
    classes = np.zeros(24, np.int64)
    f, p = _frame(rng, classes, {})
    ex.add(f, p, classes, most=48, keep=True)
    for k in range(1, 4):
        ex.add(f + k, p, classes, most=48)
    assert len(ex) == 48 and ex.kept == 24
    assert np.allclose(ex.features[:24], f)                          # the start's, kept
    assert np.allclose(ex.features[24:], f + 3)                      # the newest; the older ones dropped


def test_bad_examples_are_refused_with_one_clear_error():
    ex = BoardExamples()
    with pytest.raises(VisionError, match="same points"):
        ex.add(np.zeros((24, FEATURES)), np.zeros((23, CLASSES)), np.zeros(24, np.int64))
    with pytest.raises(VisionError, match="out of range"):
        ex.add(np.zeros((24, FEATURES)), np.zeros((24, CLASSES)), np.full(24, 31))
    with pytest.raises(VisionError, match="strength"):
        HeadConfig(strength=0)


def _learnt(seed: int) -> tuple[BoardHead, np.ndarray, np.ndarray]:
    """A head that learnt one start-like frame (its single dark men read as empty), and that frame."""
    classes = np.array([16, 0, 17, 0, 2] * 4 + [0, 0, 16, 5])
    head = BoardHead.empty()
    f, p = _frame(np.random.default_rng(seed), classes, {16: 0})
    head.learn(f, p, classes, start=True)
    return head, f, p


def test_the_head_round_trips_through_json_and_a_damaged_one_is_refused():
    head, f, p = _learnt(5)
    back = BoardHead.from_json(head.to_json())
    assert np.allclose(back.apply(p, f), head.apply(p, f), atol=1e-5)
    assert len(back.examples) == 24 and back.examples.kept == 24
    doc = head.to_json()
    doc["weight"] = doc["weight"][:-8]
    with pytest.raises(VisionError, match="damaged"):
        BoardHead.from_json(doc)
    with pytest.raises(VisionError, match="willughby-board-head/1"):
        BoardHead.from_json({"format": "something else"})


def test_a_look_keeps_its_head_and_a_damaged_head_is_the_calibrations_error():
    head, f, p = _learnt(6)
    look = Look({}, ((50.0, 0.0, 0.0), (20.0, 0.0, 0.0)), (40.0, 0.0, 0.0), (60.0, 0.0, 0.0), head=head)
    back = Look.from_json(look.to_json())
    assert back.head is not None and np.allclose(back.head.apply(p, f), head.apply(p, f), atol=1e-5)
    doc = look.to_json()
    doc["head"]["format"] = "nonsense"
    with pytest.raises(CalibrationError, match="board look"):
        Look.from_json(doc)


@needs_reader
def test_the_shipped_network_gives_each_points_features_and_the_same_probabilities():
    rng = np.random.default_rng(7)
    strips = Strips(rng.random((24, 4, 140, 28)).astype(np.float32), rng.random((24, 6)).astype(np.float32))
    count, pile = pointnet.probabilities(strips)
    count2, pile2, features = pointnet.probabilities_and_features(strips)
    assert features is not None and features.shape == (24, FEATURES)
    assert np.array_equal(count, count2) and np.array_equal(pile, pile2)


def _board(dark_singles: tuple[int, ...]) -> dict:
    light, dark = [0] * 24, [0] * 24
    light[0], light[11], light[16], light[18] = 2, 5, 3, 5
    dark[23], dark[12], dark[7], dark[5] = 2, 5, 3, 3
    for p in dark_singles:
        dark[p] = 1
    return {"format": "board/1", "turn": "light", "light": light, "dark": dark, "bar": {"light": 0, "dark": 0},
            "off": {"light": 15 - sum(light), "dark": 15 - sum(dark)}}


@needs_reader
def test_a_board_the_cold_reader_misreads_is_read_right_once_this_board_is_learnt():
    """Ebony men on black points and black felt, under a side lamp: the shipped network misreads the single
    dark men here (v13 read navy men so; v14, trained on path-traced dark men on dark points as well, reads
    those right cold). Taught the start and three known boards of this table, it reads two new boards
    better than cold, neither worse (issue 45: learning a board must make its next pictures read better,
    not worse), and at least one of them exactly (v14 read both exactly; v15 one, its other board's cold
    misread mended and one empty point read as a single dark man)."""
    from willughby.vision.synth import Scene, SceneSpec

    spec = SceneSpec(n_dice=0, wood="greywashed_oak", men="olive_ebony", points="black_white", field="felt_black",
                     lighting="side_lamp_shadows", image_size=(1280, 720), tilt_deg=10.0, board_yaw_deg=7.0,
                     cam_az_deg=140.0, row_max=5, occluded=False)
    scene = Scene(np.random.default_rng(2), spec)
    start = _board(())
    image, label = scene.render(start, np.random.default_rng(1), n_dice=0)
    corners = label["corners"]
    look = learn_look(image, corners, known=start)
    assert look.head is not None and look.head.examples.kept == 24

    def read(board: dict) -> tuple[np.ndarray, object]:
        picture, _ = scene.render(board, np.random.default_rng(7), n_dice=0)
        return board_classes_of(board["light"], board["dark"]), read_board(picture, corners, look=look)

    boards = [_board(s) for s in ((4, 10), (15, 21))]
    cold = [int((r.net_count_probs.argmax(1) != truth).sum()) for truth, r in map(read, boards)]
    assert all(c >= 1 for c in cold)
    for singles in ((1, 3), (9, 14), (20, 2)):
        truth, r = read(_board(singles))
        look.head.learn(r.point_features, r.net_count_probs, truth)
    learnt = [int((r.count_probs.argmax(1) != truth).sum()) for truth, r in map(read, boards)]
    # read_board applies what the look learnt
    assert sum(learnt) < sum(cold) and all(a <= c for a, c in zip(learnt, cold)) and min(learnt) == 0


def test_one_wrong_answer_learnt_does_not_make_the_next_reading_wrong():
    """A player answers wrongly once and the camera, unsure, could not contradict it: that frame is learnt
    with a wrong board (the single dark men called two). The right frames around it outweigh it: the next
    frame is still read right."""
    rng = np.random.default_rng(8)
    classes = np.array([16, 0, 17, 0, 2] * 4 + [0, 0, 16, 5])
    head = BoardHead.empty()
    for k in range(4):
        f, p = _frame(rng, classes, {16: 0})
        told = classes.copy()
        if k == 1:
            told[told == 16] = 17                                     # the wrong answer
        head.learn(f, p, told)
    f, p = _frame(rng, classes, {16: 0})
    assert (head.apply(p, f).argmax(1) == classes).all()


def test_a_reader_that_learnt_this_board_is_not_softened_by_the_cold_networks_temperature():
    from types import SimpleNamespace

    from willughby.vision.turns import TurnConfig, TurnEvidence, TurnReader

    p = np.full((24, CLASSES), 0.001)
    p[:, 0] = 1 - 0.001 * (CLASSES - 1)
    reader = TurnReader(TurnConfig(temperature=2.0))
    cold, learnt = reader.log_probs(p), reader.log_probs(p, learnt_frames=1)
    assert np.allclose(learnt, np.log(p))                             # its own probabilities, as they are
    assert cold[0, 0] < learnt[0, 0]                                  # the cold network's, softened
    reading = SimpleNamespace(count_probs=p, bar={"light": 0, "dark": 0}, settled=True, occluded=False,
                              pile_probs=None, learnt_frames=3)
    assert TurnEvidence.from_reading(reading).learnt_frames == 3
