"""OpenCV's arithmetic with a scalar second operand (``vision/scalar_ops.py``): the same as
OpenCV's own call, saturated to the array's type; one number for an array of one channel,
four (one a channel) for a colour one, as the readers use them."""

from __future__ import annotations

import numpy as np

from willughby.vision import scalar_ops


def test_each_operation_takes_a_number_for_its_second_array_and_saturates_to_the_first_arrays_type() -> None:
    grey = np.array([[10, 200, 250]], np.uint8)
    assert scalar_ops.add(grey, 10.0).tolist() == [[20, 210, 255]]
    assert scalar_ops.subtract(grey, 15.0).tolist() == [[0, 185, 235]]
    assert scalar_ops.multiply(grey, 2.0).tolist() == [[20, 255, 255]]
    assert scalar_ops.minimum(grey, 100.0).tolist() == [[10, 100, 100]]


def test_four_numbers_are_one_a_channel_and_dst_is_written_in_place() -> None:
    lab = np.full((1, 2, 3), 100.0, np.float32)
    out = np.empty_like(lab)
    got = scalar_ops.subtract(lab, (1.0, 2.0, 3.0, 0.0), dst=out)
    assert np.shares_memory(got, out)
    assert out.tolist() == [[[99.0, 98.0, 97.0], [99.0, 98.0, 97.0]]]
    scalar_ops.multiply(out, (0.5, 0.5, 0.5, 0.0), dst=out)
    scalar_ops.minimum(out, (49.0, 49.0, 49.0, 0.0), dst=out)
    assert out.tolist() == [[[49.0, 49.0, 48.5], [49.0, 49.0, 48.5]]]
