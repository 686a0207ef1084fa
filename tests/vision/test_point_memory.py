"""The point reader reads again only the points whose picture changed since the frame it read before
(vision/point_memory.py, pointnet.read_frame): the network in two parts gives the whole network's numbers,
a point whose picture did not change keeps what was read of it, and any change is read again."""

from __future__ import annotations

import numpy as np
import pytest

from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet
from willughby.vision.board_head import board_classes_of
from willughby.vision.errors import VisionError
from willughby.vision.point_memory import PointMemory, SAME_FAINT_SHARE, unchanged_points
from willughby.vision.reader import read_board
from willughby.vision.strips import AUX, CHANNELS, STRIP_PX, Strips
from willughby.vision.synth import Scene, SceneSpec

pytestmark = pytest.mark.skipif(not pointnet.available(), reason="no point reader installed")

SPEC = SceneSpec(image_size=(960, 540), tilt_deg=10.0, board_yaw_deg=2.0, cam_az_deg=0.0, mirror=False,
                 focal_mm=35.0, fill=0.85, occluded=False, wood="walnut", men="white_black",
                 points="red_cream", field="felt_green", table="light_table", lighting="overhead", row_max=5,
                 men_thick_mm=9.0)


def _strips(seed: int) -> Strips:
    rng = np.random.default_rng(seed)
    return Strips(rng.uniform(-1, 1, (24, CHANNELS, STRIP_PX[1], STRIP_PX[0])).astype(np.float32),
                  rng.uniform(-1, 1, (24, AUX)).astype(np.float32))


def test_the_network_in_two_parts_reads_as_the_whole_network():
    assert pointnet._parts(str(pointnet.MODEL_PATH)) is not None      # the parts ship beside the network
    strips = _strips(1)
    whole = pointnet.probabilities_and_features(strips)
    parts = pointnet.read_frame(strips)
    assert parts.read.all() and parts.points is not None
    for a, b in zip(whole, (parts.count, parts.pile, parts.features)):
        np.testing.assert_allclose(a, b, atol=1e-5)


def test_points_known_stand_in_for_their_strips_and_only_the_others_are_read():
    first, second = _strips(1), _strips(2)
    known = pointnet.read_frame(first).points
    same = np.zeros(24, bool)
    same[:20] = True
    # the last four strips are the second frame's, the first twenty unchanged since the first
    mixed = Strips(np.concatenate([first.maps[:20], second.maps[20:]]),
                   np.concatenate([first.aux[:20], second.aux[20:]]))
    fresh = pointnet.read_frame(mixed)
    reused = pointnet.read_frame(mixed, known=known, same=same)
    assert reused.read.tolist() == [False] * 20 + [True] * 4
    np.testing.assert_allclose(reused.count, fresh.count, atol=1e-5)
    np.testing.assert_allclose(reused.points, fresh.points, atol=1e-4)


def test_parts_that_do_not_answer_as_the_whole_are_not_used(monkeypatch):
    # a network trained again and not split again: its parts are someone else's
    monkeypatch.setattr(pointnet, "_part_paths", lambda path: (path, path))
    pointnet._parts.cache_clear()
    try:
        assert pointnet._parts(str(pointnet.MODEL_PATH)) is None
        read = pointnet.read_frame(_strips(3))
        assert read.points is None and read.read.all()              # read whole, every point
    finally:
        monkeypatch.undo()
        pointnet._parts.cache_clear()


def _scene_frames():
    scene = Scene(np.random.default_rng(3), SPEC)
    rules = preset_rules("backgammon")
    board = start_position(rules).to_board()
    moved = {"light": list(board["light"]), "dark": list(board["dark"])}
    # a light man from the 24-point... whichever light point holds two, moved to an empty point
    src = next(p for p in range(24) if moved["light"][p] == 2)
    dst = next(p for p in range(24) if moved["light"][p] == 0 and moved["dark"][p] == 0)
    moved["light"][src] -= 1
    moved["light"][dst] += 1
    after = dict(board, light=moved["light"], dark=moved["dark"])
    before, label = scene.render(board, np.random.default_rng(1), n_dice=0)
    again, _ = scene.render(board, np.random.default_rng(1), n_dice=0)
    changed, _ = scene.render(after, np.random.default_rng(1), n_dice=0)
    return label["corners"], before, again, changed, {src, dst}, after


def _spy_on_reads(monkeypatch) -> list[np.ndarray]:
    """Which points the network read, frame by frame, from now on (``FrameRead.read``)."""
    calls: list[np.ndarray] = []
    real = pointnet.read_frame

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append(out.read)
        return out

    monkeypatch.setattr(pointnet, "read_frame", spy)
    return calls


def test_a_frame_read_again_reads_only_the_points_whose_picture_changed(monkeypatch):
    corners, before, again, changed, touched, after = _scene_frames()
    board = start_position(preset_rules("backgammon")).to_board()
    calls = _spy_on_reads(monkeypatch)
    first = read_board(before, corners)
    assert first.point_memory is not None and calls[-1].all()
    misread = set(np.flatnonzero(first.point_memory.classes != board_classes_of(board["light"], board["dark"])))
    same = read_board(again, corners, earlier=first.point_memory, known=board)
    assert set(np.flatnonzero(calls[-1]).tolist()) == misread      # nothing changed: only a misread is read again
    assert same.points_read is calls[-1] or np.array_equal(same.points_read, calls[-1])
    assert same.to_board()["light"] == first.to_board()["light"]
    moved = read_board(changed, corners, earlier=same.point_memory, known=board)
    read_again = set(np.flatnonzero(calls[-1]).tolist())
    assert touched <= read_again and len(read_again) < 12           # the points the man left and reached
    fresh = read_board(changed, corners)
    assert moved.to_board()["light"] == fresh.to_board()["light"] == after["light"]
    assert moved.to_board()["dark"] == fresh.to_board()["dark"]
    # without the board the referee holds, every point is read (the board's colours are still kept)
    read_board(changed, corners, earlier=moved.point_memory)
    assert calls[-1].all()
    # another view of the board (the corners moved): nothing of the memory is used
    other = [[x + 3, y] for x, y in corners]
    read_board(changed, other, earlier=moved.point_memory, known=after)
    assert calls[-1].all()


def test_a_point_read_otherwise_than_the_referee_holds_it_is_read_again(monkeypatch):
    corners, before, again, _, _, _ = _scene_frames()
    board = start_position(preset_rules("backgammon")).to_board()
    first = read_board(before, corners)
    told = {"light": list(board["light"]), "dark": list(board["dark"])}
    p = next(i for i in range(24) if told["light"][i] == 0 and told["dark"][i] == 0)
    told["light"][p] = 1                 # the referee holds a man where the reader read none
    calls = _spy_on_reads(monkeypatch)
    read_board(again, corners, earlier=first.point_memory, known=told)
    assert calls[-1][p]
    with pytest.raises(VisionError, match="not a board"):
        read_board(again, corners, earlier=first.point_memory, known={"light": [0] * 3, "dark": [0] * 24})


def test_a_slow_drift_adds_up_until_the_point_is_read_again():
    base = np.full((24, STRIP_PX[1], STRIP_PX[0], 3), 120, np.uint8)
    memory = PointMemory(base, np.zeros((24, 160), np.float32), np.zeros(24, np.int64), ((0.0, 0.0),) * 4,
                         (10, 10, 3))
    step = base.copy()
    share = int(STRIP_PX[1] * 0.6 * SAME_FAINT_SHARE) + 2              # rows of a strip's middle
    reads = []
    for k in range(1, 5):
        # each frame the first point's far end lightens by 5 (under the faint difference, 8) from the frame before
        step = step.copy()
        step[0, -share:] = 120 + 5 * k
        same = unchanged_points(memory.pictures, step)
        reads.append(bool(same[0]))
        memory = memory.updated(step, memory.points, memory.classes, ~same)
        assert same[1:].all()
    assert reads[0] and not all(reads)               # unchanged from frame to frame, but not from the one read
