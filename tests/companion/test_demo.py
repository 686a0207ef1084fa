"""The demo as a newcomer runs it: the drawn table, the fake box, the
automatic players and the page, playing a short game to its end."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from willughby.companion.config import CompanionConfig
from willughby.companion.runtime import build
from willughby.companion.watch import CameraWatcher
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision.synth import SceneSpec, render

from .waiting import until

ROOT = Path(__file__).resolve().parents[2]
RACE_END = json.loads((ROOT / "docs" / "examples" / "race-end.json").read_text())


def test_a_demo_game_is_played_to_its_end_through_camera_box_and_page(tmp_path):
    config = CompanionConfig(data_dir=tmp_path, speech="off")
    rt = build(config, demo=True, speed=50, seed=4, games=1, mistakes=0.0, start=RACE_END)
    try:
        client = rt.app.test_client()
        over = until(lambda: client.get("/api/state").get_json()["phase"] == "over", 120)
        state = client.get("/api/state").get_json()
        assert over, f"the demo game did not end: {state['phase']}, {state['announcements'][:3]}"
        assert state["game_over"]["winner"] in ("light", "dark")
        assert state["game_over"]["kind"] in ("single", "gammon", "backgammon")
        texts = [a["text"] for a in state["announcements"]]
        assert any(" wins: " in t for t in texts)
        assert any(t.startswith(("light throws", "dark throws")) for t in texts)
        assert rt.parts["table"].frames_drawn >= 2            # the men moved on the drawn table ...
        assert rt.parts["watcher"].readings >= 1              # ... and the camera read them
        assert rt.parts["link"].stats.delivered >= 1          # dice came from the box
        games = client.get("/api/games").get_json()["games"]
        assert games[0]["status"] == "over"
    finally:
        rt.close()
    # the record outlives the run
    from willughby.companion.store import GameStore
    with GameStore(config.store_path) as store:
        assert store.games()[0]["result"] == state["game_over"]


class _Still:
    """A frame source showing one picture for ever."""

    def __init__(self, image):
        self.image = image
        self.closed = False

    def read(self):
        return self.image.copy()

    def close(self):
        self.closed = True


def test_the_watcher_hands_on_one_reading_per_settled_board_and_none_with_a_hand_over_it():
    start = start_position(preset_rules("backgammon"))
    got = []
    image, label = render(np.random.default_rng(2), SceneSpec(position=start, occluded=False, n_dice=0,
                                                              image_size=(960, 540)))
    w = CameraWatcher(_Still(image), lambda board, conf: got.append((board, conf)),
                      corners=lambda frame: label["corners"], fps=30).start()
    try:
        assert until(lambda: got, 20)
        time.sleep(0.5)
        assert len(got) == 1                                  # still: read once, not once a frame
        board, conf = got[0]
        assert board["light"] == label["light"] and board["dark"] == label["dark"]
        assert set(conf) >= {str(p) for p in range(1, 25)}
    finally:
        w.close()
    hand, hlabel = render(np.random.default_rng(5), SceneSpec(position=start, occluded=True, image_size=(960, 540)))
    refused = []
    w = CameraWatcher(_Still(hand), lambda board, conf: refused.append(board),
                      corners=lambda frame: hlabel["corners"], fps=30).start()
    try:
        assert until(lambda: w.settler.last_refused is not None, 20)
        assert refused == []                                  # a hand over the board is never a position
        snap = w.snapshot()
        assert snap is not None and snap[0][:2] == b"\xff\xd8" and snap[1]["size"] == [960, 540]
    finally:
        w.close()


def test_the_watcher_hands_the_turn_reader_what_changed_since_the_board_settled_before():
    from willughby.companion.demo import DemoTable
    from willughby.engine.referee import turn_outcomes

    rules = preset_rules("backgammon")
    start = start_position(rules, "light")
    after = next(o for o in turn_outcomes(rules, start, (3, 1)) if o.play.notation == "8/5 6/5").position
    table = DemoTable(start, image_size=(960, 540))
    got = []
    w = CameraWatcher(table, lambda board, conf, evidence: got.append((board, evidence)), corners=table.corners,
                      fps=30, turn_evidence=True).start()
    try:
        assert until(lambda: got, 20)
        first_board, first = got[0]
        assert first.count_probs.shape == (24, 31) and first.changes is None     # nothing settled before it
        table.set(after)                                                       # the men moved: 8/5 6/5
        assert until(lambda: len(got) >= 2, 20)
        board, evidence = got[1]
        assert board["light"] == after.to_board()["light"]
        assert evidence.before_read == first_board            # compared with the frame that showed this board
        changed = {p for p in range(1, 25) if evidence.changes[p - 1] > 0.004}
        assert {5, 6, 8} <= changed and changed <= {4, 5, 6, 7, 8, 9}
    finally:
        w.close()


def test_the_watcher_compares_the_next_frame_with_the_board_the_referee_judged_this_one_to_show():
    # in a game of piles the camera's own reading of a frame seldom has every pile right; the board the
    # referee ruled from it (``evidence.shown``) has, so the next turn is compared with that frame
    from willughby.companion.demo import DemoTable
    from willughby.engine.referee import turn_outcomes
    from willughby.vision.footprints import place_shares

    rules = preset_rules("doublets")
    start = start_position(rules, "light")
    after = turn_outcomes(rules, start, (4, 1))[0].position
    table = DemoTable(start, image_size=(960, 540))
    got = []

    def referee(board, conf, evidence):
        got.append(evidence)
        evidence.shown = (after if len(got) > 1 else start).to_board()      # what the referee ruled it shows

    w = CameraWatcher(table, referee, corners=table.corners, fps=30, turn_evidence=True).start()
    try:
        assert until(lambda: got, 20)
        table.set(after)                                                     # 4-1: down 4, down 1
        assert until(lambda: len(got) >= 2, 20)
        evidence = got[1]
        assert evidence.before_read["stacked"] == start.to_board()["stacked"]
        assert evidence.profiles.shape == evidence.faint_profiles.shape == (24, 140)
        shares = place_shares(evidence.profiles)
        assert shares[3, 1] > 0.5 and shares[0, 1] > 0.5                    # a man laid beside piles 4 and 1
        assert shares[[1, 2, 4, 5], 1].max() < 0.5                           # and beside no other
    finally:
        w.close()


def test_calibrating_on_the_page_saves_the_corners_the_watcher_then_uses(tmp_path):
    start = start_position(preset_rules("backgammon"))
    image, label = render(np.random.default_rng(7), SceneSpec(position=start, occluded=False, n_dice=0,
                                                              image_size=(960, 540)))
    got = []
    path = tmp_path / "calibration.json"
    w = CameraWatcher(_Still(image), lambda board, conf: got.append(board), calibration_path=path, fps=30).start()
    try:
        time.sleep(0.5)
        assert got == [] and w.status == "not calibrated"     # no corners yet: nothing read
        marked = (np.asarray(label["corners"]) + [[5.0, 0.0], [5.0, 0.0], [-5.0, 0.0], [-5.0, 0.0]]).tolist()
        saved = w.calibrate(marked)                         # marked by a finger: 5 px off along the board
        assert saved["saved"] == str(path) and path.exists()
        assert until(lambda: got, 20)
        assert got[0]["light"] == label["light"]
        # the corners kept were moved back towards the board's own, and the look learnt from the frame is
        # saved with them (its colours and its frame's picture) and used to read
        assert max(saved["moved_px"]) > 2.0
        assert np.allclose(w.snapshot()[1]["corners"], label["corners"], atol=2.0)
        assert w._look is not None and w._look.rails is not None
        assert "rails_png" in json.loads(path.read_text())["colours"]
    finally:
        w.close()


class _MeteringStill(_Still):
    """A camera that meters again when asked: until it has settled, its frames are too dark."""

    live = True

    def __init__(self, image):
        super().__init__(image)
        self.relocks = 0
        self.settling_frames = 0

    def lock_exposure(self):
        self.relocks += 1
        self.settling_frames = 10
        return {"exposure": "metering: 10 frames to go"}

    @property
    def controls_settling(self):
        return self.settling_frames > 0

    def read(self):
        if self.settling_frames:
            self.settling_frames -= 1
            return (self.image // 4).copy()        # what it showed while it metered
        return self.image.copy()


def test_a_calibration_meters_the_camera_again_and_learns_from_a_frame_taken_after(tmp_path, monkeypatch):
    """The Pi owner's journey, item 5: exposure and white balance fixed once
    the board is calibrated. The camera meters the clear board again and
    holds it; the look learnt is from a frame taken once it holds it."""
    import willughby.companion.watch as watch_module

    start = start_position(preset_rules("backgammon"))
    image, label = render(np.random.default_rng(7), SceneSpec(position=start, occluded=False, n_dice=0,
                                                              image_size=(960, 540)))
    taken = []
    real = watch_module.calibrate_from_photo

    def spy(frame, corners, config, known=None):
        taken.append(frame)
        return real(frame, corners, config, known=known)

    monkeypatch.setattr(watch_module, "calibrate_from_photo", spy)
    camera = _MeteringStill(image)
    w = CameraWatcher(camera, lambda board, conf: None, calibration_path=tmp_path / "calibration.json",
                      fps=30).start()
    try:
        assert until(lambda: w.snapshot() is not None, 10)
        w.calibrate(label["corners"])
        assert camera.relocks == 1 and not camera.controls_settling
        assert np.array_equal(taken[0], image), "the calibration was made on a frame taken while the camera metered"
    finally:
        w.close()


def test_a_demo_stopped_and_started_again_carries_on_the_same_game_from_its_board(tmp_path):
    config = CompanionConfig(data_dir=tmp_path, speech="off")
    rt = build(config, demo=True, speed=50, seed=5, mistakes=0.0)
    try:
        assert until(lambda: rt.companion.state()["turn_number"] >= 3, 60)
    finally:
        rt.close()
    before = rt.companion.state()
    rt2 = build(config, demo=True, speed=50, seed=5, mistakes=0.0)
    try:
        s = rt2.companion.state()
        assert s["game_id"] == before["game_id"] and s["turn_number"] >= before["turn_number"]
        table = rt2.parts["table"].started_from          # the players may already have moved since
        from willughby.engine.position import Position
        assert table.physical_key() == Position.from_board(before["board"]).physical_key()
        assert until(lambda: rt2.companion.state()["turn_number"] > before["turn_number"], 60)
        assert all(r["verdict"] == "legal" for r in rt2.companion.state()["rulings"])
    finally:
        rt2.close()


def test_after_a_persons_undo_the_automatic_players_wait_rather_than_throw_again(tmp_path):
    # issue 15: "Undo last turn" took back a throw, and the fake box threw again at once
    config = CompanionConfig(data_dir=tmp_path, speech="off")
    rt = build(config, demo=True, speed=50, seed=4, games=1, mistakes=0.0)     # a whole game: long enough
    try:
        players, c = rt.parts["players"], rt.companion
        players.hold_s = 6.0
        assert until(lambda: c.state()["phase"] == "move" and c.state()["turns_played"] >= 1, 60)
        with c._lock:                                   # between the players' steps: a throw is out
            c.undo(who="Ann")                           # a person takes the throw back from the page
        assert c.state()["phase"] == "throw"
        held = until(lambda: any("wait" in a["text"] for a in c.state()["announcements"][:3]), 5)
        assert held, c.state()["announcements"][:3]
        time.sleep(1.5)                                 # well inside the hold: nobody threw again
        assert c.state()["phase"] == "throw" and players.holds == 1
        assert until(lambda: c.state()["phase"] != "throw", 30)   # then the game goes on
    finally:
        rt.close()


def test_a_question_stays_on_the_page_before_the_automatic_players_answer_it(tmp_path):
    # issue 15: questions vanished within a second at demo speed
    from willughby.companion.demo import DemoPlayers, DemoTable
    from willughby.companion.service import Companion
    from willughby.companion.store import GameStore

    with GameStore(":memory:") as store:
        c = Companion(store)
        c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
        c.enter_dice([3, 1])
        after = c.legal_boards()["8/5 6/5"]
        table = DemoTable(start_position(preset_rules("backgammon")))
        players = DemoPlayers(c, table, box=None, speed=50, question_s=4.0)
        table.position = table.position.__class__.from_board(after)
        c.on_reading(after, {"5": 0.5})
        q = c.state()["question"]
        assert q is not None
        assert players._answer(q) is False and c.state()["question"] is not None   # not yet: just asked
        q = dict(q, asked_at=q["asked_at"] - 5)                                  # five seconds later
        assert players._answer(q) is True
        assert c.state()["question"] is None and c.state()["rulings"][-1]["play"] == "8/5 6/5"


def test_the_camera_reads_as_many_men_a_side_as_the_game_has(monkeypatch):
    """A 12-man game (Doblet, Ofanfelling) is read with 12 men a side, not
    the fifteen most games have: the watcher asks the game in progress at
    each read."""
    import willughby.vision.reader as reader

    rules = preset_rules("backgammon")
    start = start_position(rules)
    after = next(o for o in turn_outcomes(rules, start.with_turn("light"), (3, 1))
                 if o.play.notation == "8/5 6/5").position
    frames = [render(np.random.default_rng(2), SceneSpec(position=board, occluded=False, n_dice=0,
                                                         image_size=(960, 540))) for board in (start, after)]
    asked = []
    real = reader.read_board

    def spy(*args, **kwargs):
        asked.append(kwargs.get("men_per_side"))
        return real(*args, **kwargs)

    monkeypatch.setattr(reader, "read_board", spy)
    men = [12]
    camera = _Still(frames[0][0])
    w = CameraWatcher(camera, lambda board, conf: None, corners=lambda frame: frames[0][1]["corners"], fps=30,
                      men=lambda: men[0]).start()
    try:
        assert until(lambda: len(asked) >= 1, 20)
        men[0] = 15                                    # a new game of fifteen men: the next read follows it
        seen = len(asked)
        camera.image = frames[1][0]                    # ... and its board changes
        assert until(lambda: len(asked) > seen, 20)
    finally:
        w.close()
    assert asked[0] == 12 and asked[-1] == 15


def test_a_demo_game_thrown_with_the_players_own_dice_is_logged_from_the_camera_alone(tmp_path):
    config = CompanionConfig(data_dir=tmp_path, speech="off", dice="camera")
    rt = build(config, demo=True, speed=50, seed=4, games=1, mistakes=0.0, start=RACE_END)
    try:
        c = rt.companion
        over = until(lambda: c.state()["phase"] == "over", 240)
        state = c.state()
        assert over, f"the demo game did not end: {state['phase']}, {state['announcements'][:3]}"
        log = c.store.game(state["game_id"])["log"]
        taken = [e for e in log if e["kind"] == "dice"]
        undone = {n for e in log if e["kind"] == "undo" for n in e["data"]["undoes"]}
        assert taken and all(e["who"] == "camera" for e in taken)        # no throw entered by hand or the box
        thrown = rt.parts["table"].thrown                                 # what the players threw on the table
        # each throw taken is one the players made, in the order made (a throw the camera missed is thrown again)
        made = iter(sorted(d) for d in thrown)
        assert all(any(sorted(e["data"]["dice"]) == d for d in made) for e in taken), (taken, thrown)
        assert not undone and all(r["verdict"] == "legal" for r in state["rulings"])
        # the page names the camera as the dice's source; the fake box is there for its buttons
        assert state["devices"]["dice"] == "camera" and state["devices"]["buttons"].startswith("box"), state["devices"]
    finally:
        rt.close()
