"""``willughby vision read`` (cli.md): a board document with confidence and
settled; status 2 and one line where it has no corners and no calibration."""

import json
from pathlib import Path

from willughby.companion.cli import main

GOLDEN = Path(__file__).parent / "golden"


def _corners(name):
    label = json.loads((GOLDEN / f"{name}.json").read_text())
    return " ".join(f"{x},{y}" for x, y in label["corners"]), label


def test_read_prints_a_board_document_with_confidence(capsys):
    corners, label = _corners("img_0001")
    assert main(["vision", "read", str(GOLDEN / "img_0001.jpg"), "--corners", corners, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "board/1" and "turn" not in doc
    assert len(doc["light"]) == 24 and len(doc["dark"]) == 24
    assert 0.0 <= doc["confidence"] <= 1.0 and isinstance(doc["settled"], bool)
    assert set(doc["location_confidence"]) == {str(p) for p in range(1, 25)}


def test_read_without_corners_or_calibration_exits_2(capsys, tmp_path):
    code = main(["vision", "read", str(GOLDEN / "img_0001.jpg"), "--calibration", str(tmp_path / "none.json")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "calibration" in err


def test_read_of_a_missing_image_exits_2(capsys):
    assert main(["vision", "read", "/nonexistent.jpg", "--corners", "1,1 9,1 9,9 1,9"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_bad_corners_exit_2(capsys):
    assert main(["vision", "read", str(GOLDEN / "img_0001.jpg"), "--corners", "1,1 2"]) == 2


def test_read_prints_its_notes(capsys, tmp_path):
    # a Doublets start whose piles the network alone partly misreads
    # (test_pointnet): the reader says it took the start layout
    import numpy as np
    import pytest
    from willughby.vision import pointnet
    from willughby.vision.synth import SceneSpec, render_jpeg
    if not pointnet.available():
        pytest.skip("the point reader's weights are not installed")
    data, label = render_jpeg(np.random.default_rng([8, 6]), SceneSpec(position_kind="doublets_start",
                                                                       occluded=False, n_dice=0))
    (tmp_path / "start.jpg").write_bytes(data)
    corners = " ".join(f"{x},{y}" for x, y in label["corners"])
    assert main(["vision", "read", str(tmp_path / "start.jpg"), "--corners", corners]) == 0
    out = capsys.readouterr().out
    assert "note: " in out and "read as the doublets start" in out
