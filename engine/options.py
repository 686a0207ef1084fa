"""Games are data: the :class:`Rules` record and the table of presets.

Every option of ``docs/games.md`` is a field of :class:`Rules`;
a preset is a row of option values plus the things that are not options (how
many men, where they start, which family of game).  Shared code branches on
options, never on a preset's name (docs/house-conventions.md, convention 2).

>>> rules = preset_rules("irish", {"bear_off": "exact", "stakes": "gammon", "cube": "true",
...                                "doubles": "triple"})
>>> rules.bear_off, rules.doubles, rules.cube
('exact', 'triple', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from .errors import InvalidOptionError

__all__ = [
    "Rules",
    "Preset",
    "PRESETS",
    "OPTION_VALUES",
    "OPTION_NAMES",
    "get_preset",
    "preset_rules",
    "know_family",
    "FAMILIES",
]

# The families of game the engine knows (docs/house-conventions.md convention 2: a family is
# data plus a few named hooks; see ``referee.py`` for the dispatch).
FAMILIES: tuple[str, ...] = ("race", "unstacking", "counting")
_KNOWN_FAMILIES: set[str] = set(FAMILIES)     # and any family registered since (families.register_family)
TABLES: tuple[str, ...] = ("facing", "right-hand")
UNSTACK_PHASES: tuple[str, ...] = ("unstack", "restack", "bear_off")

# option name -> the values it takes, as written on the command line and in saved games.
OPTION_VALUES: dict[str, tuple[str, ...]] = {
    "dice": ("2", "3", "2+6"),
    "doubles": ("plain", "triple", "fourfold", "pip-total"),
    "doublet_rethrow": ("true", "false"),
    "must_use": ("all", "free"),
    "higher_die": ("true", "false"),
    "bear_off": ("exact", "over", "modern"),
    "binding": ("true", "false"),
    "stakes": ("single", "willughby", "cotton", "gammon", "fill"),
    "cube": ("true", "false"),
    "unused_throw": ("lost", "opponent"),
    "enter_all_first": ("true", "false"),
    "hit_needs_home": ("true", "false"),
    "fill_min": ("1", "2"),
    "opening": ("play", "rethrow"),
    "players": ("2", "3", "4", "5"),
    "jacoby": ("true", "false"),
    "beavers": ("true", "false"),
}
OPTION_NAMES: tuple[str, ...] = tuple(OPTION_VALUES)

_BOOL_OPTIONS = {"doublet_rethrow", "higher_die", "binding", "cube", "enter_all_first", "hit_needs_home", "jacoby",
                 "beavers"}
_INT_OPTIONS = {"fill_min", "players"}

# A start layout: (own point, men) pairs, the same for both sides.
Layout = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Rules:
    """The complete rules of one game: option values and the game's structure.

    The option fields carry their ``docs/games.md`` names and defaults.  The
    structural fields come from the preset and are not options a user sets:

    - ``family``: ``race`` (men travel round the board), ``unstacking`` (men
      stay on their own points: Doublets and its kin) or ``counting``
      (Sice-Ace, refereed from the dice alone);
    - ``men`` per side, ``start`` (own point, men) pairs and ``start_waiting``
      (men beginning off the board); ``start_piled``: the start's men stand in
      piles (the unstacking games);
    - the unstacking games' named hooks: ``phases`` (the order of the phases:
      ``unstack``, ``restack``, ``bear_off``), ``tables`` (``facing``: both
      players use one table, dark's point n being physical 25 - n;
      ``right-hand``: Ofanfelling, dark's point n being physical 12 + n) and
      ``unstacker_takes_passed`` (False for Dames Rabattues' exception: a
      player still unstacking may not use the throw of an opponent bearing
      off).
    """

    dice: str = "2"
    doubles: str = "plain"
    doublet_rethrow: bool = False
    must_use: str = "all"
    higher_die: bool = False
    bear_off: str = "exact"
    binding: bool = False
    stakes: str = "single"
    cube: bool = False
    unused_throw: str = "lost"
    enter_all_first: bool = False
    hit_needs_home: bool = False
    fill_min: int = 2
    opening: str = "rethrow"
    players: int = 2
    jacoby: bool = False
    beavers: bool = False
    # structure (not options)
    family: str = "race"
    men: int = 15
    start: Layout = field(default=((6, 5), (8, 3), (13, 5), (24, 2)))
    start_waiting: int = 0
    start_piled: bool = False
    phases: tuple[str, ...] = ()
    tables: str = "facing"
    unstacker_takes_passed: bool = True

    def __post_init__(self) -> None:
        for name in OPTION_NAMES:
            value = _to_text(getattr(self, name))
            if value not in OPTION_VALUES[name]:
                raise InvalidOptionError(
                    f"option {name} cannot be {value!r} (it takes {', '.join(OPTION_VALUES[name])})"
                )
        if self.family not in _KNOWN_FAMILIES:
            raise InvalidOptionError(f"unknown game family {self.family!r} ({', '.join(sorted(_KNOWN_FAMILIES))})")
        if self.family != "counting" and self.players != 2:
            raise InvalidOptionError(
                f"option players={self.players} applies to the counting games only; "
                f"{'an' if self.family[0] in 'aeiou' else 'a'} {self.family} game has 2 players"
            )
        # the money game's options of the cube (GNU Backgammon manual, 2.8 "Optional Rules"): they change what
        # the cube and a gammon are worth, so a game without the cube, or without gammons, has no use for them
        if self.jacoby and not (self.cube and self.stakes == "gammon"):
            raise InvalidOptionError("option jacoby=true needs the cube and gammons (cube=true stakes=gammon): "
                                     "it says when a gammon counts single")
        if self.beavers and not self.cube:
            raise InvalidOptionError("option beavers=true needs the cube (cube=true): a beaver redoubles it")
        if self.tables not in TABLES or any(p not in UNSTACK_PHASES for p in self.phases):
            raise InvalidOptionError(f"bad table layout {self.tables!r} or phases {self.phases!r}")
        if self.family == "counting":
            return
        placed = sum(n for _, n in self.start) + self.start_waiting
        if placed != self.men:
            raise InvalidOptionError(f"start layout places {placed} men, not {self.men}")

    def options(self) -> dict[str, str]:
        """The option values as text, in ``docs/games.md`` order.

        >>> Rules().options()["bear_off"]
        'exact'
        """
        return {name: _to_text(getattr(self, name)) for name in OPTION_NAMES}

    def with_options(self, overrides: Mapping[str, str | bool | int]) -> "Rules":
        """A copy with some options replaced; values may be text as on the command line.

        >>> Rules().with_options({"cube": "true"}).cube
        True
        """
        changes: dict[str, Any] = {}  # each checked by _parse_value against its field
        for name, raw in overrides.items():
            if name not in OPTION_VALUES:
                raise InvalidOptionError(
                    f"unknown option {name!r} (options: {', '.join(OPTION_NAMES)})"
                )
            changes[name] = _parse_value(name, raw)
        return replace(self, **changes)

    @property
    def dice_thrown(self) -> int:
        """How many dice the players throw (the imaginary six of ``2+6`` is not thrown)."""
        return 3 if self.dice == "3" else 2

    @property
    def doublet_moves(self) -> int | None:
        """Moves a doublet of two dice gives, or None where it depends on the pips (pip-total)."""
        return {"plain": 2, "triple": 3, "fourfold": 4}.get(self.doubles)


def _to_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_value(name: str, raw: str | bool | int) -> object:
    text = _to_text(raw).strip().lower() if not isinstance(raw, str) else raw.strip().lower()
    if text not in OPTION_VALUES[name]:
        raise InvalidOptionError(
            f"option {name} cannot be {raw!r} (it takes {', '.join(OPTION_VALUES[name])})"
        )
    if name in _BOOL_OPTIONS:
        return text == "true"
    if name in _INT_OPTIONS:
        return int(text)
    return text


@dataclass(frozen=True)
class Preset:
    """A named game: its id, aliases, display name, source and rules."""

    id: str
    name: str
    source: str
    rules: Rules
    aliases: tuple[str, ...] = ()
    notes: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "aliases": list(self.aliases),
            "family": self.rules.family,
            "men": self.rules.men,
            "options": self.rules.options(),
            "source": self.source,
        }


_IRISH_START: Layout = ((6, 5), (8, 3), (13, 5), (24, 2))
_PILED_24: Layout = ((24, 15),)

_RACE = [
    Preset("irish", "Irish", "Willughby c.1665; Cotton 1674",
           Rules(bear_off="over", binding=True), aliases=("irish-game", "toutes-tables")),
    Preset("backgammon-willughby", "Backgammon (Willughby)", "Willughby c.1665",
           Rules(doubles="fourfold", bear_off="over", binding=True, stakes="willughby"),
           aliases=("willughby",)),
    Preset("backgammon-cotton", "Backgammon (Cotton)", "Cotton 1674",
           Rules(doubles="fourfold", bear_off="over", stakes="cotton", opening="play"),
           aliases=("cotton",)),
    Preset("backgammon", "Backgammon", "Hoyle 1753; modern rules",
           Rules(doubles="fourfold", higher_die=True, bear_off="modern", stakes="gammon",
                 cube=True, opening="play"),
           aliases=("modern", "bg")),
    Preset("dutch", "Dutch Backgammon", "seed 003; enter_all_first and hit_needs_home: "
           "choice of this program, as Dutch backgammon is played today",
           Rules(doubles="fourfold", higher_die=True, bear_off="modern", stakes="gammon",
                 cube=True, opening="play", enter_all_first=True, hit_needs_home=True,
                 start=(), start_waiting=15),
           aliases=("dutch-backgammon",)),
    Preset("english", "English Backgammon", "seed 003",
           Rules(dice="3", bear_off="over", start=_PILED_24),
           aliases=("english-backgammon",)),
    Preset("filling", "Filling (Irish Backgammon, second form)", "seed 003",
           Rules(bear_off="over", stakes="fill", start=_PILED_24),
           aliases=("irish-backgammon",)),
]

# The unstacking games (docs/games.md, "The unstacking games"; seed 002).
_DOUBLETS_START: Layout = ((1, 2), (2, 2), (3, 2), (4, 3), (5, 3), (6, 3))
_PAIRS_START: Layout = ((1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2))
_DOWN_OFF = ("unstack", "bear_off")


def _unstacking(**options: object) -> Rules:
    base: dict[str, object] = dict(family="unstacking", start_piled=True, phases=_DOWN_OFF,
                                   start=_DOUBLETS_START)
    base.update(options)
    return Rules(**base)  # type: ignore[arg-type]


_UNSTACKING = [
    Preset("doublets", "Doublets (Willughby)", "Willughby c.1665 (seed 002)",
           _unstacking(doubles="pip-total"), aliases=("queens-game", "dublets")),
    Preset("doublets-cotton", "Doublets (Cotton)", "Cotton 1674 (seed 002); Holme 1688 (seed 003)",
           _unstacking(doubles="pip-total", unused_throw="opponent")),
    Preset("dames-rabattues", "Dames Rabattues", "Charpentier 1715 (seed 002)",
           _unstacking(doublet_rethrow=True, unused_throw="opponent",
                       unstacker_takes_passed=False),
           aliases=("tables-rabattues", "dames-avallees")),
    Preset("doblet", "Doblet", "Alfonso X 1283 (seed 002)",
           _unstacking(dice="3", unused_throw="opponent", men=12, start=_PAIRS_START)),
    Preset("ofanfelling", "Ofanfelling", "Fiske 1905 (seed 002)",
           _unstacking(doublet_rethrow=True, men=12, start=_PAIRS_START,
                       phases=("unstack", "restack", "bear_off"), tables="right-hand"),
           aliases=("ofanfellingartafl",)),
]

# The counting game (docs/games.md, "The counting game Sice-Ace"; seed 003).
_COUNTING = [
    Preset("sice-ace", "Sice-Ace", "seed 003",
           Rules(family="counting", men=6, start=(), players=2), aliases=("sise-ace", "sice-ace-game")),
]

_ALL_PRESETS = _RACE + _UNSTACKING + _COUNTING
PRESETS: dict[str, Preset] = {p.id: p for p in _ALL_PRESETS}
_ALIASES: dict[str, str] = {alias: p.id for p in _ALL_PRESETS for alias in p.aliases}


def get_preset(name: str) -> Preset:
    """The preset called *name* (its id or an alias, case-insensitive).

    >>> get_preset("bg").id
    'backgammon'
    """
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    try:
        return PRESETS[key]
    except KeyError:
        raise InvalidOptionError(
            f"unknown preset {name!r} (presets: {', '.join(PRESETS)})"
        ) from None


def know_family(name: str) -> None:
    """Let rules name the family *name* (``families.register_family`` calls it)."""
    _KNOWN_FAMILIES.add(name)


def preset_rules(name: str, overrides: Mapping[str, str | bool | int] | None = None) -> Rules:
    """The rules of preset *name* with *overrides* applied.

    >>> preset_rules("backgammon", {"cube": "false"}).cube
    False
    """
    rules = get_preset(name).rules
    return rules.with_options(overrides) if overrides else rules
