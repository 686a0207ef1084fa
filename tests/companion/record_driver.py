"""Drive a real companion through its control API at random, and check that
what it stored agrees with itself (issue: "a stored game, its replay and its
export always agree, whatever is done when").

Used by the state-machine test (``test_record_state_machine.py``, drawn by
hypothesis) and by the ``kill -9`` test, which runs :func:`main` in a child
process and kills it at a random step.

Every control the page has is here: login and logout, a new game of each
family (from the start, or near the end so that games end often), a match
to one to three points and its next game, dice,
a board entered by hand (legal or not, or two or three plays on: the
camera missed a play), an answer, undo, the cube,
calibrate; beside them what the devices do on their own: the camera reading
the table (sure, or unsure so that it asks), and the demo's automatic
players acting once (:class:`~willughby.companion.demo.DemoPlayers`).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from willughby.companion.demo import DemoPlayers, board_position
from willughby.companion.errors import NotNowError
from willughby.companion.games import family_of_preset
from willughby.companion.matfile import to_mat
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.engine.match import Match
from willughby.engine.position import Position
from willughby.engine.rules import preset_rules, start_position
from willughby.web_ui import WebConfig, create_app

PIN = "2468"
SECRET = b"a test secret of thirty-two byte"

#: the opening position of backgammon (a .mat holds games from it)
OPENING_ID = start_position(preset_rules("backgammon")).id()

#: one preset of each family, and a second race game with its own rules
PRESETS = ("backgammon", "irish", "doublets", "sice-ace")

#: boards a few turns from the end, so that random play reaches it
NEAR_END: dict[str, dict[str, Any]] = {
    "backgammon": {"light": [2, 1, 1] + [0] * 21, "dark": [0] * 21 + [1, 1, 2],
                   "off": {"light": 11, "dark": 11}, "turn": "light"},
    "irish": {"light": [1, 1] + [0] * 22, "dark": [0] * 22 + [1, 1],
              "off": {"light": 13, "dark": 13}, "turn": "dark"},
    "doublets": {"light": [1, 1, 1] + [0] * 21, "dark": [0] * 21 + [1, 1, 1],
                 "off": {"light": 12, "dark": 12}, "turn": "light"},
}


class Table:
    """The men on the table as the demo's players set them (no pictures drawn)."""

    def __init__(self) -> None:
        self.position: Position | None = None

    def set(self, position: Position) -> None:
        self.position = position


class Box:
    """The dice box the demo's players press: ROLL throws into the companion, DONE asks it to read."""

    def __init__(self, companion: Companion, rng: random.Random) -> None:
        self.companion = companion
        self.rng = rng

    def press(self, button: str) -> None:
        if button == "roll":
            wanted = int(self.companion.state().get("dice_wanted") or 2)
            self.companion.enter_dice([self.rng.randint(1, 6) for _ in range(wanted)], who="box")
        else:
            self.companion.press(button, who="box")


class Driver:
    """A companion over a store file, its page, and the players around it."""

    def __init__(self, path: Path, seed: int = 0) -> None:
        self.path = path
        self.store = GameStore(path)
        self.now = 1000.0                     # the match's clock reads this: time passes only as a step says
        self.companion = Companion(self.store, monotonic=lambda: self.now)
        self.app = create_app(WebConfig(pin=PIN, secret_key=SECRET), companion=self.companion)
        self.client: FlaskClient = self.app.test_client()
        self.token: str | None = None
        self.rng = random.Random(seed)
        self.table = Table()
        self.players = DemoPlayers(self.companion, self.table, Box(self.companion, self.rng),  # type: ignore[arg-type]
                                   speed=1e9, seed=seed, mistakes=0.2, hold_s=0.0, question_s=0.0)
        self.statuses: list[int] = []

    def close(self) -> None:
        self.store.close()

    # ------------------------------------------------------------ the page
    def post(self, url: str, body: dict[str, Any]) -> int:
        headers = {"X-CSRF-Token": self.token} if self.token else {}
        response = self.client.post(url, json=body, headers=headers)
        assert response.status_code in (200, 400, 403, 404, 409, 429), (url, body, response.status_code,
                                                                        response.get_data(as_text=True))
        if response.status_code >= 400:
            error = response.json["error"] if response.is_json else ""
            assert isinstance(error, str) and error and "\n" not in error, (url, error)
        self.statuses.append(response.status_code)
        return response.status_code

    def login(self, right: bool) -> int:
        response = self.client.post("/api/login", json={"pin": PIN if right else "0000", "name": "Ann"})
        if response.status_code == 200:
            self.token = response.json["csrf"]
        return response.status_code

    def logout(self) -> int:
        status = self.post("/api/logout", {})
        if status == 200:
            self.token = None
        return status

    def new_game(self, preset: str, near_end: bool) -> int:
        start = NEAR_END.get(preset) if near_end else None
        abandon = self.rng.random() < 0.3     # in the middle of a match, given up now and then (else refused: 409)
        if start is None:
            body = ({"preset": preset, "players": {"light": "Ann", "dark": "Bob"}}
                    if preset != "sice-ace" else {"preset": preset, "options": {"players": 3}})
            return self.post("/api/game", dict(body, abandon_match=abandon))
        if self.token is None:        # a start board is the demo's (--start), not the page's
            return 403
        family = family_of_preset(preset)
        try:
            self.companion.new_game(preset, {}, {"light": "Ann", "dark": "Bob"}, who="test",
                                    start=dict(start, format="board/1"), abandon_match=abandon)
        except NotNowError:           # a match in play: not given up by a game from a board (the API's 409)
            return 409
        assert family.name != "counting"
        return 200

    def new_match(self, length: int) -> int:
        body: dict[str, Any] = {"length": length, "preset": "backgammon", "players": {"light": "Ann", "dark": "Bob"}}
        if self.rng.random() < 0.5:           # half the matches have a clock, some of them short enough to flag
            body["clock"] = {"reserve_s": self.rng.choice((20, 60, 600)), "delay_s": self.rng.choice((0, 5)),
                             "mode": self.rng.choice(("bronstein", "fischer", "none")),
                             "on_flag": self.rng.choice(("lose-match", "announce"))}
        return self.post("/api/match", body)

    def wait(self) -> bool:
        """Time passes at the table (the players think); the clock is looked at, as its ticker does."""
        self.now += self.rng.choice((0.5, 3.0, 12.0, 40.0))
        return self.companion.tick()

    def next_game(self) -> int:
        return self.post("/api/match/next", {})

    def dice(self, sensible: bool) -> int:
        state = self.companion.state()
        phase = state["phase"]
        count = {"start": 2, "binding_toss": 4}.get(phase, int(state.get("dice_wanted") or 2))
        if not sensible:
            count = self.rng.choice([0, 1, count + 1])
        values = [self.rng.randint(1, 6) for _ in range(count)]
        return self.post("/api/dice", {"dice": values})

    def board(self, legal: bool) -> int:
        state = self.companion.state()
        if state["phase"] != "move" or state.get("family") == "counting":
            doc = state.get("board") or {"light": [1] * 24}
            return self.post("/api/board", {"board": {k: v for k, v in doc.items() if k != "turn"}})
        plays = self.companion.legal_boards()
        doc = dict(plays[self.rng.choice(sorted(plays))])
        if not legal:
            doc = self._wrong(doc)
        doc.pop("turn", None)
        return self.post("/api/board", {"board": doc})

    def ahead(self, plays: int) -> int:
        """The players fix the board to one *plays* plays on from the one the referee holds (the camera missed
        plays): the mover's legal play of his throw, then each player's in turn with a throw drawn."""
        from willughby.engine.referee import turn_outcomes

        state = self.companion.state()
        m = self.companion.match
        if state["phase"] != "move" or state.get("family") == "counting" or m is None:
            return self.board(True)
        position = m.position
        dice: tuple[int, ...] = tuple(m.dice)
        for _ in range(plays):
            outcomes = turn_outcomes(m.rules, position, dice)
            position = self.rng.choice(outcomes).position
            if position.turn is None or max(position.off) >= m.rules.men:
                break                       # the game ended: no play after it
            dice = tuple(self.rng.randint(1, 6) for _ in range(m.rules.dice_thrown))
        doc = position.to_board()
        doc.pop("turn", None)
        return self.post("/api/board", {"board": doc})

    def _wrong(self, doc: dict[str, Any]) -> dict[str, Any]:
        """A board no play leads to, most of the time: one man moved on a pip."""
        light = list(doc["light"])
        dark = list(doc["dark"])
        for i in self.rng.sample(range(24), 24):
            j = i - 1
            if light[i] and j >= 0 and not dark[j]:
                light[i] -= 1
                light[j] += 1
                return dict(doc, light=light)     # (in a game of piles it may be no board at all: 400)
        return doc

    def answer(self, pick: int) -> int:
        question = self.companion.state().get("question")
        if question is None or not question.get("choices"):
            return self.post("/api/answer", {"question": "q-999", "choice": 0})
        choices = question["choices"]
        return self.post("/api/answer", {"question": question["id"],
                                         "choice": choices[pick % len(choices)]["index"]})

    def undo(self) -> int:
        return self.post("/api/undo", {})

    def cube(self, action: str) -> int:
        return self.post("/api/cube", {"action": action})

    def calibrate(self) -> int:
        return self.post("/api/calibrate", {"corners": [[10, 10], [630, 12], [628, 470], [8, 468]]})

    # ---------------------------------------------------- what runs by itself
    def camera(self, sure: bool) -> None:
        """The camera reads the men where the demo's players set them."""
        state = self.companion.state()
        if state["phase"] == "none" or self.table.position is None:
            return
        doc = self.table.position.to_board()
        doc.pop("turn", None)
        confidence = None if sure else {"3": 0.4}
        try:
            self.companion.on_reading(doc, confidence or {str(k): 0.99 for k in range(1, 25)}, who="camera")
        except ValueError:            # a reading that is no board of this game: the watcher logs it
            pass

    def demo_players(self) -> None:
        """The automatic players act once on the state as it is (as their thread does)."""
        from willughby.companion.errors import CompanionError, NotNowError

        state = self.companion.state()
        if self.table.position is None:
            self.table.position = board_position(state["board"])
        try:
            self.players._act(state)
        except (CompanionError, NotNowError):
            pass

    # ------------------------------------------------------------ agreement
    def check(self) -> None:
        """The store, the list of games, the replay and the exports agree."""
        check_agreement(self.store, self.client, self.companion)

    def digest(self) -> dict[str, Any]:
        """What is stored, as one line: every game's log length and a hash of its log."""
        out = {}
        for g in self.store.games():
            entries = [(e["n"], e["kind"], e["data"]) for e in self.store.game(g["id"])["log"]]
            out[g["id"]] = [len(entries), _hash(entries), g["status"]]
        return out


def _hash(entries: list[Any]) -> str:
    return hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()[:16]


def log_hash(store: GameStore, game_id: str, length: int) -> str:
    entries = [(e["n"], e["kind"], e["data"]) for e in store.game(game_id)["log"]][:length]
    return _hash(entries)


def check_agreement(store: GameStore, client: FlaskClient, companion: Companion | None) -> None:
    """Every stored game: its row (the list of games), its record replayed by
    the engine, the page's JSON export and its ``.mat`` say the same."""
    listed = client.get("/api/games").json["games"]
    stored = store.games()
    assert [g["id"] for g in listed] == [g["id"] for g in stored]
    playing = [g for g in stored if g["status"] == "playing"]
    assert len(playing) <= 1, playing
    for row, item in zip(stored, listed):
        gid = row["id"]
        record = store.record(gid)
        family = family_of_preset(record["preset"])
        replay = family.from_record(record)          # the engine replays the record
        result = replay.result.to_json() if replay.result is not None else None
        assert row["result"] == result, (gid, row["status"], row["result"], result)
        assert (row["status"] == "over") == (result is not None), (gid, row["status"], result)
        export = client.get(f"/api/games/{gid}/export.json")
        assert export.status_code == 200
        exported = json.loads(export.get_data(as_text=True))
        assert exported["record"]["actions"] == record["actions"]
        assert exported["result"] == result and exported["status"] == row["status"]
        assert item["turns"] == exported["turns_played"], (gid, item["turns"], exported["turns_played"])
        if family.name != "counting":
            assert row["turns"] == item["turns"], (gid, row["turns"], item["turns"])
        if family.name != "counting" and exported["turns"]:
            last = exported["turns"][-1]
            if last["verdict"] == "legal":
                assert Position.from_board(last["after"]).physical_key() == replay.position.physical_key()
        if record["preset"] == "backgammon" and record["start"] == OPENING_ID:
            mat = to_mat(record)
            wins = [line for line in mat.splitlines() if "Wins" in line]
            if result is None:
                assert not wins, (gid, wins)
            elif result["kind"] == "flag":           # lost on time: written unfinished, the head says why
                assert not wins and ("flag fell" in mat or "placed the board" in mat), (gid, wins)  # or a gap before
            else:
                assert len(wins) == 1 and f"Wins {result['stake']} point" in wins[0], (gid, wins, result)
        if companion is not None and row["status"] == "playing":
            state = companion.state()
            assert state["game_id"] == gid
            assert state["board"] == family.board_doc(replay), (gid, state["board"])
            assert state["game_over"] is None
        if companion is not None and companion.state()["game_id"] == gid:
            assert companion.state()["game_over"] == result
    check_matches(store, companion)


def check_matches(store: GameStore, companion: Companion | None) -> None:
    """Every stored match replays from its games' records; its status agrees with them (won: over; not won:
    playing or abandoned), one at most is in play, and the page's match is the replay's."""
    playing = [m for m in store.matches() if m["status"] == "playing"]
    assert len(playing) <= 1, playing
    for row in store.matches():
        replay = Match.from_record(store.match_record(row["id"]))
        if row["status"] != "abandoned":
            assert (row["status"] == "over") == replay.over, (row["id"], row["status"], replay.describe())
        if companion is not None:
            doc = companion.state()["match"]
            if doc is not None and doc["id"] == row["id"]:
                assert (doc["score"], doc["winner"], doc["text"]) == (replay.score, replay.winner,
                                                                     replay.describe()), (doc, replay.describe())


def resumed_state(path: Path) -> dict[str, Any]:
    """What a companion started afresh on the store file shows (after a crash)."""
    store = GameStore(path)
    try:
        return summary(Companion(store).state())
    finally:
        store.close()


def summary(state: dict[str, Any]) -> dict[str, Any]:
    """The parts of the state that the store must keep: the game, its board, the throw, the end."""
    board = state.get("board")
    return {"game_id": state["game_id"], "phase": state["phase"], "dice": state["dice"], "board": board,
            "turn": (board or {}).get("turn"), "turns_played": state.get("turns_played"),
            "game_over": state["game_over"], "question": _asked(state.get("question"))}


def _asked(question: dict[str, Any] | None) -> dict[str, Any] | None:
    """A question of a play or of the turn, which the store keeps with its choices (a restart asks it again)."""
    if question is None or question.get("kind") not in ("move", "turn"):
        return None
    return {k: question[k] for k in ("id", "kind", "text", "player", "dice", "choices")}


ACTIONS = ("login", "logout", "new_game", "dice", "board", "answer", "undo", "cube", "calibrate",
           "camera", "players", "ahead", "match", "next_game", "wait")


def random_step(d: Driver) -> str:
    """One control action, or one thing the devices do, drawn at random."""
    rng = d.rng
    what = rng.choices(ACTIONS, weights=(2, 1, 1, 8, 6, 3, 4, 2, 1, 4, 10, 2, 1, 3, 3))[0]
    state = d.companion.state()
    if state["phase"] == "over" and rng.random() < 0.3:
        what = "undo"                 # the end taken back, at once or after the players moved on
    in_match = state.get("match") is not None and state["match"]["status"] == "playing"
    if in_match and state["phase"] in ("throw", "cube") and rng.random() < 0.3:
        what = "cube"                 # a match's games end by the cube often enough to win it
    elif in_match and state["phase"] == "over" and rng.random() < 0.5:
        what = "next_game"
    elif in_match and what == "match" and rng.random() < 0.7:
        what = "dice"                 # a match in play is mostly played on, not started afresh
    if d.token is None and what not in ("login", "camera", "players") and rng.random() < 0.8:
        what = "login"
    if what == "login":
        d.login(rng.random() < 0.9)
    elif what == "logout":
        d.logout()
    elif what == "new_game":
        d.new_game(rng.choice(PRESETS), rng.random() < 0.7)
    elif what == "dice":
        d.dice(rng.random() < 0.9)
    elif what == "board":
        d.board(rng.random() < 0.8)
    elif what == "answer":
        d.answer(rng.randrange(8))
    elif what == "undo":
        d.undo()
    elif what == "cube":
        if state["phase"] == "throw" and rng.random() < 0.7:
            d.cube("double")
        elif state["phase"] == "cube" and rng.random() < 0.7:
            d.cube(rng.choice(("take", "drop", "drop", "beaver")))
        else:                         # any of them, refused where it does not fit
            d.cube(rng.choice(("double", "take", "drop", "beaver")))
    elif what == "calibrate":
        d.calibrate()
    elif what == "camera":
        d.camera(rng.random() < 0.6)
    elif what == "ahead":
        d.ahead(rng.choice((2, 2, 3)))
    elif what == "match":
        d.new_match(rng.choice((1, 1, 2, 3)))
    elif what == "next_game":
        d.next_game()
    elif what == "wait":
        d.wait()
    else:
        d.demo_players()
    return what


def main(argv: list[str]) -> int:
    """Child process of the kill -9 test: random steps for ever, one line after each."""
    path, seed = Path(argv[0]), int(argv[1])
    d = Driver(path, seed)
    step = 0
    while True:
        what = random_step(d)
        step += 1
        print(json.dumps({"step": step, "what": what, "stored": d.digest(),
                          "state": summary(d.companion.state())}), flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
