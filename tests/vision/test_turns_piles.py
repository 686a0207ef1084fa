"""The turn reader in a game of piles (Doublets and its kin): a play changes
piles, not counts, so each point is weighed over its count and its pile
together, and the play is ruled only where the piles are read surely.

"Players play down a man for each cast of the die ... the player takes the
upper of the two men on point 2 and places it on the same point but above
the lower man" (Willughby, seed 002): from the start, 4-1 leaves every count
as it was and changes the piles of points 4 and 1 only.
"""

from __future__ import annotations

import numpy as np

from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision.turns import (Candidate, TurnConfig, TurnEvidence, TurnReader, board_classes, has_piles,
                                    pile_classes)

RULES = preset_rules("doublets")
START = start_position(RULES, "light")
BEFORE = START.to_board()


def _candidates(dice) -> list[Candidate]:
    return [Candidate(o.play.notation, o.position.to_board()) for o in turn_outcomes(RULES, START, dice)]


def _evidence(board: dict, pile_sure: float = 0.999, changes=None) -> TurnEvidence:
    counts = np.full((24, 31), 1e-4 / 30)
    counts[np.arange(24), board_classes(board)] = 1 - 1e-4
    piles = np.full((24, 3), (1 - pile_sure) / 2)
    piles[np.arange(24), pile_classes(board)] = pile_sure
    return TurnEvidence(counts, pile_probs=piles, changes=changes)


def _reader() -> TurnReader:
    return TurnReader(TurnConfig(temperature=1.0))


def test_the_start_is_a_game_of_piles_and_its_piles_have_classes():
    assert has_piles(BEFORE)
    assert pile_classes(BEFORE)[:6].tolist() == [1, 1, 1, 2, 2, 2]      # piles of 2 on 1-3, of 3 on 4-6


def test_piles_read_surely_rule_the_play_they_show():
    # 6-6 under pip-total: twelve actions on any men, many boards alike in every count
    candidates = _candidates((3, 3))
    assert len(candidates) > 10 and len({tuple(board_classes(c.board)) for c in candidates}) == 1
    shown = candidates[7]
    found = _reader().judge(candidates, _evidence(shown.board), before=BEFORE)
    assert (found.verdict, found.play) == ("legal", shown.play)


def test_piles_read_unsurely_are_asked_not_guessed():
    candidates = _candidates((4, 1))
    assert len(candidates) == 1                 # counts alone would rule it whatever the piles show
    found = _reader().judge(candidates, _evidence(candidates[0].board, pile_sure=0.9), before=BEFORE)
    assert found.verdict == "unsure"
    assert any("piles" in note for note in found.notes)


def test_a_pile_the_throw_did_not_touch_shown_played_down_is_not_ruled_the_play():
    # 4-1 played, but the picture also shows point 6's pile played down: no play of 4-1 does that
    play = _candidates((4, 1))[0]
    wrong = dict(play.board)
    wrong["stacked"] = {k: list(v) for k, v in play.board["stacked"].items()}
    wrong["stacked"]["light"][5] = 2
    found = _reader().judge(_candidates((4, 1)), _evidence(wrong), before=BEFORE)
    assert found.verdict != "legal"


def test_a_point_whose_picture_did_not_change_keeps_its_pile():
    # the frame before shows point 4's pile standing and its picture did not change: 4-1's play
    # (point 4 played down) cannot be what the table shows, whatever the pile reader says
    play = _candidates((4, 1))[0]
    changes = np.full(24, 0.2)
    changes[3] = 0.0
    found = _reader().judge(_candidates((4, 1)), _evidence(play.board, changes=changes), before=BEFORE)
    assert found.verdict != "legal"
