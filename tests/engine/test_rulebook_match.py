"""Rulebook: matches to N points, the Crawford rule, and the money game's Jacoby rule and beavers.

No seed text plays matches; the rules are the published ones clubs play by
(docs/matches.md): the GNU Backgammon manual's "Rules for Match Play" (2.9)
and "Optional Rules" (2.8), and the Danish Backgammon Federation's tournament
rule 4.4.4 on the Crawford game.
"""

from __future__ import annotations

import pytest

from willughby.engine.errors import InvalidOptionError, InvalidRecordError, MatchStateError
from willughby.engine.game import Game
from willughby.engine.match import Match
from willughby.engine.position import DARK, LIGHT, other
from willughby.engine.sources import source

from .rulebook_helpers import board


def _open(game: Game, first: str = LIGHT) -> None:
    """The roll for the start, won by *first*; he then plays 3-1 (backgammon opens with the roll)."""
    game.start_roll(3, 1) if first == LIGHT else game.start_roll(1, 3)
    assert game.play_notation("8/5 6/5").verdict == "legal"


def _any_play(game: Game) -> None:
    """The player on turn plays his throw some legal way."""
    assert game.play(game.legal_outcomes()[0].position).verdict == "legal"


def _win_by_cube(game: Game, winner: str, points: int) -> None:
    """*winner* wins *points* (1 or 2) by the cube: a double dropped, or taken and redoubled and dropped."""
    if game.phase == "start":
        _open(game, other(winner) if points == 2 else winner)
    if points == 1:
        if game.turn != winner:
            game.throw((2, 1))
            _any_play(game)
        game.offer_double()
        assert game.drop().stake == 1
        return
    assert points == 2
    if game.turn == winner:
        game.throw((2, 1))
        _any_play(game)
    game.offer_double()                     # the loser doubles ...
    game.take()                             # ... the winner takes, owns the cube at 2 ...
    game.throw((2, 1))
    _any_play(game)
    game.offer_double()                     # ... and redoubles: the loser drops 2
    assert game.drop().stake == 2


def _win_bearing_off(game: Game, winner: str, gammon: bool = False) -> None:
    """*winner* bears off his last man: the loser has borne off one man (a single game) or none (a gammon)."""
    if game.phase == "start":
        _open(game, winner)
    loser_men = {6: 15} if gammon else {6: 14}
    after = (board(light={1: 1}, dark=loser_men) if winner == LIGHT else board(light=loser_men, dark={1: 1}))
    game.place(after, turns=2 if game.turn == winner else 1)
    assert game.turn == winner
    game.throw((2, 1))
    ruling = game.play_notation("1/off")
    assert ruling.game_over is not None and ruling.game_over.winner == winner


def test_a_match_is_won_by_the_first_to_its_points_each_game_worth_its_stake_times_the_cube() -> None:
    """"Matches are played to a specified number of points.  The first player to accumulate the required
    points wins the match.  Points are awarded in the usual manner: one for a single game, two for a gammon,
    and three for a backgammon. ... the winner receives the value of the game multiplied by the final value of
    the doubling cube." -- GNU Backgammon manual, 2.9 Rules for Match Play."""
    assert source("match.points").citation == "GNU Backgammon manual, 2.9 Rules for Match Play"
    m = Match(3)
    _win_bearing_off(m.next_game(), DARK, gammon=True)         # a gammon: two points
    assert m.score == {LIGHT: 0, DARK: 2} and not m.over
    assert m.needs(DARK) == 1 and m.needs(LIGHT) == 3
    crawford = m.next_game()
    assert crawford.crawford
    _win_bearing_off(crawford, LIGHT, gammon=True)             # light's gammon in the Crawford game: 2-2
    assert m.score == {LIGHT: 2, DARK: 2} and m.needs(LIGHT) == m.needs(DARK) == 1
    _win_by_cube(m.next_game(), DARK, 1)                       # a double dropped: one point, the match
    assert m.score == {LIGHT: 2, DARK: 3} and m.winner == DARK


def test_the_gnubg_manuals_match_to_five_game_by_game_with_its_crawford_game() -> None:
    """"After three games White has 4 points, which is just one point short of what he needs.  That triggers
    the Crawford rule which says there can be no doubling in next game, Game 4." -- GNU Backgammon manual,
    2.9 (its table: White wins 2, Black 1, White 2, Black 1 in the Crawford game, Black 2, White 2: 6-4)."""
    white, black = LIGHT, DARK
    m = Match(5, players={LIGHT: "White", DARK: "Black"})
    for n, (winner, points, stage) in enumerate([(white, 2, ""), (black, 1, ""), (white, 2, ""),
                                                 (black, 1, "crawford"), (black, 2, "post-crawford"),
                                                 (white, 2, "post-crawford")], start=1):
        assert m.stage() == stage, n
        game = m.next_game()
        assert game.crawford == (stage == "crawford")
        if stage == "crawford":
            _win_bearing_off(game, winner)
        else:
            _win_by_cube(game, winner, points)
    assert m.score == {white: 6, black: 4}
    assert m.winner == white and m.over
    assert m.describe() == "White wins the match 6-4 (to 5)"
    with pytest.raises(MatchStateError, match="the match is over"):
        m.next_game()


def test_no_double_in_the_crawford_game_the_referee_says_why_and_names_the_rule() -> None:
    """"In the first game in which one player needs [one] point to win the match, neither player may double.
    If a player nevertheless doubles, the doubling is annulled." -- Danish Backgammon Federation, tournament
    rule 4.4.4."""
    m = Match(3)
    _win_by_cube(m.next_game(), LIGHT, 2)                      # light needs one
    game = m.next_game()
    assert m.describe() == "light needs 1, dark needs 3 (Crawford game)"
    _open(game, DARK)
    for _ in range(2):                                         # neither player may double
        assert not game.can_double()
        why, rule = game.why_no_double()
        assert "Crawford game" in why and rule == "match.crawford"
        with pytest.raises(MatchStateError, match="no double in the Crawford game"):
            game.offer_double()
        game.throw((2, 1))
        _any_play(game)
    assert "neither player may double" in source("match.crawford").quote


def test_after_the_crawford_game_the_cube_is_back_for_both() -> None:
    """"If the Crawford game is won by the trailing player then the doubling cube becomes available in all
    subsequent games" -- GNU Backgammon manual, 2.9; "In following games, if any, the doubling cube may again
    be used." -- Danish Backgammon Federation, rule 4.4.4."""
    m = Match(3)
    _win_by_cube(m.next_game(), LIGHT, 2)
    _win_bearing_off(m.next_game(), DARK)                      # the Crawford game, won by the trailer
    assert m.score == {LIGHT: 2, DARK: 1} and m.stage() == "post-crawford"
    game = m.next_game()
    assert not game.crawford
    assert m.describe() == "light needs 1, dark needs 2 (post-Crawford)"
    _open(game, DARK)
    game.throw((2, 1))
    _any_play(game)
    assert game.can_double()                                   # dark, the trailer, doubles
    game.offer_double()
    game.take()
    assert game.cube_value == 2


def test_only_one_crawford_game_in_a_match() -> None:
    """The Crawford game is "the first game in which one player needs [one] point" (rule 4.4.4): when the
    trailer then reaches one point short too, the next game is not another."""
    m = Match(3)
    _win_by_cube(m.next_game(), LIGHT, 2)
    _win_bearing_off(m.next_game(), DARK)                      # Crawford: 2-1
    _win_by_cube(m.next_game(), DARK, 1)                       # 2-2: both need one
    assert m.stage() == "post-crawford"
    assert not m.next_game().crawford


def test_a_gammon_ends_a_match_and_points_beyond_its_length_count_for_nothing() -> None:
    """"There is no bonus for winning more than the required number of points in match play." -- GNU
    Backgammon manual, 2.9."""
    m = Match(1)
    _win_bearing_off(m.next_game(), LIGHT, gammon=True)
    assert m.score[LIGHT] == 2 and m.winner == LIGHT and m.needs(LIGHT) == 0
    assert m.crawford_index() is None                          # a match to one has no Crawford game


def test_without_the_crawford_rule_the_cube_stays_in_play() -> None:
    """The Crawford rule is the match's to say (``crawford=False``: none)."""
    m = Match(3, crawford=False)
    _win_by_cube(m.next_game(), LIGHT, 2)
    assert m.stage() == "" and not m.next_game().crawford


def test_a_match_is_played_with_a_race_game_and_refuses_the_money_options() -> None:
    """The Jacoby rule "is not used in match play" and beavers are an option of money play (docs/matches.md)."""
    with pytest.raises(InvalidOptionError, match="1 to 64 points"):
        Match(0)
    with pytest.raises(InvalidOptionError, match="race game"):
        Match(5, preset="doublets")
    with pytest.raises(InvalidOptionError, match="jacoby=true is for money play"):
        Match(5, options={"jacoby": "true"})
    with pytest.raises(InvalidOptionError, match="beavers=true is for money play"):
        Match(5, options={"beavers": "true"})
    m = Match(5, preset="irish")                               # a match of Irish: no cube, no Crawford game
    assert m.rules.cube is False and m.crawford_index() is None


def test_a_game_cannot_begin_while_one_is_in_play() -> None:
    m = Match(5)
    m.next_game()
    with pytest.raises(MatchStateError, match="still in play"):
        m.next_game()


def test_a_match_record_replays_and_a_forged_one_is_refused() -> None:
    m = Match(3, players={LIGHT: "Ann", DARK: "Bob"})
    _win_by_cube(m.next_game(), LIGHT, 2)
    _win_bearing_off(m.next_game(), DARK)
    game = m.next_game()
    _open(game)
    record = m.record()
    again = Match.from_record(record)
    assert again.score == m.score and again.stage() == m.stage() == "post-crawford"
    assert [g.record() for g in again.games] == record["games"]
    forged = dict(record, games=[dict(record["games"][0]), dict(record["games"][1], crawford=False),
                                 record["games"][2]])
    with pytest.raises(InvalidRecordError, match="game 2 is the Crawford game"):
        Match.from_record(forged)
    with pytest.raises(InvalidRecordError, match="score"):
        Match.from_record(dict(record, score={LIGHT: 3, DARK: 1}))
    with pytest.raises(InvalidRecordError, match="format"):
        Match.from_record({"format": "willughby-game/1"})


# ------------------------------------------------------------------ the money game's options of the cube

def _money(**options: str) -> Game:
    return Game.new("backgammon", options)


def test_under_the_jacoby_rule_a_gammon_with_the_cube_never_turned_counts_single() -> None:
    """"The Jacoby Rule.  Gammons and backgammons count only as a single game if neither player has offered a
    double during the course of the game." -- GNU Backgammon manual, 2.8 Optional Rules."""
    game = _money(jacoby="true")
    _win_bearing_off(game, LIGHT, gammon=True)
    over = game.result
    assert over is not None and (over.kind, over.stake, over.rule) == ("gammon", 1, "money.jacoby")
    plain = _money()
    _win_bearing_off(plain, LIGHT, gammon=True)
    assert plain.result is not None and plain.result.stake == 2


def test_under_the_jacoby_rule_a_gammon_counts_once_the_cube_is_turned() -> None:
    """... "if neither player has offered a double": once a double is taken, a gammon counts double the cube."""
    game = _money(jacoby="true")
    _open(game, DARK)
    game.offer_double()
    game.take()
    _win_bearing_off(game, LIGHT, gammon=True)
    assert game.result is not None and (game.result.stake, game.result.rule) == (4, "stakes.gammon")


def test_a_beaver_redoubles_at_once_and_keeps_the_cube() -> None:
    """"Beavers.  When a player is doubled, he may immediately redouble (beaver) while retaining possession of
    the cube.  The original doubler has the option of accepting or refusing as with a normal double." -- GNU
    Backgammon manual, 2.8 Optional Rules."""
    game = _money(beavers="true")
    _open(game, LIGHT)                    # dark on turn
    game.offer_double()
    assert game.can_beaver()
    game.beaver()                         # light beavers: the cube at 4, on offer to dark
    assert not game.can_beaver()          # one beaver answers a double
    game.take()
    assert (game.cube_value, game.cube_owner, game.phase) == (4, LIGHT, "throw")
    refused = _money(beavers="true")
    _open(refused, LIGHT)
    refused.offer_double()
    refused.beaver()
    over = refused.drop()                 # dark refuses the beaver: light wins the cube as doubled, 2
    assert (over.winner, over.stake, over.rule) == (LIGHT, 2, "money.beaver")
    assert Game.from_record(refused.record()).result == over


def test_no_beaver_without_the_option_and_the_options_need_the_cube() -> None:
    game = _money()
    _open(game)
    game.offer_double()
    with pytest.raises(MatchStateError, match="beavers=false"):
        game.beaver()
    with pytest.raises(InvalidOptionError, match="jacoby=true needs the cube"):
        _money(cube="false", jacoby="true")
    with pytest.raises(InvalidOptionError, match="beavers=true needs the cube"):
        _money(cube="false", beavers="true")


def test_a_flag_loses_the_match_whatever_the_score_and_the_record_says_so() -> None:
    """"When a player's time reserve is exhausted they have lost the match" -- BIBA Clock Rules, Time
    Expiration. The game in play ends there (in any phase: here with a double on offer) and its winner
    scores the points he needed, so the score, the record and the match's end agree."""
    m = Match(5, players={LIGHT: "Ann", DARK: "Bob"})
    _win_by_cube(m.next_game(), LIGHT, 2)                      # Ann leads 2-0
    game = m.next_game()
    _open(game, DARK)
    game.offer_double()                                        # Ann's turn: a double on offer to Bob ...
    result = m.lose_on_time(LIGHT)                             # ... and Ann's flag falls while he thinks
    assert (result.winner, result.kind, result.stake, result.rule) == (DARK, "flag", 5, "match.flag")
    assert m.over and m.winner == DARK and m.score == {LIGHT: 2, DARK: 5}
    assert m.describe() == "Bob wins the match 5-2 (to 5) on time (Ann's flag fell)"
    assert Match.from_record(m.record()).describe() == m.describe()
    with pytest.raises(MatchStateError, match="no game of the match is in play"):
        m.lose_on_time(DARK)
    assert "they have lost the match" in source("match.flag").quote


def test_a_forged_flag_is_refused_in_a_match_record() -> None:
    """A game lost on time is worth exactly what the winner needed (match.flag): a record that says
    otherwise, or a flag in a game already over, does not replay."""
    m = Match(5)
    _open(m.next_game(), LIGHT)
    m.lose_on_time(DARK)
    record = m.record()
    forged = dict(record, score={LIGHT: 3, DARK: 0}, winner=None)
    forged["games"] = [dict(record["games"][0], actions=[*record["games"][0]["actions"][:-1],
                                                         {"type": "flag", "player": DARK, "stake": 3}],
                            result={"winner": LIGHT, "kind": "flag", "stake": 3})]
    with pytest.raises(InvalidRecordError, match="lost on time for 3 points, but the winner needed 5"):
        Match.from_record(forged)
    game = Game.new("backgammon")
    with pytest.raises(MatchStateError, match="worth 1 point or more"):
        game.lose_on_time(LIGHT, 0)
    _open(game, LIGHT)
    game.lose_on_time(LIGHT, 1)
    with pytest.raises(MatchStateError, match="the game is over"):
        game.lose_on_time(DARK, 1)
