"""Where along a point its picture changed, in a race game (vision/turns.py with
vision/footprints.py): the men lie in a row from the board's edge, so the
frame before tells how many men came or went, and a point whose row did not
change keeps its men whatever changed farther along it (a die thrown there).
Probabilities made by hand: the picture is a coin toss between two plays,
and only the changes can tell them apart."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision.strips import MM_PER_PX, STRIP_BEYOND
from willughby.vision.turns import Candidate, TurnConfig, TurnEvidence, TurnReader, board_classes

RULES = preset_rules("backgammon")
START = start_position(RULES, "light")
MAN_MM = 36.0
LENGTH = 140                                  # rows of a strip's change profile


def _candidates() -> list[Candidate]:
    return [Candidate(o.play.notation or "(no play)", o.position.to_board())
            for o in turn_outcomes(RULES, START, (3, 1))]


def _after(play: str) -> dict:
    return next(c.board for c in _candidates() if c.play == play)


def _coin_toss(a: dict, b: dict) -> np.ndarray:
    """The picture says *a* surely everywhere but where *a* and *b* differ: there, either, half and half."""
    p = np.full((24, 31), 1e-3 / 30)
    p[np.arange(24), board_classes(a)] = 1 - 1e-3
    for i in np.flatnonzero(board_classes(a) != board_classes(b)):
        p[i] = 1e-4
        p[i, board_classes(a)[i]] = p[i, board_classes(b)[i]] = 0.5
    return p / p.sum(axis=1, keepdims=True)


def _place_rows(place: int) -> slice:
    """The rows of a strip's profile under the *place*-th man from the edge (0 the first)."""
    lo = (STRIP_BEYOND + place * MAN_MM) / MM_PER_PX
    return slice(int(lo + 2), int(lo + MAN_MM / MM_PER_PX - 2))


def _profiles(changed: dict[int, list[int]], far: tuple[int, ...] = ()) -> np.ndarray:
    """Change profiles: the places *changed* names on each point (1..24) changed, and the far end of the
    points *far* (a die lying there)."""
    prof = np.zeros((24, LENGTH))
    for point, places in changed.items():
        for k in places:
            prof[point - 1, _place_rows(k)] = 1.0
    for point in far:
        prof[point - 1, LENGTH - 8:] = 1.0
    return prof


def _evidence(p: np.ndarray, profiles: np.ndarray | None, changes: np.ndarray) -> TurnEvidence:
    return TurnEvidence(p, changes=changes, profiles=profiles,
                        faint_profiles=None if profiles is None else profiles.copy())


# 8/5 6/5 and 8/7 8/5 (a throw of 3-1 from the start) differ on points 5, 6, 7 and 8.
PLAYED = "8/7 8/5"
OTHER_PLAY = "8/5 6/5"
# what 8/7 8/5 changes along each point: point 8 loses its second and third men (3 -> 1), points 7 and 5
# gain a man at the edge (0 -> 1); point 6 (five men) does not change
PLACES_8_7_8_5 = {8: [1, 2], 7: [0], 5: [0]}


def test_where_along_the_points_the_picture_changed_tells_the_play_the_counts_cannot():
    """How many men came or went is where along the point the picture changed: a picture that cannot tell
    8/7 8/5 from 8/5 6/5 is ruled 8/7 8/5 when the changes lie where its men came and went. The die that
    lies across point 6's far end leaves the whole strips of points 5 to 8 changed, so their shares alone
    cannot tell the plays apart."""
    p = _coin_toss(_after(PLAYED), _after(OTHER_PLAY))
    profiles = _profiles(PLACES_8_7_8_5, far=(6,))
    changes = profiles.mean(axis=1)
    assert (np.flatnonzero(changes) + 1).tolist() == [5, 6, 7, 8]
    before = START.to_board()
    reader = TurnReader(TurnConfig(temperature=1.0))
    shares_alone = reader.judge(_candidates(), _evidence(p, None, changes), before=before)
    assert shares_alone.verdict == "unsure"
    found = reader.judge(_candidates(), _evidence(p, profiles, changes), before=before)
    assert (found.verdict, found.play) == ("legal", PLAYED)


def test_a_point_whose_row_did_not_change_keeps_its_men_though_a_die_lies_on_its_far_end():
    """Point 24's two men did not move, but a die thrown onto its far end changed its strip, and the
    picture reads one man there: its row, unchanged, says two, and the play is ruled; with only the whole
    strip to go by, the turn is asked."""
    p = _coin_toss(_after(PLAYED), _after(PLAYED))
    p[23] = 1e-6
    p[23, 1], p[23, 2] = 0.99, 0.01           # one light man, the picture says (the die's shadow on the other)
    profiles = _profiles(PLACES_8_7_8_5, far=(24,))
    changes = profiles.mean(axis=1)
    before = START.to_board()
    rows_only = TurnReader(TurnConfig(temperature=1.0, race_places_weight=0.0))
    found = rows_only.judge(_candidates(), _evidence(p, profiles, changes), before=before)
    assert (found.verdict, found.play) == ("legal", PLAYED)
    neither = TurnReader(TurnConfig(temperature=1.0, race_places_weight=0.0, still_row_faint_share=None))
    assert neither.judge(_candidates(), _evidence(p, profiles, changes), before=before).verdict == "unsure"


def test_a_pile_read_on_a_point_whose_row_did_not_change_is_the_readers_not_a_question():
    """A race game never piles its men, so a pile read surely on a point whose picture changed makes the
    referee ask; but where only the far end of the point changed (a die) and its row of men did not, the
    point holds what the referee knows, and the pile is the reader's."""
    after = _after(PLAYED)
    p = np.full((24, 31), 1e-3 / 30)
    p[np.arange(24), board_classes(after)] = 1 - 1e-3
    piles = np.zeros((24, 3))
    piles[:, 0] = 1.0
    piles[5] = [0.02, 0.97, 0.01]              # point 6's five men read as a pile of 2 (the die's pips)
    profiles = _profiles(PLACES_8_7_8_5, far=(6,))
    changes = profiles.mean(axis=1)
    reader = TurnReader(TurnConfig(temperature=1.0))
    ev = TurnEvidence(p, changes=changes, profiles=profiles, faint_profiles=profiles.copy(), pile_probs=piles)
    found = reader.judge(_candidates(), ev, before=START.to_board())
    assert (found.verdict, found.play) == ("legal", PLAYED)
    profiles[5, _place_rows(2)] = 1.0           # its row changed: the pile may be the table's
    ev = TurnEvidence(p, changes=profiles.mean(axis=1), profiles=profiles, faint_profiles=profiles.copy(),
                      pile_probs=piles)
    found = reader.judge(_candidates(), ev, before=START.to_board())
    assert found.verdict == "unsure" and "piled on point 6" in found.notes[0]


def test_a_row_that_changed_only_faintly_is_not_taken_as_still():
    """Men of nearly the board's colour change the picture faintly: a row whose fainter comparison changed
    by more than ``still_row_faint_share`` is read, not kept."""
    p = _coin_toss(_after(PLAYED), _after(PLAYED))
    p[23] = 1e-6
    p[23, 1], p[23, 2] = 0.99, 0.01           # one light man, the picture says
    profiles = _profiles(PLACES_8_7_8_5, far=(24,))
    faint = profiles.copy()
    faint[23, _place_rows(1)] = 1.0           # point 24's second man changed faintly: maybe taken away
    changes = profiles.mean(axis=1)
    rows_only = TurnReader(TurnConfig(temperature=1.0, race_places_weight=0.0))
    found = rows_only.judge(_candidates(), TurnEvidence(p, changes=changes, profiles=profiles, faint_profiles=faint),
                            before=START.to_board())
    assert found.verdict == "unsure"


def test_where_the_picture_changed_never_outweighs_a_point_read_surely():
    """The places sway a point the picture cannot tell, not one it reads surely: a picture that shows
    8/5 6/5 clearly is ruled 8/5 6/5 even where the changes lie as 8/7 8/5 would leave them (a die, a
    shadow), and never 8/7 8/5."""
    shown = _after(OTHER_PLAY)
    p = np.full((24, 31), 1e-3 / 30)
    p[np.arange(24), board_classes(shown)] = 1 - 1e-3
    profiles = _profiles({**PLACES_8_7_8_5, 6: [4]})
    changes = profiles.mean(axis=1)
    found = TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), _evidence(p, profiles, changes),
                                                         before=START.to_board())
    assert found.play != PLAYED
    assert (found.verdict, found.play) == ("legal", OTHER_PLAY)


def test_on_a_grainy_camera_a_still_row_is_kept_at_the_limit_learnt_for_this_board():
    """A grainy camera changes every row a little at the fainter difference: at the house's limit point 24's
    row is not still and the turn is asked; at the limit this board's still rows taught
    (``TurnEvidence.still_faint_share``, ``vision/board_noise.py``), it is, and the play is ruled."""
    p = _coin_toss(_after(PLAYED), _after(PLAYED))
    p[23] = 1e-6
    p[23, 1], p[23, 2] = 0.99, 0.01           # one light man, the picture says
    profiles = _profiles(PLACES_8_7_8_5, far=(24,))
    faint = np.maximum(profiles, 0.07)        # the camera's grain, everywhere
    ev = TurnEvidence(p, changes=profiles.mean(axis=1), profiles=profiles, faint_profiles=faint)
    rows_only = TurnReader(TurnConfig(temperature=1.0, race_places_weight=0.0))
    assert rows_only.judge(_candidates(), ev, before=START.to_board()).verdict == "unsure"
    found = rows_only.judge(_candidates(), replace(ev, still_faint_share=0.09), before=START.to_board())
    assert (found.verdict, found.play) == ("legal", PLAYED)


def test_a_man_laid_on_a_full_row_may_not_show_so_its_point_is_read_not_held():
    """Point 6 holds five men, a full row: the sixth, laid on them, may change its picture too little to show.
    The picture reads six there, and the points 7 and 8 changed: 8/7 8/6 is ruled, where holding point 6 to
    its five men because its picture did not change made the referee ask (``TurnConfig.tall_row``)."""
    from willughby.engine.referee import turn_outcomes as outcomes

    cands = [Candidate(o.play.notation or "(no play)", o.position.to_board()) for o in outcomes(RULES, START, (2, 1))]
    played = next(c for c in cands if c.play in ("8/7 8/6", "8/6 8/7"))
    p = np.full((24, 31), 1e-3 / 30)
    p[np.arange(24), board_classes(played.board)] = 1 - 1e-3
    changes = np.zeros(24)
    changes[[6, 7]] = 0.15                    # points 7 and 8; point 6's picture did not change
    before = START.to_board()
    found = TurnReader(TurnConfig(temperature=1.0)).judge(cands, TurnEvidence(p, changes=changes), before=before)
    assert (found.verdict, found.play) == ("legal", played.play)
    held = TurnReader(TurnConfig(temperature=1.0, tall_row=None)).judge(cands, TurnEvidence(p, changes=changes),
                                                                          before=before)
    assert held.verdict == "unsure"


def test_on_a_full_row_a_small_change_says_nothing_of_whether_men_came_or_went():
    """A small change of a point's picture mostly means nothing moved there (a die, a shadow): its count
    before is favoured. But on a full row a man laid on the layer above, or taken from it, changes the
    picture that little too (held-out-test seed 2718: a man moved a pip too far between rows of seven and
    five, ruled legal for it), so there the reading is left as it is."""
    reader = TurnReader(TurnConfig(temperature=1.0))
    before = START.to_board()                  # point 6: five light men, a full row; point 8: three
    known = board_classes(before)
    logp = np.log(np.full((24, 31), 1 / 31))
    changes = np.zeros(24)
    changes[[5, 7]] = 0.03                     # a small change on each
    out = reader._weigh_changes(logp, changes, np.zeros(24, bool), known)
    assert np.allclose(out[5], logp[5])                          # the full row: left as it is
    assert out[7, known[7]] > out[7, known[7] + 1] + 1.0         # the short row: its count before favoured
    off = TurnReader(TurnConfig(temperature=1.0, tall_row=None))._weigh_changes(logp, changes, np.zeros(24, bool),
                                                                                 known)
    assert off[5, known[5]] > off[5, known[5] + 1] + 1.0
