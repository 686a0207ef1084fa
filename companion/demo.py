"""The demo: a whole refereed game on a laptop, with nothing plugged in.

The table is drawn by the project's frame generator (``vision/synth/``)
as a camera above it would see it; the dice come from the fake dice box
(``firmware_bridge/fake.py``) over a pseudo-terminal, through the same link
as a real box; two automatic players press ROLL, choose a legal play (now
and then a wrong one, which the referee rules illegal and they then put
right), move the men on the drawn table, and answer the companion's
questions. The companion sees only the frames and the box, as in a club.

Where the camera cannot referee the game (``games.py``: the unstacking
games, whose piles the turn reader cannot yet tell from men laid flat, and
Sice-Ace, refereed from the dice alone), the players still set the men on
the drawn table, but report the board to the referee themselves, as
players would enter it on the page. Sice-Ace is played by three to five of
them (the two names given and more), chosen by the seed.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from typing import Any

import numpy as np

from willughby.engine.position import Position
from willughby.vision.synth import Scene, SceneSpec

from .games import DEFAULT_NAMES, family_of_preset
from .service import Companion, CompanionError, NotNowError
from .documents import QuestionDoc, StateDoc

__all__ = ["DemoTable", "DemoPlayers"]

log = logging.getLogger(__name__)


def board_position(board: Any) -> Position | None:
    """The position a state's ``board`` shows, or None where it is no board
    (none yet, or a counting game's tally)."""
    if not isinstance(board, dict) or board.get("format") != "board/1":
        return None
    return Position.from_board(board)


class DemoTable:
    """The board on the demo's table: the men where the players put them,
    drawn from one fixed camera. A frame source (``read``, ``close``)."""

    def __init__(self, position: Position, *, seed: int = 3, image_size: tuple[int, int] = (1280, 720)) -> None:
        self._spec: dict[str, Any] = dict(image_size=image_size, tilt_deg=14.0, board_yaw_deg=2.0, cam_az_deg=0.0,
                          cam_roll_deg=1.0, mirror=False, focal_mm=35.0, fill=0.85, n_dice=0, occluded=False,
                          wood="walnut", men="white_black", points="red_cream", field="felt_green",
                          table="light_table", lighting="overhead", row_max=5, men_thick_mm=9.0)
        self._seed = seed
        # one table, camera and light for every frame (the synth painter's Scene): only the men move, so the
        # turn reader can compare a frame with the one before, as it does a real camera's
        self._scene = Scene(np.random.default_rng(seed), SceneSpec(**self._spec))
        self._lock = threading.Lock()
        self._frame: np.ndarray | None = None
        self._corners: Any = None
        self.position = position
        self.started_from = position      # the board the table was set up with
        self.frames_drawn = 0
        self.closed = False
        self.dice: tuple[int, ...] = ()   # the players' own dice on the table (the camera is the dice source)
        self.throws = 0
        self.thrown: list[tuple[int, ...]] = []     # every throw made onto the table, in order
        self._draw()

    def _draw(self) -> None:
        if self.dice:        # the dice thrown lie where this throw's roll left them (a new place each throw)
            image, label = self._scene.render(self.position, np.random.default_rng([self._seed, self.throws]),
                                              dice_values=self.dice)
        else:
            image, label = self._scene.render(self.position, np.random.default_rng(self._seed), n_dice=0)
        with self._lock:
            self._frame = image
            self._corners = label["corners"]
        self.frames_drawn += 1

    def set(self, position: Position) -> None:
        """The players have moved the men: this is the board now."""
        self.position = position
        self._draw()

    def throw(self, dice: tuple[int, ...]) -> None:
        """A player threw the dice onto the table: they lie on the board, somewhere new."""
        self.dice = dice
        self.throws += 1
        self.thrown.append(dice)
        self._draw()

    def read(self) -> np.ndarray | None:
        with self._lock:
            return None if self._frame is None else self._frame.copy()

    def corners(self, frame: Any = None) -> Any:
        """Where the board lies in the frames (the generator knows exactly)."""
        with self._lock:
            return self._corners

    def close(self) -> None:
        self.closed = True


class DemoPlayers:
    """Two automatic players: they throw with the box, move the men on the
    table, answer questions, and start a new game when one ends.

    They give way to people: after an undo (from the page or a box) they set
    the men as the referee now has them and wait *hold_s* seconds before
    playing on, so a person who took back a throw can enter their own dice
    rather than see the box throw again at once; and they leave a question
    on the page for at least *question_s* seconds before answering it,
    whatever the demo's speed, so it can be read.
    """

    def __init__(self, companion: Companion, table: DemoTable, box: Any, *, speed: float = 1.0,
                 seed: int | None = None, mistakes: float = 0.08, preset: str = "backgammon",
                 players: dict[str, str] | None = None, games: int | None = None, seats: int | None = None,
                 start: dict[str, Any] | None = None, hold_s: float = 10.0, question_s: float = 4.0,
                 camera_dice: bool = False, match: int | None = None) -> None:
        self.companion = companion
        self.table = table
        self.box = box
        self.pause = 1.6 / max(speed, 0.01)
        self.rng = random.Random(seed)
        self.mistakes = mistakes
        self.preset = preset
        self.players = players or {"light": "Ann", "dark": "Bob"}
        self.seats = seats
        self.games_left = games
        #: a match to this many points (``demo --match N``): played to its end, game after game; then they stop
        self.match = match
        self.start_board = start
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.moves = 0
        self.mistakes_made = 0
        self._judged = 0              # rulings of the game when the men were last moved
        self._wrong = False           # the men on the table are a wrong move, awaiting its ruling
        self._moved_at = 0.0          # when the men were last moved
        self.finished = threading.Event()
        self.hold_s = hold_s
        self.question_s = question_s
        self.camera_dice = camera_dice    # the players throw dice onto the table for the camera, not the box
        self._seen_n: int | None = None   # the newest announcement looked at (None: none yet)
        self._thrown_at = 0.0         # when the dice were last thrown onto the table for the camera
        self._thrown_for: tuple[Any, Any] | None = None   # the game and turn they were thrown for
        self._hold_until = 0.0        # after a person's undo, the players wait until then
        self.holds = 0

    def start(self) -> "DemoPlayers":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="demo-players", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _wait(self, seconds: float) -> bool:
        return not self._stop.wait(seconds)

    def _run(self) -> None:
        last_version = -1
        acted_at = 0.0
        while not self._stop.is_set():
            state = self.companion.state()
            # act once per new state; if an action changed nothing for a while
            # (a throw lost on its way), look again
            if state["version"] == last_version and time.monotonic() - acted_at < 5.0:
                self._stop.wait(0.05)
                continue
            if self._gave_way(state):
                last_version = -1
                continue
            try:
                acted = self._act(state)
            except (CompanionError, NotNowError) as exc:
                log.info("demo player: %s", exc)
                acted = False
            last_version = state["version"]
            if acted:
                acted_at = time.monotonic()
                if not self._wait(self.pause):
                    return
            if self.finished.is_set():
                return

    def _gave_way(self, state: StateDoc) -> bool:
        """Whether the players are waiting because a person acted: True while
        they hold back after an undo (the demo's players never undo)."""
        said = state.get("announcements") or []
        if self._seen_n is None:                 # what was said before the players sat down is not news
            self._seen_n = max((a["n"] for a in said), default=-1)
        news = [a for a in said if a["n"] > self._seen_n]
        if news:
            self._seen_n = max(a["n"] for a in news)
            if any(a["kind"] == "undo" for a in news) and self.hold_s > 0:
                self.holds += 1
                self._hold_until = time.monotonic() + self.hold_s
                self._wrong = False
                shown = board_position(state["board"])
                if shown is not None:
                    self.table.set(shown)                 # the men as the referee has them now
                self.companion.notice(f"the automatic players wait {self.hold_s:g} s after the undo: "
                                      "enter dice or the board on the page meanwhile")
                return True
        left = self._hold_until - time.monotonic()
        if left > 0:
            self._stop.wait(min(left, 0.1))
            return True
        return False

    def _act(self, state: StateDoc) -> bool:
        """Do what the game waits for; False when waiting on the companion."""
        c = self.companion
        phase = state["phase"]
        if phase in ("none", "over"):
            ended = state.get("game_id") if phase == "over" else None
            if phase == "over":
                if self.games_left is not None and self.games_left <= 1:
                    self.games_left = 0
                    self.finished.set()
                    return False
                if not self._wait(self.pause * 3):
                    return False
            options, players = self._seating()
            in_match = state.get("match")
            if self.match is not None and in_match and in_match.get("winner"):
                self.finished.set()            # the match is won: the players stand up
                return False
            # after an end, only if it still stands: a person may have taken it back meanwhile
            if self.match is not None and in_match and in_match.get("status") == "playing" and ended is not None:
                c.next_game(who="demo", after_end_of=ended)
            elif self.match is not None and ended is None:
                c.new_match(self.match, self.preset, options, players, who="demo")
            else:
                c.new_game(self.preset, options, players, who="demo", start=self.start_board, after_end_of=ended,
                           abandon_match=True)
            if ended is not None and self.games_left is not None:
                self.games_left -= 1
            shown = board_position(c.state()["board"])
            if shown is not None:
                self.table.set(shown)
            return True
        if state["question"] is not None:
            return self._answer(state["question"])
        shown = board_position(state["board"])
        if phase in ("start", "throw") and shown is not None:
            engine = shown
            if self.table.position.physical_key() != engine.physical_key():
                self._wrong = False
                self.table.set(engine)            # the referee's board stands: the men are set as it has them
                return True
        if phase == "throw" and self.camera_dice and state.get("board_kind") != "tally":
            turn = (state.get("game_id"), state.get("turn_number"))
            # a turn's throw, once; again where the camera has not taken it after a while (the dice lie anew)
            if turn != self._thrown_for or time.monotonic() - self._thrown_at > max(3.0, 6 * self.pause):
                self._thrown_for, self._thrown_at = turn, time.monotonic()
                self.table.throw(tuple(self.rng.randint(1, 6) for _ in range(int(state.get("dice_wanted") or 2))))
                return True
            return False
        if phase in ("start", "throw"):
            self.box.press("roll")
            return True
        if phase == "binding_toss":
            c.enter_dice([self.rng.randint(1, 6) for _ in range(4)], who="demo")
            return True
        if phase == "move":
            found = board_position(state["board"])
            assert found is not None
            if self.table.position.physical_key() == found.physical_key():
                return self._move(state)
            rulings = state["rulings"]
            if self._wrong and rulings and rulings[-1]["seq"] > self._judged and rulings[-1]["verdict"] == "illegal":
                self._wrong = False
                self.table.set(found)             # ruled illegal: put the men back as they were
                if not state.get("camera_reads", True):
                    return self._move(state)      # no camera to see them put back: play on at once
                return True
            if not state.get("camera_reads", True) and time.monotonic() - self._moved_at > 5.0:
                self._report()                    # no ruling came: say again what was done
                return True
            if time.monotonic() - self._moved_at > 5.0:
                self._moved_at = time.monotonic()     # no ruling yet: press DONE, as a player would
                self.box.press("done")
                return True
            return False                          # moved: the camera has yet to settle and read
        return False

    def _seating(self) -> tuple[dict[str, str], Any]:
        """The options and players of a new game: for a counting game, the
        seats asked for, or three to five players by the seed (the names
        given, then more)."""
        if family_of_preset(self.preset).board != "tally":
            return {}, self.players
        count = self.seats if self.seats else self.rng.choice((3, 4, 5))
        names = [n for n in (self.players.get("light"), self.players.get("dark")) if n]
        names += [n for n in DEFAULT_NAMES if n not in names]
        return {"players": str(count)}, names[:count]

    def _report(self) -> None:
        """Tell the referee the board the men now stand in (no camera rules on this game)."""
        self._moved_at = time.monotonic()
        board = self.table.position.to_board()
        board.pop("turn", None)
        self.companion.on_reading(board, None, who="demo")

    def _move(self, state: StateDoc) -> bool:
        plays = self.companion.legal_boards()
        self._judged = state["rulings"][-1]["seq"] if state["rulings"] else 0
        unstacking = state.get("board_kind") == "piles"
        if self.mistakes and not self._wrong and self.rng.random() < self.mistakes:
            wrong = self._unstack_mistake(plays) if unstacking else self._mistake()
            if wrong is not None and all(Position.from_board(b).physical_key() != wrong.physical_key()
                                         for b in plays.values()):
                self._wrong = True
                self.mistakes_made += 1
                self.table.set(wrong)
                self._moved_at = time.monotonic()
                if not state.get("camera_reads", True):
                    self._report()
                return True
        choice = plays[self.rng.choice(sorted(plays))]
        self.table.set(Position.from_board(choice))
        self._moved_at = time.monotonic()
        self.moves += 1
        if not state.get("camera_reads", True):
            self._report()
        return True

    def _unstack_mistake(self, plays: dict[str, dict[str, Any]]) -> Position | None:
        """A plausible wrong move in an unstacking game: a legal play, and one
        man more played down from a pile on a point the dice did not call for."""
        base = Position.from_board(plays[self.rng.choice(sorted(plays))])
        mover = self.table.position.turn
        i = 0 if mover == "light" else 1
        stacked = [list(base.stacked[0]), list(base.stacked[1])]
        piles = [p for p, s in enumerate(stacked[i]) if s >= 2]
        if not piles:
            return None
        p = self.rng.choice(piles)
        stacked[i][p] = stacked[i][p] - 1 if stacked[i][p] > 2 else 0
        doc = base.to_board()
        doc["stacked"] = {"light": stacked[0], "dark": stacked[1]}
        doc.pop("turn", None)
        doc.pop("phase", None)
        try:
            return Position.from_board(doc)
        except ValueError:
            return None

    def _mistake(self) -> Position | None:
        """A plausible wrong move: one man of the mover's moved a pip too far."""
        pos = self.table.position
        mover = pos.turn
        if mover is None:
            return None
        pts = list(pos.points(mover))
        order = range(24) if mover == "light" else range(23, -1, -1)
        for i in order:
            j = i - 1 if mover == "light" else i + 1
            if pts[i] and 0 <= j < 24 and not pos.points("dark" if mover == "light" else "light")[j]:
                pts[i] -= 1
                pts[j] += 1
                doc = pos.to_board()
                doc[mover] = pts
                doc.pop("turn", None)
                try:
                    return Position.from_board(doc)
                except ValueError:
                    return None
        return None

    def _answer(self, question: QuestionDoc) -> bool:
        asked = question.get("asked_at")
        if isinstance(asked, (int, float)):
            left = asked + self.question_s - time.time()
            if left > 0:                  # leave it on the page long enough to be read
                self._stop.wait(min(left, 0.25))
                return False
        if question["kind"] == "break":
            self.companion.answer(question["id"], question["choices"][0]["index"], who="demo")
            return True
        key = self.table.position.physical_key()
        for choice in question["choices"]:
            if choice["board"] is not None and Position.from_board(choice["board"]).physical_key() == key:
                self.companion.answer(question["id"], choice["index"], who="demo")
                return True
        self.companion.answer(question["id"], question["choices"][-1]["index"], who="demo")
        return True
