"""tools/dice_examples.py: the dice reader's training examples, and the pack that carries the
dataset's pictures to a machine without the dataset (tools/pack_dice_pictures.py)."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"


@pytest.fixture(scope="module")
def examples():
    sys.path.insert(0, str(TOOLS))
    try:
        spec = importlib.util.spec_from_file_location("dice_examples", TOOLS / "dice_examples.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(TOOLS))


def _picture(examples, seed: int, side: float, negatives: bool = True):
    rng = np.random.default_rng(seed)
    grey = (rng.random((240, 320)) * 255).astype(np.uint8)
    boxes = np.array([[100.0, 80.0, side, side], [200.0, 150.0, side * 1.1, side]], np.float32)
    negs = np.array([[30.0, 40.0, 20.0]], np.float32) if negatives else None
    return examples.Picture(grey, boxes, np.array([3, 6]), negs)


def test_a_pack_gives_back_each_split_its_dice_and_the_finders_mistakes(examples, tmp_path):
    train = [_picture(examples, 1, 40.0), _picture(examples, 2, 30.0)]
    valid = [_picture(examples, 3, 50.0)]
    path = tmp_path / "pack.npz"
    assert examples.write_pack({"train": train, "valid": valid}, path) == path.stat().st_size
    back = examples.read_pack(path, "train")
    assert len(back) == 2 and len(examples.read_pack(path, "valid")) == 1
    for pic, got in zip(train, back):
        assert got.grey.shape == pic.grey.shape
        assert np.abs(got.grey.astype(int) - pic.grey).mean() < 40          # a JPEG of noise, not the noise
        np.testing.assert_array_equal(got.boxes, pic.boxes)
        np.testing.assert_array_equal(got.faces, pic.faces)
        np.testing.assert_array_equal(got.negatives, pic.negatives)


def test_a_pack_without_the_asked_part_says_which_parts_it_has(examples, tmp_path):
    path = tmp_path / "pack.npz"
    examples.write_pack({"train": [_picture(examples, 1, 40.0)]}, path)
    with pytest.raises(ValueError, match="no part 'valid' .*train"):
        examples.read_pack(path, "valid")


def test_a_picture_is_shrunk_to_its_median_die_and_never_enlarged(examples):
    big = _picture(examples, 1, 80.0)
    small = examples.shrunk(big, 32.0)
    assert small.grey.shape == (round(240 * 32 / 84), round(320 * 32 / 84))
    assert np.median(np.maximum(small.boxes[:, 2], small.boxes[:, 3])) == pytest.approx(32.0, rel=1e-4)
    np.testing.assert_allclose(small.negatives, big.negatives * 32 / 84, rtol=1e-5)
    big.found = np.array([[100.0, 80.0, 84.0, 3.0]], np.float32)
    np.testing.assert_allclose(examples.shrunk(big, 32.0).found, [[100 * 32 / 84, 80 * 32 / 84, 32.0, 3.0]],
                               rtol=1e-5)
    tiny = _picture(examples, 2, 20.0)
    assert examples.shrunk(tiny, 32.0) is tiny


def test_a_place_is_wrong_unless_a_die_lies_there_at_about_its_size(examples):
    pic = _picture(examples, 1, 40.0)
    wrong = examples.wrong_places(pic, [(101.0, 79.0, 42.0),     # the die, at its size
                                        (101.0, 79.0, 8.0),      # a pip of it
                                        (150.0, 115.0, 150.0),   # both dice seen as one
                                        (20.0, 200.0, 40.0)])    # the table
    assert [tuple(w) for w in wrong] == [(101.0, 79.0, 8.0), (150.0, 115.0, 150.0), (20.0, 200.0, 40.0)]


def test_a_place_is_a_die_found_rightly_near_its_centre_and_size_and_learnt_with_its_face(examples):
    pic = _picture(examples, 1, 40.0)
    pic.faces = np.array([3, 0])                              # the second die cocked: its face unknown
    right = examples.right_places(pic, [(103.0, 78.0, 44.0),    # the first die, its face a 3
                                        (101.0, 79.0, 8.0),     # a pip of it
                                        (115.0, 80.0, 40.0),    # off its centre by more than a third
                                        (200.0, 150.0, 44.0),   # the cocked die
                                        (20.0, 200.0, 40.0)])   # the table
    assert [tuple(r) for r in right] == [(103.0, 78.0, 44.0, 3.0)]
    assert examples.right_places(examples.Picture(pic.grey, np.zeros((0, 4)), np.zeros(0)),
                                 [(1.0, 2.0, 3.0)]).shape == (0, 4)


def test_the_face_reader_learns_some_dice_where_the_finder_placed_them(examples):
    pic = _picture(examples, 1, 40.0)
    pic.found = np.array([[104.0, 77.0, 46.0, 5.0]], np.float32)   # a face only the found place carries
    x, y = examples.face_batch([pic], np.random.default_rng(3), 400, no_die_share=0.0)
    assert x.shape == (400, 1, examples.FACE_SIZE, examples.FACE_SIZE)
    share = float(np.mean(y == 5))
    assert abs(share - examples.FOUND_SHARE) < 0.1
    assert set(np.unique(y)) == {3, 5, 6}
