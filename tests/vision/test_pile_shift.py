"""tools/pile_shift.py: how far a pile's top appears to move for one man
more, the evidence a reader has for a pile's height."""

import importlib.util
import json
from pathlib import Path

import numpy as np

from willughby.vision.config import VisionConfig
from willughby.vision.synth import SceneSpec, render


def _tool():
    path = Path(__file__).resolve().parents[2] / "tools" / "pile_shift.py"
    spec = importlib.util.spec_from_file_location("pile_shift", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def _label(tilt: float, kind: str = "doublets_start") -> dict:
    _, label = render(np.random.default_rng(3), SceneSpec(image_size=(640, 360), position_kind=kind,
                                                           occluded=False, tilt_deg=tilt))
    return label


def test_every_pile_is_measured_and_a_steeper_view_sees_more():
    tool = _tool()
    config = VisionConfig()
    near_down = tool.pile_shifts(_label(2.0), config)
    steep = tool.pile_shifts(_label(30.0), config)
    # Doublets' start: piles of 2 on three points and of 3 on three, for each side
    assert sorted(s["men"] for s in steep) == [2] * 6 + [3] * 6
    assert all(s["pixels"] > 0 and s["mm"] > 0 for s in near_down + steep)
    assert np.median([s["mm"] for s in steep]) > 2 * np.median([s["mm"] for s in near_down])


def test_a_frame_without_piles_has_nothing_to_measure(tmp_path, capsys):
    tool = _tool()
    assert tool.pile_shifts(_label(20.0, "backgammon_start"), VisionConfig()) == []
    (tmp_path / "a.json").write_text(json.dumps(_label(20.0, "doublets_start")))
    (tmp_path / "b.json").write_text(json.dumps(_label(20.0, "backgammon_start")))
    (tmp_path / "c.json").write_text("{not json")
    assert tool.main([str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    rows = [line for line in out.splitlines() if line.startswith(("a ", "b ", "c "))]
    assert [r.split()[0] for r in rows] == ["a"]
    assert "c.json: skipped" in err
