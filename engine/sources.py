"""Where every rule comes from.

Each rule the engine enforces has an entry here: who says so, in which seed
text (``docs/games.md``, "The sources"), and the words.  A :class:`Ruling` names the entry
of the rule it applies, so a dispute can be settled by reading the source.
Rules that no seed states are marked as the choice of this program and say
why.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Source", "SOURCES", "source", "PROGRAM_CHOICE"]

PROGRAM_CHOICE = "choice of this program"


@dataclass(frozen=True)
class Source:
    """One rule's provenance.

    ``citation`` is the short form a ruling prints ("Hoyle 1753"); ``seed``
    names the seed file; ``quote`` is the text itself.
    """

    key: str
    citation: str
    seed: str | None
    quote: str

    def to_json(self) -> dict[str, str | None]:
        return {"key": self.key, "citation": self.citation, "seed": self.seed, "quote": self.quote}


_W = "Willughby c.1665"
_S000 = "000 (Willughby, Cotton, Holme)"
_S001 = "001 (Hoyle 1753; Cotton 1674)"
_S002 = "002 (Doublets and its kin)"
_S003 = "003 (Games - Tables or Backgammon)"
_S004 = "004 (Willughby retold)"

_GNUBG_MATCH = "GNU Backgammon manual, 2.9 Rules for Match Play"
_GNUBG_OPTIONAL = "GNU Backgammon manual, 2.8 Optional Rules"
_DANISH_CRAWFORD = "Danish Backgammon Federation, tournament rule 4.4.4"
_BIBA_CLOCK = "BIBA Clock Rules (British Isles Backgammon Association, 2014)"
_UNIFIED_CLOCK = "Unified Backgammon Tournament Clock Rules (2001)"

_ALL = [
    Source("land.blocked", _W, _S000,
           "if there are two or more opposing men on a space, they can not be blotted, "
           "and you can not land on the space."),
    Source("land.hit", _W, _S000,
           "If you land on one of your opponent's blots (or \"blot the man\"), that man is "
           "taken. The captured piece is placed off the Tables, usually on the bar"),
    Source("move.direction", _W, _S000,
           "You are always moving pieces numerically downward, never upward"),
    Source("move.intermediate", _W, _S000,
           "You can use both dice to move a single man the combined distance, but this must "
           "be taken in two legal moves ... however, you must be able to legally land on the "
           "intermediate space."),
    Source("bar.first", "Hoyle 1753", _S001,
           "No other pieces can move until all of the pieces belonging to that player are "
           "removed from the center."),
    Source("bar.enter", _W, _S000,
           "If you roll an ace, you can enter a piece on your opponent's ace point (that is, "
           "your 24 point); if a duce, on your opponent's duce point (your 23) and so on. "
           "However, you must be able to legally land on that space"),
    Source("bear.home", "Hoyle 1753", _S001,
           "When all of a player's pieces are on their final 6 points, they may start removing "
           "pieces from the board."),
    Source("bear.suspended", "Willughby c.1665 (as read in seed 000); modern rules", _S003,
           "If after starting to bear off, a player's piece is captured, that piece must "
           "re-enter at the other side of the board and bearing off cannot continue until all "
           "pieces are once again residing in the inner table."),
    Source("bear.exact", "Willughby c.1665 (seed 004)", _S004,
           "To \"bear off\", a player must get the exact number of moves to reach the side of "
           "the board."),
    Source("bear.over", _W, _S000,
           "The way he generally phrases bearing off in Irish is along the lines of \"bearing "
           "off over the 1 point\" ... the inexact bearing off is probably the correct "
           "interpretation."),
    Source("bear.modern", "modern rules", _S003,
           "When a player rolls a number that is higher than the highest point of the inner "
           "table upon which that player has pieces, the player is allowed to bear off the next "
           "highest piece."),
    Source("bear.fill", PROGRAM_CHOICE, _S003,
           "The first player to fill all the points of the player's home table wins. (The seed "
           "says nothing of bearing off in this game; with stakes=fill this program lets no man "
           "be borne off, since the game ends when the table is filled.)"),
    Source("use.all", "Hoyle 1753", _S001,
           "Players must use all available moves presented by the dice."),
    Source("use.free", PROGRAM_CHOICE, None,
           "must_use=free: a player may play any number of the dice thrown, none included."),
    Source("higher.die", "modern rules", _S003,
           "Players are not allowed to pass - as many moves as possible must be made each turn. "
           "(The modern corollary, not in the seeds' words: where either die can be played but "
           "not both, the higher must be played.)"),
    Source("doubles.plain", _W, _S000,
           "Each die roll represents the movement of one man. (In Irish a doublet is two moves; "
           "\"In Backgammon, doubles are redoubled.\")"),
    Source("doubles.fourfold", _W, _S000,
           "In Backgammon, doubles are redoubled. If you throw 2 duces, you take 4 duces instead"),
    Source("doubles.triple", "house rule (seed 004)", _S004,
           "One particular house rule is that you add one result in the case of doubles on the "
           "dice. For example, rolling two 1s, it's now three 1s."),
    Source("doubles.pip_total", _W, _S002,
           "If a doublet is thrown, the player may play down (in phase 1) or bear off (in phase "
           "2) as many men as the total of the two dice"),
    Source("doubles.three_dice", PROGRAM_CHOICE, None,
           "With three dice, two dice alike are the doublet and are played as `doubles` says; "
           "the third die is played once."),
    Source("dice.three", "seed 003 (English)", _S003,
           "Three dice or two dice and a permanent imaginary six are used."),
    Source("doublet.rethrow", "Charpentier 1715", _S002,
           "a player who throws a doublet keeps the dice and has another throw"),
    Source("unused.lost", _W, _S002,
           "If the men on a point corresponding to a die throw have already been played down, "
           "the throw is lost."),
    Source("unused.opponent", "Holme 1688", _S003,
           "if one throws and hath it not, the other lays downe for him"),
    Source("enter.from_off", "seed 003 (Dutch)", _S003,
           "the pieces all start off the board and each one must be entered on the opponent's "
           "inner table before proceeding around to the home inner table."),
    Source("enter.all_first", PROGRAM_CHOICE, None,
           "enter_all_first: all men must be entered before any entered man moves on, as Dutch "
           "backgammon is played today (not in the seeds)."),
    Source("hit.needs_home", PROGRAM_CHOICE, None,
           "hit_needs_home: a player may not hit a blot until he has a man in his own home "
           "table, as Dutch backgammon is played today (not in the seeds)."),
    Source("binding", _W, _S000,
           "If you have bound up the table, and he has men to enter, then you must \"break\" or "
           "\"open\" the table. Breaking the table means that all but one of the men on one of "
           "your home spaces are removed, just as if they were blotted ... both players throw two "
           "dice. The player with the higher throw gets to choose which point will be broken; "
           "however, even if the person who has bound up his home wins the toss, he still must "
           "break one point in his Home."),
    Source("start.roll", _W, _S000,
           "Begin by rolling for start: each player rolls one die, and the highest roller gets "
           "the first throw."),
    Source("start.play", "Hoyle 1753; Cotton 1674", _S001,
           "the player with the highest roll plays first and plays the numbers on this first "
           "roll."),
    Source("same.position", PROGRAM_CHOICE, None,
           "Plays that leave the same position are one play: the camera sees only the result. "
           "The referee judges a turn by the position it leaves."),
    Source("win.single", _W, _S000,
           "the winner is the first player to bear off all 15 of his men."),
    Source("stakes.willughby", _W, _S000,
           "According to Willughby, a Backgammon is worth a double stake, and a Backgammon that "
           "is won on a throw of doubles is worth a triple stake. ... if you throw doubles on the "
           "final throw, to bear off your last men, you win a double stake."),
    Source("stakes.cotton", "Cotton 1674", _S000,
           "According to Cotton and Holme ..., a Backgammon is worth a triple stake, and a "
           "Backgammon won with a throw of doubles is worth a quadruple stake."),
    Source("stakes.gammon", "modern rules", _S003,
           "If the opponent has not borne off any pieces, this is a \"gammon\" and worth double "
           "the current stake. If the opponent has a piece left on the bar or within the "
           "opponent's inner table, this is a \"backgammon\" and worth triple the current stake."),
    Source("stakes.fill", "seed 003 (Irish Backgammon, second form)", _S003,
           "The first player to fill all the points of the player's home table wins."),
    Source("cube", "seed 004 (house rule)", _S004,
           "A player may propose to double the score. The opposing player may \"take\" it or "
           "\"drop\" the game ... The effect of the doubling die is that it will double the final "
           "score received by the winning player."),
    # ---- match play and the money game's options of the cube: modern rules no seed text gives, cited from
    # the published rules clubs play by (docs/matches.md)
    Source("match.points", _GNUBG_MATCH, None,
           "Matches are played to a specified number of points.  The first player to accumulate the required "
           "points wins the match.  Points are awarded in the usual manner: one for a single game, two for a "
           "gammon, and three for a backgammon.  The doubling cube is used, so the winner receives the value of "
           "the game multiplied by the final value of the doubling cube."),
    Source("match.crawford", _DANISH_CRAWFORD, None,
           "The Crawford rule applies in all matches. In the first game in which one player needs [one] point "
           "to win the match, neither player may double. If a player nevertheless doubles, the doubling is "
           "annulled. In following games, if any, the doubling cube may again be used."),
    Source("match.post_crawford", _GNUBG_MATCH, None,
           "If the Crawford game is won by the trailing player then the doubling cube becomes available in all "
           "subsequent games"),
    # ---- the match's clock (companion/clock.py keeps the time; these say who runs and what a flag means)
    Source("match.flag", _BIBA_CLOCK + ", Time Expiration", None,
           "When a player's time reserve is exhausted they have lost the match"),
    Source("clock.opening", _UNIFIED_CLOCK + ", 3.3", None,
           "The player rolling the lower die pushes (hits) the clock button nearest him, starting his "
           "opponent's clock. Then the player with the higher die moves."),
    Source("clock.turn", _UNIFIED_CLOCK + ", 3.4", None,
           "Each player signals the end of his turn by hitting the clock"),
    Source("clock.cube", _UNIFIED_CLOCK + ", 3.5", None,
           "After doubling or redoubling, a player hits his clock."),
    Source("clock.stop", _BIBA_CLOCK + ", Stopping the clocks", None,
           "A player stops both clocks ... (e) to contest an opponent's action, or (f) to summon the Director."),
    Source("money.jacoby", _GNUBG_OPTIONAL, None,
           "The Jacoby Rule.  Gammons and backgammons count only as a single game if neither player has offered "
           "a double during the course of the game."),
    Source("money.beaver", _GNUBG_OPTIONAL, None,
           "Beavers.  When a player is doubled, he may immediately redouble (beaver) while retaining possession "
           "of the cube.  The original doubler has the option of accepting or refusing as with a normal double."),
    Source("move.dice", "Hoyle 1753", _S001,
           "Players move according to the number on each die by moving one piece the number on "
           "one die and other the number on the other die, or by moving one piece the total "
           "number of both die."),
    Source("conservation", PROGRAM_CHOICE, None,
           "Men are neither made nor lost: every man of a side stands on a point, on the bar, "
           "off the board, or (in games starting off the board) waits to enter."),
    Source("turn.order", "Hoyle 1753", _S001,
           "each player progresses in opposite directions ... Players move according to the "
           "number on each die"),
    # ---- the unstacking games (seed 002; seed 003's Doublets)
    Source("unstack.play_down", _W, _S002,
           "Players play down a man for each cast of the die. For example, with throws of 2 and "
           "6, the player takes the upper of the two men on point 2 and places it on the same "
           "point but above the lower man; they also take the top of the three men on point 6"),
    Source("unstack.stay", "seed 003 (Doublets)", _S003,
           "This game is played on half a backgammon board. This works, because there isn't "
           "actually any movement in this game."),
    Source("unstack.bear_off", _W, _S002,
           "When all the men are played down, they are played off or borne off. For example, if "
           "a player throws 1 and 5, he may remove a man from each of points 1 and 5. If the "
           "point corresponding to a die throw is vacant because the men have already been "
           "borne off, the throw counts for nothing."),
    Source("unstack.bear_first", "Charpentier 1715", _S002,
           "Once all his or her points are unstacked, a player may begin to bear off; again "
           "bearing off one man per die on the point corresponding to the throw of that die."),
    Source("unstack.by_die", PROGRAM_CHOICE, None,
           "docs/rules-choices.md: phases change die by die, in the order the player plays them: a throw "
           "whose first die finishes the playing down may bear off with its second."),
    Source("unstack.any_men", "seed 003 (Doublets)", _S003,
           "When a double is thrown, you play down or bear off as many men as there are spots. "
           "That is, if you are playing down, and you roll double fours, you may play down any "
           "eight men."),
    Source("unstack.restack", "Fiske 1905", _S002,
           "A key difference is that, in phase 2, players re-stack their men on the same point. "
           "Finally, there is a third phase in which, once the men are all restacked, they are "
           "borne off \"exactly as at backgammon\""),
    Source("unstack.right_hand", "Fiske 1905", _S002,
           "each player has 12 men which they deploy in their right-hand table, stacking two on "
           "each point as in Spanish doblet."),
    Source("unstack.opponent_wins", "Alfonso X 1283", _S002,
           "If a player cannot use a throw, the opponent may utilise it instead and may even win "
           "in doing so."),
    Source("unstack.dames_exception", "Charpentier 1715", _S002,
           "An important exception is that a player who has not yet unstacked all 15 men may not "
           "utilise the throw of an opponent who is in the process of bearing off."),
    Source("unstack.use_all", "seed 003 (Doublets)", _S003,
           "With each roll, you \"play down\" the men on the points indicated by the dice ... If "
           "you roll the number for a point that is already entirely played down, the roll is "
           "wasted"),
    Source("unstack.order_of_dice", PROGRAM_CHOICE, None,
           "docs/rules-choices.md: phases change die by die, in the order the player plays them; a die "
           "that can be used must be used, so where one order of the dice uses them all, the "
           "player must play that order."),
    Source("unused.opponent_all", PROGRAM_CHOICE, None,
           "docs/rules-choices.md: a die the player cannot use, where it passes, is used by the opponent if "
           "he can: in a pure race using a die never harms, so \"may\" and \"must\" are one."),
    Source("unstack.turn_order", PROGRAM_CHOICE, None,
           "In the unstacking games a player's men change only on his own throw, or with dice "
           "his opponent could not use where the game passes them."),
    Source("win.unstacking", _W, _S002,
           "The first to play off all his or her men wins the game."),
    # ---- the counting game (seed 003's Sice-Ace)
    Source("sice.one", "seed 003 (Sice-Ace)", _S003,
           "1: A piece is handed to the player on the left and added to their pieces"),
    Source("sice.six", "seed 003 (Sice-Ace)", _S003,
           "6: A piece is borne off the table and laid aside"),
    Source("sice.five", "seed 003 (Sice-Ace)", _S003,
           "5: A piece is put into the central pool between the points"),
    Source("sice.two", "seed 003 (Sice-Ace)", _S003,
           "2: A piece is taken from the pool and added to the player's pieces. The player must "
           "drink and throw again."),
    Source("sice.nothing", "seed 003 (Sice-Ace)", _S003, "3 and 4: are discounted."),
    Source("sice.doublet", "seed 003 (Sice-Ace)", _S003,
           "If doubles are thrown, each die counts separately and the player has another throw, "
           "unless the throw is 2,2, in which case, the player takes two pieces from the pool "
           "and does not throw again."),
    Source("sice.loser", "seed 003 (Sice-Ace)", _S003,
           "The last player on the board pays for the drinks."),
    Source("sice.order", PROGRAM_CHOICE, None,
           "The seed reads each die of a throw on its own but not in which order; this program "
           "reads the higher die first, so a throw counts the same however the dice lie (a 5-2 "
           "puts a man into the pool and takes him back)."),
    Source("sice.players", "seed 003 (Sice-Ace)", _S003,
           "Number of Players: 2-5. Each player takes six pieces and places them on their side "
           "of the board."),
]

SOURCES: dict[str, Source] = {s.key: s for s in _ALL}


def source(key: str) -> Source:
    """The :class:`Source` of rule *key*.

    >>> source("land.blocked").citation
    'Willughby c.1665'
    """
    return SOURCES[key]
