"""Regenerate backgammon_gnubg.jsonl: legal plays as GNU Backgammon lists them.

Run from the repository root (one line):

    gnubg -t -q -r -p tests/engine/golden/make_gnubg_golden.py

(Debian puts the binary in /usr/games; `python3 tests/engine/golden/make_gnubg_golden.py`
re-executes itself under gnubg with that command.)  gnubg's embedded Python gets no
argv, so options come from environment variables:

    GOLDEN_SEED   random seed for the positions            (default 20240607)
    GOLDEN_COUNT  number of positions, each with 21 throws (default 160)
    GOLDEN_OUT    output path (default tests/engine/golden/backgammon_gnubg.jsonl,
                  relative to the current directory)
    GOLDEN_SHOW   set to 1 to let gnubg print its boards on stdout

Progress goes to stderr.  gnubg's own stdout is sent to /dev/null.

How the plays are obtained (all by gnubg itself, nothing re-implemented here):
  * both players human, all `set automatic ...` off, chequer play evaluated at
    0 ply without pruning (move filters only act above 0 ply);
  * for each position and throw: `set board <ID>`, `set dice d1 d2`, then
    gnubg.hint(<large>) lists every legal play (gnubg's move generator already
    applies the use-both-dice / higher-die rules and merges plays that reach the
    same position);
  * each listed play is then made with `move <text>` on a freshly set board and
    gnubg.positionid() read back: that is the result ID.  The game record's move
    tuple is checked to exist, the result is checked to differ, and the number of
    distinct results must equal the number of listed plays.

Positions: the opening position first (its 3-1, 6-6 and 6-5 counts, 16, 11 and 7,
are asserted), then random positions from random.Random(seed), cycling through the
kinds contact, bar, prime (incl. "trapped" men behind a prime with the rest dead on
the ace point: one-die, higher-die and no-play throws), bearoff and race.  Each is
checked for legality (15 men a side counting bar and borne off, no point held by
both sides, both sides still have men on the board) and gnubg must accept it.
The same seed gives a byte-identical file.
"""

import json
import os
import random
import subprocess
import sys
import time

FORMAT = "willughby-gnubg-golden/1"
KINDS = ("contact", "bar", "prime", "bearoff", "race")
COMMAND = "gnubg -t -q -r -p tests/engine/golden/make_gnubg_golden.py"
OPENING = "4HPwATDgc/ABMA"
THROWS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
HINT_LIMIT = 100000

PERSPECTIVE = (
    "Boards are as gnubg.positionfromid(id) returns them: a pair (board[0], board[1]) "
    "of 25-int lists. board[1] is the player ON ROLL, board[0] his opponent. Each list "
    "is from its owner's own side: index i (0..23) = that player's point i+1 (index 0 = "
    "his ace point, 23 = his 24-point, the point he starts from), index 24 = his men on "
    "the bar; men borne off = 15 - sum(list). Player X's index i and player O's index "
    "23-i are the same physical point. In the 80-bit key behind the ID, board[0] (the "
    "player NOT on roll) is encoded first, then board[1] (the player on roll) -- this is "
    "what gnubg 1.07 does, whatever its manual says. 'position_id' is the position "
    "before the play with the mover on roll (board[1] = mover). 'result_id' is "
    "gnubg.positionid() read right after gnubg made the play, i.e. with the turn passed: "
    "it is encoded for the OPPONENT, now on roll: positionfromid(result_id)[1] is the "
    "opponent (any man hit is on its index 24) and positionfromid(result_id)[0] is the "
    "player who just moved. Compare with the mover-side view by swapping the pair. "
    "'dice' is [d1, d2] with d1 >= d2. 'plays' is sorted by result_id, one entry per "
    "distinct resulting position; [] means no legal play."
)


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Running outside gnubg: re-exec under gnubg.

try:
    import gnubg  # noqa: F401  (only exists inside gnubg's embedded Python)
except ImportError:
    gnubg = None

if gnubg is None:
    if __name__ == "__main__":
        exe = None
        for cand in ("gnubg", "/usr/games/gnubg"):
            if subprocess.call(["sh", "-c", "command -v %s >/dev/null" % cand]) == 0:
                exe = cand
                break
        if exe is None:
            sys.exit("gnubg not found (apt-get install gnubg); run: " + COMMAND)
        here = os.path.abspath(sys.argv[0])
        sys.exit(subprocess.call([exe, "-t", "-q", "-r", "-p", here]))
    raise ImportError("this module must run inside gnubg: " + COMMAND)


# --------------------------------------------------------------------------
# Position generation.  me = player on roll, op = opponent; each a 25-list in
# its owner's own numbering (index 24 = bar).  me[i] and op[23-i] share a point.


class Retry(Exception):
    """The random layout could not be completed; draw another."""


def free(other, i):
    """Can a side put men on its index i, given the other side's list?"""
    return i == 24 or other[23 - i] == 0


def place(rng, own, other, n, cands, npoints):
    """Put n men of `own` on up to npoints points chosen from cands."""
    if n <= 0:
        return True
    avail = [i for i in cands if free(other, i)]
    if not avail:
        raise Retry()
    # Prefer points already held (to build stacks), then new points.
    held = [i for i in avail if own[i] > 0]
    new = [i for i in avail if own[i] == 0]
    rng.shuffle(new)
    pts = held + new[: max(1, npoints - len(held))]
    for _ in range(n):
        own[rng.choice(pts)] += 1
    return True


def coord_min_op(op):
    """The opponent's rearmost man in the mover's numbering (bar = -1)."""
    c = [23 - j for j in range(24) if op[j]]
    if op[24]:
        c.append(-1)
    return min(c) if c else None


def rear_me(me):
    c = [i for i in range(25) if me[i]]
    return max(c) if c else None


def has_contact(me, op):
    a, c = rear_me(me), coord_min_op(op)
    return a is not None and c is not None and a > c


def legal(me, op):
    for side in (me, op):
        if any(x < 0 for x in side) or sum(side) > 15 or sum(side) == 0:
            return False
    return all(not (me[i] and op[23 - i]) for i in range(24))


def gen_contact(rng):
    me, op = [0] * 25, [0] * 25
    if rng.random() < 0.15:
        op[24] = rng.randint(1, 2)
    place(rng, me, op, 15, range(24), rng.randint(4, 8))
    place(rng, op, me, 15 - op[24], range(24), rng.randint(4, 8))
    return me, op


def gen_bar(rng):
    me, op = [0] * 25, [0] * 25
    me[24] = rng.choices([1, 2, 3, 4], [10, 6, 3, 1])[0]
    k = rng.choices(range(7), [2, 2, 2, 3, 4, 4, 2])[0]  # opponent's made home points
    for j in rng.sample(range(6), k):
        op[j] = 2
    for j in range(6):
        if op[j] == 0 and rng.random() < 0.3:
            op[j] = 1  # blot to hit on entering
    if rng.random() < 0.25:
        op[24] = rng.randint(1, 2)
    rest = 15 - sum(op)
    spare = [j for j in range(6) if op[j] >= 2]
    while rest > 0 and spare and rng.random() < 0.3:  # some extra men on home points
        op[rng.choice(spare)] += 1
        rest -= 1
    place(rng, op, me, rest, range(6, 24), rng.randint(2, 5))
    n = 15 - me[24]
    if rng.random() < 0.15:
        # Hit during the bear-off: the rest are home, some borne off.
        n = rng.randint(1, n)
        place(rng, me, op, n, range(6), rng.randint(1, 4))
    else:
        place(rng, me, op, n, range(24), rng.randint(3, 7))
    return me, op


def gen_prime(rng):
    me, op = [0] * 25, [0] * 25
    length = rng.randint(4, 6)
    gap = 1 if rng.random() < 0.3 else 0
    s = rng.randint(max(length + gap, 12), 23)  # mover's back men
    prime = [s - gap - 1 - t for t in range(length)]
    for i in prime:
        op[23 - i] = 2 + (1 if rng.random() < 0.2 else 0)
    back = rng.randint(1, 3)
    if rng.random() < 0.2:
        me[24] = 1
        back = max(0, back - 1)
    for _ in range(back):
        me[s if (s == 23 or rng.random() < 0.7) else s + 1] += 1
    if rng.random() < 0.4:
        # Trapped: the mover's other men are dead on his ace (and deuce) point,
        # some borne off, and the opponent blocks more points in front of the
        # prime, so often only one die (or none) can be played.
        rest = 15 - sum(me) - rng.randint(0, 8)
        me[0] = rest
        if rest > 1 and rng.random() < 0.3:
            me[1] = rng.randint(1, rest - 1)
            me[0] -= me[1]
        front = [i for i in range(2, prime[-1]) if op[23 - i] == 0]
        rng.shuffle(front)
        for i in front[: rng.randint(0, 3)]:
            if 15 - sum(op) >= 2:
                op[23 - i] = 2
        behind = [23 - i for i in range(s + 1, 24)]  # behind the runner
        place(rng, op, me, 15 - sum(op), behind or range(24), rng.randint(1, 3))
        return me, op
    place(rng, op, me, 15 - sum(op), range(24), rng.randint(1, 4))
    place(rng, me, op, 15 - sum(me), [i for i in range(s) if i not in prime],
          rng.randint(2, 6))
    return me, op


def gen_bearoff(rng):
    me, op = [0] * 25, [0] * 25
    off = 0 if rng.random() < 0.1 else rng.randint(1, 13)
    n = 15 - off
    high = rng.randint(1, 6)
    me[high - 1] = 1
    place(rng, me, op, n - 1, range(high), rng.randint(1, high))
    r = rng.random()
    if r < 0.45:
        # Opponent still has men back (on the mover's home board, maybe the bar).
        nback = rng.randint(1, 3)
        if rng.random() < 0.15:
            op[24] = 1
            nback -= 1
        place(rng, op, me, nback, range(18, 24), rng.randint(1, 2))
        place(rng, op, me, 15 - sum(op), range(18), rng.randint(3, 6))
    elif r < 0.75:
        place(rng, op, me, 15, range(18), rng.randint(3, 7))
    else:
        # Both bearing off.
        place(rng, op, me, rng.randint(1, 15), range(6), rng.randint(1, 6))
    return me, op


def gen_race(rng):
    me, op = [0] * 25, [0] * 25
    b = rng.randint(3, 21)  # mover's men on idx < b, opponent's on mover-idx >= b
    lo = max(0, b - rng.randint(4, 14))
    n = 15 - (rng.randint(0, 10) if b <= 6 else 0)
    me[b - 1] = 1
    place(rng, me, op, n - 1, range(lo, b), rng.randint(2, 6))
    hi = min(23, b + rng.randint(4, 14))
    cands = [23 - c for c in range(b, hi + 1)]
    m = 15 - (rng.randint(0, 10) if max(cands) <= 5 else 0)
    place(rng, op, me, m, cands, rng.randint(2, 6))
    return me, op


GENERATORS = {
    "contact": gen_contact,
    "bar": gen_bar,
    "prime": gen_prime,
    "bearoff": gen_bearoff,
    "race": gen_race,
}


def kind_ok(kind, me, op):
    if kind == "contact":
        return has_contact(me, op) and me[24] == 0
    if kind == "bar":
        return me[24] > 0
    if kind == "prime":
        return has_contact(me, op)
    if kind == "bearoff":
        return me[24] == 0 and all(me[i] == 0 for i in range(6, 25))
    if kind == "race":
        return not has_contact(me, op)
    return False


# --------------------------------------------------------------------------
# Driving gnubg.

C = gnubg.command


def setup():
    for cmd in (
        "set display off",
        "set player 0 human",
        "set player 1 human",
        "set automatic game off",
        "set automatic roll off",
        "set automatic move off",
        "set automatic bearoff off",
        "set automatic doubles 0",
        "set evaluation chequerplay evaluation plies 0",
        "set evaluation chequerplay evaluation prune off",
        "set evaluation chequerplay evaluation noise 0",
        "set evaluation chequerplay evaluation deterministic on",
        "new session",
    ):
        C(cmd)


def set_position(pid, dice):
    """Set board and dice; start a new session if the game is over."""
    for attempt in range(2):
        C("set board " + pid)
        if gnubg.positionid() == pid:
            C("set dice %d %d" % dice)
            return
        C("new session")
    raise RuntimeError("gnubg refused position " + pid)


def last_record():
    games = gnubg.match(0, 0, 0, 0)["games"]
    return games[-1]["game"][-1] if games and games[-1]["game"] else {}


def plays_for(pid, dice):
    C("new session")  # keeps the game record (read by gnubg.match) short
    set_position(pid, dice)
    before = gnubg.board()
    hint = gnubg.hint(HINT_LIMIT)["hint"]
    if len(hint) >= HINT_LIMIT:
        raise RuntimeError("hint limit reached")
    out = []
    for h in hint:
        assert h["context"]["plies"] == 0, h["context"]
        set_position(pid, dice)
        C("move " + h["move"])
        rec = last_record()
        rid = gnubg.positionid()
        if rec.get("action") != "move" or tuple(rec.get("dice", ())) != dice or rid == pid:
            raise RuntimeError("gnubg did not play %r in %s %s: %r" % (h["move"], pid, dice, rec))
        after = gnubg.board()
        check_result(before, after, rid)
        out.append({"move": h["move"], "result_id": rid, "_steps": rec["move"]})
    if len({p["result_id"] for p in out}) != len(out):
        raise RuntimeError("duplicate results in %s %s" % (pid, dice))
    out.sort(key=lambda p: p["result_id"])
    return out


def check_result(before, after, rid):
    """Sanity: after[0] is the mover (was before[1]), after[1] the opponent (was before[0])."""
    if tuple(map(tuple, gnubg.positionfromid(rid))) != tuple(map(tuple, after)):
        raise RuntimeError("positionfromid mismatch for " + rid)
    opp_b, opp_a = before[0], after[1]
    if sum(opp_b) != sum(opp_a):
        raise RuntimeError("opponent lost men off the board " + rid)
    hit = opp_a[24] - opp_b[24]
    lost = sum(opp_b[j] - opp_a[j] for j in range(24))
    if hit < 0 or hit != lost or any(opp_a[j] > opp_b[j] for j in range(24)):
        raise RuntimeError("opponent changed other than by hits " + rid)
    pips = lambda b: sum((i + 1) * b[i] for i in range(25))
    if sum(after[0]) > sum(before[1]) or pips(after[0]) >= pips(before[1]):
        raise RuntimeError("mover did not advance " + rid)


def gnubg_version():
    try:
        return subprocess.run([sys.executable, "--version"], capture_output=True,
                              text=True).stdout.splitlines()[0].strip()
    except Exception:
        return "GNU Backgammon (version unknown)"


def debian_version():
    try:
        return subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "gnubg"],
                              capture_output=True, text=True).stdout.strip()
    except Exception:
        return ""


# --------------------------------------------------------------------------


def die_used(step, dice):
    """Which die a single gnubg step (from, to) used; to == 0 means borne off."""
    frm, to = step
    dist = frm - to
    if to > 0 or dist in dice:
        return dist
    return min(d for d in dice if d > dist)  # borne off with a larger die


def main():
    seed = int(os.environ.get("GOLDEN_SEED", "20240607"))
    count = int(os.environ.get("GOLDEN_COUNT", "160"))
    out_path = os.environ.get("GOLDEN_OUT", "tests/engine/golden/backgammon_gnubg.jsonl")
    out_dir = os.path.dirname(out_path)
    if out_dir and not os.path.isdir(out_dir):
        sys.exit("no directory %s: run from the repository root or set GOLDEN_OUT" % out_dir)

    if os.environ.get("GOLDEN_SHOW") != "1":
        sys.stdout.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)

    t0 = time.time()
    setup()
    rng = random.Random(seed)
    # The opening position comes first (as a "contact" position): known counts.
    seen = {OPENING}
    positions = [("contact", OPENING)]
    per_kind = {k: 0 for k in KINDS}
    per_kind["contact"] = 1
    i = 1
    while len(positions) < count:
        kind = KINDS[i % len(KINDS)]
        try:
            me, op = GENERATORS[kind](rng)
        except Retry:
            continue
        if not (legal(me, op) and kind_ok(kind, me, op)):
            continue
        pid = gnubg.positionid((tuple(op), tuple(me)))
        if pid in seen:
            continue
        set_position(pid, (1, 1))  # gnubg must accept it
        if tuple(map(tuple, gnubg.board())) != (tuple(op), tuple(me)):
            raise RuntimeError("board mismatch for " + pid)
        seen.add(pid)
        positions.append((kind, pid))
        per_kind[kind] += 1
        i += 1
    log("generated %d positions %s (%.1fs)" % (len(positions), per_kind, time.time() - t0))

    header = {
        "format": FORMAT,
        "generator": "%s (Debian gnubg %s), Python %s" % (
            gnubg_version(), debian_version(), sys.version.split()[0]),
        "command": COMMAND,
        "seed": seed,
        "count": count,
        "perspective": PERSPECTIVE,
        "settings": "both players human; automatic game/roll/move/bearoff off; chequer play "
                    "0-ply, no pruning, no noise; plays from gnubg.hint(), results from "
                    "`move <text>` then gnubg.positionid()",
    }
    stats = {"pairs": 0, "plays": 0, "no_play": 0, "one_play": 0, "one_die_only": 0,
             "higher_die_rule": 0, "doubles_partial": 0, "hits": 0, "enter": 0, "bear_off": 0,
             "max_plays": 0}
    by_kind = {k: [0, 0] for k in KINDS}
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(header) + "\n")
        for n, (kind, pid) in enumerate(positions):
            board = [list(x) for x in gnubg.positionfromid(pid)]
            results = {}
            for dice in THROWS:
                results[dice] = plays_for(pid, (dice[0], dice[1]))
            if pid == OPENING:  # known counts: 3-1 has 16 plays, 6-6 has 11, 6-5 has 7
                got = (len(results[(3, 1)]), len(results[(6, 6)]), len(results[(6, 5)]))
                if got != (16, 11, 7):
                    raise RuntimeError("opening position counts %r != (16, 11, 7)" % (got,))
            for dice in THROWS:
                d1, d2 = max(dice), min(dice)
                plays = results[dice]
                steps = [p.pop("_steps") for p in plays]
                rec = {"kind": kind, "position_id": pid, "board": board, "dice": [d1, d2],
                       "plays": plays}
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
                # statistics
                stats["pairs"] += 1
                stats["plays"] += len(plays)
                stats["max_plays"] = max(stats["max_plays"], len(plays))
                by_kind[kind][0] += 1
                by_kind[kind][1] += len(plays)
                if not plays:
                    stats["no_play"] += 1
                if len(plays) == 1:
                    stats["one_play"] += 1
                used = max((len(s) for s in steps), default=0)
                if d1 == d2 and 0 < used < 4:
                    stats["doubles_partial"] += 1
                if d1 != d2 and used == 1:
                    stats["one_die_only"] += 1
                    dies = {die_used(s[0], (d1, d2)) for s in steps}
                    if dies == {d1} and results[(d2, d2)]:
                        stats["higher_die_rule"] += 1
                for p in plays:
                    stats["hits"] += "*" in p["move"]
                    stats["enter"] += "bar/" in p["move"]
                    stats["bear_off"] += "/off" in p["move"]
            if (n + 1) % 10 == 0 or n + 1 == len(positions):
                log("%d/%d positions, %d pairs, %d plays (%.1fs)" % (
                    n + 1, len(positions), stats["pairs"], stats["plays"], time.time() - t0))
    os.replace(tmp, out_path)
    log("by kind (pairs, plays): %s" % by_kind)
    log("stats: %s" % stats)
    log("wrote %s (%d bytes) in %.1fs" % (out_path, os.path.getsize(out_path), time.time() - t0))


main()
