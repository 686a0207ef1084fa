"""The players' own dice, read by the camera, give the throw: only a new throw
(the dice picked up, or lying in new places), only when a throw is wanted,
only when every die is read surely; a turn is never ruled illegal on the
camera's dice alone; with the box throwing, the camera only compares."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from willughby.companion.camera_throws import CameraThrows
from willughby.companion.config import CompanionConfig, ConfigError
from willughby.companion.service import Companion
from willughby.companion.store import GameStore, StoreError
from willughby.engine.moves import legal_plays
from willughby.engine.position import Position
from willughby.engine.rules import preset_rules
from willughby.vision.dice_reader import SeenDie
from willughby.vision.turns import TurnEvidence, board_classes


def _die(value: int | None, x: float, y: float = 100.0) -> SeenDie:
    return SeenDie(value, (x, y), 20.0, 0.99 if value else 0.0, None if value else "unreadable")


@pytest.fixture()
def c(camera_judged_game: Companion) -> Companion:
    return camera_judged_game


def _watching(c: Companion, compare_only: bool = False) -> CameraThrows:
    """The camera's throws, started with the table clear (a settled frame with no dice on it)."""
    throws = CameraThrows(c, compare_only=compare_only)
    throws.on_dice([])
    return throws


def _play(c: Companion, play: str) -> None:
    after = c.legal_boards()[play]
    p = np.full((24, 31), 1e-4 / 30)
    p[np.arange(24), board_classes(after)] = 1 - 1e-4
    assert c.on_reading(after, None, evidence=TurnEvidence(p, dict(after.get("bar") or {})))["verdict"] == "legal"


def test_a_new_throw_on_the_board_is_entered_as_thrown_and_the_same_dice_lying_still_are_not(c):
    throws = _watching(c)
    _play(c, "8/5 6/5")                           # Bob is to throw
    throws.on_dice([_die(6, 100), _die(2, 140)])
    state = c.state()
    assert state["dice"] == [6, 2] and state["phase"] == "move"
    assert state["announcements"][0]["text"] == "Bob (dark) throws 6-2"
    assert c.store.game(c.game_id)["log"][-2]["who"] == "camera"     # the throw's log entry names the camera
    throws.on_dice([_die(6, 101), _die(2, 139)])  # the dice lying where they fell: the same throw
    assert c.state()["dice"] == [6, 2] and c.state()["phase"] == "move"


def test_the_same_faces_in_new_places_are_a_new_throw_and_dice_that_never_moved_are_not(c):
    throws = _watching(c)
    _play(c, "8/5 6/5")
    throws.on_dice([_die(3, 100), _die(1, 140)])  # Bob throws 3-1
    _play(c, next(iter(c.legal_boards())))
    throws.on_dice([_die(3, 100), _die(1, 140)])  # Ann's turn: Bob's dice never moved
    assert c.state()["phase"] == "throw"
    throws.on_dice([_die(3, 300), _die(1, 340)])  # the same faces thrown again, in new places
    assert c.state()["phase"] == "move" and c.state()["dice"] == [3, 1]


def test_dice_picked_up_and_thrown_where_they_lay_are_a_new_throw(c):
    throws = _watching(c)
    _play(c, "8/5 6/5")
    throws.on_dice([_die(5, 100), _die(4, 140)])
    _play(c, next(iter(c.legal_boards())))
    throws.on_dice([])                            # a settled frame with no dice: they were picked up
    throws.on_dice([_die(5, 100), _die(4, 140)])
    assert c.state()["phase"] == "move" and c.state()["dice"] == [5, 4]


def test_a_die_not_read_surely_is_never_guessed_the_players_are_told_once(c):
    throws = _watching(c)
    _play(c, "8/5 6/5")
    throws.on_dice([_die(None, 100), _die(4, 140)])
    throws.on_dice([_die(None, 100), _die(4, 140)])
    state = c.state()
    assert state["phase"] == "throw" and state["dice"] is None
    told = [a["text"] for a in state["announcements"] if "cannot read the dice" in a["text"]]
    assert len(told) == 1


def test_one_die_of_two_seen_gives_no_throw(c):
    throws = _watching(c)
    _play(c, "8/5 6/5")
    throws.on_dice([_die(6, 100)])
    assert c.state()["phase"] == "throw"


def test_a_board_no_play_of_the_cameras_throw_leads_to_is_asked_not_ruled_illegal(c):
    throws = _watching(c)
    _play(c, "8/5 6/5")
    throws.on_dice([_die(6, 100), _die(2, 140)])  # the camera reads 6-2
    # the board a 6-1 gives (the camera read the 1 as a 2, say): no play of 6-2 leads to it
    _asked_not_ruled(c, (6, 1))


def _asked_not_ruled(c: Companion, dice: tuple[int, int]) -> None:
    """A board a throw of *dice* gives and no play of the throw in play leads to is asked, not ruled."""
    before = Position.from_board(c.state()["board"])
    ok = {_key(b) for b in c.legal_boards().values()}
    board = next(b for b in (p.position.to_board() for p in legal_plays(preset_rules("backgammon"), before, dice))
                 if _key(b) not in ok)
    p = np.full((24, 31), 1e-4 / 30)
    p[np.arange(24), board_classes(board)] = 1 - 1e-4
    assert c.on_reading(board, None, evidence=TurnEvidence(p, dict(board.get("bar") or {}))) is None
    state = c.state()
    assert not [r for r in state["rulings"] if r["verdict"] == "illegal"]
    assert state["question"] is not None and "the camera read" in state["question"]["text"]


def _key(board: dict) -> tuple:
    return tuple(board["light"]), tuple(board["dark"]), tuple(sorted((board.get("bar") or {}).items()))


def test_with_the_box_throwing_the_camera_only_compares(c, caplog):
    throws = _watching(c, compare_only=True)
    _play(c, "8/5 6/5")
    c.enter_dice([6, 2], who="box")
    with caplog.at_level(logging.INFO, logger="willughby.companion.camera_throws"):
        throws.on_dice([_die(6, 100), _die(3, 140)])
    assert c.state()["dice"] == [6, 2]
    assert throws.last_read == [6, 3] and "the box threw" in caplog.text


def test_the_camera_is_a_dice_source_in_the_configuration():
    assert CompanionConfig(dice="camera").dice == "camera"
    with pytest.raises(ConfigError, match="page, box, pi or camera"):
        CompanionConfig(dice="cup")


def test_the_dice_are_read_while_a_throw_is_awaited_or_played_or_to_compare_with_the_box(c):
    throws = _watching(c)
    assert throws.wanted()                        # Ann is to move the 3-1 of the start: where its dice lie
    _play(c, "8/5 6/5")
    assert throws.wanted()                        # Bob is to throw
    fresh = Companion(GameStore(":memory:"))
    fresh.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    assert not CameraThrows(fresh).wanted()       # the roll for the start: one die each, not the camera's
    assert CameraThrows(fresh, compare_only=True).wanted()
    fresh.store.close()


def test_after_a_restart_dice_that_never_moved_are_not_a_throw_and_a_new_throw_is_taken(c):
    first = _watching(c)
    _play(c, "8/5 6/5")
    first.on_dice([_die(6, 100), _die(2, 140)])   # Bob throws 6-2 ...
    _play(c, next(iter(c.legal_boards())))        # ... and plays it
    again = CameraThrows(c)                       # the companion started again: a new watcher's throws
    again.on_dice([_die(6, 100), _die(2, 140)])   # Bob's dice, lying where they fell
    state = c.state()
    assert state["phase"] == "throw" and state["dice"] is None
    assert "the camera does not know whether the dice" in state["announcements"][0]["text"]
    again.on_dice([_die(4, 300), _die(1, 340)])   # Ann throws: taken, its ident not one taken before
    assert c.state()["phase"] == "move" and c.state()["dice"] == [4, 1]


def test_the_dice_of_a_throw_entered_on_the_page_are_not_the_next_players_throw(c):
    throws = _watching(c)
    _play(c, "8/5 6/5")
    throws.on_dice([_die(None, 300), _die(4, 340)])      # Bob's die cocked: the players are told ...
    c.enter_dice([5, 4])                                 # ... and enter the throw on the page
    throws.on_dice([_die(5, 300), _die(4, 340)])         # the die falls flat while Bob plays
    _play(c, next(iter(c.legal_boards())))
    throws.on_dice([_die(5, 300), _die(4, 340)])         # Ann's turn: Bob's dice still lie there
    assert c.state()["phase"] == "throw" and c.state()["dice"] is None
    throws.on_dice([_die(2, 100), _die(1, 140)])         # Ann throws
    assert c.state()["phase"] == "move" and c.state()["dice"] == [2, 1]


def test_a_die_not_read_is_told_again_for_a_new_throw(c):
    throws = _watching(c)
    _play(c, "8/5 6/5")
    throws.on_dice([_die(None, 100), _die(4, 140)])
    c.enter_dice([5, 4])
    throws.on_dice([_die(5, 100), _die(4, 140)])
    _play(c, next(iter(c.legal_boards())))
    throws.on_dice([_die(None, 300), _die(2, 340)])      # Ann's throw, in new places, a die cocked again
    told = [a["text"] for a in c.state()["announcements"] if "cannot read the dice" in a["text"]]
    assert len(told) == 2


def test_a_throw_entered_on_the_page_while_the_camera_reads_one_is_kept_and_the_camera_raises_nothing(c):
    _play(c, "8/5 6/5")

    class PageMeanwhile:                                 # the page enters a throw between the state and the dice
        def state(self):
            state = c.state()
            c.enter_dice([6, 6])
            return state

        def enter_dice(self, dice, who, ident):
            return c.enter_dice(dice, who, ident)

        def notice(self, text):
            c.notice(text)

    throws = _watching(c)
    throws._game = PageMeanwhile()
    throws.on_dice([_die(6, 100), _die(2, 140)])
    assert c.state()["dice"] == [6, 6] and throws.last_read is None


def test_with_the_box_throwing_a_frame_read_before_the_box_throws_is_compared_later(c, caplog):
    throws = _watching(c, compare_only=True)
    _play(c, "8/5 6/5")
    throws.on_dice([_die(6, 100), _die(3, 140)])         # the box's throw not come yet: nothing to compare
    c.enter_dice([6, 2], who="box")
    with caplog.at_level(logging.INFO, logger="willughby.companion.camera_throws"):
        throws.on_dice([_die(6, 100), _die(3, 140)])
    assert "the box threw" in caplog.text


def test_a_throw_read_by_the_camera_and_restored_by_undo_is_still_the_cameras(c):
    # UNDO takes back a throw entered on the page and the move before it: the throw in play is again the
    # camera's, and a board no play of it leads to is asked about, never ruled illegal
    throws = _watching(c)
    _play(c, "8/5 6/5")
    throws.on_dice([_die(6, 100), _die(2, 140)])         # Bob's 6-2, read by the camera
    _play(c, next(iter(c.legal_boards())))
    c.enter_dice([4, 1])                                 # Ann's throw, on the page
    c.undo()
    c.undo()
    assert c.state()["phase"] == "move" and c.state()["dice"] == [6, 2]
    _asked_not_ruled(c, (6, 1))


def test_a_mark_taken_for_a_die_that_lies_still_through_three_turns_is_learnt_as_the_boards_own(c):
    # a man's dimple (or a mark on the board) that the reader takes for a one stands in the way of every
    # throw at first: three dice seen where two are thrown give no throw, and the players enter it
    throws = CameraThrows(c)
    mark = _die(1, 600, 400)
    _play(c, "8/5 6/5")
    for n, (x, faces) in enumerate(((100, (6, 2)), (300, (5, 3)))):
        throws.on_dice([_die(faces[0], x), _die(faces[1], x + 40), mark])
        assert c.state()["phase"] == "throw", n                      # no throw taken from the camera
        c.enter_dice(list(faces))
        _play(c, next(iter(c.legal_boards())))
    assert throws.fixtures == []
    # the third turn it lies still: it is the board's, passed over, and the throw is taken
    throws.on_dice([_die(4, 200), _die(2, 240), mark])
    assert throws.fixtures == [(600, 400)]
    state = c.state()
    assert state["phase"] == "move" and state["dice"] == [4, 2]
    assert c.store.game(c.game_id)["log"][-2]["who"] == "camera"


def test_a_throw_the_store_did_not_take_is_forgotten_and_taken_again_under_its_own_name(c, monkeypatch):
    # nothing lost, nothing misnamed: a write the store refused (a full disk) leaves the game as stored, so the
    # next frame's dice are taken as the camera's throw, not saved later under whoever makes the next move
    throws = _watching(c)
    _play(c, "8/5 6/5")
    writes = c.store.append_many

    def refused_once(*args, **kwargs):
        monkeypatch.setattr(c.store, "append_many", writes)
        raise StoreError("database or disk is full")

    monkeypatch.setattr(c.store, "append_many", refused_once)
    with pytest.raises(StoreError):
        throws.on_dice([_die(6, 100), _die(2, 140)])
    assert c.state()["phase"] == "throw" and c.state()["dice"] is None
    throws.on_dice([_die(6, 100), _die(2, 140)])        # the next settled frame: the same dice
    assert c.state()["phase"] == "move" and c.state()["dice"] == [6, 2]
    _play(c, next(iter(c.legal_boards())))
    log = c.store.game(c.game_id)["log"]
    throw, move = [e for e in log if e["kind"] == "action"][-2:]
    assert (throw["data"]["type"], throw["who"], move["data"]["type"]) == ("throw", "camera", "move")
    assert [e["who"] for e in log if e["kind"] == "dice"][-1] == "camera"
