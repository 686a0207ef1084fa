"""An illegal turn of an unstacking game names the die the player misused.

"Players play down a man for each cast of the die. For example, with throws
of 2 and 6, the player takes the upper of the two men on point 2 ... they
also take the top of the three men on point 6" (Willughby, seed 002): a die
acts on its own point only.  Where a board can be explained by several
misuses, the ruling names the one with the fewest dice misused.
"""

from __future__ import annotations

from willughby.engine.referee import judge, turn_outcomes
from willughby.engine.rules import preset_rules, start_position

DOUBLETS = preset_rules("doublets")


def test_a_three_used_on_the_four_point_is_named_as_such():
    start = start_position(DOUBLETS, "light")
    six_four = turn_outcomes(DOUBLETS, start, (6, 4))[0].position  # down 6, down 4
    ruling = judge(DOUBLETS, start, (6, 3), six_four)
    assert ruling.verdict == "illegal"
    assert ruling.rule == "unstack.play_down"
    assert ruling.reason == ("light used a 3 on his 4 point: a die of n acts only on the "
                             "player's own point n")
    assert ruling.citation == "Willughby c.1665"
    assert ruling.closest[0] == "down 6, down 3"


def test_judging_agrees_with_the_list_of_outcomes_on_random_turns():
    """"The referee judges a turn by the position it leaves" (variants.md): a board
    is ruled legal exactly when some outcome of the throw leaves it, however the
    judge finds it (it looks only for the outcomes that can lead to that board)."""
    import random

    rng = random.Random(29)
    checked = 0
    for name in ("doublets", "doublets-cotton", "dames-rabattues", "doblet", "ofanfelling"):
        rules = preset_rules(name)
        for _ in range(6):
            pos = start_position(rules, rng.choice(("light", "dark")))
            for _ in range(40):
                dice = tuple(rng.randint(1, 6) for _ in range(rules.dice_thrown))
                outcomes = turn_outcomes(rules, pos, dice)
                legal = {o.position.physical_key() for o in outcomes}
                other = tuple(rng.randint(1, 6) for _ in range(rules.dice_thrown))
                for after in (rng.choice(outcomes).position, rng.choice(turn_outcomes(rules, pos, other)).position):
                    ruling = judge(rules, pos, dice, after)
                    assert ruling.legal == (after.physical_key() in legal), (name, pos.id(), dice, after.id())
                    checked += 1
                o = rng.choice(outcomes)
                if judge(rules, pos, dice, o.position).game_over is not None:
                    break
                pos = o.position
    assert checked > 1000
