"""A companion in memory for the page's tests (web_ui/contract.py).

A tiny state machine, not a referee: ``start`` (roll for the start) ->
``move`` (dice entered) -> the board submitted is taken as the move ->
``throw`` -> ... It raises the contract's errors where a real companion
would (ValueError bad input, LookupError no such thing, RuntimeError not
now), records every call in ``calls``, and publishes every change to its
subscribers, as the real one does.
"""

from __future__ import annotations

import copy
import queue
import threading
from typing import Any

from willughby.engine.rules import get_preset, start_position

# the start of backgammon, light to play, from the engine (as the real companion has it)
START_BOARD: dict[str, Any] = start_position(get_preset("backgammon").rules, "light").to_board()

PRESETS = ("irish", "backgammon")

FAKE_JPEG = b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9"


class FakeBadInput(ValueError):
    """Bad input (400), as the real companion's CompanionError."""


class FakeNotFound(LookupError):
    """No such thing (404), as the real companion's UnknownError."""


class FakeNotNow(RuntimeError):
    """Not now (409), as the real companion's NotNowError."""


class FakeSubscription:
    """One client's queue of states; the first ``get`` returns the state at subscription."""

    def __init__(self, owner: FakeCompanion, first: dict[str, Any]) -> None:
        self._owner = owner
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue()
        self._queue.put(first)
        self.closed = False

    def put(self, state: dict[str, Any]) -> None:
        self._queue.put(state)

    def get(self, timeout: float | None = None) -> dict[str, Any] | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._owner._unsubscribe(self)


class FakeCompanion:
    """The companion, in memory (see the module)."""

    #: its answers, as the real companion declares its own
    declared_errors: tuple[type[Exception], ...] = (FakeBadInput, FakeNotFound, FakeNotNow)

    def __init__(self, *, camera: bool = True, cube: bool = True) -> None:
        self._lock = threading.Lock()
        self.subscriptions: list[FakeSubscription] = []
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.calibration: list[list[float]] | None = None
        self.camera = camera
        self._games: dict[str, dict[str, Any]] = {}
        self._state = self._fresh("g-1", "backgammon", {"light": "Ann", "dark": "Bob"}, cube=cube)
        self._games["g-1"] = self._record_of(self._state)

    # -- helpers for tests -----------------------------------------------------
    @staticmethod
    def _fresh(game_id: str, preset: str, players: dict[str, str], cube: bool = True) -> dict[str, Any]:
        return {
            "game_id": game_id, "preset": preset, "players": dict(players),
            "board": copy.deepcopy(START_BOARD), "dice": None, "turn_number": 0, "phase": "start",
            "rulings": [], "game_over": None,
            "cube": {"value": 1, "owner": None, "offered_by": None, "enabled": cube},
            "question": None, "announcements": [], "last_play": None,
            "devices": {"camera": "ok", "dice": "by hand", "speech": False}, "version": 1,
        }

    @staticmethod
    def _record_of(state: dict[str, Any]) -> dict[str, Any]:
        return {"game_id": state["game_id"], "preset": state["preset"], "players": dict(state["players"]),
                "started": "2025-03-01T20:15:00", "ended": None, "result": None, "turns": [],
                "record": {}, "log": []}

    def announce(self, text: str, kind: str = "info") -> None:
        """A change from outside the page (the camera, the dice box): publishes a new state."""
        with self._lock:
            self._say(text, kind)
            self._changed()

    def ask_question(self, question_id: str = "q-1") -> None:
        """Open a question with two choices."""
        with self._lock:
            board = copy.deepcopy(self._state["board"])
            self._state["question"] = {
                "id": question_id, "text": "Which play did you mean?", "reading": board,
                "choices": [{"index": 0, "play": "8/5 6/5", "board": board},
                            {"index": 1, "play": "13/10 6/5", "board": board}]}
            self._changed()

    def _say(self, text: str, kind: str) -> None:
        announcements = self._state["announcements"]
        announcements.append({"n": len(announcements) + 1, "text": text, "kind": kind})

    def _changed(self) -> dict[str, Any]:
        self._state["version"] += 1
        snapshot = copy.deepcopy(self._state)
        for subscription in list(self.subscriptions):
            subscription.put(copy.deepcopy(snapshot))
        return snapshot

    def _unsubscribe(self, subscription: FakeSubscription) -> None:
        with self._lock:
            if subscription in self.subscriptions:
                self.subscriptions.remove(subscription)

    def _need(self, *phases: str) -> None:
        if self._state["phase"] not in phases:
            raise FakeNotNow(f"not now: the game is at {self._state['phase']!r}")

    # -- CompanionLike -----------------------------------------------------------
    def state(self) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._state)

    def set_device(self, name: str, status: Any) -> None:
        with self._lock:
            devices = self._state["devices"]
            if devices.get(name) != status:
                if status is None:
                    devices.pop(name, None)
                else:
                    devices[name] = status
                self._changed()

    def subscribe(self) -> FakeSubscription:
        with self._lock:
            subscription = FakeSubscription(self, copy.deepcopy(self._state))
            self.subscriptions.append(subscription)
            return subscription

    def new_match(self, length: int, preset: str, options: dict[str, str], players: dict[str, str],
                  crawford: bool, who: str, clock: dict[str, Any] | None = None) -> dict[str, Any]:
        self.calls.append(("new_match", (length, preset, options, players, crawford, who)))
        if clock is not None:
            self.calls.append(("clock", (clock,)))
            if not 1 <= clock.get("reserve_s", 0) <= 86400:
                raise FakeBadInput("a reserve is 1 s to 24 hours")
        state = self.new_game(preset, options, players, who, abandon_match=True)
        with self._lock:
            self._state["match"] = {"length": length, "crawford": crawford, "game": 1, "status": "playing",
                                    "text": "light needs %d, dark needs %d" % (length, length), "winner": None}
            return dict(state, match=self._state["match"])

    def next_game(self, who: str) -> dict[str, Any]:
        self.calls.append(("next_game", (who,)))
        raise FakeNotNow("this game of the match is still in play")

    def press(self, button: str, who: str) -> None:
        self.calls.append(("press", (button, who)))

    def hold_clock(self, held: bool, who: str) -> dict[str, Any]:
        self.calls.append(("hold_clock", (held, who)))
        if self._state.get("clock") is None:
            raise FakeNotNow("this game has no clock")
        return self.state()

    def new_game(self, preset: str, options: dict[str, str], players: dict[str, str], who: str, *,
                 abandon_match: bool = False) -> dict[str, Any]:
        self.calls.append(("new_game", (preset, options, players, who)))
        if preset not in PRESETS:
            raise FakeBadInput(f"unknown preset {preset!r}")
        for name in options:
            if name != "cube":
                raise FakeBadInput(f"unknown option {name!r}")
        with self._lock:
            game_id = f"g-{len(self._games) + 1}"
            version = self._state["version"]
            self._state = self._fresh(game_id, preset, players, cube=options.get("cube", "true") == "true")
            self._state["version"] = version
            self._games[game_id] = self._record_of(self._state)
            return self._changed()

    def enter_dice(self, dice: list[int], who: str) -> dict[str, Any]:
        self.calls.append(("enter_dice", (dice, who)))
        with self._lock:
            self._need("start", "throw")
            if len(dice) != 2:
                raise FakeBadInput(f"two dice are thrown, not {len(dice)}")
            self._state.update(dice=list(dice), phase="move")
            if self._state["turn_number"] == 0:
                self._state["turn_number"] = 1
            return self._changed()

    def submit_board(self, board: dict[str, Any], who: str) -> dict[str, Any]:
        self.calls.append(("submit_board", (board, who)))
        with self._lock:
            self._need("move")
            if board.get("format") != "board/1":
                raise FakeBadInput(f"format must be 'board/1', not {board.get('format')!r}")
            before, player = self._state["board"], self._state["board"]["turn"]
            after = {**copy.deepcopy(board), "turn": "dark" if player == "light" else "light"}
            turn = self._state["turn_number"]
            ruling = {"verdict": "legal", "play": "8/5 6/5", "events": [], "reason": None, "citation": None,
                      "turn": turn, "player": player, "dice": self._state["dice"]}
            self._games[self._state["game_id"]]["turns"].append(
                {"turn": turn, "player": player, "dice": self._state["dice"], "play": "8/5 6/5",
                 "before": before, "after": after, "ruling": ruling})
            self._state.update(board=after, dice=None, phase="throw", turn_number=turn + 1,
                               last_play={"turn": turn, "player": player, "play": "8/5 6/5",
                                          "before": before, "after": after})
            self._state["rulings"].append(ruling)
            self._say(f"{player} plays 8/5 6/5", "play")
            return self._changed()

    def answer(self, question_id: str, choice: int, who: str) -> dict[str, Any]:
        self.calls.append(("answer", (question_id, choice, who)))
        with self._lock:
            question = self._state["question"]
            if question is None or question["id"] != question_id:
                raise FakeNotFound(f"no open question {question_id!r}")
            if not 0 <= choice < len(question["choices"]):
                raise FakeBadInput(f"choice {choice} is not one of the {len(question['choices'])} choices")
            self._state["question"] = None
            return self._changed()

    def undo(self, who: str) -> dict[str, Any]:
        self.calls.append(("undo", (who,)))
        with self._lock:
            if self._state["last_play"] is None:
                raise FakeNotNow("there is no turn to take back")
            last = self._state["last_play"]
            self._state.update(board=last["before"], last_play=None, phase="move",
                               turn_number=self._state["turn_number"] - 1)
            return self._changed()

    def cube(self, action: str, who: str) -> dict[str, Any]:
        self.calls.append(("cube", (action, who)))
        with self._lock:
            cube = self._state["cube"]
            if not cube["enabled"]:
                raise FakeNotNow("this game has no cube")
            if action == "double":
                self._need("throw")
                cube["offered_by"] = self._state["board"]["turn"]
                self._state["phase"] = "cube"
            else:
                self._need("cube")
                taker = "dark" if cube["offered_by"] == "light" else "light"
                if action == "take":
                    cube.update(value=cube["value"] * 2, owner=taker, offered_by=None)
                    self._state["phase"] = "throw"
                else:
                    self._state.update(phase="over", game_over={"winner": cube["offered_by"], "kind": "single",
                                                                "stake": cube["value"]})
            return self._changed()

    def games(self) -> list[dict[str, Any]]:
        with self._lock:
            return [{**{k: v for k, v in g.items() if k not in ("record", "log")}, "turns": len(g["turns"])}
                    for g in reversed(list(self._games.values()))]

    def game(self, game_id: str) -> dict[str, Any]:
        with self._lock:
            if game_id not in self._games:
                raise FakeNotFound(f"no game {game_id!r}")
            return copy.deepcopy(self._games[game_id])

    def export_mat(self, game_id: str) -> str:
        game = self.game(game_id)
        if game["preset"] != "backgammon":
            raise FakeBadInput(f"only backgammon exports to .mat, not {game['preset']!r}")
        return f"; [Site \"Willughby\"]\n 1 point match\n\n Game 1\n {game['players']['light']} : 0\n"

    def dispute(self, turn: int, attempt: int | None = None) -> dict[str, Any]:
        self.calls.append(("dispute", (turn, attempt)))
        with self._lock:
            turns = self._games[self._state["game_id"]]["turns"]
            found = [t for t in turns if t["turn"] == turn]
            if not found or attempt not in (None, 1):
                raise FakeNotFound(f"no turn {turn} in the game in progress")
            t = found[0]
            return {"turn": turn, "attempt": 1, "attempts": 1, "player": t["player"],
                    "player_text": f"{self._state['players'][t['player']]} ({t['player']})",
                    "dice": t["dice"], "before": t["before"], "after": t["after"], "ruling": t["ruling"],
                    "source": {"key": "play.all", "citation": "Hoyle 1753", "quote": "Play all you can."},
                    "legal_plays": [{"play": "8/5 6/5", "board": t["after"]}], "others": []}

    #: photos are taken up to this many bytes (0: none), as the real companion's ``max_photo_bytes``
    max_photo_bytes = 0

    def add_dispute_photo(self, turn: int, attempt: int | None, data: bytes, who: str) -> dict[str, Any]:
        self.calls.append(("add_dispute_photo", (turn, attempt, len(data), who)))
        return {"photo": "p-000000000001", "turn": turn, "attempt": attempt or 1, "size": [640, 480],
                "corners": None, "found_by": None, "order_known": False}

    def camera_snapshot(self) -> tuple[bytes, dict[str, Any]] | None:
        if not self.camera:
            return None
        return FAKE_JPEG, {"corners": [[10, 10], [630, 12], [628, 470], [8, 468]], "size": [640, 480]}

    def calibrate(self, corners: list[list[float]], who: str, c1_confirmed: bool = False) -> dict[str, Any]:
        self.calls.append(("calibrate", (corners, who)))
        self.c1_confirmed = c1_confirmed
        if not self.camera:
            raise FakeNotNow("there is no camera to calibrate")
        self.calibration = corners
        return {"ok": True, "corners": corners}
