"""What is said of a ruling: the words of each event, for the page, the voice and the store.

One function per family of game: :func:`describe_board_ruling` for the games
on the board (the race games and the unstacking games, whose rulings are the
engine's :class:`~willughby.engine.rulings.Ruling`) and
:func:`describe_tally_throw` for the counting game (Sice-Ace, whose throws
are :class:`~willughby.engine.counting.TallyOutcome`). Each returns
``(text, kind)`` pairs in the order they are said; ``kind`` is the event's
type (``play``, ``hit``, ``unstack``, ``lost_die``, ``win``...), which the
page uses as a CSS class and the lights as a cue.

>>> from willughby.engine.rulings import Event, Ruling
>>> r = Ruling("legal", "light", (4, 1), "down 4, down 1",
...            (Event("unstack", "light", 4), Event("unstack", "light", 1)))
>>> [t for t, _ in describe_board_ruling(r, lambda c: c, unstacking=True)]
['light plays 4-1: down 4, down 1', 'light plays a man down on the 4 point', 'light plays a man down on the 1 point']
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from willughby.engine.notation import NO_PLAY
from willughby.engine.position import other

__all__ = ["describe_board_ruling", "is_pass", "describe_tally_throw", "rethrow_text", "COUNT_WORDS"]

# what is said of each kind of event a ruling lists (``hit`` and ``pass`` are worded below)
_EVENT_TEXT = {
    "enter": "{player} enters a man from the bar",
    "bear_off": "{player} bears a man off",
    "lost_die": "{player} cannot use the {die}: it is lost",
    "lost_dice": "{player} cannot use {count} of the {die}s: they are lost",
    "opponent_uses_die": "{player} uses the {die} {other} could not",
    "bound": "{player} binds the table",
    "unstack": "{player} unstacks a man",
    "restack": "{player} restacks a man",
}

# the unstacking games: every action names its point (the player's own numbering)
_UNSTACK_TEXT = {
    "unstack": "{player} plays a man down on the {point} point",
    "restack": "{player} restacks a man on the {point} point",
    "bear_off": "{player} bears a man off the {point} point",
}

COUNT_WORDS = {2: "two", 3: "three", 4: "four"}


def is_pass(ruling: Any) -> bool:
    """Whether *ruling* is a throw with no play: its announcement says the throw too."""
    return any(e.type == "pass" for e in ruling.events)


def describe_board_ruling(ruling: Any, who: Callable[[str | None], str], *,
                          unstacking: bool = False) -> list[tuple[str, str]]:
    """What to say of a board game's ruling: the play, then each event, in
    order. *who* names a colour ("Ann (light)"); *unstacking* words the
    unstacking games' actions with their points."""
    p = ruling.player
    dice = "-".join(map(str, ruling.dice))
    if not ruling.legal:
        # the mover named: an announcement heard or read alone says whose play it was
        return [(f"illegal play by {who(p)}: {ruling.reason} ({ruling.citation}); put the board right",
                 "illegal")]
    out: list[tuple[str, str]] = []
    if ruling.play and ruling.play != NO_PLAY:
        out.append((f"{who(p)} plays {dice}: {ruling.play}", "play"))
    events = list(ruling.events)
    passed = is_pass(ruling)
    for i, e in enumerate(events):
        if e.type == "lost_die" and i and events[i - 1].type == "lost_die" and events[i - 1].die == e.die:
            continue                     # said with the first of a run of lost dice alike
        if e.type == "lost_die" and passed and e.player == p:
            continue                     # a throw with no play loses every die: "cannot play" says so
        if e.type == "hit":
            # the event's point is the hitter's: said as the play beside it counts it (the mover's numbering),
            # then as the blot's owner counts it, each number with its owner, so no line holds two numbers
            # for one point without saying whose each is
            owner = other(e.player)
            text = (f"{who(p)} hits {owner}'s blot on {e.player}'s {e.point} point "
                    f"({owner}'s {25 - (e.point or 0)})")
        elif e.type == "pass":           # the throw and its ruling in one line (the throw is not said apart)
            text = f"{who(e.player)} throws {dice} and cannot play"
        elif e.type == "lost_die":
            alike = 1
            while i + alike < len(events) and events[i + alike].type == "lost_die" \
                    and events[i + alike].die == e.die:
                alike += 1
            key = "lost_die" if alike == 1 else "lost_dice"
            text = _EVENT_TEXT[key].format(player=who(e.player), die=e.die,
                                           count=COUNT_WORDS.get(alike, str(alike)))
        elif unstacking and e.type in _UNSTACK_TEXT and e.point is not None:
            text = _UNSTACK_TEXT[e.type].format(player=who(e.player), point=e.point)
        elif e.type in _EVENT_TEXT:
            text = _EVENT_TEXT[e.type].format(player=who(e.player), other=who(other(e.player)), die=e.die)
        else:
            continue
        out.append((text, e.type))
    if ruling.game_over is not None:
        g = ruling.game_over
        out.append((f"{who(g.winner)} wins: {g.kind}, stake {g.stake}", "win"))
    return out


def rethrow_text(who: str, dice: Sequence[int]) -> str:
    """A doublet gives the same player another throw (``doublet_rethrow``)."""
    return f"{who} threw a doublet ({'-'.join(map(str, dice))}): another throw"


_TALLY_TEXT = {
    "hand_left": "{player} hands a man to {to}",
    "bear_off": "{player} bears a man off",
    "pool_in": "{player} puts a man into the pool",
    "pool_out": "{player} takes a man from the pool and drinks",
    "throw_again": "{player} throws again",
    "out": "{player} has no men left and is out",
}


def describe_tally_throw(outcome: Any, name: Callable[[int | None], str]) -> list[tuple[str, str]]:
    """What to say of one Sice-Ace throw: the throw, then each event of
    :func:`~willughby.engine.counting.count_throw`, then the end.

    >>> from willughby.engine.counting import Tally, count_throw
    >>> from willughby.engine.rules import preset_rules
    >>> o = count_throw(preset_rules("sice-ace", {"players": "3"}), Tally.start(3), [6, 1])
    >>> [t for t, _ in describe_tally_throw(o, lambda k: ["Ann", "Bob", "Cy"][k])]
    ['Ann throws 6-1', 'Ann bears a man off', 'Ann hands a man to Bob']
    """
    p = outcome.player
    out: list[tuple[str, str]] = [(f"{name(p)} throws {'-'.join(map(str, outcome.dice))}", "throw")]
    for e in outcome.events:
        if e.type in _TALLY_TEXT:
            to = name(e.to) if e.to is not None else ""
            out.append((_TALLY_TEXT[e.type].format(player=name(e.player), to=to), e.type))
    if outcome.game_over is not None:
        g = outcome.game_over
        out.append((f"{name(g.loser)} is the last with men and pays for the drinks (stake {g.stake})", "win"))
    return out
