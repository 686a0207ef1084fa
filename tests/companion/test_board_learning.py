"""The camera learns the board it watches as the game goes (companion/watch.py, vision/board_head.py):
from the calibration photo of the start, and from every frame whose board the referee then knows; what it
learnt is saved with the calibration, survives a restart, and a new calibration starts afresh; a board
told that the camera contradicts is kept aside, not learnt."""

from __future__ import annotations

import json
from dataclasses import replace

from willughby.companion.watch import CameraWatcher
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision.board_noise import RowNoise
from willughby.vision.calibration import load_calibration, save_calibration
from willughby.vision.reader import Look

from .waiting import until


def _head_examples(path) -> int:
    look = Look.from_json(load_calibration(path).colours)
    return 0 if look.head is None else len(look.head.examples)


def _noise_rows(path) -> int:
    look = Look.from_json(load_calibration(path).colours)
    return 0 if look.noise is None else len(look.noise.faint)


def _table():
    from willughby.companion.demo import DemoTable

    rules = preset_rules("backgammon")
    start = start_position(rules, "light")
    after = next(o for o in turn_outcomes(rules, start, (3, 1)) if o.play.notation == "8/5 6/5").position
    table = DemoTable(start, image_size=(960, 540))
    return table, start, after


def _watching(table, start, path, shown=None):
    """A watcher calibrated on the start (the board told), whose referee says each settled frame showed
    ``shown(board)`` (the board read, where *shown* is None); and the evidence it was handed."""
    got = []

    def referee(board, conf, evidence):
        got.append(evidence)
        evidence.shown = board if shown is None else shown(board)

    w = CameraWatcher(table, referee, calibration_path=path, fps=30, turn_evidence=True).start()
    try:
        assert until(lambda: w._last_frame is not None, 20)
        w.calibrate(table.corners(w._last_frame), known=start.to_board())
    except BaseException:
        w.close()
        raise
    return w, got


def test_the_start_is_learnt_at_calibration_and_every_shown_frame_after_it_saved_and_kept(tmp_path):
    table, start, after = _table()
    path = tmp_path / "calibration.json"
    got = []

    def referee(board, conf, evidence):
        got.append(evidence)
        evidence.shown = board                  # the referee ruled it so (a play ruled legal from this frame)

    w = CameraWatcher(table, referee, calibration_path=path, fps=30, turn_evidence=True).start()
    try:
        assert until(lambda: w._last_frame is not None, 20)
        saved = w.calibrate(table.corners(w._last_frame), known=start.to_board())
        assert saved["learnt_start"] is True
        assert _head_examples(path) == 24                           # the start's 24 points
        assert until(lambda: got, 20)
        table.set(after)                                            # a turn: the frame before is now known
        assert until(lambda: len(got) >= 2, 20)
        table.set(start)
        assert until(lambda: w.learnt >= 2, 20)
        assert w.flush()                                            # saved off the watcher's thread ...
        # ... with the calibration: the start's points, the first frame's (read whole: the referee held no
        # board yet), and of the frames after it, the points read afresh (``vision.point_memory``): those
        # whose picture changed, the turn's, at least; a point read again from the same picture adds nothing
        assert 24 * 2 < _head_examples(path) < 24 * (1 + w.learnt)
        # this board's noise, from the rows 8/5 6/5 left as they were (of the 21 points it did not touch),
        # learnt once the frame after it was settled against the start's
        assert until(lambda: _noise_rows(path) >= 1, 20)
        assert _noise_rows(path) <= 21 * w.learnt
    finally:
        w.close()
    # a restart: the calibration read again holds what was learnt
    again = CameraWatcher(table, lambda *a: None, calibration_path=path, fps=30)
    assert again._corners(table.read()) is not None
    assert again._look.head is not None and len(again._look.head.examples) == _head_examples(path) > 48
    assert again._look.noise is not None and len(again._look.noise.faint) == _noise_rows(path) >= 1


def test_a_new_calibration_starts_afresh(tmp_path):
    table, start, _ = _table()
    path = tmp_path / "calibration.json"
    w = CameraWatcher(table, lambda *a: None, calibration_path=path, fps=30, turn_evidence=True).start()
    try:
        assert until(lambda: w._last_frame is not None, 20)
        corners = table.corners(w._last_frame)
        w.calibrate(corners, known=start.to_board())
        assert _head_examples(path) == 24
        learnt = replace(w._look, noise=RowNoise([0.1] * 60))      # as if learnt over a game
        save_calibration(path, replace(w._calibration, colours=learnt.to_json()))
        assert _noise_rows(path) == 60
        saved = w.calibrate(corners)                                # no board told: nothing learnt of the points
        assert saved["learnt_start"] is False and _head_examples(path) == 0
        assert _noise_rows(path) == 0                               # nor of the noise
    finally:
        w.close()


def test_a_board_the_camera_contradicts_is_kept_aside_not_learnt(tmp_path):
    table, start, after = _table()
    path = tmp_path / "calibration.json"
    wrong = after.to_board()          # a player answers that the men moved 8/5 6/5 while the camera sees the start
    w, got = _watching(table, start, path, shown=lambda board: wrong)
    try:
        assert until(lambda: got, 20)
        table.set(after)
        assert until(lambda: w.set_aside >= 1, 20)
        assert w.learnt == 0 and _head_examples(path) == 24         # the start alone
        kept = sorted((tmp_path / "set-aside").glob("*.json"))
        assert kept and kept[0].with_suffix(".jpg").is_file()
        doc = json.loads(kept[0].read_text())
        assert doc["board_told"]["light"] == wrong["light"]
        assert set(doc["points_contradicted"]) <= {5, 6, 8} and doc["points_contradicted"]
        for p, read in doc["camera_read"].items():
            assert read["p"] >= 0.99
    finally:
        w.close()


def test_a_frame_learnt_while_the_board_is_calibrated_again_is_neither_kept_nor_saved(tmp_path, monkeypatch):
    """The page may calibrate (its own thread) while the watcher learns a frame: what was learnt of the board
    calibrated before must not land on the new calibration, in memory or on disk."""
    from willughby.vision.board_head import BoardHead

    table, start, after = _table()
    path = tmp_path / "calibration.json"
    recalibrated = []
    learn = BoardHead.learn

    def learn_while_calibrating(self, *args, **kwargs):
        if not recalibrated and not kwargs.get("start"):
            recalibrated.append(w.calibrate(table.corners(w._last_frame)))      # no board told: nothing learnt
        return learn(self, *args, **kwargs)

    w, got = _watching(table, start, path)
    try:
        assert _head_examples(path) == 24
        monkeypatch.setattr(BoardHead, "learn", learn_while_calibrating)
        assert until(lambda: got, 20)
        table.set(after)
        assert until(lambda: recalibrated, 20)
        assert w.flush()
        assert w.learnt == 0
        assert w._look.head is None and _head_examples(path) == 0      # the new calibration's, as it was made
    finally:
        w.close()
