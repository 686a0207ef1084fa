"""Rulebook: Sice-Ace, the counting game of seed 003 (lines 88-106).

"Number of Players: 2-5. Each player takes six pieces and places them on
their side of the board. Two dice are rolled by each player and the
individual scores reckoned as: ..."

Each tally is drawn as ``Tally(men=(player 0, player 1, ...), pool, turn)``:
each player's men in turn order, the men in the pool, and whose throw it is.
Where the seed is silent the test says "choice of this program" (see the
docstring of ``engine/counting.py``).
"""

from __future__ import annotations

import json

import pytest

from willughby.engine.counting import (
    CountingGame, Tally, TallyOver, count_throw, judge_tally, validate_tally_dice,
)
from willughby.engine.errors import (
    InvalidBoardError, InvalidDiceError, InvalidOptionError, InvalidRecordError, MatchStateError,
)
from willughby.engine.rules import preset_rules
from willughby.engine.sources import source


def rules(players: int = 2):
    return preset_rules("sice-ace", {"players": str(players)})


def throw(tally: Tally, *dice: int):
    return count_throw(rules(tally.players), tally, dice)


def kinds(outcome) -> list[str]:
    return [e.type for e in outcome.events]


# ------------------------------------------------------------------ the start
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_each_player_takes_six_men(players: int) -> None:
    """"Number of Players: 2-5 ... Each player takes six pieces and places them
    on their side of the board." (sice.players)"""
    assert Tally.start(players) == Tally((6,) * players, pool=0, turn=0)
    match = CountingGame(rules(players))
    assert match.tally.men == (6,) * players and match.turn == 0 and match.phase == "throw"


@pytest.mark.parametrize("players", [1, 6])
def test_one_or_six_players_cannot_play(players: int) -> None:
    """"Number of Players: 2-5" (sice.players)."""
    with pytest.raises(InvalidBoardError, match="2 to 5 players"):
        Tally.start(players)
    with pytest.raises(InvalidOptionError):
        rules(players)


# --------------------------------------------------------------- each die
def test_a_one_hands_a_man_to_the_player_on_the_left() -> None:
    """"1: A piece is handed to the player on the left and added to their
    pieces" (sice.one).  The player on the left is the next in turn order.

    Tally(men=(6, 6, 6), pool=0, turn=0) throws 1-3.
    """
    o = throw(Tally((6, 6, 6), 0, 0), 1, 3)
    assert o.after == Tally((5, 7, 6), 0, 1)
    assert [e.to_json() for e in o.events] == [{"type": "hand_left", "player": 0, "to": 1}]


def test_the_last_player_hands_his_man_round_to_the_first() -> None:
    """"1: A piece is handed to the player on the left" (sice.one): after the
    last player in turn order comes the first again.

    Tally(men=(6, 6, 6), pool=0, turn=2) throws 1-4.
    """
    o = throw(Tally((6, 6, 6), 0, 2), 1, 4)
    assert o.after == Tally((7, 6, 5), 0, 0)
    assert o.events[0].to == 0


def test_a_one_skips_a_player_who_is_out() -> None:
    """"1: A piece is handed to the player on the left" -- the player on the
    left is the next player still in; a man is never handed to a player who is
    out (the board-document contract; choice of this program).

    Tally(men=(6, 0, 6), pool=0, turn=0): player 1 is out; 0 throws 1-3.
    """
    o = throw(Tally((6, 0, 6), 0, 0), 1, 3)
    assert o.after == Tally((5, 0, 7), 0, 2)
    assert o.events[0].to == 2


def test_a_six_bears_a_man_off() -> None:
    """"6: A piece is borne off the table and laid aside" (sice.six).

    Tally(men=(6, 6), pool=0, turn=0) throws 6-3.
    """
    o = throw(Tally((6, 6), 0, 0), 6, 3)
    assert o.after == Tally((5, 6), 0, 1)
    assert o.after.off == 1
    assert kinds(o) == ["bear_off"]


def test_a_five_puts_a_man_into_the_pool() -> None:
    """"5: A piece is put into the central pool between the points" (sice.five).

    Tally(men=(6, 6), pool=0, turn=0) throws 5-4.
    """
    o = throw(Tally((6, 6), 0, 0), 5, 4)
    assert o.after == Tally((5, 6), 1, 1)
    assert kinds(o) == ["pool_in"]


def test_a_two_takes_a_man_from_the_pool_and_throws_again() -> None:
    """"2: A piece is taken from the pool and added to the player's pieces. The
    player must drink and throw again." (sice.two)

    Tally(men=(4, 6), pool=2, turn=0) throws 2-3.
    """
    o = throw(Tally((4, 6), 2, 0), 2, 3)
    assert o.after == Tally((5, 6), 1, 0)
    assert o.throws_again
    assert kinds(o) == ["pool_out", "throw_again"]


def test_a_two_on_an_empty_pool_does_nothing() -> None:
    """"2: A piece is taken from the pool" -- with the pool empty there is
    nothing to take, nothing to drink for and no further throw (choice of this
    program).

    Tally(men=(6, 6), pool=0, turn=0) throws 2-4.
    """
    o = throw(Tally((6, 6), 0, 0), 2, 4)
    assert o.after == Tally((6, 6), 0, 1)
    assert not o.throws_again and o.events == ()


@pytest.mark.parametrize("dice", [(3, 4), (4, 3)])
def test_threes_and_fours_count_nothing(dice: tuple[int, int]) -> None:
    """"3 and 4: are discounted." (sice.nothing)

    Tally(men=(5, 6, 6), pool=1, turn=1) throws 3-4: only the turn passes.
    """
    o = throw(Tally((5, 6, 6), 1, 1), *dice)
    assert o.after == Tally((5, 6, 6), 1, 2)
    assert o.events == () and not o.throws_again and o.game_over is None


# ------------------------------------------------------- the order of dice
def test_the_higher_die_is_read_first_so_five_two_returns_the_pooled_man() -> None:
    """"5: A piece is put into the central pool ... 2: A piece is taken from the
    pool" -- read the 5 first and the 2 takes back the man just pooled.  This
    program reads the higher die first, whatever order the dice are given in
    (choice of this program; cli.md's example).

    Tally(men=(6, 6, 6), pool=0, turn=0) throws 5-2 and 2-5.
    """
    start = Tally((6, 6, 6), 0, 0)
    five_two = throw(start, 5, 2)
    assert five_two == throw(start, 2, 5)
    assert five_two.after == Tally((6, 6, 6), 0, 0)
    assert five_two.to_json() == {
        "board": {"format": "tally/1", "men": [6, 6, 6], "pool": 0, "turn": 0},
        "events": [{"type": "pool_in", "player": 0}, {"type": "pool_out", "player": 0},
                   {"type": "throw_again", "player": 0}],
        "game_over": None,
    }


def test_six_one_bears_off_before_handing() -> None:
    """"6: A piece is borne off ... 1: A piece is handed to the player on the
    left": higher die first (choice of this program).

    Tally(men=(2, 6), pool=0, turn=0) throws 1-6.
    """
    o = throw(Tally((2, 6), 0, 0), 1, 6)
    assert o.after == Tally((0, 7), 0, None)
    assert kinds(o) == ["bear_off", "hand_left", "out"]


# ---------------------------------------------------------------- doublets
@pytest.mark.parametrize("die, after", [
    (6, Tally((3, 6), 1, 0)),   # two borne off
    (5, Tally((3, 6), 3, 0)),   # two into the pool
    (1, Tally((3, 8), 1, 0)),   # two handed on
    (3, Tally((5, 6), 1, 0)),   # nothing counts, still another throw
    (4, Tally((5, 6), 1, 0)),
])
def test_a_doublet_counts_die_by_die_and_throws_again(die: int, after: Tally) -> None:
    """"If doubles are thrown, each die counts separately and the player has
    another throw" (sice.doublet).

    Tally(men=(5, 6), pool=1, turn=0) throws a doublet.
    """
    o = throw(Tally((5, 6), 1, 0), die, die)
    assert o.after == after
    assert o.throws_again and kinds(o)[-1] == "throw_again"


def test_two_two_takes_two_from_the_pool_and_does_not_throw_again() -> None:
    """"... unless the throw is 2,2, in which case, the player takes two pieces
    from the pool and does not throw again." (sice.doublet)

    Tally(men=(3, 6), pool=3, turn=0) throws 2-2.
    """
    o = throw(Tally((3, 6), 3, 0), 2, 2)
    assert o.after == Tally((5, 6), 1, 1)
    assert kinds(o) == ["pool_out", "pool_out"]
    assert not o.throws_again


def test_two_two_on_a_pool_of_one_takes_the_one() -> None:
    """"the player takes two pieces from the pool" -- where only one is there,
    he takes it (choice of this program); still no further throw.

    Tally(men=(5, 6), pool=1, turn=0) throws 2-2.
    """
    o = throw(Tally((5, 6), 1, 0), 2, 2)
    assert o.after == Tally((6, 6), 0, 1)
    assert kinds(o) == ["pool_out"]


# ------------------------------------------------------- going out, the end
@pytest.mark.parametrize("dice, pool, to", [((6, 3), 0, None), ((5, 4), 1, None), ((1, 3), 0, 2)])
def test_a_player_with_no_men_left_is_out(dice: tuple[int, int], pool: int, to: int | None) -> None:
    """"A player with no men left is out" (variants.md; sice.loser: "The last
    player on the board ...") -- by a 6, a 5 or a 1.

    Tally(men=(6, 1, 6), pool=0, turn=1): player 1 throws with his last man.
    """
    o = throw(Tally((6, 1, 6), 0, 1), *dice)
    assert o.after.men[1] == 0 and o.after.pool == pool
    assert o.after.out == (1,)
    assert kinds(o)[-1] == "out" and o.events[-1].player == 1
    assert o.game_over is None and o.after.turn == 2
    if to is not None:
        assert o.events[0].to == to


def test_out_is_final_the_rest_of_the_throw_counts_nothing() -> None:
    """A player out is out: "The last player on the board pays" -- a 2 read
    after his last man went takes nothing from the pool, and a doublet gives
    him no further throw (choice of this program).

    Tally(men=(1, 6, 6), pool=2, turn=0) throws 6-2, then 6-6 from (1, 6, 6).
    """
    o = throw(Tally((1, 6, 6), 2, 0), 6, 2)
    assert o.after == Tally((0, 6, 6), 2, 1)
    assert kinds(o) == ["bear_off", "out"]
    o = throw(Tally((1, 6, 6), 0, 0), 6, 6)
    assert o.after == Tally((0, 6, 6), 0, 1)
    assert kinds(o) == ["bear_off", "out"] and not o.throws_again


def test_a_player_who_is_out_is_passed_over() -> None:
    """A player out throws no more: whose throw passes to the next player still
    in (the board-document contract).

    Tally(men=(6, 0, 6), pool=0, turn=0) throws 3-4.
    """
    assert throw(Tally((6, 0, 6), 0, 0), 3, 4).after.turn == 2


def test_the_last_player_with_men_pays() -> None:
    """"The last player on the board pays for the drinks." (sice.loser)

    Tally(men=(1, 6), pool=0, turn=0) throws 6-3: player 0 goes out, player 1
    is the last with men and loses.
    """
    o = throw(Tally((1, 6), 0, 0), 6, 3)
    assert o.game_over == TallyOver(loser=1)
    assert o.game_over.to_json() == {"loser": 1, "kind": "single", "stake": 1}
    assert o.after == Tally((0, 6), 0, None)
    assert not o.throws_again


def test_handing_on_the_last_man_ends_the_game() -> None:
    """"The last player on the board pays for the drinks." (sice.loser) -- the
    last man handed on to the player left makes him the last on the board.

    Tally(men=(0, 1, 0, 3), pool=0, turn=1) throws 1-1 (a doublet, but the
    game is over: no further throw).
    """
    o = throw(Tally((0, 1, 0, 3), 0, 1), 1, 1)
    assert o.after == Tally((0, 0, 0, 4), 0, None)
    assert o.game_over == TallyOver(loser=3)
    assert kinds(o) == ["hand_left", "out"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_game_of_any_size_ends_with_one_player_paying(players: int) -> None:
    """"Number of Players: 2-5 ... The last player on the board pays for the
    drinks." -- players 0 .. n-2 throw 6-5 until they are out; the last pays."""
    match = CountingGame(rules(players))
    while match.phase == "throw":
        match.throw([6, 5] if match.turn != players - 1 else [3, 4])
    assert match.result == TallyOver(loser=players - 1)
    assert match.tally.out == tuple(range(players - 1))


# --------------------------------------------------------- what cannot be
def test_a_player_who_is_out_cannot_throw() -> None:
    with pytest.raises(InvalidBoardError, match="player 1 is out"):
        throw(Tally((6, 0, 6), 0, 1), 3, 4)


def test_a_finished_game_takes_no_throw() -> None:
    with pytest.raises(InvalidBoardError, match="the game is over .only player 1 has men"):
        throw(Tally((0, 6), 0, 0), 3, 4)
    match = CountingGame(rules(2), start=Tally((1, 6), 0, 0))
    match.throw([6, 3])
    with pytest.raises(MatchStateError, match="cannot throw now"):
        match.throw([3, 4])


def test_a_throw_needs_to_know_whose_it_is() -> None:
    with pytest.raises(InvalidBoardError, match="turn is required"):
        throw(Tally((6, 6)), 3, 4)


def test_the_tally_must_have_the_games_players() -> None:
    with pytest.raises(InvalidBoardError, match="3 players, but the game has players=2"):
        count_throw(rules(2), Tally.start(3), (3, 4))


def test_only_a_counting_game_counts() -> None:
    with pytest.raises(InvalidOptionError, match="race game"):
        count_throw(preset_rules("irish"), Tally.start(2), (3, 4))


@pytest.mark.parametrize("dice, message", [
    ([7, 1], "a die shows 1 to 6, not 7"),
    ([0, 1], "a die shows 1 to 6, not 0"),
    ([True, 1], "a die shows 1 to 6, not True"),
    ([3], "throws 2 dice, but 1 was given"),
    ([3, 4, 5], "throws 2 dice, but 3 were given"),
    ("52", "a list of two numbers"),
    (None, "a list of two numbers"),
])
def test_bad_dice_are_refused(dice, message: str) -> None:
    """"Two dice are rolled by each player" -- two dice of 1 to 6."""
    with pytest.raises(InvalidDiceError, match=message):
        validate_tally_dice(rules(), dice)
    with pytest.raises(InvalidDiceError, match=message):
        count_throw(rules(), Tally.start(2), dice)


# ------------------------------------------------------ the tally document
def test_the_tally_document_round_trips() -> None:
    t = Tally((4, 0, 7), pool=2, turn=2)
    assert t.to_doc() == {"format": "tally/1", "men": [4, 0, 7], "pool": 2, "turn": 2}
    assert Tally.from_doc(t.to_doc(), players=3) == t
    assert Tally.from_doc(json.dumps(t.to_doc())) == t
    assert Tally.from_doc({"format": "tally/1", "men": [6, 6]}) == Tally((6, 6), 0, None)
    assert Tally.from_id(t.id()) == t and t.id() == "4.0.7:2:2"
    assert eval(repr(t)) == t


@pytest.mark.parametrize("doc, message", [
    ("{not json", "not valid JSON"),
    ([6, 6], "must be a JSON object"),
    ({"format": "board/1", "men": [6, 6]}, 'format must be "tally/1", not \'board/1\''),
    ({"men": [6, 6]}, "format must be"),
    ({"format": "tally/1", "men": [6, 6], "cup": 1}, "unknown field 'cup'"),
    ({"format": "tally/1"}, "men is missing"),
    ({"format": "tally/1", "men": "66"}, "men must be a list"),
    ({"format": "tally/1", "men": [6]}, "2 to 5 players' counts, not 1"),
    ({"format": "tally/1", "men": [6] * 6}, "2 to 5 players' counts, not 6"),
    ({"format": "tally/1", "men": [6, -1]}, r"men\[1\] is negative \(-1\)"),
    ({"format": "tally/1", "men": [6, 2.5]}, r"men\[1\] must be a whole number, not 2.5"),
    ({"format": "tally/1", "men": [6, 6], "pool": -2}, r"pool is negative \(-2\)"),
    ({"format": "tally/1", "men": [6, 6], "pool": "1"}, "pool must be a whole number"),
    ({"format": "tally/1", "men": [7, 6], "pool": 0}, "make 13 men, more than the 12 of 2 players"),
    ({"format": "tally/1", "men": [6, 5], "pool": 2}, "make 13 men, more than the 12"),
    ({"format": "tally/1", "men": [6, 6], "turn": 2}, "turn must be a player's index 0 to 1, not 2"),
    ({"format": "tally/1", "men": [6, 6], "turn": "0"}, "turn must be a player's index, not '0'"),
])
def test_bad_tally_documents_are_refused(doc, message: str) -> None:
    """the board-document contract, "The tally document": 2..5 players, no negative counts,
    at most 6 men a player, the turn a player's index."""
    with pytest.raises(InvalidBoardError, match=message):
        Tally.from_doc(doc)


def test_the_tally_must_list_the_players_of_the_option() -> None:
    """``men``: "its length ... must equal the ``players`` option"."""
    with pytest.raises(InvalidBoardError, match="men lists 2 players, but the game has players=3"):
        Tally.from_doc({"format": "tally/1", "men": [6, 6]}, players=3)


def test_a_tally_to_judge_needs_a_turn() -> None:
    """``turn``: "yes, for a tally to judge"."""
    with pytest.raises(InvalidBoardError, match="turn is required"):
        Tally.from_doc({"format": "tally/1", "men": [6, 6]}, require_turn=True)


@pytest.mark.parametrize("text", ["", "6.6", "6:0:0", "6.6:0", "6.6:-1:0", "a.b:0:0", "6.6:0:x"])
def test_bad_tally_ids_are_refused(text: str) -> None:
    with pytest.raises(InvalidBoardError, match="not a tally id|2 to 5"):
        Tally.from_id(text)


def test_the_tally_is_drawn_with_whose_throw_and_who_is_out() -> None:
    assert str(Tally((2, 0, 7), pool=1, turn=2)).splitlines() == [
        "  player 0  oo       2",
        "  player 1           out",
        "> player 2  ooooooo  7",
        "pool o 1, borne off 8",
    ]


# ------------------------------------------------------------ the referee
def test_the_tally_the_throw_gives_is_legal() -> None:
    """"6: A piece is borne off the table and laid aside" (sice.six)."""
    r = judge_tally(rules(3), Tally((6, 6, 6), 0, 0), (6, 3), Tally((5, 6, 6), 0, 1))
    assert r.verdict == "legal" and r.reason is None and r.citation is None
    assert r.to_json() == {
        "verdict": "legal", "play": None, "events": [{"type": "bear_off", "player": 0}],
        "reason": None, "citation": None, "game_over": None,
        "board": {"format": "tally/1", "men": [5, 6, 6], "pool": 0, "turn": 1},
        "player": 0, "dice": [6, 3], "rule": None,
    }
    # a tally kept without saying whose throw is next is judged on its men and pool
    assert judge_tally(rules(3), Tally((6, 6, 6), 0, 0), (6, 3), Tally((5, 6, 6), 0)).legal


def test_a_man_not_borne_off_is_illegal() -> None:
    """"6: A piece is borne off the table and laid aside" (sice.six)."""
    r = judge_tally(rules(3), Tally((6, 6, 6), 0, 2), (6, 3), Tally((6, 6, 6), 0, 0))
    assert r.verdict == "illegal"
    assert r.reason == "player 2 should have 5 men after 6-3, not 6"
    assert r.rule == "sice.six" and r.citation == source("sice.six").citation


def test_a_man_handed_to_the_wrong_player_is_illegal() -> None:
    """"1: A piece is handed to the player on the left" (sice.one)."""
    r = judge_tally(rules(3), Tally((6, 6, 6), 0, 0), (1, 4), Tally((5, 6, 7), 0, 1))
    assert r.reason == "player 1 should have 7 men after 4-1, not 6"
    assert r.rule == "sice.one"


def test_a_pool_not_emptied_is_illegal() -> None:
    """"2: A piece is taken from the pool and added to the player's pieces" (sice.two)."""
    r = judge_tally(rules(2), Tally((5, 5), 1, 0), (2, 3), Tally((6, 5), 1, 0))
    assert r.reason == "the pool should hold 0 men after 3-2, not 1"
    assert r.rule == "sice.two"


def test_passing_the_dice_after_a_two_is_illegal() -> None:
    """"The player must drink and throw again." (sice.two)"""
    r = judge_tally(rules(2), Tally((5, 6), 1, 0), (2, 3), Tally((6, 6), 0, 1))
    assert r.reason == "player 0 throws again after 3-2, not player 1"
    assert r.rule == "sice.two"


def test_throwing_again_after_two_two_is_illegal() -> None:
    """"unless the throw is 2,2, in which case, the player ... does not throw
    again." (sice.doublet)"""
    r = judge_tally(rules(2), Tally((4, 6), 2, 0), (2, 2), Tally((6, 6), 0, 0))
    assert r.reason == "player 1 throws next after 2-2, not player 0"
    assert r.rule == "sice.doublet"


def test_a_turn_after_the_end_is_illegal() -> None:
    """"The last player on the board pays for the drinks." (sice.loser)"""
    r = judge_tally(rules(2), Tally((1, 6), 0, 0), (6, 3), Tally((0, 6), 0, 1))
    assert r.rule == "sice.loser"
    assert r.reason == ("the game is over after 6-3: player 1 is the last with men and pays, "
                        "and nobody throws next")
    assert r.to_json()["game_over"] == {"loser": 1, "kind": "single", "stake": 1}


def test_judging_tallies_of_different_games_is_misuse() -> None:
    with pytest.raises(InvalidBoardError, match="lists 3 players"):
        judge_tally(rules(2), Tally((6, 6), 0, 0), (3, 4), Tally((6, 6, 0)))


# -------------------------------------------------------------- the match
def test_a_match_is_played_to_the_end_and_replayed_from_its_record() -> None:
    """"Two dice are rolled by each player ... The last player on the board
    pays for the drinks." -- a whole game of three, with a throw again, a
    player out and the payer."""
    match = CountingGame(rules(3), ["Ann", "Ben", "Cat"])
    throws = [
        [5, 2],  # Ann: pools a man and takes it back, throws again
        [6, 5],  # Ann: 4 men, pool 1
        [1, 4],  # Ben hands a man to Cat: (4, 5, 7)
        [2, 2],  # Cat takes the pooled man, no throw again: (4, 5, 8), pool 0
        [6, 6],  # Ann: 2 men, throws again
        [6, 5],  # Ann: out; pool 1
        [3, 3],  # Ben: nothing, throws again
        [6, 6], [6, 6],  # Ben: 1 man, throws again
        [5, 3],  # Ben: out; Cat pays
    ]
    for dice in throws:
        match.throw(dice)
    assert match.phase == "over" and match.turn is None
    assert match.result == TallyOver(loser=2)
    assert match.tally == Tally((0, 0, 8), 2, None)
    assert match.turn_number == len(throws) and len(match.history) == len(throws)
    assert [o.player for o in match.history] == [0, 0, 1, 2, 0, 0, 1, 1, 1, 1]
    record = match.record()
    assert record["format"] == "willughby-game/1" and record["family"] == "counting"
    assert record["preset"] == "sice-ace" and record["options"]["players"] == "3"
    assert record["players"] == ["Ann", "Ben", "Cat"]
    assert record["result"] == {"loser": 2, "kind": "single", "stake": 1}
    assert json.loads(json.dumps(record)) == record
    replay = CountingGame.from_record(json.loads(json.dumps(record)))
    assert replay.tally == match.tally and replay.history == match.history
    assert replay.names == match.names and replay.result == match.result


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(format="nope"), "format 'willughby-game/1'"),
    (lambda r: r.pop("family"), "not a counting game's record"),
    (lambda r: r.pop("actions"), "no 'actions'"),
    (lambda r: r.update(actions="x"), "actions must be a list"),
    (lambda r: r["actions"].append({"type": "move"}), "action 3: unknown type 'move'"),
    (lambda r: r["actions"][1].update(player=0), "recorded a throw by player 0, but it is player 1's throw"),
    (lambda r: r["actions"][0].update(dice=[7, 1]), "action 0: a die shows 1 to 6"),
    (lambda r: r.update(position="6.6.6:0:0"), "final tally"),
    (lambda r: r.update(players=["Ann"]), "names 1 players"),
    (lambda r: r.update(start="junk"), "not a tally id"),
    (lambda r: r.update(options={"players": "9"}), "does not replay"),
])
def test_a_malformed_record_is_refused(change, message: str) -> None:
    match = CountingGame(rules(3), ["Ann", "Ben", "Cat"])
    for dice in ([6, 3], [1, 4], [5, 4]):
        match.throw(dice)
    record = match.record()
    change(record)
    with pytest.raises(InvalidRecordError, match=message):
        CountingGame.from_record(record)


def test_a_match_from_a_tally_set_up_by_hand() -> None:
    match = CountingGame(rules(3), start=Tally((2, 0, 3), 1))
    assert match.turn == 0 and match.out == (1,)
    match.throw([1, 3])
    assert match.tally == Tally((1, 0, 4), 1, 2)
    with pytest.raises(InvalidBoardError, match="player 1 is out"):
        CountingGame(rules(3), start=Tally((2, 0, 3), 1, 1))
    with pytest.raises(InvalidBoardError, match="fewer than two players"):
        CountingGame(rules(2), start=Tally((0, 3)))


def test_a_tally_kept_with_the_dice_read_the_other_way_names_the_program_s_choice() -> None:
    """The seed reads each die on its own but not in which order; this program reads
    the higher die first (sice.order, "choice of this program"), so a tally kept with
    the 2 read before the 5 is ruled on that choice."""
    r = judge_tally(rules(3), Tally.start(3), (2, 5), Tally((5, 6, 6), 1))
    assert r.verdict == "illegal"
    assert r.rule == "sice.order" and r.citation == "choice of this program"
    assert r.reason == "player 0 should have 6 men after 5-2, not 5 (the higher die is read first)"
