"""The match: turn order, the cube, binding, passes, the record that replays."""

import random

import pytest

from willughby.engine.errors import InvalidRecordError, MatchStateError
from willughby.engine.game import Game
from willughby.engine.moves import legal_plays
from willughby.engine.position import Position


def test_ties_at_the_start_throw_again():
    """Willughby (seed 000): "each player rolls one die, and the highest roller gets the first throw"."""
    m = Game.new("irish")
    m.start_roll(4, 4)
    assert m.phase == "start" and m.turn is None
    m.start_roll(2, 5)
    assert m.turn == "dark" and m.phase == "throw"   # opening=rethrow: dark throws afresh


def test_opening_play_uses_the_numbers_of_the_start_roll():
    """Hoyle 1753 (seed 001): "the player who rolls the most plays first and plays the numbers on this first roll"."""
    m = Game.new("backgammon")
    m.start_roll(6, 1)
    assert m.turn == "light" and m.phase == "move" and m.dice == (6, 1)


def test_an_illegal_turn_is_recorded_and_the_board_must_be_put_right():
    m = Game.new("backgammon")
    m.start_roll(3, 1)
    ruling = m.play_notation("13/9")   # one man 4 pips: legal (13/10/9)
    assert ruling.legal
    m.throw((6, 5))
    before = m.position
    bad = m.play_notation("13/7")      # dark plays the 6 only: the 5 could be played too
    assert not bad.legal and bad.reason
    assert m.position == before and m.phase == "move" and m.rulings[-1] is bad


def test_a_throw_that_cannot_be_played_passes_the_turn():
    closed = Position(
        light=(0, 0, 0, 0, 0, 14) + (0,) * 18,
        dark=(0,) * 18 + (2, 2, 2, 2, 2, 2),
        bar=(1, 0), off=(0, 3), turn="light",
    )
    m = Game(Game.new("backgammon").rules, start=closed)
    assert m.phase == "throw"
    ruling = m.throw((3, 1))
    assert ruling is not None and ruling.legal
    assert [e.type for e in ruling.events][:1] == ["pass"]
    assert m.turn == "dark" and m.phase == "throw" and m.turn_number == 1


def test_cube_offer_take_then_drop_ends_with_the_cube_value():
    """Seed 004: "A player may propose to double the score. The opposing player may "take" it or "drop" the game"."""
    m = Game.new("backgammon")
    m.start_roll(1, 2)           # dark plays 2-1
    m.play(legal_plays(m.rules, m.position, m.dice)[0].position)
    assert m.can_double()        # centred cube: light may double
    m.offer_double()
    m.take()
    assert m.cube_value == 2 and m.cube_owner == "dark"
    assert not m.can_double()    # light no longer owns it
    with pytest.raises(MatchStateError):
        m.offer_double()
    m.throw((3, 1))
    m.play(legal_plays(m.rules, m.position, m.dice)[0].position)
    m.offer_double()             # dark owns the cube and redoubles
    result = m.drop()
    assert (result.winner, result.stake) == ("dark", 2) and m.phase == "over"


def test_no_cube_in_a_game_without_it():
    m = Game.new("irish")
    m.start_roll(5, 2)
    with pytest.raises(MatchStateError, match="cube=false"):
        m.offer_double()


def test_using_the_match_out_of_turn_is_misuse():
    m = Game.new("irish")
    with pytest.raises(MatchStateError):
        m.throw((3, 1))
    with pytest.raises(MatchStateError):
        m.take()


def _play_random_game(preset, seed, **options):
    rng = random.Random(seed)
    m = Game.new(preset, options or None, players={"light": "Ann", "dark": "Ben"})
    while m.phase == "start":
        m.start_roll(rng.randint(1, 6), rng.randint(1, 6))
    for _ in range(3000):
        if m.phase == "over":
            break
        if m.phase == "throw":
            if m.can_double() and rng.random() < 0.02:
                m.offer_double()
                m.take()
                continue
            if m.throw(tuple(rng.randint(1, 6) for _ in range(m.rules.dice_thrown))) is not None:
                continue
        if m.phase == "move":
            outcomes = m.legal_outcomes()
            if rng.random() < 0.05:          # now and then an illegal board first
                m.play(m.position.with_turn(None)) if len(outcomes) > 1 or outcomes[0].play.steps else None
                if m.phase != "move":
                    continue
            m.play(rng.choice(outcomes).position)
        elif m.phase == "binding_toss":
            m.binding_toss((rng.randint(1, 6), rng.randint(1, 6)), (rng.randint(1, 6), rng.randint(1, 6)))
        elif m.phase == "binding_choice":
            binder = m.binder
            points = m.position.points(binder)
            own = [k for k in range(1, 7) if points[(k if binder == "light" else 25 - k) - 1] >= 2]
            m.break_point(rng.choice(own))
    return m


@pytest.mark.parametrize("preset", ["irish", "backgammon", "backgammon-willughby", "backgammon-cotton",
                                    "dutch", "english", "filling"])
def test_a_whole_game_is_recorded_and_replays_to_the_same_positions(preset):
    m = _play_random_game(preset, seed=11)
    if preset != "filling":  # random play can strand a filling game: men only move down
        assert m.phase == "over" and m.result is not None
    record = m.record()
    again = Game.from_record(record)
    assert again.position == m.position
    assert again.result == m.result
    assert [r.to_json() for r in again.rulings] == [r.to_json() for r in m.rulings]
    assert record["players"] == {"light": "Ann", "dark": "Ben"}


def _bound_by_light_next():
    # light: 2 on each of points 1-5, 1 on 6 and 1 on 9, 3 off; dark: 1 on the bar, 14 on physical 13
    light = (2, 2, 2, 2, 2, 1, 0, 0, 1) + (0,) * 15
    dark = (0,) * 12 + (14,) + (0,) * 11
    return Position(light, dark, bar=(0, 1), off=(3, 0), turn="light")


def test_binding_the_table_calls_for_the_toss_and_the_break():
    """Willughby (seed 000): "If you have bound up the table, and he has men to enter,
    then you must "break" or "open" the table. ... both players throw two dice. The
    player with the higher throw gets to choose which point will be broken; however,
    even if the person who has bound up his home wins the toss, he still must break
    one point in his Home." """
    m = Game(Game.new("irish").rules, preset="irish", start=_bound_by_light_next())
    m.throw((2, 1))
    ruling = m.play_notation("9/6")
    assert ruling.legal and [e.type for e in ruling.events] == ["bound"]
    assert m.phase == "binding_toss"
    assert m.binding_toss((3, 3), (5, 1)) is None        # 6 against 6: throw again
    assert m.binding_toss((2, 1), (6, 5)) == "dark"       # dark threw higher and chooses
    after = m.break_point(4)
    assert after.light[3] == 1 and after.bar == (1, 1)    # all but one of light's 4 point taken up
    assert m.phase == "throw" and m.turn == "dark"
    again = Game.from_record(m.record())
    assert again.position == m.position


def test_without_binding_a_bound_table_is_no_event():
    m = Game(Game.new("irish", {"binding": "false"}).rules, start=_bound_by_light_next())
    m.throw((2, 1))
    ruling = m.play_notation("9/6")
    assert ruling.legal and ruling.events == () and m.phase == "throw"


def test_the_point_to_break_must_hold_men_to_take_up():
    m = Game(Game.new("irish").rules, start=_bound_by_light_next())
    m.throw((2, 1))
    m.play_notation("9/6")
    m.binding_toss((6, 6), (1, 1))
    with pytest.raises(MatchStateError):
        m.break_point(7)


def test_a_tampered_record_does_not_replay():
    m = _play_random_game("backgammon", seed=3)
    record = m.record()
    moves = [a for a in record["actions"] if a["type"] == "move" and a["verdict"] == "legal" and not a.get("automatic")]
    moves[3]["verdict"] = "illegal"
    with pytest.raises(InvalidRecordError):
        Game.from_record(record)
    with pytest.raises(InvalidRecordError):
        Game.from_record({"format": "something-else"})
