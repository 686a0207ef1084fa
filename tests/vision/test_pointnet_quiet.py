"""Loading the point reader says nothing: OpenCV 5's graph engine warned at
every start that it takes no target (``setPreferableTarget``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from willughby.vision import pointnet


@pytest.mark.skipif(not pointnet.available(), reason="the trained point reader is not installed")
def test_loading_the_point_reader_writes_nothing_to_stderr() -> None:
    # OpenCV writes its warnings to the process's stderr, past Python: so in a process of its own
    code = ("from willughby.vision import pointnet\n"
            "net = pointnet._net(str(pointnet.MODEL_PATH))\n"
            "print(type(net).__name__)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("Net")  # it was loaded
    assert proc.stderr == ""
