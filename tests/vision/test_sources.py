"""The frame check the reader's stages share (vision/sources.py); the camera
sources themselves are in hardware/camera.py (tests/hardware/test_camera.py)."""

import ast
from pathlib import Path

import numpy as np
import pytest

from willughby.vision.errors import FrameError, VisionError
from willughby.vision.sources import as_bgr


def test_as_bgr_takes_grey_and_bgra_and_refuses_the_rest():
    assert as_bgr(np.zeros((4, 5), np.uint8)).shape == (4, 5, 3)
    assert as_bgr(np.zeros((4, 5, 4), np.uint8)).shape == (4, 5, 3)
    assert as_bgr(np.zeros((4, 5, 1), np.uint8)).shape == (4, 5, 3)
    with pytest.raises(FrameError, match="uint8"):
        as_bgr(np.zeros((4, 5, 3), np.float32))
    with pytest.raises(VisionError, match="numpy image"):
        as_bgr([[0, 0]])
    with pytest.raises(ValueError, match="shape"):
        as_bgr(np.zeros((4, 5, 2), np.uint8))


def test_vision_imports_no_hardware():
    # docs/house-conventions.md: vision may import engine value types at most
    vision = Path(__file__).resolve().parents[2] / "vision"
    for path in vision.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert "hardware" not in name and "companion" not in name, f"{path.name} imports {name}"
