"""The reader's working memory (vision/memory.py): kept from one frame to the
next by the C library, without changing anything read."""

import resource
import sys

import numpy as np
import pytest

from willughby.vision import memory
from willughby.vision.config import VisionConfig, VisionConfigError


def test_nothing_is_kept_where_the_configuration_says_zero():
    assert memory.keep_frame_memory(0) is False
    assert VisionConfig().with_values({"reader": {"keep_memory_mb": 0}}).reader.keep_memory_mb == 0
    with pytest.raises(VisionConfigError):
        VisionConfig().with_values({"reader": {"keep_memory_mb": -1}})


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_once_kept_a_frames_worth_of_pictures_is_made_again_without_fresh_pages():
    assert memory.keep_frame_memory(64) in (True, False)      # False: a C library without the knobs
    assert memory.keep_frame_memory(64) == memory.keep_frame_memory(8)   # once a process
    if not memory.keep_frame_memory(64):
        pytest.skip("this C library does not take the thresholds")

    def frame() -> float:
        pictures = [np.ones((510, 590, 3), np.float32) * k for k in range(12)]   # about 43 MB
        return float(sum(p[0, 0, 0] for p in pictures))

    frame()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(3):
        frame()
    assert resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before < 500     # not 3 x 10,000 pages
