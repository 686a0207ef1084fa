"""Rulebook: the unstacking games, game by game -- doublet rethrows, Dames
Rabattues' exception, Doblet's three dice and twelve men, Ofanfelling's
right-hand tables, its restack phase and the board document's ``phase`` --
and every option of variants.md that applies, with each preset.

Sides are drawn in own numbering, points 1 to 6 left to right
(``test_rulebook_unstacking.drawn``): ``2^`` two men in a pile, ``3^2`` three
men of which two in a pile, ``2`` two flat men, ``.`` empty.
"""

from __future__ import annotations

import pytest

from willughby.engine.errors import InvalidDiceError
from willughby.engine.position import Position
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import start_position
from willughby.engine.unstacking import phase_of, table_point

from .test_rulebook_unstacking import (PAIRS, START, assert_outcomes, drawn, events, judged,
                                       rules, seen)

PRESETS = ("doublets", "doublets-cotton", "dames-rabattues", "doblet", "ofanfelling")


# =====================================================================
# Doublet rethrows
# =====================================================================

def test_dames_rabattues_doublet_keeps_the_dice() -> None:
    """"a player who throws a doublet keeps the dice and has another throw; this
    continues until two singles are thrown." -- Charpentier 1715, seed 002.
    3-3 plays the pile of two on 3 down; the second 3 cannot be used and passes
    to dark (Dames Rabattues passes dice); light throws again."""
    r = rules("dames-rabattues")
    before = drawn(r, START, START)
    after = drawn(r, "2^ 2^ 2 3^ 3^ 3^", "2^ 2^ 2 3^ 3^ 3^", turn="light")
    assert_outcomes(r, before, (3, 3), [after])
    ruling = judged(r, before, (3, 3), after)
    assert ruling.legal and ruling.after.turn == "light"
    assert events(ruling) == [{"type": "unstack", "player": "light", "point": 3},
                              {"type": "opponent_uses_die", "player": "dark", "die": 3},
                              {"type": "unstack", "player": "dark", "point": 3}]
    # two singles: the dice go over
    (o,) = turn_outcomes(r, before, (3, 4))
    assert o.position.turn == "dark"


def test_ofanfelling_doublet_gives_another_throw_and_a_useless_die_is_lost() -> None:
    """"Doublets entitle a player to another throw and unusable throws do not
    count." -- Fiske 1905, seed 002."""
    r = rules("ofanfelling")
    before = drawn(r, PAIRS, PAIRS)
    after = drawn(r, "2^ 2^ 2^ 2^ 2^ 2", PAIRS, turn="light")
    assert_outcomes(r, before, (6, 6), [after])
    assert events(judged(r, before, (6, 6), after)) == [
        {"type": "unstack", "player": "light", "point": 6},
        {"type": "lost_die", "player": "light", "die": 6}]


@pytest.mark.parametrize("preset", ["doublets", "doublets-cotton", "doblet"])
def test_no_rethrow_where_the_source_gives_none(preset: str) -> None:
    """Doublets: "If a doublet is thrown, the player may play down ... as many
    men as the total of the two dice" (Willughby, seed 002) -- no other throw;
    Doblet: "No doublets rule is stated" (seed 002, footnote 1)."""
    r = rules(preset)
    dice = (5, 5, 2) if r.dice_thrown == 3 else (5, 5)
    before = drawn(r, START if r.men == 15 else PAIRS, START if r.men == 15 else PAIRS)
    assert {o.position.turn for o in turn_outcomes(r, before, dice)} == {"dark"}


def test_doublet_rethrow_is_an_option() -> None:
    """``doublet_rethrow``: "after playing a doublet the same player throws
    again" -- variants.md, options: true on Doublets, false on Dames
    Rabattues and Ofanfelling."""
    r = rules("doublets", doublet_rethrow="true")
    assert {o.position.turn for o in turn_outcomes(r, drawn(r, START, START), (1, 1))} == {"light"}
    for preset in ("dames-rabattues", "ofanfelling"):
        r = rules(preset, doublet_rethrow="false")
        base = START if r.men == 15 else PAIRS
        assert {o.position.turn for o in turn_outcomes(r, drawn(r, base, base), (2, 2))} == {"dark"}


# =====================================================================
# Dames Rabattues' exception
# =====================================================================

def test_an_unstacker_may_not_use_the_throw_of_an_opponent_bearing_off() -> None:
    """"An important exception is that a player who has not yet unstacked all
    15 men may not utilise the throw of an opponent who is in the process of
    bearing off." -- Charpentier 1715, seed 002.  Light bears off and cannot
    use his 4; dark still has piles: the 4 is lost."""
    r = rules("dames-rabattues")
    before = drawn(r, "2 2 2 . 3 3", START)
    after = drawn(r, "1 2 2 . 3 3", START, turn="dark")
    assert_outcomes(r, before, (4, 1), [after])
    assert events(judged(r, before, (4, 1), after)) == [
        {"type": "bear_off", "player": "light", "point": 1},
        {"type": "lost_die", "player": "light", "die": 4}]
    ruling = judged(r, before, (4, 1), drawn(r, "1 2 2 . 3 3", "2^ 2^ 2^ 3^2 3^ 3^", turn="dark"))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.dames_exception"
    assert ruling.citation == "Charpentier 1715"
    assert "still unstacking" in ruling.reason and "bearing off" in ruling.reason


def test_a_player_bearing_off_may_use_the_throw_of_an_unstacker() -> None:
    """"if a player is unable to use a die throw, the opponent uses it instead.
    It is thus possible to win the game on the throw of your opponent's dice."
    -- Charpentier 1715, seed 002.  The exception works one way only: light,
    still unstacking, cannot use a 4; dark, bearing off, takes a man off his 4."""
    r = rules("dames-rabattues")
    before = drawn(r, "2^ 2^ 2 3 3 3", "2 2 2 3 3 3")
    after = drawn(r, "2 2^ 2 3 3 3", "2 2 2 2 3 3", turn="dark")
    assert_outcomes(r, before, (4, 1), [after])
    assert events(judged(r, before, (4, 1), after))[-2:] == [
        {"type": "opponent_uses_die", "player": "dark", "die": 4},
        {"type": "bear_off", "player": "dark", "point": 4}]


def test_the_exception_is_dames_rabattues_own() -> None:
    """Cotton's Doublets passes the die whatever the phases: "when a player is
    unable to use the throw of a die, the opponent may use it instead if able"
    -- seed 002 (the exception is Charpentier's alone)."""
    r = rules("doublets-cotton")
    before = drawn(r, "2 2 2 . 3 3", START)
    assert_outcomes(r, before, (4, 1), [drawn(r, "1 2 2 . 3 3", "2^ 2^ 2^ 3^2 3^ 3^", turn="dark")])


def test_the_exception_holds_with_both_players_bearing_off_no_more() -> None:
    """The exception names a player "who has not yet unstacked all 15 men":
    once dark too is bearing off, he takes light's unusable die."""
    r = rules("dames-rabattues")
    before = drawn(r, "2 2 2 . 3 3", "2 2 2 3 3 3")
    assert_outcomes(r, before, (4, 1), [drawn(r, "1 2 2 . 3 3", "2 2 2 2 3 3", turn="dark")])


# =====================================================================
# Doblet: three dice, twelve men
# =====================================================================

def test_doblet_twelve_men_in_pairs_and_three_dice() -> None:
    """"There are two players who only have 12 men each and they place them in
    pairs on the six points ... Each pair is stacked" and "a throw of 1, 3 and
    5 entitles a man to be unstacked from each of points 1, 3 and 5."
    -- Alfonso X 1283, seed 002."""
    r = rules("doblet")
    start = start_position(r, "light")
    assert seen(r, start) == seen(r, drawn(r, PAIRS, PAIRS))
    assert start.men("light") == start.men("dark") == 12
    assert_outcomes(r, start, (1, 3, 5), [drawn(r, "2 2^ 2 2^ 2 2^", PAIRS, turn="dark")])
    with pytest.raises(InvalidDiceError, match="3 dice"):
        turn_outcomes(r, start, (1, 3))


def test_doblet_two_alike_of_three_dice() -> None:
    """Doblet has doubles plain: 5-5-2 plays the pile on 5 down with one 5; the
    other 5 cannot be used and the opponent "may utilise it instead"
    (Alfonso X 1283, seed 002)."""
    r = rules("doblet")
    before = drawn(r, PAIRS, PAIRS)
    after = drawn(r, "2^ 2 2^ 2^ 2 2^", "2^ 2^ 2^ 2^ 2 2^", turn="dark")
    assert_outcomes(r, before, (5, 5, 2), [after])
    assert judged(r, before, (5, 5, 2), after).opponent_play == "down 5"


# =====================================================================
# Ofanfelling: right-hand tables, restacking, the phase field
# =====================================================================

def test_ofanfelling_right_hand_tables() -> None:
    """"each player has 12 men which they deploy in their right-hand table,
    stacking two on each point as in Spanish doblet." -- Fiske 1905, seed 002;
    "dark's point n there is physical 12 + n (point 1 at the outer corner)"
    -- variants.md."""
    r = rules("ofanfelling")
    start = start_position(r, "light")
    assert [table_point(r, "dark", n) for n in range(1, 7)] == [13, 14, 15, 16, 17, 18]
    assert [table_point(r, "light", n) for n in range(1, 7)] == [1, 2, 3, 4, 5, 6]
    assert start.dark[12:18] == (2,) * 6 and start.stacked[1][12:18] == (2,) * 6
    assert start.light[:6] == (2,) * 6 and sum(start.dark) == 12
    # a 1 thrown by dark acts on physical 13
    (o,) = turn_outcomes(r, start.with_turn("dark"), (1, 2))
    assert o.position.stacked[1][12] == 0 and o.position.stacked[1][13] == 0
    assert o.position.stacked[1][14] == 2


def test_ofanfelling_restacks_after_playing_down() -> None:
    """"A key difference is that, in phase 2, players re-stack their men on the
    same point." -- Fiske 1905, seed 002.  The 5 plays the last pile down; the
    3 then piles point 3 up again.  The board alone would read the new pile as
    unstacking, so the document says ``phase``: restack (the board-document contract)."""
    r = rules("ofanfelling")
    before = drawn(r, "2 2 2 2 2^ 2", PAIRS)
    after = drawn(r, "2 2 2^ 2 2 2", PAIRS, turn="dark", phase={"light": "restack"})
    assert_outcomes(r, before, (5, 3), [after])
    ruling = judged(r, before, (5, 3), after)
    assert ruling.legal and ruling.play == "down 5, restack 3"
    assert events(ruling)[1] == {"type": "restack", "player": "light", "point": 3}
    doc = ruling.after.to_board()
    assert doc["phase"] == {"light": "restack"}
    assert Position.from_board(doc) == ruling.after
    assert Position.from_id(ruling.after.id()) == ruling.after


def test_restacking_a_piled_point_is_lost() -> None:
    """"a die n puts a man back onto a pile on point n, until every point again
    holds its pile" -- variants.md; Ofanfelling's unusable throws "do not
    count" (Fiske 1905, seed 002)."""
    r = rules("ofanfelling")
    before = drawn(r, "2^ 2 2 2 2 2", PAIRS, phase={"light": "restack"})
    after = drawn(r, "2^ 2^ 2 2 2 2", PAIRS, turn="dark", phase={"light": "restack"})
    assert_outcomes(r, before, (1, 2), [after])
    assert events(judged(r, before, (1, 2), after))[-1] == {"type": "lost_die", "player": "light",
                                                           "die": 1}


def test_restacking_done_the_next_die_bears_off() -> None:
    """"Finally, there is a third phase in which, once the men are all
    restacked, they are borne off "exactly as at backgammon"" -- Fiske 1905,
    seed 002 (phases change die by die, variants.md).  A man off shows the
    phase, so the document needs none."""
    r = rules("ofanfelling")
    before = drawn(r, "2^ 2^ 2^ 2^ 2^ 2", PAIRS, phase={"light": "restack"})
    after = drawn(r, "2^ 1 2^ 2^ 2^ 2^", PAIRS, turn="dark")
    assert_outcomes(r, before, (6, 2), [after])
    assert "phase" not in judged(r, before, (6, 2), after).after.to_board()


def test_a_rebuilt_table_with_no_man_off_says_bear_off() -> None:
    """the board-document contract, ``phase``: "A document gives it to say what this rule
    cannot (Ofanfelling's table partly or wholly rebuilt)".  Under
    must_use=free light restacks his last point and stops: every point holds
    its pile, no man is off, and he is bearing off."""
    r = rules("ofanfelling", must_use="free")
    before = drawn(r, "2^ 2^ 2^ 2^ 2^ 2", PAIRS, phase={"light": "restack"})
    (o,) = [o for o in turn_outcomes(r, before, (6, 3)) if o.play.notation == "restack 6"]
    assert o.position.to_board()["phase"] == {"light": "bear_off"}
    assert phase_of(r, o.position, "light") == "bear_off"
    assert Position.from_board(o.position.to_board()) == o.position
    # the same board read without the field is a table still being played down
    assert phase_of(r, Position.from_board({**o.position.to_board(), "phase": {}}), "light") == "unstack"


def test_restacking_before_every_man_is_played_down_is_illegal() -> None:
    """"in phase 2, players re-stack their men" -- Fiske 1905, seed 002: not
    before phase 1 is done."""
    r = rules("ofanfelling")
    before = drawn(r, "2 2 2 2 2^ 2^", PAIRS)
    ruling = judged(r, before, (5, 3), drawn(r, "2 2 2^ 2 2 2^", PAIRS, turn="dark",
                                             phase={"light": "restack"}))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.restack"
    assert ruling.citation == "Fiske 1905"
    assert "piled men up again on his 3 point" in ruling.reason


def test_bearing_off_while_restacking_is_illegal() -> None:
    """"once the men are all restacked, they are borne off" -- Fiske 1905,
    seed 002."""
    r = rules("ofanfelling")
    before = drawn(r, "2^ 2 2 2 2 2", PAIRS, phase={"light": "restack"})
    ruling = judged(r, before, (2, 3), drawn(r, "2^ 2^ 1 2 2 2", PAIRS, turn="dark"))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.bear_first"
    assert "wait to be restacked" in ruling.reason


def test_playing_down_while_restacking_is_illegal() -> None:
    """Phases go one way (variants.md: "unstack, restack, bear off"): a
    restacking player does not play down again."""
    r = rules("ofanfelling")
    before = drawn(r, "2^ 2 2 2 2 2", PAIRS, phase={"light": "restack"})
    ruling = judged(r, before, (1, 2), drawn(r, "2 2^ 2 2 2 2", PAIRS, turn="dark",
                                             phase={"light": "restack"}))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.by_die"
    assert "being restacked" in ruling.reason


def test_an_after_board_whose_phase_disagrees_is_not_the_outcome() -> None:
    """The document's ``phase``, where given, must agree with the turn's:
    the board of ``down 5, restack 3`` said to be still unstacking is not it."""
    r = rules("ofanfelling")
    before = drawn(r, "2 2 2 2 2^ 2", PAIRS)
    ruling = judged(r, before, (5, 3), drawn(r, "2 2 2^ 2 2 2", PAIRS, turn="dark",
                                             phase={"light": "unstack"}))
    assert ruling.verdict == "illegal"


# =====================================================================
# The options of variants.md, with each preset
# =====================================================================

def _start(r):
    base = START if r.men == 15 else PAIRS
    return drawn(r, base, base)


@pytest.mark.parametrize("preset", PRESETS)
def test_option_dice_three_and_two(preset: str) -> None:
    """``dice``: "two dice; three dice" -- variants.md.  Each die plays down its
    own point."""
    three = rules(preset, dice="3")
    (o,) = turn_outcomes(three, _start(three), (1, 2, 4))
    assert o.play.notation == "down 4, down 2, down 1"
    two = rules(preset, dice="2")
    (o,) = turn_outcomes(two, _start(two), (1, 2))
    assert o.play.notation == "down 2, down 1"


@pytest.mark.parametrize("preset", PRESETS)
def test_option_dice_two_and_a_six(preset: str) -> None:
    """``dice=2+6``: "two dice and a permanent imaginary six (a third die that
    always shows 6)" -- variants.md."""
    r = rules(preset, dice="2+6")
    (o,) = turn_outcomes(r, _start(r), (1, 2))
    assert o.play.notation == "down 6, down 2, down 1"


@pytest.mark.parametrize("preset", PRESETS)
def test_option_doubles(preset: str) -> None:
    """``doubles``: "its two dice once each; three moves of that number;
    four moves of that number; as many actions as the total of its pips (two
    fives = ten men)" -- variants.md.  A lone pile of three on 4 (a pile of
    two on 6 in the twelve-man games): 4-4 (6-6) under each."""
    for doubles in ("plain", "triple", "fourfold", "pip-total"):
        r = rules(preset, doubles=doubles, dice="2", unused_throw="lost", must_use="all")
        if r.men == 15:
            before, d = drawn(r, "2 2 2 3^ 3 3", START), 4
            left = {"plain": "2 2 2 3 3 3", "triple": "2 2 2 2 3 3", "fourfold": "2 2 2 1 3 3"}
        else:
            before, d = drawn(r, "2 2 2 2 2 2^", PAIRS, phase={"light": "unstack"}), 6
            if preset == "ofanfelling":
                # after the 6 plays down, the next 6 restacks point 6; more 6s are lost
                # while the other points wait to be restacked
                left = dict.fromkeys(("plain", "triple", "fourfold"), "2 2 2 2 2 2^")
            else:
                left = {"plain": "2 2 2 2 2 1", "triple": "2 2 2 2 2 .", "fourfold": "2 2 2 2 2 ."}
        outcomes = turn_outcomes(r, before, (d, d))
        if doubles == "pip-total":
            # 2d actions on any men: the pile played down, then (Ofanfelling: every
            # point restacked, then) men borne off any points
            assert {len(o.play.steps) for o in outcomes} == {2 * d}
            assert all(a.any_men for o in outcomes for a in o.play.steps)
            assert {a.point for o in outcomes for a in o.play.steps if a.kind == "bear_off"} == {
                1, 2, 3, 4, 5, 6}
        else:
            expect = drawn(r, left[doubles], START if r.men == 15 else PAIRS,
                           turn=outcomes[0].position.turn,
                           phase={"light": "restack"} if preset == "ofanfelling" else None)
            assert [seen(r, o.position)[:3] for o in outcomes] == [seen(r, expect)[:3]], doubles


@pytest.mark.parametrize("preset", PRESETS)
def test_option_unused_throw(preset: str) -> None:
    """``unused_throw``: "a die the player cannot use is lost, or the opponent
    may use it" -- variants.md.  Light's 6 point is played down; 6-1."""
    base = START if preset in ("doublets", "doublets-cotton", "dames-rabattues") else PAIRS
    six = {"2^ 2^ 2^ 3^ 3^ 3^": "2^ 2^ 2^ 3^ 3^ 3", "2^ 2^ 2^ 2^ 2^ 2^": "2^ 2^ 2^ 2^ 2^ 2"}[base]
    one = " ".join(["2"] + six.split()[1:])
    for unused, dark in (("lost", base), ("opponent", base.rsplit(" ", 1)[0] + " " +
                                           ("3^2" if base == START else "2"))):
        r = rules(preset, unused_throw=unused, dice="2")
        (o,) = turn_outcomes(r, drawn(r, six, base), (6, 1))
        assert seen(r, o.position)[0] == seen(r, drawn(r, one, dark))[0], unused


@pytest.mark.parametrize("preset", PRESETS)
def test_option_must_use(preset: str) -> None:
    """``must_use``: "all: a player must play as many dice of the throw as can
    legally be played; free: any number" -- variants.md.  From the start,
    2-6 (with a 1 for three dice): all, one play; free, every subset."""
    dice = (2, 6, 1) if rules(preset).dice_thrown == 3 else (2, 6)
    r = rules(preset, must_use="all")
    assert len(turn_outcomes(r, _start(r), dice)) == 1
    r = rules(preset, must_use="free", unused_throw="lost")
    plays = {o.play.notation for o in turn_outcomes(r, _start(r), dice)}
    assert len(plays) == 2 ** len(dice) and "" in plays


def test_free_use_passes_the_dice_left_to_the_opponent() -> None:
    """``must_use=free`` with ``unused_throw=opponent`` (Cotton's Doublets): the
    dice the player leaves pass to the opponent, who may use them too (both
    choices of this program: variants.md speaks of dice the player "cannot"
    use)."""
    r = rules("doublets-cotton", must_use="free")
    found = turn_outcomes(r, _start(r), (2, 6))
    mine = {o.play.notation for o in found}
    assert mine == {"", "down 2", "down 6", "down 6, down 2"}
    assert any(o.opponent_play is not None for o in found)
