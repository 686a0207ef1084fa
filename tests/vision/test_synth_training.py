"""The one-call training command (tools/train_on_device.py): it imports the
checkout without installing it, draws its recipes' frames and cuts their
strips with the board's own geometry; with torch and onnx at hand, a tiny
run trains, exports an ONNX file the reader runs, and measures it."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import train_on_device as tod  # noqa: E402


def test_the_checkout_imports_through_its_own_links():
    code = ("import sys; sys.path.insert(0, 'tools'); import train_on_device as t; t.import_checkout(); "
            "import willughby.vision.synth as s, willughby.engine as e; print(s.__file__); print(e.__file__)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    synth_file, engine_file = out.stdout.split()
    assert Path(synth_file).resolve() == (ROOT / "vision" / "synth" / "__init__.py").resolve()
    assert Path(engine_file).resolve() == (ROOT / "engine" / "__init__.py").resolve()


def test_every_recipe_is_drawn_and_the_same_frames_come_first():
    picks = [tod.recipe_of(i, 31000) for i in range(400)]
    shares = np.bincount(picks, minlength=len(tod.RECIPES)) / len(picks)
    for (name, share, _, _), got in zip(tod.RECIPES, shares):
        assert abs(got - share) < 0.08, name
    assert picks[:50] == [tod.recipe_of(i, 31000) for i in range(50)]


def test_a_frame_of_a_varied_board_gives_24_strips_and_labels():
    fields = dict(tod.RECIPES[0][2], varied_board=True, bar_kind="flush", bar_width_mm=6.0, image_size=(800, 600))
    i, out, seconds = tod._frame((3, 5, fields, False))
    assert not isinstance(out, str), out
    maps, aux, cls, pile = out
    assert maps.shape == (24, 4, 140, 28) and maps.dtype == np.float16
    assert aux.shape == (24, 6) and cls.shape == (24,) and pile.shape == (24,)
    assert seconds > 0


@pytest.mark.skipif(importlib.util.find_spec("torch") is None or importlib.util.find_spec("onnx") is None,
                    reason="torch and onnx are only for training")
def test_a_tiny_run_trains_exports_and_measures(tmp_path):
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(ROOT / "tools" / "train_on_device.py"), "--frames", "8", "--epochs", "1",
                    "--workers", "2", "--device", "cpu", "--val-frames", "12", "--out", str(out)],
                   cwd=ROOT, check=True, timeout=900)
    assert (out / "point_reader.onnx").is_file() and (out / "point_reader.onnx.pt").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cv2_max_difference"] < 1e-3 and len(summary["epochs"]) == 1
