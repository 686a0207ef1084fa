"""The board finder (vision/board_finder.py): corners proposed from the printed markers or the picture alone."""

from __future__ import annotations

import numpy as np
import pytest

from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet
from willughby.vision.board_edges import snap_sides
from willughby.vision.board_finder import Proposal, propose_corners
from willughby.vision.corner_order import ORDERS, ROW_ORDERS, corner_order, corner_order_among
from willughby.vision.errors import FrameError
from willughby.vision.synth import SceneSpec, render

from .scenes import view

START = start_position(preset_rules("backgammon"))


def _share_of_diagonal(found, truth, any_order: bool) -> float:
    """The largest corner error as a share of the true board's diagonal, in the order
    given or the best of the eight orders round the quadrilateral."""
    f, t = np.asarray(found, np.float64), np.asarray(truth, np.float64)
    diagonal = np.linalg.norm(t[0] - t[2])
    orders = ORDERS if any_order else ORDERS[:1]
    return min(float(np.linalg.norm(f[list(o)] - t, axis=1).max()) for o in orders) / diagonal


@pytest.fixture(scope="module")
def painted_start():
    """A painted board at the start, seen by a tilted camera (seeds the finder is known to get right)."""
    return [render(np.random.default_rng(seed), SceneSpec(position=START, occluded=False, n_dice=0,
                                                          image_size=(800, 600)))
            for seed in (1,)]


def test_the_painted_boards_corners_are_found_from_the_picture_within_two_percent(painted_start):
    for image, label in painted_start:
        proposal = propose_corners(image)
        assert isinstance(proposal, Proposal) and proposal.found_by == "picture"
        assert not proposal.order_known                  # nothing in one picture says which corner is C1
        assert _share_of_diagonal(proposal.corners, label["corners"], any_order=True) < 0.02


@pytest.mark.skipif(not pointnet.available(), reason="no point reader installed")
def test_the_start_known_puts_the_corners_in_their_order(painted_start):
    for image, label in painted_start:
        proposal = propose_corners(image, known={"light": label["light"], "dark": label["dark"]})
        assert proposal is not None and proposal.order_known
        assert _share_of_diagonal(proposal.corners, label["corners"], any_order=False) < 0.02


def test_sides_found_on_the_frame_are_moved_onto_the_surfaces_edge(painted_start):
    for image, label in painted_start:
        truth = np.asarray(label["corners"], np.float64)
        centre = truth.mean(axis=0)
        out = centre + 1.06 * (truth - centre)         # every side some 4% of the diagonal out, on the frame
        assert _share_of_diagonal(out, truth, any_order=False) > 0.025
        assert _share_of_diagonal(snap_sides(image, out), truth, any_order=False) < 0.015
        assert _share_of_diagonal(snap_sides(image, truth), truth, any_order=False) < 0.01  # there already


def test_the_row_orders_keep_the_long_sides_where_they_are():
    assert ROW_ORDERS[0] == ORDERS[0] and len(ROW_ORDERS) == 4 and set(ROW_ORDERS) <= set(ORDERS)
    for order in ROW_ORDERS:
        assert {frozenset(order[:2]), frozenset(order[2:])} == {frozenset((0, 1)), frozenset((2, 3))}


@pytest.mark.skipif(not pointnet.available(), reason="no point reader installed")
def test_reading_the_row_orders_alone_agrees_with_all_eight(painted_start):
    for image, label in painted_start:
        truth = np.asarray(label["corners"], np.float64)
        known = {"light": label["light"], "dark": label["dark"]}
        given = truth[[3, 2, 1, 0]].tolist()           # mirrored: C4, C3, C2, C1
        every, among = corner_order(image, given, known), corner_order_among(image, given, known)
        assert among is not None and every is not None
        assert among.order == every.order == (3, 2, 1, 0)
        assert among.margin == pytest.approx(every.margin) and among.differing == every.differing


def test_four_markers_give_the_corners_in_their_order():
    v = view()
    proposal = propose_corners(v.image)
    assert proposal is not None and proposal.found_by == "markers" and proposal.order_known
    found = np.asarray(proposal.corners)
    # each proposed corner is nearest its own true corner, within a tenth of the board's diagonal
    distance = np.linalg.norm(found[:, None] - v.corners[None], axis=2)
    assert list(distance.argmin(axis=1)) == [0, 1, 2, 3]
    assert _share_of_diagonal(found, v.corners, any_order=False) < 0.1


@pytest.mark.parametrize("image", [
    np.full((480, 640, 3), 128, np.uint8),          # grey
    np.zeros((480, 640, 3), np.uint8),              # black
    np.full((480, 640), 255, np.uint8),             # white, one channel
    np.zeros((3, 5, 3), np.uint8),                  # tiny
    np.zeros((1, 1), np.uint8),
], ids=["grey", "black", "white", "tiny", "one-pixel"])
def test_a_picture_with_no_board_gives_nothing(image):
    assert propose_corners(image) is None


def test_noise_and_stripes_raise_nothing():
    rng = np.random.default_rng(5)
    noise = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)
    stripes = np.zeros((300, 400, 3), np.uint8)
    stripes[:, ::20] = 255
    frame = np.zeros((300, 400, 3), np.uint8)
    frame[50:250, 60:340] = 200                     # a plain bright rectangle: no rows of points in it
    for image in (noise, stripes, frame):
        proposal = propose_corners(image)
        assert proposal is None or len(proposal.corners) == 4
    assert propose_corners(frame) is None


@pytest.mark.parametrize("bad", [None, "picture.jpg", np.zeros((10, 10, 3), np.float32)])
def test_what_is_not_a_picture_is_a_frame_error(bad):
    with pytest.raises(FrameError):
        propose_corners(bad)
