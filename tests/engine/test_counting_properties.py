"""Sice-Ace cross-checked and its invariants checked on many tallies.

1. A deliberately naive referee written here from the seed's words (plain
   lists, one loop over the dice in the documented order: the higher die
   first) is compared with ``count_throw`` on thousands of random tallies and
   throws (a seeded ``random.Random``, so a failure repeats).
2. Properties (hypothesis): men are conserved -- every man is in a hand, in
   the pool or borne off, and each event moves exactly one; ids and documents
   round-trip; the order the dice are given in does not matter; whose throw
   is next is a player still in; the referee judges every outcome legal and
   any other count illegal; a random game ends and replays from its record.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from willughby.engine.counting import MEN_EACH, CountingGame, Tally, count_throw, judge_tally
from willughby.engine.errors import InvalidBoardError
from willughby.engine.rules import preset_rules

RULES = {n: preset_rules("sice-ace", {"players": str(n)}) for n in range(2, 6)}


# -------------------------------------------------------- the naive referee
def naive_throw(men_before, pool, player, dice):
    """Seed 003, read literally, one die at a time, the higher first.

    Returns (men, pool, events, throws_again, loser, next_turn) with events as
    (type, player, to) triples.
    """
    men = list(men_before)
    n = len(men)
    events = []
    took = False
    for die in sorted(dice, reverse=True):
        if men[player] == 0:
            continue                    # out: nothing more counts
        if die == 1:                    # "handed to the player on the left"
            left = None
            for step in range(1, n):
                k = (player + step) % n
                if men[k] > 0:
                    left = k
                    break
            if left is not None:
                men[player] = men[player] - 1
                men[left] = men[left] + 1
                events.append(("hand_left", player, left))
        elif die == 6:                  # "borne off the table and laid aside"
            men[player] = men[player] - 1
            events.append(("bear_off", player, None))
        elif die == 5:                  # "put into the central pool"
            men[player] = men[player] - 1
            pool = pool + 1
            events.append(("pool_in", player, None))
        elif die == 2 and pool > 0:     # "taken from the pool"
            pool = pool - 1
            men[player] = men[player] + 1
            took = True
            events.append(("pool_out", player, None))
        if men[player] == 0:
            events.append(("out", player, None))
    holders = [k for k in range(n) if men[k] > 0]
    loser = holders[0] if len(holders) == 1 else None
    again = False
    if loser is None and men[player] > 0:
        if dice[0] == dice[1]:
            again = dice[0] != 2
        else:
            again = took
    if again:
        events.append(("throw_again", player, None))
        nxt = player
    elif loser is not None:
        nxt = None
    else:
        nxt = None
        for step in range(1, n):
            k = (player + step) % n
            if men[k] > 0:
                nxt = k
                break
    return men, pool, events, again, loser, nxt


def random_tally(rng: random.Random) -> Tally:
    """A tally a game could be in: two or more players still in, one of them to throw."""
    while True:
        n = rng.randint(2, 5)
        # each of the 6n men is in a hand, in the pool or laid aside
        weights = [rng.random() for _ in range(n + 2)]
        men = [0] * n
        pool = 0
        for _ in range(MEN_EACH * n):
            where = rng.choices(range(n + 2), weights)[0]
            if where < n:
                men[where] += 1
            elif where == n:
                pool += 1
        holders = [k for k in range(n) if men[k] > 0]
        if len(holders) >= 2:
            return Tally(tuple(men), pool, rng.choice(holders))


def test_count_throw_agrees_with_the_naive_referee() -> None:
    rng = random.Random(20240617)
    checked = 0
    for _ in range(6000):
        tally = random_tally(rng)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        got = count_throw(RULES[tally.players], tally, dice)
        men, pool, events, again, loser, nxt = naive_throw(tally.men, tally.pool, tally.turn, dice)
        where = f"{tally.id()} throwing {dice}"
        assert got.after.men == tuple(men), where
        assert got.after.pool == pool, where
        assert [(e.type, e.player, e.to) for e in got.events] == events, where
        assert got.throws_again == again, where
        assert (got.game_over.loser if got.game_over else None) == loser, where
        assert got.after.turn == nxt, where
        checked += 1
    assert checked == 6000


def test_every_throw_of_every_small_tally_agrees_with_the_naive_referee() -> None:
    """All 36 throws from every two-player tally with at most 3 men a hand."""
    for a in range(4):
        for b in range(4):
            for pool in range(4):
                for turn in (0, 1):
                    if a == 0 or b == 0:
                        continue
                    tally = Tally((a, b), pool, turn)
                    for d1 in range(1, 7):
                        for d2 in range(1, 7):
                            got = count_throw(RULES[2], tally, (d1, d2))
                            men, pool_after, _, again, loser, nxt = naive_throw(
                                tally.men, tally.pool, turn, (d1, d2))
                            assert (got.after.men, got.after.pool, got.throws_again, got.after.turn) \
                                == (tuple(men), pool_after, again, nxt)
                            assert (got.game_over.loser if got.game_over else None) == loser


# --------------------------------------------------------------- properties
@st.composite
def tallies(draw, playable: bool = True) -> Tally:
    n = draw(st.integers(2, 5))
    places = draw(st.lists(st.integers(0, n + 1), min_size=MEN_EACH * n, max_size=MEN_EACH * n))
    men = tuple(places.count(k) for k in range(n))
    pool = places.count(n)
    holders = [k for k in range(n) if men[k] > 0]
    if playable:
        assume(len(holders) >= 2)
        return Tally(men, pool, draw(st.sampled_from(holders)))
    return Tally(men, pool, draw(st.none() | st.integers(0, n - 1)))


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@settings(max_examples=400, deadline=None)
@given(tallies(), dice)
def test_men_are_conserved(tally: Tally, thrown: tuple[int, int]) -> None:
    """Every man is in a hand, in the pool or laid aside, and each event moves one."""
    o = count_throw(RULES[tally.players], tally, thrown)
    after = o.after
    assert sum(after.men) + after.pool + after.off == MEN_EACH * tally.players
    count = {t: sum(1 for e in o.events if e.type == t) for t in
             ("hand_left", "bear_off", "pool_in", "pool_out", "out", "throw_again")}
    assert after.off == tally.off + count["bear_off"]
    assert after.pool == tally.pool + count["pool_in"] - count["pool_out"]
    p = tally.turn
    assert after.men[p] == tally.men[p] - count["hand_left"] - count["bear_off"] - count["pool_in"] \
        + count["pool_out"]
    for e in o.events:
        assert e.player == p
        if e.type == "hand_left":
            assert e.to != p and tally.men[e.to] > 0
    assert count["out"] == (1 if after.men[p] == 0 else 0)
    assert count["throw_again"] == (1 if o.throws_again else 0)
    assert all(after.men[k] >= tally.men[k] for k in range(tally.players) if k != p)


@settings(max_examples=300, deadline=None)
@given(tallies(), dice)
def test_the_order_the_dice_are_given_in_does_not_matter(tally: Tally, thrown: tuple[int, int]) -> None:
    rules = RULES[tally.players]
    assert count_throw(rules, tally, thrown) == count_throw(rules, tally, thrown[::-1])


@settings(max_examples=300, deadline=None)
@given(tallies(), dice)
def test_whose_throw_next_is_a_player_still_in(tally: Tally, thrown: tuple[int, int]) -> None:
    o = count_throw(RULES[tally.players], tally, thrown)
    if o.game_over is not None:
        assert o.after.turn is None and o.after.players_in == (o.game_over.loser,)
        assert not o.throws_again
    else:
        assert o.after.turn in o.after.players_in
        assert (o.after.turn == tally.turn) == o.throws_again


@settings(max_examples=300, deadline=None)
@given(tallies(playable=False))
def test_ids_and_documents_round_trip(tally: Tally) -> None:
    assert Tally.from_id(tally.id()) == tally
    assert Tally.from_doc(tally.to_doc(), players=tally.players) == tally
    assert Tally.from_doc(json.dumps(tally.to_doc())) == tally
    assert eval(repr(tally)) == tally
    assert len(str(tally).splitlines()) == tally.players + 1


@settings(max_examples=300, deadline=None)
@given(tallies(), dice, st.data())
def test_the_referee_judges_the_outcome_legal_and_any_other_count_illegal(
        tally: Tally, thrown: tuple[int, int], data) -> None:
    rules = RULES[tally.players]
    o = count_throw(rules, tally, thrown)
    ruling = judge_tally(rules, tally, thrown, o.after)
    assert ruling.legal and ruling.events == o.events and ruling.game_over == o.game_over
    assert judge_tally(rules, tally, thrown, o.after.with_turn(None)).legal
    # one count off by one: illegal, and the reason names it
    k = data.draw(st.integers(-1, tally.players - 1))
    step = data.draw(st.sampled_from((-1, 1)))
    men, pool = list(o.after.men), o.after.pool
    if k < 0:
        pool += step
    else:
        men[k] += step
    try:
        wrong = Tally(tuple(men), pool, o.after.turn)
    except InvalidBoardError:
        return  # no such tally can stand
    ruling = judge_tally(rules, tally, thrown, wrong)
    assert not ruling.legal and ruling.citation and ruling.rule.startswith("sice.")
    assert ruling.reason.startswith("the pool" if k < 0 else f"player {k} ")
    assert json.loads(json.dumps(ruling.to_json()))["verdict"] == "illegal"


@pytest.mark.parametrize("seed", range(40))
def test_a_random_game_ends_and_replays_from_its_record(seed: int) -> None:
    rng = random.Random(seed)
    players = 2 + seed % 4
    match = CountingGame(RULES[players])
    while match.phase == "throw":
        assert match.turn_number < 5000
        before = match.tally
        o = match.throw([rng.randint(1, 6), rng.randint(1, 6)])
        assert judge_tally(match.rules, before, match.dice, o.after).legal
    assert match.result is not None and match.tally.players_in == (match.result.loser,)
    replay = CountingGame.from_record(json.loads(json.dumps(match.record())))
    assert replay.history == match.history and replay.tally == match.tally
    assert replay.record() == match.record()
