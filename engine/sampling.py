"""Random positions and games for tests and benchmarks.

The engine has no randomness of its own (docs/house-conventions.md): every function here
takes a :class:`random.Random`, so a seed reproduces its output.

>>> import random
>>> from willughby.engine.rules import preset_rules
>>> p = random_position(random.Random(1), "contact")
>>> p.men("light"), p.men("dark")
(15, 15)
"""

from __future__ import annotations

import random
from typing import Sequence

from .errors import InvalidBoardError
from .moves import legal_plays
from .position import DARK, LIGHT, Position
from .referee import game_over
from .rules import Rules, start_position

__all__ = ["KINDS", "random_position", "random_dice", "random_game"]

KINDS = ("contact", "bar", "prime", "bearoff", "race")


def _place(rng: random.Random, counts: list[int], men: int, choices: Sequence[int], spread: int) -> None:
    points = rng.sample(list(choices), min(spread, len(choices)))
    for _ in range(men):
        counts[rng.choice(points)] += 1


def random_position(rng: random.Random, kind: str = "contact", men: int = 15,
                    turn: str = LIGHT) -> Position:
    """A random legal position of *kind* (one of :data:`KINDS`), *turn* on roll.

    Both sides have *men* men on points, bar and off; neither has won.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    while True:  # draw again where the two sides came out on one point
        try:
            return _draw(rng, kind, men, turn)
        except InvalidBoardError:
            continue


def _draw(rng: random.Random, kind: str, men: int, turn: str) -> Position:
    me = [0] * 26    # own numbering: [off, 1..24, bar]
    opp = [0] * 26   # opponent's own numbering
    if kind == "bearoff":
        me[0] = rng.randint(0, men - 1)
        _place(rng, me, men - me[0], range(1, 7), rng.randint(1, 6))
        if rng.random() < 0.5:  # opponent still has men back: contact remains
            opp[0] = rng.randint(0, 5)
            back = rng.randint(1, 3)
            free = [k for k in range(19, 25) if me[25 - k] == 0]
            _place(rng, opp, back, free or [25], 1)
            rest = men - opp[0] - back
            _place(rng, opp, rest, [k for k in range(1, 13) if me[25 - k] == 0], rng.randint(2, 6))
        else:
            opp[0] = rng.randint(0, 10)
            _place(rng, opp, men - opp[0], range(1, 7), rng.randint(1, 6))
    elif kind == "race":
        split = rng.randint(7, 16)  # light's men below the split, dark's above it (physical)
        me[0] = rng.randint(0, 4)
        _place(rng, me, men - me[0], range(1, split), rng.randint(2, 7))
        opp[0] = rng.randint(0, 4)
        _place(rng, opp, men - opp[0], range(1, 25 - split + 1), rng.randint(2, 7))
    else:
        if kind == "prime":
            length = rng.randint(4, 6)
            first = rng.randint(1, 13 - length)  # opponent's own points, in his outer/home table
            for k in range(first, first + length):
                opp[k] = 2
            placed = 2 * length
            behind = [k for k in range(25 - first + 1, 25)]  # my points behind the prime
            me[rng.choice(behind) if behind else 24] += rng.randint(1, 2)
        else:
            placed = 0
        if kind == "bar":
            me[25] = rng.randint(1, 3)
            if rng.random() < 0.3:
                opp[25] = rng.randint(1, 2)
        rest_opp = men - placed - opp[25]
        strong_home = kind == "bar" and rng.random() < 0.5
        opp_choices = list(range(1, 7)) if strong_home else list(range(1, 25))
        spread = rng.randint(4, 6) if strong_home else rng.randint(3, 9)
        for _ in range(rest_opp):
            k = rng.choice(rng.sample(opp_choices, min(spread, len(opp_choices))))
            opp[k] += 1
        # my men on points the opponent does not hold
        free = [k for k in range(1, 25) if opp[25 - k] == 0]
        rest_me = men - sum(me)
        if rest_me > 0:
            _place(rng, me, rest_me, free, rng.randint(3, 9))
    light, dark = (me, opp) if turn == LIGHT else (opp, me)
    pos = Position(
        tuple(light[1:25]), tuple(dark[24:0:-1]), (light[25], dark[25]), (light[0], dark[0]),
        turn=turn,
    )
    return pos


def random_dice(rng: random.Random, rules: Rules) -> tuple[int, ...]:
    """A throw of the game's dice."""
    return tuple(rng.randint(1, 6) for _ in range(rules.dice_thrown))


def random_game(rng: random.Random, rules: Rules, max_turns: int = 2000) -> tuple[int, str | None]:
    """Play a game of random legal plays; return (turns played, winner or None)."""
    pos = start_position(rules, rng.choice((LIGHT, DARK)))
    for turn in range(1, max_turns + 1):
        dice = random_dice(rng, rules)
        play = rng.choice(legal_plays(rules, pos, dice))
        # a race game ends when a side has borne off every man (or filled its table):
        # look closer only then
        state = play.state
        if rules.stakes == "fill" or state[0] == rules.men or state[27] == rules.men:
            over = game_over(rules, play.position, pos.turn or LIGHT, dice)
            if over is not None:
                return turn, over.winner
        pos = play.position
    return max_turns, None
