"""The documents the companion hands the page and the store, typed.

The companion speaks to the page in JSON documents: the state
(``GET /api/state`` and the event stream), the question put to the players,
each ruling, each announcement, and the boards inside them
(``docs/control-api.md``, ``docs/board-document.md``). They are written
here once, as ``TypedDict``\\ s, so the type checker holds the companion, the
page's server (``web_ui``) and the store's readers to the same keys; at run
time they are plain dicts, as JSON wants.

:func:`question_doc` is the one place a question is made, whether it asks
which play was made or which point to break.

>>> q = question_doc("q-7", "move", "Which play was made?", about="Turn 3: Ann (light) threw 3-1", turn=3,
...                  player="light", dice=[3, 1], asked_at=0.0, choices=[choice_doc(0, "8/5 6/5", None)])
>>> q["choices"][0]["play"], q["reading"]
('8/5 6/5', None)
"""

from __future__ import annotations

from typing import Any, Mapping, NotRequired, Sequence, TypedDict, cast

__all__ = ["BoardDoc", "AnnouncementDoc", "ChoiceDoc", "QuestionDoc", "CameraDoc", "RulingDoc", "CubeDoc",
           "LastPlayDoc", "StateDoc", "board_doc", "choice_doc", "question_doc"]


class BoardDoc(TypedDict, total=False):
    """A board document (``board/1``, ``docs/board-document.md``); a counting game's is ``tally/1``."""

    format: str
    light: list[int]
    dark: list[int]
    bar: dict[str, int]
    off: dict[str, int]
    turn: str | int | None
    stacked: dict[str, list[int]]
    waiting: dict[str, int]


def board_doc(doc: Mapping[str, Any]) -> BoardDoc:
    """A board document the engine wrote (``Position.to_board``, ``Tally.to_doc``), as the documents hold it."""
    return cast(BoardDoc, dict(doc))


class AnnouncementDoc(TypedDict):
    """One thing said to the players: its number in the game's log, its words and its kind."""

    n: int
    text: str
    kind: str


class ChoiceDoc(TypedDict):
    """One answer a question offers: a play (or "the board as read") and the board it leads to.

    A choice of a question about a board some turns on (``two_plays``, ``pass_between``: the camera missed
    a play) that names the plays it came by carries how: ``turns``, how many turns on the board is placed
    (2: the mover's play, then the other's; 3: the mover's, the other's throw that could not be played, the
    mover's again), and ``missed``, the notation of the mover's first play. The answer is judged on these,
    never on the words of ``play``."""

    index: int
    play: str
    board: BoardDoc | None
    p: NotRequired[float]           # the turn reader's chance of this play, where it ranked it
    turns: NotRequired[int]         # a choice of plays some turns on: how many turns on the board is placed
    missed: NotRequired[str]        # ... and the mover's first play, which the camera missed


class QuestionDoc(TypedDict):
    """The question open on the page: which play was made, or which point to break."""

    id: str
    kind: str                       # "move" or "break"
    text: str
    about: str
    turn: int
    player: Any                     # a colour
    dice: list[int]
    asked_at: float
    reading: BoardDoc | None        # the board as the camera read it, where it is a board at all
    choices: list[ChoiceDoc]


class CameraDoc(TypedDict):
    """What the turn reader weighed for one frame: its verdict, each candidate's chance, its notes."""

    verdict: str
    candidates: list[dict[str, Any]]
    notes: list[str]


class RulingDoc(TypedDict, total=False):
    """A ruling as the page reads it: the engine's ruling (``judge --json``), numbered
    (``turn``, ``attempt``, ``seq``) and with the board before it."""

    verdict: str
    play: str | None
    events: list[dict[str, Any]]
    reason: str | None
    citation: str | None
    rule: str | None
    quote: str
    game_over: dict[str, Any] | None
    player: Any                     # a colour, or a counting game's player's index
    dice: list[int]
    legal_plays: int
    opponent_play: str
    closest: list[str]
    board: BoardDoc
    turn: int
    attempt: int
    seq: int
    before: BoardDoc
    source: dict[str, str | None] | None
    throws_again: bool


class CubeDoc(TypedDict):
    """The doubling cube: its value, who owns it, who offered it, whether the game has one."""

    value: int
    owner: str | None
    offered_by: str | None
    enabled: bool
    can_double: bool


class LastPlayDoc(TypedDict):
    """The last legal play, for the page to show what moved."""

    turn: int
    player: Any
    play: str | None
    before: BoardDoc
    after: BoardDoc | None
    opponent_play: str | None
    passed: list[int]
    lost: list[int]


class StateDoc(TypedDict, total=False):
    """The whole of what the page shows (``GET /api/state``): the keys every
    state has, those of a game on the board, and a counting game's ``tally``."""

    version: int
    devices: dict[str, Any]
    announcements: list[AnnouncementDoc]
    presets: list[str]
    match: dict[str, Any] | None    # the match the game is a game of (match_play.MatchPlay.doc), or None
    clock: dict[str, Any] | None    # the match's clock read when the document is sent (clock_play.ClockPlay.doc), or None
    game_id: str | None
    preset: str | None
    players: Any                    # light's and dark's names, or a counting game's names in turn order
    board: BoardDoc | None
    dice: list[int] | None
    turn_number: int
    turns_played: int
    phase: str
    awaiting: str
    rulings: list[RulingDoc]
    game_over: dict[str, Any] | None
    cube: CubeDoc | None
    question: QuestionDoc | None
    last_play: LastPlayDoc | None
    undo: str | None
    family: str | None
    board_kind: str | None
    dice_wanted: int
    camera_reads: bool
    stakes: list[dict[str, Any]]
    score: dict[str, Any] | None
    phases: dict[str, str]
    tally: dict[str, Any]


def choice_doc(index: int, play: str, board: Mapping[str, Any] | None, p: float | None = None, *,
               turns: int | None = None, missed: str | None = None) -> ChoiceDoc:
    """One of a question's choices; ``p``, ``turns`` and ``missed`` are written only where given.

    >>> choice_doc(0, "8/5 6/5, then Bob (dark)'s play", None, turns=2, missed="8/5 6/5")
    {'index': 0, 'play': "8/5 6/5, then Bob (dark)'s play", 'board': None, 'turns': 2, 'missed': '8/5 6/5'}
    """
    out = ChoiceDoc(index=index, play=play, board=None if board is None else board_doc(board))
    if p is not None:
        out["p"] = round(float(p), 4)
    if turns is not None:
        out["turns"] = int(turns)
    if missed is not None:
        out["missed"] = str(missed)
    return out


def question_doc(question_id: str, kind: str, text: str, *, about: str, turn: int, player: Any,
                 dice: Sequence[int], asked_at: float, choices: list[ChoiceDoc],
                 reading: Mapping[str, Any] | None = None) -> QuestionDoc:
    """A question for the page (the one place a question is made)."""
    return QuestionDoc(id=question_id, kind=kind, text=text, about=about, turn=turn, player=player,
                       dice=list(dice), asked_at=asked_at, reading=None if reading is None else board_doc(reading),
                       choices=choices)
