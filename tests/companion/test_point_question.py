"""A photo read surely everywhere but one point: the one question that settles the turn (issue 45, item 5).

Men are neither made nor lost, so two plays of one throw never differ at one point alone; but where the
camera read every point surely save one, and a play of the throw is the reading everywhere else, the players
are asked how many men stand there, not which of a dozen plays was made."""

from __future__ import annotations

from willughby.companion.photo_judge import point_question
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position

RULES = preset_rules("backgammon")
START = start_position(RULES, "light")


def _ranked():
    outs = {o.play.notation: o.position.to_board() for o in turn_outcomes(RULES, START, (3, 1))}
    return [{"play": "8/5 6/5", "board": outs["8/5 6/5"], "p": 0.6},
            {"play": "another board", "board": None, "p": 0.3},
            {"play": "8/4", "board": outs["8/4"], "p": 0.1}]


def _reading(board, doubt_at=None, **changes):
    doc = {k: (list(v) if isinstance(v, list) else v) for k, v in board.items()}
    for side, (i, n) in changes.items():
        doc[side][i] = n
    doc["confidence"] = {str(p): 0.99 for p in range(1, 25)} | {"bar": 0.99}
    if doubt_at is not None:
        doc["confidence"][str(doubt_at)] = 0.55
    return doc


def test_one_point_read_unsurely_where_the_play_differs_from_the_reading_is_the_question():
    ranked = _ranked()
    # the camera read light's 5 point as 1 man (8/5 6/5 leaves 2), and is unsure of it alone
    reading = _reading(ranked[0]["board"], doubt_at=5, light=(4, 1))
    ask = point_question(ranked, reading, "light")
    assert ask is not None and ask["point"] == "light's point 5" and ask["index"] == 5
    assert ask["question"] == "How many men stand on light's point 5?"
    assert ask["choices"] == [{"play": "8/5 6/5", "men": "2 light men", "p": 0.6},
                              {"play": "the board as read", "men": "1 light man", "p": None}]


def test_the_point_is_named_as_the_mover_counts_it():
    ranked = _ranked()
    reading = _reading(ranked[0]["board"], doubt_at=5, light=(4, 1))
    assert point_question(ranked, reading, "dark")["point"] == "dark's point 20"


def test_no_point_question_where_two_points_are_in_doubt_or_none_or_the_plays_differ_elsewhere():
    ranked = _ranked()
    two = _reading(ranked[0]["board"], doubt_at=5, light=(4, 1))
    two["confidence"]["8"] = 0.5
    assert point_question(ranked, two, "light") is None
    assert point_question(ranked, _reading(ranked[0]["board"]), "light") is None
    # unsure of point 5 alone, but the reading differs from every play at another point too: no one point
    far = _reading(ranked[0]["board"], doubt_at=5, light=(4, 1))
    far["light"][12] = 3
    assert point_question(ranked, far, "light") is None
    # unsure of a point where the play and the reading agree: nothing to ask there
    assert point_question(ranked, _reading(ranked[0]["board"], doubt_at=5), "light") is None
