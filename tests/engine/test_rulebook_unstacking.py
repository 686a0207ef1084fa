"""Rulebook: the unstacking games (Doublets, Dames Rabattues, Doblet,
Ofanfelling) -- playing down, bearing off, dice lost or passed, pip-total
doublets, the end and the stake.  (Rethrows, Dames Rabattues' exception,
Doblet's three dice, Ofanfelling's tables and restack, and the options in
combination: ``test_rulebook_unstacking_phases.py``.)

Each side is drawn in its OWN numbering, points 1 to 6 left to right, as the
player reads his table (``drawn``): ``2^`` is two men in a pile, ``3^2`` three
men of which two stand in a pile (one already laid flat), ``2`` two flat men,
``.`` an empty point.  Men not drawn are off the board.

    light "2^ 2^ 2^ 3^ 3^ 3^" is the start of Doublets.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from willughby.engine.position import Position
from willughby.engine.referee import game_over, judge, turn_outcomes
from willughby.engine.rules import Rules, preset_rules, start_position
from willughby.engine.unstacking import phase_of, table_point

START = "2^ 2^ 2^ 3^ 3^ 3^"
PAIRS = "2^ 2^ 2^ 2^ 2^ 2^"


# ---------------------------------------------------------------- drawing
def cells(text: str) -> list[tuple[int, int]]:
    """(men, men in a pile) for own points 1..6 of a drawn side."""
    out = []
    for cell in text.split():
        if cell == ".":
            out.append((0, 0))
        elif "^" in cell:
            men, _, piled = cell.partition("^")
            out.append((int(men), int(piled) if piled else int(men)))
        else:
            out.append((int(cell), 0))
    assert len(out) == 6, f"draw six points, not {text!r}"
    return out


def drawn(rules: Rules, light: str, dark: str, turn: str | None = "light",
          phase: Mapping[str, str] | None = None) -> Position:
    """The position of two drawn sides (men not drawn are off the board)."""
    pts = {"light": [0] * 24, "dark": [0] * 24}
    stk = {"light": [0] * 24, "dark": [0] * 24}
    off = []
    for colour, text in (("light", light), ("dark", dark)):
        side = cells(text)
        for own, (men, piled) in enumerate(side, start=1):
            p = table_point(rules, colour, own) - 1
            pts[colour][p], stk[colour][p] = men, piled
        off.append(rules.men - sum(m for m, _ in side))
    phase = phase or {}
    return Position(tuple(pts["light"]), tuple(pts["dark"]), off=(off[0], off[1]), turn=turn,
                    stacked=(tuple(stk["light"]), tuple(stk["dark"])),
                    phase=(phase.get("light"), phase.get("dark")))


def seen(rules: Rules, pos: Position) -> tuple:
    """What a turn leaves: the board, each side's phase, who throws next."""
    return (pos.physical_key(), phase_of(rules, pos, "light"), phase_of(rules, pos, "dark"), pos.turn)


def assert_outcomes(rules: Rules, before: Position, dice: Iterable[int],
                    expected: Iterable[Position]) -> None:
    """The turn's outcomes are exactly *expected* (boards drawn by hand), each once."""
    found = turn_outcomes(rules, before, tuple(dice))
    got = [seen(rules, o.position) for o in found]
    assert len(got) == len(set(got)), "two outcomes leave the same board"
    want = [seen(rules, p) for p in expected]
    assert len(want) == len(set(want)), "the test lists one board twice"
    names = sorted(f"{o.play.notation} | {o.opponent_play and o.opponent_play.notation}" for o in found)
    assert set(got) == set(want), f"engine: {names}"


def judged(rules: Rules, before: Position, dice: Iterable[int], after: Position):
    return judge(rules, before, tuple(dice), after)


def events(ruling) -> list[dict]:
    return [e.to_json() for e in ruling.events]


def rules(preset: str, **options: str) -> Rules:
    return preset_rules(preset, options)


# =====================================================================
# The start
# =====================================================================

def test_doublets_start_piles_of_two_and_three() -> None:
    """"Points 1-3 have two men each but 4-6 have three men." -- seed 002;
    "These men should be stacked, not laid out in a row" -- seed 003.  Both
    players use one table and face each other: dark's point n is physical
    25 - n (variants.md)."""
    for preset in ("doublets", "doublets-cotton", "dames-rabattues"):
        r = rules(preset)
        start = start_position(r, "light")
        assert seen(r, start) == seen(r, drawn(r, START, START))
        assert start.dark[24 - 1] == 2 and start.dark[19 - 1] == 3  # dark's 1 and 6 points
        assert start.stacked[1][24 - 1] == 2 and start.stacked[0][5] == 3
        assert phase_of(r, start, "light") == phase_of(r, start, "dark") == "unstack"


# =====================================================================
# Playing down
# =====================================================================

def test_a_die_plays_down_its_own_point() -> None:
    """"with throws of 2 and 6, the player takes the upper of the two men on
    point 2 and places it on the same point but above the lower man; they also
    take the top of the three men on point 6 and place it on the point above
    the remaining pile of two." -- Willughby, seed 002.

    One die lays a pile of two flat; a pile of three keeps two in a pile."""
    r = rules("doublets")
    before = drawn(r, START, START)
    assert_outcomes(r, before, (2, 6), [drawn(r, "2^ 2 2^ 3^ 3^ 3^2", START, turn="dark")])
    ruling = judged(r, before, (2, 6), drawn(r, "2^ 2 2^ 3^ 3^ 3^2", START, turn="dark"))
    assert ruling.legal and ruling.play == "down 6, down 2"
    assert events(ruling) == [{"type": "unstack", "player": "light", "point": 6},
                              {"type": "unstack", "player": "light", "point": 2}]
    assert ruling.after.turn == "dark" and ruling.game_over is None


def test_a_pile_of_three_needs_two_dice() -> None:
    """"a die n takes one man off the pile on point n and lays it flat beside
    it; a point is played down when none of its men stands in a pile."
    -- variants.md.  Dames Rabattues (doublets plain): 4-4 plays the pile of
    three on point 4 down in two; 4-1 leaves two of them in a pile."""
    r = rules("dames-rabattues")
    before = drawn(r, START, START)
    assert_outcomes(r, before, (4, 4), [drawn(r, "2^ 2^ 2^ 3 3^ 3^", START, turn="light")])
    assert_outcomes(r, before, (4, 1), [drawn(r, "2 2^ 2^ 3^2 3^ 3^", START, turn="dark")])


def test_dark_plays_down_on_his_own_points() -> None:
    """"A throw of n acts on the player's own point n" -- variants.md: dark's
    point 1 is physical 24."""
    r = rules("doublets")
    before = drawn(r, START, START, turn="dark")
    (o,) = turn_outcomes(r, before, (1, 5))
    assert o.position.stacked[1][24 - 1] == 0 and o.position.stacked[1][20 - 1] == 2
    assert o.position.turn == "light"


def test_a_die_used_on_the_wrong_point_is_illegal() -> None:
    """"Players play down a man for each cast of the die." -- Willughby, seed
    002: a 6 played down on the 1 point is refused."""
    r = rules("doublets")
    ruling = judged(r, drawn(r, START, START), (2, 6),
                    drawn(r, "2 2 2^ 3^ 3^ 3^", START, turn="dark"))
    assert ruling.verdict == "illegal"
    assert ruling.rule == "unstack.play_down" and ruling.citation == "Willughby c.1665"
    assert "light" in ruling.reason and "point" in ruling.reason


# =====================================================================
# Dice that cannot be used: lost, or laid down by the opponent
# =====================================================================

def test_a_die_for_a_played_down_point_is_lost() -> None:
    """"If the men on a point corresponding to a die throw have already been
    played down, the throw is lost." -- Willughby, seed 002."""
    r = rules("doublets")
    before = drawn(r, "2 2 2^ 3 3 3", START)
    after = drawn(r, "2 2 2^ 3 3 3", START, turn="dark")
    assert_outcomes(r, before, (4, 5), [after])
    ruling = judged(r, before, (4, 5), after)
    assert ruling.legal and ruling.play == ""
    assert events(ruling) == [{"type": "pass", "player": "light"},
                              {"type": "lost_die", "player": "light", "die": 5},
                              {"type": "lost_die", "player": "light", "die": 4}]


def test_a_lost_die_may_not_be_played_by_the_opponent() -> None:
    """"the throw is lost" -- Willughby, seed 002 (unused_throw=lost): the
    opponent's men do not change on it."""
    r = rules("doublets")
    ruling = judged(r, drawn(r, "2 2 2^ 3 3 3", START), (4, 5),
                    drawn(r, "2 2 2^ 3 3 3", "2^ 2^ 2^ 3^ 3^2 3^", turn="dark"))
    assert ruling.verdict == "illegal" and ruling.rule == "unused.lost"
    assert ruling.citation == "Willughby c.1665" and "dark" in ruling.reason


def test_the_opponent_lays_down_for_him() -> None:
    """"if one throws and hath it not, the other lays downe for him" -- Holme
    1688, seed 003 (doublets-cotton: unused_throw=opponent).  Light cannot use
    4-5; dark plays down on his own 4 and 5 points in the same turn."""
    r = rules("doublets-cotton")
    before = drawn(r, "2 2 2^ 3 3 3", START)
    after = drawn(r, "2 2 2^ 3 3 3", "2^ 2^ 2^ 3^2 3^2 3^", turn="dark")
    assert_outcomes(r, before, (4, 5), [after])
    ruling = judged(r, before, (4, 5), after)
    assert ruling.legal and ruling.opponent_play == "down 5, down 4"
    assert events(ruling) == [{"type": "pass", "player": "light"},
                              {"type": "opponent_uses_die", "player": "dark", "die": 5},
                              {"type": "opponent_uses_die", "player": "dark", "die": 4},
                              {"type": "unstack", "player": "dark", "point": 5},
                              {"type": "unstack", "player": "dark", "point": 4}]
    assert ruling.after.turn == "dark"


def test_the_opponent_uses_only_the_dice_the_player_could_not() -> None:
    """"when a player is unable to use the throw of a die, the opponent may use
    it instead if able." -- Cotton, seed 002.  Light plays down his 3 with the
    3 and bears off with nothing else: of 3-4 only the 4 passes."""
    r = rules("doublets-cotton")
    before = drawn(r, "2 2 2^ 3 3 3", START, phase=None)
    # the 3 finishes light's playing down; the 4 then bears a man off: nothing passes
    assert_outcomes(r, before, (3, 4), [drawn(r, "2 2 2 2 3 3", START, turn="dark")])
    before = drawn(r, "2 2 2^ 3 3^ 3", START)
    # 3-4: the 3 is used, the 4 is not (a pile stands on 5): dark plays down his 4
    after = drawn(r, "2 2 2 3 3^ 3", "2^ 2^ 2^ 3^2 3^ 3^", turn="dark")
    assert_outcomes(r, before, (3, 4), [after])
    ruling = judged(r, before, (3, 4), after)
    assert [e for e in events(ruling) if e["type"] == "opponent_uses_die"] == [
        {"type": "opponent_uses_die", "player": "dark", "die": 4}]


def test_the_opponent_must_use_a_passed_die_he_can() -> None:
    """"A die the player cannot use, where it passes, is used by the opponent if
    he can: in a pure race using a die never harms, so "may" and "must" are
    one." -- variants.md."""
    r = rules("doublets-cotton")
    before = drawn(r, "2 2 2^ 3 3 3", START)
    for after in (drawn(r, "2 2 2^ 3 3 3", START, turn="dark"),
                  drawn(r, "2 2 2^ 3 3 3", "2^ 2^ 2^ 3^ 3^2 3^", turn="dark")):
        ruling = judged(r, before, (4, 5), after)
        # variants.md's reading ("may" and "must" are one) is this program's choice
        assert ruling.verdict == "illegal" and ruling.rule == "unused.opponent_all"
        assert ruling.citation == "choice of this program"
        assert "dark" in ruling.reason and "could be used" in ruling.reason


def test_a_passed_die_acts_on_the_opponents_own_point() -> None:
    """"the other lays downe for him" -- Holme 1688, seed 003: dark lays down
    with the die's number on HIS point of that number: the 4 played down on
    his 6 point is refused; three points played down with two dice are more
    than the passed dice explain."""
    r = rules("doublets-cotton")
    before = drawn(r, "2 2 2^ 3 3 3", START)
    ruling = judged(r, before, (4, 5), drawn(r, "2 2 2^ 3 3 3", "2^ 2^ 2^ 3^ 3^2 3^2", turn="dark"))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.play_down"
    assert ruling.reason.startswith("dark used a 4 on his 6 point")
    ruling = judged(r, before, (4, 5), drawn(r, "2 2 2^ 3 3 3", "2^ 2^ 2^ 3^2 3^2 3^2", turn="dark"))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.turn_order"
    assert "dark" in ruling.reason


def test_the_opponents_men_change_only_with_a_passed_die() -> None:
    """"In the unstacking games a player's men change only on his own throw,
    or with dice his opponent could not use where the game passes them."
    -- choice of this program (unstack.turn_order).  Light uses both dice of
    2-6; nothing passes, yet dark's men changed."""
    r = rules("doublets-cotton")
    ruling = judged(r, drawn(r, START, START), (2, 6),
                    drawn(r, "2^ 2 2^ 3^ 3^ 3^2", "2 2^ 2^ 3^ 3^ 3^", turn="dark"))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.turn_order"
    assert "dark" in ruling.reason


# =====================================================================
# Bearing off, and the phases changing die by die
# =====================================================================

def test_bearing_off_waits_until_every_man_is_played_down() -> None:
    """"When all the men are played down, they are played off or borne off."
    -- Willughby, seed 002.  One pile stands on point 3: of 3-5 the 3 plays it
    down, and only then may the 5 bear a man off; with 6-5 nothing can be done
    (both lost)."""
    r = rules("doublets")
    before = drawn(r, "2 2 2^ 3 3 3", START)
    assert_outcomes(r, before, (6, 5), [drawn(r, "2 2 2^ 3 3 3", START, turn="dark")])


def test_bearing_off_too_early_is_illegal() -> None:
    """"Once all his or her points are unstacked, a player may begin to bear
    off" -- Charpentier 1715, seed 002."""
    r = rules("doublets")
    ruling = judged(r, drawn(r, START, START), (2, 6),
                    drawn(r, "2^ 2 2^ 3^ 3^ 2^", START, turn="dark"))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.bear_first"
    assert ruling.citation == "Charpentier 1715"
    assert "bore a man off his 6 point" in ruling.reason and "piles" in ruling.reason


def test_the_first_die_finishes_playing_down_the_second_bears_off() -> None:
    """"a throw whose first die finishes the playing down may bear off with its
    second" -- variants.md (phases change die by die)."""
    r = rules("doublets")
    before = drawn(r, "2 2 2^ 3 3 3", START)
    after = drawn(r, "2 2 2 3 2 3", START, turn="dark")
    assert_outcomes(r, before, (3, 5), [after])
    ruling = judged(r, before, (3, 5), after)
    assert ruling.legal and ruling.play == "down 3, off 5"
    assert events(ruling) == [{"type": "unstack", "player": "light", "point": 3},
                              {"type": "bear_off", "player": "light", "point": 5}]


def test_the_player_takes_the_order_that_uses_most_dice() -> None:
    """"Phases change die by die, in the order the player plays them" and "A die
    that can be used must be used (must_use=all)" -- variants.md.  Of 5-3 the
    5 first is lost (point 5 played down, a pile still stands on 3); the 3
    first lets the 5 bear off.  He must play 3 then 5; the 3 alone is too few."""
    r = rules("doublets")
    before = drawn(r, "2 2 2^ 3 3 3", START)
    assert_outcomes(r, before, (5, 3), [drawn(r, "2 2 2 3 2 3", START, turn="dark")])
    ruling = judged(r, before, (5, 3), drawn(r, "2 2 2 3 3 3", START, turn="dark"))
    # the order that uses both dice crosses a phase: the ruling rests on this program's choice
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.order_of_dice"
    assert ruling.citation == "choice of this program"
    assert "one die" in ruling.reason and "2 dice" in ruling.reason and "another order" in ruling.reason


def test_a_die_left_unused_that_could_act_on_its_own_point_is_illegal() -> None:
    """"With each roll, you "play down" the men on the points indicated by the
    dice ... If you roll the number for a point that is already entirely played
    down, the roll is wasted" -- seed 003: only then.  Of 6-4 from the start,
    light played down only the 6."""
    r = rules("doublets")
    before = drawn(r, START, START)
    ruling = judged(r, before, (6, 4), drawn(r, "2^ 2^ 2^ 3^ 3^ 3^2", START, turn="dark"))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.use_all"
    assert ruling.citation == "seed 003 (Doublets)"


def test_bearing_off_a_vacant_point_counts_for_nothing() -> None:
    """"If the point corresponding to a die throw is vacant because the men have
    already been borne off, the throw counts for nothing." -- Willughby, seed 002."""
    r = rules("doublets")
    before = drawn(r, ". 1 . 3 . 2", START)
    after = drawn(r, ". 1 . 2 . 2", START, turn="dark")
    assert_outcomes(r, before, (4, 5), [after])
    assert events(judged(r, before, (4, 5), after)) == [
        {"type": "bear_off", "player": "light", "point": 4},
        {"type": "lost_die", "player": "light", "die": 5}]


def test_no_man_moves_to_another_point() -> None:
    """"This game is played on half a backgammon board. This works, because
    there isn't actually any movement in this game." -- seed 003."""
    r = rules("doublets")
    before = drawn(r, "2 2 2^ 3 3 3", START)
    ruling = judged(r, before, (3, 5), drawn(r, "2 2 2 2 4 3", START, turn="dark"))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.stay"
    assert "5 point" in ruling.reason and "move" in ruling.reason
    # nor off his table: light has a man on physical 7
    after = drawn(r, "2 2 2 3 2 3", START, turn="dark")
    light = list(after.light)
    light[0], light[6] = 1, 1
    ruling = judged(r, before, (3, 5), Position(tuple(light), after.dark, off=after.off, turn="dark",
                                                stacked=after.stacked))
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.stay"
    assert "outside his table" in ruling.reason


def test_men_are_neither_made_nor_lost() -> None:
    """"Men are neither made nor lost" -- choice of this program
    (conservation): a man swept off the board and not counted off."""
    r = rules("doublets")
    before = drawn(r, "2 2 2^ 3 3 3", START)
    after = drawn(r, "2 2 2 3 2 3", START, turn="dark")
    lost = Position(after.light, after.dark, off=(0, 0), turn="dark", stacked=after.stacked)
    ruling = judged(r, before, (3, 5), lost)
    assert ruling.verdict == "illegal" and ruling.rule == "conservation"
    assert "light had 15 men" in ruling.reason and "14" in ruling.reason


# =====================================================================
# Pip-total doublets
# =====================================================================

def test_two_fives_are_ten_actions() -> None:
    """"if two fives are thrown, ten men may be played down or borne off."
    -- Willughby, seed 002.  From the start nine actions play every pile down;
    the tenth bears a man off any point (actions left after the last pile bear
    men off, variants.md): six outcomes."""
    r = rules("doublets")
    before = drawn(r, START, START)
    expected = []
    for k in range(6):  # every pile played down, one man off point k + 1
        side = "2 2 2 3 3 3".split()
        side[k] = str(int(side[k]) - 1)
        expected.append(drawn(r, " ".join(side), START, turn="dark"))
    assert_outcomes(r, before, (5, 5), expected)
    ruling = judged(r, before, (5, 5), expected[0])
    assert ruling.legal and len([e for e in ruling.events if e.type == "unstack"]) == 9
    assert [e.to_json() for e in ruling.events if e.type == "bear_off"] == [
        {"type": "bear_off", "player": "light", "point": 1}]


def test_a_pip_total_doublet_acts_on_any_men() -> None:
    """"if you are playing down, and you roll double fours, you may play down
    any eight men." -- seed 003.  Piles stand on 3 (two men) and 5 (three):
    1-1 gives two actions on any piles; 2-2 four, three playing down and one
    bearing any man off."""
    r = rules("doublets")
    before = drawn(r, "2 2 2^ 3 3^ 3", START)
    assert_outcomes(r, before, (1, 1), [drawn(r, "2 2 2 3 3^2 3", START, turn="dark"),
                                        drawn(r, "2 2 2^ 3 3 3", START, turn="dark")])
    bore = []
    for k in range(6):
        side = "2 2 2 3 3 3".split()
        side[k] = str(int(side[k]) - 1)
        bore.append(drawn(r, " ".join(side), START, turn="dark"))
    assert_outcomes(r, before, (2, 2), bore)


def test_pip_total_doublets_may_not_pass_over_the_die_for_an_empty_point() -> None:
    """"If a doublet is thrown, the player may play down (in phase 1) or bear
    off (in phase 2) as many men as the total of the two dice" -- Willughby,
    seed 002: 6-6 in the bearing off takes twelve men from any points; with
    fewer left, all go and the game is won."""
    r = rules("doublets")
    before = drawn(r, "1 . 2 . . 3", START)
    after = drawn(r, ". . . . . .", START, turn="dark")
    assert_outcomes(r, before, (6, 6), [after])
    ruling = judged(r, before, (6, 6), after)
    assert ruling.game_over is not None and ruling.game_over.to_json() == {
        "winner": "light", "kind": "single", "stake": 1}


def test_doubles_plain_triple_and_fourfold_act_on_the_die_point() -> None:
    """``doubles`` (variants.md): "a doublet is played as: its two dice once
    each; three moves of that number (house rule); four moves of that number".
    Doublets with a pile of three on 4 only: 4-4 plays it down in two, and the
    third and fourth 4 bear men off point 4."""
    before_text = "2 2 2 3^ 3 3"
    for doubles, four in (("plain", "3"), ("triple", "2"), ("fourfold", "1")):
        r = rules("doublets", doubles=doubles)
        before = drawn(r, before_text, START)
        assert_outcomes(r, before, (4, 4), [drawn(r, f"2 2 2 {four} 3 3", START, turn="dark")])


# =====================================================================
# The end and the stake
# =====================================================================

def test_the_first_to_bear_off_all_his_men_wins_one_stake() -> None:
    """"The first to play off all his or her men wins the game." -- Willughby,
    seed 002; "The first to bear off all his men wins one stake (kind single)"
    -- variants.md."""
    for preset in ("doublets", "doublets-cotton", "dames-rabattues", "doblet", "ofanfelling"):
        r = rules(preset)
        dice = (2, 1, 4) if r.dice_thrown == 3 else (2, 1)
        before = drawn(r, "1 1 . . . .", START if r.men == 15 else PAIRS)
        (o,) = turn_outcomes(r, before, dice)
        ruling = judged(r, before, dice, o.position)
        assert ruling.legal and ruling.game_over.to_json() == {"winner": "light", "kind": "single",
                                                               "stake": 1}
        assert ruling.game_over.rule == "win.unstacking"
        assert {"type": "win", "player": "light"} in events(ruling)
        over = game_over(r, o.position, "light", dice)
        assert over is not None and over.to_json()["winner"] == "light"
        # no game is over before the last man is off
        assert game_over(r, before, "light", dice) is None


def test_the_opponent_may_win_on_the_players_dice() -> None:
    """"If a player cannot use a throw, the opponent may utilise it instead and
    may even win in doing so." -- Alfonso X 1283, seed 002 (Doblet).  Dark has
    one man left, on his 3 point; light, still playing down, cannot use a 3."""
    r = rules("doblet")
    before = drawn(r, "2^ 2^ 2 2^ 2^ 2^", ". . 1 . . .")
    after = drawn(r, "2 2 2 2^ 2^ 2^", ". . . . . .", turn="dark")
    assert_outcomes(r, before, (1, 2, 3), [after])
    ruling = judged(r, before, (1, 2, 3), after)
    assert ruling.legal and ruling.game_over.to_json() == {"winner": "dark", "kind": "single",
                                                           "stake": 1}
    assert events(ruling)[-3:] == [{"type": "opponent_uses_die", "player": "dark", "die": 3},
                                   {"type": "bear_off", "player": "dark", "point": 3},
                                   {"type": "win", "player": "dark"}]
