"""A whole match as a .mat file (``companion/matfile.py``, ``match_to_mat``): every game with the score
before it, the Crawford game where GNU Backgammon finds it, and -- where gnubg is installed -- gnubg's own
import of the file agreeing game by game and on the final score."""

from __future__ import annotations

import random

import pytest

from willughby.companion.matfile import match_to_mat
from willughby.engine.match import Match
from willughby.engine.position import DARK, LIGHT

from .test_matfile import gnubg_import, match_id_fields, needs_gnubg


def random_match(length: int, seed: int, *, cube: float = 0.05, max_turns: int = 800) -> Match:
    """A match to *length* played by two automatic players: random legal plays, a double now and then
    (taken three times in four), never in the Crawford game (the engine refuses it)."""
    rng = random.Random(seed)
    m = Match(length, players={LIGHT: f"Light {seed}", DARK: f"Dark {seed}"})
    while not m.over:
        game = m.next_game()
        while game.phase == "start":
            game.start_roll(rng.randint(1, 6), rng.randint(1, 6))
        turns = 0
        while game.phase != "over":
            assert turns < max_turns, "a random game that does not end"
            if game.phase == "throw":
                if game.can_double() and game.cube_value < 8 and rng.random() < cube:
                    game.offer_double()
                    game.take() if rng.random() < 0.75 else game.drop()
                else:
                    game.throw([rng.randint(1, 6), rng.randint(1, 6)])
            else:
                game.play(rng.choice(game.legal_outcomes()).position)
                turns += 1
    return m


def _crawford_match(length: int = 5) -> Match:
    """The first seed whose random match to *length* has a Crawford game (and a game after it)."""
    for seed in range(200):
        m = random_match(length, seed)
        crawford = m.crawford_index()
        if crawford is not None and crawford + 1 < len(m.games):
            return m
    raise AssertionError("no random match with a Crawford game and a game after it")


def test_every_game_is_written_with_the_score_before_it_and_the_last_wins_the_match():
    m = _crawford_match()
    text = match_to_mat(m.record())
    assert "\n 5 point match\n" in text and '; [Crawford "On"]' in text
    score = {LIGHT: 0, DARK: 0}
    for number, game in enumerate(m.games, start=1):
        head = f" Game {number}\n Light {m.players[LIGHT][6:]} : {score[LIGHT]}"
        assert head in text, head
        assert game.result is not None
        score[game.result.winner] += game.result.stake
    assert text.count(" Game ") == len(m.games)
    assert text.count("and the match") == 1 and text.rstrip().endswith("and the match")


def test_a_match_played_without_the_crawford_rule_says_so():
    m = Match(3, crawford=False)
    assert '; [Crawford "Off"]' in match_to_mat(m.record())


def gnubg_match_disagrees(m: Match, theirs: dict) -> list[str]:
    """Where gnubg's reading of our match file differs from the match, game by game (empty: nowhere)."""
    problems = []
    games = theirs["match"].get("games") or []
    if len(games) != len(m.games):
        problems.append(f"gnubg has {len(games)} games, we have {len(m.games)}")
    crawford = m.crawford_index()
    score = {LIGHT: 0, DARK: 0}
    for i, (ours, their) in enumerate(zip(m.games, games)):
        info = their.get("info", {})
        if (info.get("score-X"), info.get("score-O")) != (score[LIGHT], score[DARK]):
            problems.append(f"game {i + 1}: gnubg's score before it {info}, ours {score}")
        if bool(info.get("crawford", False)) != (i == crawford):
            problems.append(f"game {i + 1}: gnubg's Crawford mark {info.get('crawford')}, ours {i == crawford}")
        if ours.result is not None:
            won = ({"X": LIGHT, "O": DARK}.get(info.get("winner")), info.get("points-won"))
            if won != (ours.result.winner, ours.result.stake):
                problems.append(f"game {i + 1}: gnubg has {won} won, we have {ours.result}")
            score[ours.result.winner] += ours.result.stake
    fields = match_id_fields(theirs["match_id"])
    if (fields["match_length"], fields["score0"], fields["score1"]) != (m.length, score[LIGHT], score[DARK]):
        problems.append(f"gnubg's final score {fields} is not {score} of {m.length}")
    return problems


@needs_gnubg
def test_gnubg_imports_a_whole_match_game_by_game_with_its_crawford_game_and_final_score(tmp_path):
    m = _crawford_match()
    path = tmp_path / "match to 5.mat"
    path.write_text(match_to_mat(m.record()), encoding="utf-8")
    [theirs] = gnubg_import([path], tmp_path / "out.json")
    assert gnubg_match_disagrees(m, theirs) == [], path.read_text()
    assert max(m.score.values()) >= 5 and len(theirs["match"]["games"]) == len(m.games) >= 3


@needs_gnubg
def test_the_match_check_notices_a_game_with_a_wrong_score(tmp_path):
    """The comparison above can fail: a file whose second game starts from another score is caught."""
    m = _crawford_match()
    text = match_to_mat(m.record())
    head = f" Game 2\n Light {m.players[LIGHT][6:]} : "
    at = text.index(head) + len(head)
    before = m.games[0].result.stake if m.games[0].result.winner == LIGHT else 0
    forged = text[:at] + str(before + 1) + text[at + len(str(before)):]
    path = tmp_path / "forged.mat"
    path.write_text(forged, encoding="utf-8")
    [theirs] = gnubg_import([path], tmp_path / "out.json")
    problems = gnubg_match_disagrees(m, theirs)
    assert any(p.startswith("game 2: gnubg's score before it") for p in problems), problems


@pytest.mark.parametrize("bad", [{"format": "willughby-game/1"}, {"format": "willughby-match/1", "games": 3}])
def test_a_match_record_that_does_not_replay_is_refused(bad):
    from willughby.engine.errors import InvalidRecordError
    with pytest.raises(InvalidRecordError):
        match_to_mat(bad)


@needs_gnubg
def test_a_match_lost_on_time_is_written_as_far_as_it_went_and_says_so(tmp_path):
    """A flag ends the match ("When a player's time reserve is exhausted they have lost the match" -- BIBA
    Clock Rules, Time Expiration). gnubg reads a "Wins" line as a resignation worth three times the cube at
    most, so a match won on time cannot be its final score: the game is written unfinished, the games
    before it as they were, and the head says why."""
    m = Match(7)
    first = m.next_game()
    first.start_roll(3, 1)
    assert first.play_notation("8/5 6/5").verdict == "legal"
    first.offer_double()                                   # dark doubles, light drops: dark leads 1-0
    first.drop()
    game = m.next_game()
    game.start_roll(3, 1)
    assert game.play_notation("8/5 6/5").verdict == "legal"
    m.lose_on_time(DARK)
    text = match_to_mat(m.record())
    assert "dark's flag fell" in text and "the game is written unfinished" in text
    assert text.rstrip().endswith("8/5 6/5"), text
    path = tmp_path / "flag.mat"
    path.write_text(text, encoding="utf-8")
    [theirs] = gnubg_import([path], tmp_path / "out.json")
    games = theirs["match"]["games"]
    assert len(games) == 2
    won = games[0]["info"]
    assert ({"X": LIGHT, "O": DARK}[won["winner"]], won["points-won"]) == (DARK, 1)
    assert games[1]["info"].get("winner") is None
