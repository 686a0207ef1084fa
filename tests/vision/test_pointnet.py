"""The trained point reader, as installed with the package."""

import numpy as np
import pytest

from willughby.vision import pointnet
from willughby.vision.config import VisionConfig
from willughby.vision.reader import observe, read_board
from willughby.vision.synth import SceneSpec, render

pytestmark = pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")


def _strips(image, corners):
    obs = observe(image, corners, VisionConfig())
    return obs.strips()


@pytest.fixture(scope="module")
def doublets_start():
    # seed 5 is none of the training seeds (1000-4000)
    return render(np.random.default_rng([5, 1]), SceneSpec(position_kind="doublets_start", occluded=False,
                                                            tilt_deg=25.0, n_dice=0))


def test_probabilities_are_distributions(doublets_start):
    image, label = doublets_start
    count, pile = pointnet.probabilities(_strips(image, label["corners"]))
    assert count.shape == (24, 31) and pile.shape == (24, 3)
    assert np.allclose(count.sum(axis=1), 1, atol=1e-4) and np.allclose(pile.sum(axis=1), 1, atol=1e-4)


def test_tells_a_pile_of_2_from_a_pile_of_3_on_the_doublets_start():
    # variants.md, doublets: "piles of 2 on points 1-3, of 3 on 4-6"; the
    # reader must tell a pile of 2 from a pile of 3, into the stacked field.
    # Over ten starting boards at three tilts (120 piles), measured: 119
    # piles read right by the shipped reader (114 by its network without
    # the starts; 114 and 109 by the two networks shipped before).
    # A reader that could not see a pile's height would get about half.
    right = total = 0
    for i in range(1, 11):
        image, label = render(np.random.default_rng([5, i]), SceneSpec(
            position_kind="doublets_start", occluded=False, tilt_deg=(10.0, 20.0, 30.0)[i % 3], n_dice=0))
        reading = read_board(image, label["corners"], method="net")
        assert reading.settled
        for side, read in (("light", reading.light), ("dark", reading.dark)):
            for p in range(24):
                if label[side][p]:
                    total += 1
                    right += (read[p] == label[side][p]
                              and reading.stacked[side][p] == label["stacked"][side][p])
    assert total == 120
    assert right >= 108, f"{right} of 120 piles read right"


def test_a_doublets_start_the_network_alone_misreads_is_read_as_the_start():
    # variants.md, doublets: "piles of 2 on points 1-3, of 3 on 4-6".  On
    # this frame the network alone reads a pile of 3 as 2 (the networks
    # shipped before misread more of them) but nearly fits the start; the reader takes the start
    # (vision/starts.py) and says so in its notes.
    image, label = render(np.random.default_rng([8, 1]), SceneSpec(position_kind="doublets_start", occluded=False,
                                                                    n_dice=0))
    reading = read_board(image, label["corners"], method="net")
    assert (reading.light, reading.dark, reading.stacked) == (label["light"], label["dark"], label["stacked"])
    plain = pointnet.decide(*pointnet.probabilities(_strips(image, label["corners"])))
    for side in ("light", "dark"):
        if [r.count if r.colour == side else 0 for r in plain] != label[side]:
            assert any(note.startswith(f"{side}'s men read as the doublets start") for note in reading.notes)


def test_an_empty_board_reads_empty():
    empty = {"format": "board/1", "light": [0] * 24, "dark": [0] * 24, "bar": {"light": 0, "dark": 0},
             "off": {"light": 15, "dark": 15}}
    image, label = render(np.random.default_rng([5, 2]), SceneSpec(position=empty, occluded=False, n_dice=2))
    reading = read_board(image, label["corners"], method="net")
    assert reading.light == [0] * 24 and reading.dark == [0] * 24


def test_a_confident_reading_is_a_right_one():
    # the confidence is what the companion relies on to ask instead of
    # guessing: over fresh generated frames, points read with a confidence
    # of 0.99 or more are right (measured over 200 frames: 99.97%)
    sure = right = 0
    for i in range(8):
        image, label = render(np.random.default_rng([6, i]), SceneSpec(occluded=False))
        reading = read_board(image, label["corners"], method="net")
        for p in range(24):
            ok = reading.light[p] == label["light"][p] and reading.dark[p] == label["dark"][p]
            if reading.location_confidence[str(p + 1)] >= 0.99:
                sure += 1
                right += ok
    assert sure >= 150 and right >= sure - 1


def test_decoding_keeps_each_side_to_fifteen_men():
    # three points each most probably 6 light men (18 > 15): the decoding
    # takes the cheapest way down to 15, on the least sure point
    from willughby.vision.pointnet import _decode
    logp = np.full((3, 31), np.log(1e-6))
    for p, sure in enumerate((0.9, 0.9, 0.6)):
        logp[p, 6] = np.log(sure)
        logp[p, 3] = np.log(1 - sure)
    assert _decode(logp, (15, 15)) == [6, 6, 3]
    # the bar's men count too: with 4 on the bar only 11 fit
    assert sum(_decode(logp, (11, 15))) <= 11
    # within capacity nothing changes
    assert _decode(logp[:2], (15, 15)) == [6, 6]


def test_points_in_doubt_get_a_second_mirrored_look():
    # the doublets start of the test above has points the network is unsure of
    from willughby.vision.pointnet import MODEL_PATH, SECOND_LOOK, _forward
    image, label = render(np.random.default_rng([8, 1]), SceneSpec(position_kind="doublets_start", occluded=False,
                                                                    n_dice=0))
    strips = _strips(image, label["corners"])
    first, first_pile = _forward(strips, MODEL_PATH)
    unsure = np.flatnonzero(first.max(axis=1) < SECOND_LOOK)
    sure = np.flatnonzero(first.max(axis=1) >= SECOND_LOOK)
    assert 0 < unsure.size < 24
    again, again_pile = _forward(strips.mirrored(unsure), MODEL_PATH)
    count, pile = pointnet.probabilities(strips)
    assert np.allclose(count[sure], first[sure]) and np.allclose(pile[sure], first_pile[sure])
    assert np.allclose(count[unsure], (first[unsure] + again) / 2, atol=1e-6)
    assert np.allclose(pile[unsure], (first_pile[unsure] + again_pile) / 2, atol=1e-6)
    assert not np.allclose(count[unsure], first[unsure])          # the second look changed something
    only_once, _ = pointnet.probabilities(strips, second_look=0.0)
    assert np.allclose(only_once, first)
