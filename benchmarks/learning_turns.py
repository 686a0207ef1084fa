"""Turns judged as the referee at the table judges them while it learns the
board (``willughby.vision.board_head``), for ``benchmarks/turns.py --learn``.

Each game is judged in order. Before its first turn the reader learns the
game's start frame (the calibration photo of the starting position, whose
board the referee knows); after each turn it learns the frame whose board
is then known: a play ruled legal (the board that play leaves), or a turn
the players were asked about (their answer, the board the frame truly
shows). Nothing is learnt from a frame that could not be read, nor from a
turn ruled illegal (the board is put right by hand), nor from an answer the
camera contradicts (it read another board at ``board_head.CONTRADICTS`` or more
at some point): that answer is set aside, as the companion keeps it to be looked at.

``wrong_answers`` makes the players answer wrongly on purpose, the first
that many questions of each game (a man of the true board moved one point,
or the likeliest other candidate), to show that a learnt mistake is not
repeated: the figures with it must show no more wrong rulings.

Because the adapted reading is the network's probabilities corrected on its
features, the frames are read once (``turns.see`` keeps the features) and
judged again here, with and without learning, in the same run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

STRETCHES = ((1, 10, "turns 1-10"), (11, 30, "turns 11-30"), (31, 10 ** 9, "turns 31 on"))


@dataclass
class LearningTally:
    by_stretch: dict[str, Counter] = field(default_factory=lambda: {name: Counter() for *_, name in STRETCHES})
    set_aside: int = 0          # answers the camera contradicted, not learnt
    learnt: int = 0             # frames learnt (the start's included)
    wrong_answers: int = 0      # answers given wrongly on purpose
    learn_ms: list[float] = field(default_factory=list)
    #: the points no man moved on (where the frame before was at hand), those kept from it (their strip or
    #: their row of men still, at the board's learnt noise), and the points where men moved taken as still
    unmoved: int = 0
    unmoved_kept: int = 0
    moved_kept: int = 0

    def add(self, turn: int, outcome: str) -> None:
        for lo, hi, name in STRETCHES:
            if lo <= turn <= hi:
                self.by_stretch[name][outcome] += 1


def _classes(board: dict[str, Any]) -> np.ndarray:
    from willughby.vision.board_head import board_classes_of

    return board_classes_of(list(board["light"]), list(board["dark"]))


def _count_kept(tally: LearningTally, cfg: Any, ev: Any, case: Any) -> None:
    """Count the points the turn reader held to the frame before (``turns.race_still_points``), against
    the truth."""
    from willughby.vision.turns import race_still_points

    before = case.before.to_board()
    same = _classes(before) == _classes(case.after)
    kept = race_still_points(cfg, ev, before)
    tally.unmoved += int(same.sum())
    tally.unmoved_kept += int((same & kept).sum())
    tally.moved_kept += int((~same & kept).sum())


def _board_of_classes(classes: np.ndarray) -> dict[str, Any]:
    """The points of a board document holding *classes* (0 empty, n light men, 15 + n dark men)."""
    return {"light": [int(c) if 0 < c <= 15 else 0 for c in classes],
            "dark": [int(c) - 15 if c > 15 else 0 for c in classes]}


def _wrong_answer(truth: np.ndarray, ranked: list[dict[str, Any]]) -> np.ndarray:
    """A board a player might wrongly answer: the likeliest other candidate, else a man moved a point."""
    for r in ranked:
        board = r.get("board")
        if board is not None and "light" in board:
            c = _classes(board)
            if (c != truth).any():
                return c
    out = truth.copy()
    p = int(np.flatnonzero(out)[0])
    q = p + 1 if p + 1 < 24 and out[p + 1] == 0 else p - 1
    if out[p] in (1, 16):
        out[q], out[p] = out[p], 0
    else:
        out[p] -= 1
        out[q] = 1 if out[p] < 16 else 16
    return out


def judge_learning(seen: list[Any], reader: Any, outcome: Any, learn: bool = True, wrong_answers: int = 0,
                   head_config: Any = None, bar: bool = True,
                   observe: Any = None) -> tuple[LearningTally, list[dict[str, Any]]]:
    """Each game of *seen* (``turns.Seen``) judged in order by *reader*, with the candidates the companion
    gives it ("not moved yet" among them), learning as the module says where *learn*; *outcome* is
    ``turns.judged`` (a case and the judgement); without the bar's change where *bar* is false; *observe*,
    where given, is called with each turn's ``Seen`` and the evidence judged (the reader's own error table is
    fitted on them: ``tools/fit_turn_reader.py``). Returns the tally by stretch and the wrong rulings."""
    import time

    from willughby.vision.board_head import BoardHead, contradicted
    from willughby.vision.board_noise import RowNoise
    from turn_scenes import companion_candidates, evidence_of

    tally = LearningTally()
    wrong: list[dict[str, Any]] = []
    games: dict[int, list[Any]] = {}
    for s in seen:
        games.setdefault(s.game, []).append(s)
    for g, turns in sorted(games.items()):
        turns.sort(key=lambda s: s.turn)
        head = BoardHead.empty(head_config)
        noise = RowNoise()
        first = turns[0]
        if learn and first.start_features is not None:
            t0 = time.perf_counter()
            head.learn(first.start_features, first.start_probs, _classes(first.case.before.to_board()), start=True)
            tally.learn_ms.append((time.perf_counter() - t0) * 1000)
            tally.learnt += 1
        answered_wrong = 0
        for s in turns:
            case = s.case
            probs = head.apply(s.count_probs, s.features) if learn else s.count_probs
            ev = evidence_of(s, probs, bar=bar, learnt_frames=head.frames_learnt if learn else 0,
                             still_faint_share=(noise.faint_share(0.0) or None) if learn else None)
            found = reader.judge(companion_candidates(case), ev, before=case.before.to_board())
            if observe is not None:
                observe(s, ev)
            got = outcome(case, found)
            if got == "not moved":              # the referee holds the board as it was: a wrong ruling
                got = "wrong"
            if learn and s.profiles is not None and s.changes is not None:
                _count_kept(tally, reader.config, ev, case)
            tally.add(s.turn + 1, got)
            if got == "wrong":
                wrong.append({"game": g, "turn": s.turn + 1, "truth": "legal" if case.legal else "illegal",
                              "verdict": found.verdict, "play": found.play, "learning": learn,
                              "wrong_answers": wrong_answers})
            if not learn or not s.settled or s.features is None:
                continue
            known = None
            if found.verdict == "legal" and found.board is not None:
                known = _classes(found.board)
            elif found.verdict == "unsure":
                known = _classes(case.after)
                if answered_wrong < wrong_answers:
                    known = _wrong_answer(known, found.ranked)
                    answered_wrong += 1
                    tally.wrong_answers += 1
                if contradicted(probs, known):
                    tally.set_aside += 1
                    known = None
            if known is not None:
                t0 = time.perf_counter()
                head.learn(s.features, s.count_probs, known, points=getattr(s, "points_read", None))
                if s.profiles is not None and s.faint_profiles is not None:
                    # the points this turn moved no man on: this board's noise (as the watcher learns it)
                    noise.observe(s.profiles, s.faint_profiles, case.before.to_board(), _board_of_classes(known),
                                  reader.config.unchanged_share)
                tally.learn_ms.append((time.perf_counter() - t0) * 1000)
                tally.learnt += 1
    return tally, wrong


def print_learning(name: str, t: LearningTally) -> None:
    for *_, stretch in STRETCHES:
        c = t.by_stretch[stretch]
        total = c["right"] + c["asked"] + c["wrong"]
        if total:
            print(f"  {name:<34} {stretch:<12} {total:5d} turns: right {c['right']:5d}  asked {c['asked']:4d} "
                  f"({100 * c['asked'] / total:.1f}%)  wrong {c['wrong']:3d}")
    all_c: Counter = Counter()
    for c in t.by_stretch.values():
        all_c.update(c)
    total = sum(all_c[k] for k in ("right", "asked", "wrong"))
    print(f"  {name:<34} {'whole game':<12} {total:5d} turns: right {all_c['right']:5d}  asked {all_c['asked']:4d} "
          f"({100 * all_c['asked'] / max(total, 1):.1f}%)  wrong {all_c['wrong']:3d}")
    if t.learn_ms:
        ms = sorted(t.learn_ms)
        given = f" of {t.wrong_answers} answers given wrongly," if t.wrong_answers else ""
        print(f"  {'':<34} {t.learnt} frames learnt;{given} {t.set_aside} answers set aside (the camera "
              f"contradicted them); learning a frame median {ms[len(ms) // 2]:.1f} ms, largest {ms[-1]:.1f} ms")
    if t.unmoved:
        print(f"  {'':<34} points no man moved on kept from the frame before, with this board's noise learnt: "
              f"{t.unmoved_kept}/{t.unmoved} ({100 * t.unmoved_kept / t.unmoved:.1f}%); points where men moved "
              f"taken as still: {t.moved_kept}")
