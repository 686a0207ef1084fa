"""Settling: one reading per still period, none while moving or occluded.

The frames are drawn: a green board with some white men; a hand is a
skin-coloured blob.  The fake reader reads the number of men and calls a
frame occluded where it sees skin, as the real reader is meant to.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from willughby.vision.config import VisionConfig
from willughby.vision.errors import FrameError, InvalidCornersError
from willughby.vision.settle import Settler, board_thumbnail, motion, thumb_size

W, H = 320, 240
CORNERS = [[300, 220], [20, 220], [20, 20], [300, 20]]
SKIN = (120, 160, 220)
CONFIG = VisionConfig(settle_frames=4)


@dataclass
class Reading:
    men: int
    settled: bool
    confidence: float
    occluded: bool


class FakeReader:
    """Counts men (white blobs); occluded where it sees skin."""

    def __init__(self, doubtful: bool = False):
        self.calls = 0
        self.doubtful = doubtful

    def __call__(self, image, corners, config):
        assert config is CONFIG or isinstance(config, VisionConfig)
        assert np.asarray(corners).shape == (4, 2)
        self.calls += 1
        skin = np.all(np.abs(image.astype(int) - SKIN) < 25, axis=2)
        white = (image.min(axis=2) > 200).astype(np.uint8)
        men = cv2.connectedComponents(white)[0] - 1
        occluded = bool(skin.sum() > 50)
        return Reading(men=men, settled=not occluded and not self.doubtful,
                       confidence=0.2 if occluded or self.doubtful else 0.95, occluded=occluded)


rng = np.random.default_rng(7)


def frame(men: int, hand: tuple[int, int] | None = None, noise: float = 2.0) -> np.ndarray:
    """The board with *men* men along the near edge, an optional hand at (x, y)."""
    img = np.full((H, W, 3), (40, 40, 40), np.uint8)
    cv2.rectangle(img, (20, 20), (300, 220), (40, 110, 50), -1)
    for k in range(men):
        cv2.circle(img, (285 - 26 * k, 205), 11, (235, 235, 235), -1)
    if hand is not None:
        cv2.ellipse(img, hand, (45, 30), 20, 0, 360, SKIN, -1)
    if noise:
        img = np.clip(img + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    return img


def feed_all(settler: Settler, frames, corners=CORNERS):
    return [settler.feed(f, corners) for f in frames]


def reported(results):
    return [r for r in results if r is not None]


# --------------------------------------------------------------------- the stages


def test_the_thumbnail_is_small_and_grey():
    assert thumb_size(VisionConfig()) == (64, 54)
    t = board_thumbnail(VisionConfig(), frame(3), CORNERS)
    assert t.shape == (54, 64) and t.dtype == np.float32


def test_camera_noise_is_not_motion_but_a_hand_is():
    cfg = VisionConfig()
    a, b = board_thumbnail(cfg, frame(3, noise=4), CORNERS), board_thumbnail(cfg, frame(3, noise=4), CORNERS)
    assert motion(a, b) < cfg.motion_threshold / 4
    c = board_thumbnail(cfg, frame(3, hand=(160, 120)), CORNERS)
    assert motion(a, c) > cfg.motion_threshold


# --------------------------------------------------------------------- settling


def test_a_still_board_is_read_once_after_settle_frames():
    reader = FakeReader()
    results = feed_all(Settler(CONFIG, reader=reader), [frame(5) for _ in range(20)])
    assert [r is not None for r in results[:5]] == [False, False, False, True, False]
    assert len(reported(results)) == 1 and reported(results)[0].men == 5
    assert reader.calls == 1  # the reader is not asked again about the same still board


def test_nothing_is_read_while_the_board_moves():
    reader = FakeReader()
    moving = [frame(5, hand=(40 + 15 * k, 60 + 8 * k)) for k in range(16)]
    assert reported(feed_all(Settler(CONFIG, reader=reader), moving)) == []
    assert reader.calls == 0


def test_a_hand_resting_on_the_board_is_refused_never_read_as_a_position():
    reader = FakeReader()
    settler = Settler(CONFIG, reader=reader)
    results = feed_all(settler, [frame(5, hand=(160, 120)) for _ in range(20)])
    assert reported(results) == []
    assert settler.last_refused is not None and settler.last_refused.occluded
    # asked once per still period of settle_frames, not every frame
    assert reader.calls == 20 // CONFIG.settle_frames


def test_a_doubtful_reading_is_refused_too():
    results = feed_all(Settler(CONFIG, reader=FakeReader(doubtful=True)), [frame(5) for _ in range(12)])
    assert reported(results) == []


def test_one_reading_per_still_period_through_a_whole_move():
    """Still (5 men), a hand comes in and moves a man off, rests, goes away,
    still again (4 men): exactly two readings, the right ones."""
    frames = [frame(5) for _ in range(8)]
    frames += [frame(5, hand=(300 - 12 * k, 200 - 6 * k)) for k in range(6)]     # the hand comes in
    frames += [frame(4, hand=(230, 150)) for _ in range(9)]                        # it rests over the board
    frames += [frame(4, hand=(230 - 20 * k, 150 - 15 * k)) for k in range(1, 6)]  # and leaves
    frames += [frame(4) for _ in range(10)]
    results = feed_all(Settler(CONFIG, reader=FakeReader()), frames)
    got = [(i, r.men) for i, r in enumerate(results) if r is not None]
    assert [men for _, men in got] == [5, 4]
    assert got[0][0] == CONFIG.settle_frames - 1
    assert got[1][0] == len(frames) - 10 + CONFIG.settle_frames - 1


def test_a_still_period_shorter_than_settle_frames_is_not_read():
    frames = []
    for k in range(6):  # the hand stops for 3 frames (one short of settle_frames) between moves
        frames += [frame(5, hand=(60 + 30 * k, 100))] * (CONFIG.settle_frames - 1)
    reader = FakeReader()
    assert reported(feed_all(Settler(CONFIG, reader=reader), frames)) == []
    assert reader.calls == 0


def test_after_any_movement_the_still_board_is_read_again():
    """A hand that comes and goes touching nothing still makes a new reading:
    the companion sees the same position twice and ignores it."""
    frames = [frame(5)] * 6 + [frame(5, hand=(100 + 20 * k, 120)) for k in range(4)] + [frame(5)] * 6
    results = feed_all(Settler(CONFIG, reader=FakeReader()), frames)
    assert [r.men for r in reported(results)] == [5, 5]


def test_a_slow_change_is_not_taken_for_rest_and_is_read_when_it_stops():
    """A shadow creeps over the board slower than the motion threshold per
    frame: no still period while it creeps (it builds up over the period),
    one new reading when it has stopped."""
    base = frame(5, noise=0)
    shade = base.copy()
    cv2.rectangle(shade, (20, 20), (300, 120), (0, 0, 0), -1)  # half the board in shadow
    creep = [cv2.addWeighted(base, 1 - t, shade, t, 0) for t in np.linspace(0, 1, 40)]
    frames = [base] * 6 + creep + [shade] * 6
    thumbs = [board_thumbnail(CONFIG, f, CORNERS) for f in frames]
    steps = [motion(a, b, CONFIG.motion_tile) for a, b in zip(thumbs, thumbs[1:])]
    assert max(steps) < CONFIG.motion_threshold  # no single frame shows it
    results = feed_all(Settler(CONFIG, reader=FakeReader()), frames)
    got = [i for i, r in enumerate(results) if r is not None]
    assert got == [CONFIG.settle_frames - 1, len(frames) - 6 + CONFIG.settle_frames - 2]


def test_a_drift_slower_than_any_still_period_shows_is_read_again_once_it_adds_up():
    cfg = VisionConfig(settle_frames=4, motion_threshold=6.0)
    frames = [np.clip(frame(5, noise=0).astype(int) + k // 2, 0, 255).astype(np.uint8) for k in range(40)]
    results = feed_all(Settler(cfg, reader=FakeReader()), frames)
    # one grey level every two frames: a reading at the start, and one each time it adds up to 6
    assert len(reported(results)) == 1 + (40 // 2 - 1) // 6


def test_a_nudged_board_counts_as_motion():
    settler = Settler(CONFIG, reader=FakeReader())
    assert len(reported(feed_all(settler, [frame(5)] * 6))) == 1
    shifted = [[x + 12, y + 9] for x, y in CORNERS]
    assert settler.feed(frame(5), shifted) is None
    assert settler.last_motion > CONFIG.motion_threshold


def test_reset_forgets_the_last_reading():
    settler = Settler(CONFIG, reader=FakeReader())
    assert len(reported(feed_all(settler, [frame(5)] * 6))) == 1
    settler.reset()
    assert len(reported(feed_all(settler, [frame(5)] * 6))) == 1


def test_still_frames_counts_the_current_still_period():
    settler = Settler(CONFIG, reader=FakeReader())
    feed_all(settler, [frame(5)] * 3)
    assert settler.still_frames == 3
    settler.feed(frame(5, hand=(150, 100)), CORNERS)
    assert settler.still_frames == 1


def test_the_default_reader_is_only_imported_when_needed():
    Settler(VisionConfig())  # vision/reader.py need not be importable to make one


def test_bad_frames_and_corners_are_the_packages_own_errors():
    settler = Settler(CONFIG, reader=FakeReader())
    with pytest.raises(FrameError):
        settler.feed(np.zeros((10, 10), np.float64), CORNERS)
    with pytest.raises(InvalidCornersError):
        settler.feed(frame(5), CORNERS[:3])


def test_one_man_taken_away_between_two_frames_is_motion():
    """No hand seen (a fast move between frames): the board still changed,
    and the new position is read.  Over the whole board's mean the change
    would be lost; over the busiest square it is not."""
    cfg = VisionConfig()
    a, b = board_thumbnail(cfg, frame(5), CORNERS), board_thumbnail(cfg, frame(4), CORNERS)
    assert motion(a, b) < cfg.motion_threshold < motion(a, b, cfg.motion_tile)
    results = feed_all(Settler(CONFIG, reader=FakeReader()), [frame(5)] * 6 + [frame(4)] * 6)
    assert [r.men for r in reported(results)] == [5, 4]
