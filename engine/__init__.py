"""The rules engine: positions, presets, legal plays, notation, the referee,
stakes and game records.  Pure: no I/O, no clock, no randomness except
through an argument (``docs/rules-choices.md`` says what each rule follows).

Three families of game share it, each a kind of data with a few named hooks
(``Rules.family``):

- ``race`` -- men travel round the board (``moves.py``, ``referee.py``);
- ``unstacking`` -- Doublets and its kin: men stay on their own points and
  are played down, restacked and borne off (``unstacking.py``), ruled
  through the same ``referee.judge`` and ``game.Game``;
- ``counting`` -- Sice-Ace, refereed from the dice alone on a tally of men
  (``counting.py``: ``Tally``, ``count_throw``, ``CountingGame``).

Every family rules in the values of ``rulings.py`` and names its sources
from ``sources.py``.
"""
