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
    # docs/games.md, doublets: "piles of 2 on points 1-3, of 3 on 4-6"; the
    # reader must tell a pile of 2 from a pile of 3, into the stacked field.
    # Over ten starting boards at three tilts (120 piles), measured: 119
    # piles read right by the shipped reader (115 by its network without
    # the starts; 114 and 114 by the two networks shipped before).
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
    # docs/games.md, doublets: "piles of 2 on points 1-3, of 3 on 4-6".  On
    # this frame the network alone misreads a pile but nearly fits the
    # start; the reader takes the start (vision/starts.py) and says so in
    # its notes.
    image, label = render(np.random.default_rng([8, 6]), SceneSpec(position_kind="doublets_start", occluded=False,
                                                                    n_dice=0))
    reading = read_board(image, label["corners"], method="net")
    assert (reading.light, reading.dark, reading.stacked) == (label["light"], label["dark"], label["stacked"])
    plain = read_board(image, label["corners"], method="net-alone")
    misread = [side for side in ("light", "dark")
               if (getattr(plain, side), plain.stacked[side]) != (label[side], label["stacked"][side])]
    assert misread
    for side in misread:
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
    # of 0.99 or more are right (v12, the benchmark's 200 frames at seed 7: 3,962
    # points, 100.00%)
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


def _decode_one_class_at_a_time(logp, capacity):
    """The decoding's dynamic programme written out plainly, class by class:
    the reference the vectorised one must agree with, ties included."""
    cap_l, cap_d = capacity
    dp = np.full((cap_l + 1, cap_d + 1), -np.inf)
    dp[0, 0] = 0.0
    choice = np.zeros((len(logp), cap_l + 1, cap_d + 1), int)
    for p in range(len(logp)):
        best, arg = dp + logp[p, 0], np.zeros(dp.shape, int)
        for n in range(1, 16):
            for k, dl, dd in ((n, n, 0), (15 + n, 0, n)):
                if dl > cap_l or dd > cap_d:
                    continue
                cand = np.full(dp.shape, -np.inf)
                cand[dl:, dd:] = dp[:cap_l + 1 - dl, :cap_d + 1 - dd] + logp[p, k]
                better = cand > best
                best[better], arg[better] = cand[better], k
        dp, choice[p] = best, arg
    light, dark = np.unravel_index(int(np.argmax(dp)), dp.shape)
    out = [0] * len(logp)
    for p in range(len(logp) - 1, -1, -1):
        out[p] = k = int(choice[p, light, dark])
        light, dark = (light - k, dark) if 1 <= k <= 15 else (light, dark - (k - 15 if k else 0))
    return out


def test_decoding_agrees_with_the_plain_dynamic_programme_ties_and_all():
    from willughby.vision.pointnet import _decode
    rng = np.random.default_rng(16)
    for trial in range(300):
        probs = rng.dirichlet(np.full(31, rng.choice([0.05, 0.3, 1.0])), size=24)
        if trial % 3 == 0:
            probs = np.round(probs, 2) + 1e-12          # many equal probabilities: ties settled the same way
        logp = np.log(np.maximum(probs, 1e-12))
        capacity = (int(rng.integers(0, 16)), int(rng.integers(0, 16)))
        assert _decode(logp, capacity) == _decode_one_class_at_a_time(logp, capacity), (trial, capacity)


def test_points_in_doubt_can_get_a_second_mirrored_look():
    # off by default (the network reads whole frames, so a second look is a
    # whole second pass); asked for, it averages the points in doubt with
    # the frame read mirrored, and leaves the points read surely alone
    from willughby.vision.pointnet import MODEL_PATH, _forward
    image, label = render(np.random.default_rng([8, 1]), SceneSpec(position_kind="doublets_start", occluded=False,
                                                                    n_dice=0))
    strips = _strips(image, label["corners"])
    first, first_pile, _ = _forward(strips, MODEL_PATH)
    assert np.allclose(pointnet.probabilities(strips)[0], first)
    doubt = float(np.quantile(first.max(axis=1), 0.25)) + 1e-6
    unsure = np.flatnonzero(first.max(axis=1) < doubt)
    sure = np.flatnonzero(first.max(axis=1) >= doubt)
    assert 0 < unsure.size < 24
    again, again_pile, _ = _forward(strips.mirrored(), MODEL_PATH)
    count, pile = pointnet.probabilities(strips, second_look=doubt)
    assert np.allclose(count[sure], first[sure]) and np.allclose(pile[sure], first_pile[sure])
    assert np.allclose(count[unsure], (first[unsure] + again[unsure]) / 2, atol=1e-6)
    assert np.allclose(pile[unsure], (first_pile[unsure] + again_pile[unsure]) / 2, atol=1e-6)
    assert not np.allclose(count[unsure], first[unsure])          # the second look changed something


def test_a_point_is_read_with_the_rest_of_its_frame():
    # the network joins each point's features with the frame's (their mean
    # and maximum over the 24 points): change the other points' strips and
    # what this point is read as changes with them, though its own strip
    # did not; and it refuses anything but a whole frame
    from willughby.vision.errors import VisionError
    from willughby.vision.pointnet import MODEL_PATH, _forward
    from willughby.vision.strips import Strips
    image, label = render(np.random.default_rng([8, 1]), SceneSpec(position_kind="doublets_start", occluded=False,
                                                                    n_dice=0))
    strips = _strips(image, label["corners"])
    first, _, _ = _forward(strips, MODEL_PATH)
    maps = strips.maps.copy()
    maps[1:] = maps[1:][::-1]                                      # point 1 keeps its strip
    aux = strips.aux.copy()
    aux[1:] = aux[1:][::-1]
    shuffled, _, _ = _forward(Strips(maps, aux), MODEL_PATH)
    assert np.allclose(shuffled[0], first[0], atol=1e-5)           # the frame's mean and maximum ignore order
    blank = np.zeros_like(strips.maps)
    blank[0] = strips.maps[0]
    alone, _, _ = _forward(Strips(blank, strips.aux.copy()), MODEL_PATH)
    assert np.abs(alone[0] - first[0]).max() > 1e-3
    with pytest.raises(VisionError, match="whole frame"):
        _forward(Strips(strips.maps[:5], strips.aux[:5]), MODEL_PATH)
