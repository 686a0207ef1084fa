"""Photographs of real boards, read and judged as turns, the shipped reader beside a candidate.

Each labelled photo (``--photos DIR``, default ``$WILLUGHBY_REAL_PHOTOS``
where the maintainers keep it; docs/vision-labels.md) is judged the way a
user's turn is, by ``willughby judge --after-image ... --corners ... --json``
in this process, over turns built from its label (``labelled_turns.py``,
shared with ``turns_dev.py``): ``--turns K`` legal turns whose board after is
the photo's, each with an illegal partner (the same board before, a throw
from which no legal play leads to the photo's board); a side with men on the
bar may have entered them. Per photo it prints:

- whether the photo was read or refused (``settled`` false);
- the points read right (of 24: both colours' men) and the locations read
  right (of 52: each colour's 24 points, bar and off, the figure of
  ``willughby vision evaluate``, whose comparison it uses), and whether the
  board was read exactly; a refused photo counts as none right;
- its turns ruled right, asked (``unsure``) or ruled wrong, legal and
  illegal apart;
- the median milliseconds of its judge commands (read and weigh, one
  thread, after one warm-up read);

and the totals. The shipped reader is always measured; ``--candidate-config
TOML`` (a ``[vision]`` table), ``--candidate-onnx FILE`` (a point reader
network) and ``--candidate-turns JSON`` (a turn reader calibration, as
``tools/fit_turn_reader.py`` writes) make a second reader measured in the
same run on the same corners and turns, printed beside it.

``--leave-one-out SETTING=V1,V2,...`` (a numeric setting of ``VisionConfig``,
dotted for a stage's: ``man_thickness``, ``reader.top_votes``) measures each
value, then for each photo chooses the value best on the other photos
(fewest turns ruled wrong, then most right, then most locations right; the
shipped value where it ties) and measures it on that photo: the figure of a
setting chosen on these photos, on a photo it was not chosen on. The values
are set on the candidate where one is given, else on the shipped reader.

    python benchmarks/real_photos.py [--photos DIR] [--jitter PX] [--turns K] [--json]
        [--candidate-config TOML] [--candidate-onnx FILE] [--candidate-turns JSON]
        [--leave-one-out SETTING=V1,V2,...]

Progress goes to standard error (photo k of n).
"""

from __future__ import annotations

import argparse
import os
import contextlib
import functools
import json
import random
import statistics
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import cv2  # noqa: E402
from labelled_turns import (Turn, after_position, build_turn_set, corners_text, judge_turn,  # noqa: E402
                            labelled_pictures, moved_corners, score)

from willughby.vision.config import VisionConfig, VisionConfigError  # noqa: E402
from willughby.vision.evaluate import compare  # noqa: E402

DEFAULT_PHOTOS = Path(os.environ.get("WILLUGHBY_REAL_PHOTOS", "."))
KINDS = ("legal", "illegal")
OUTCOMES = ("right", "asked", "wrong")


# ------------------------------------------------------------------ readers
@dataclass(frozen=True)
class Reader:
    """A reader to measure: the shipped one (every field None), or one with
    its own settings, network or turn calibration."""

    name: str
    config: VisionConfig | None = None
    onnx: Path | None = None
    turns: Path | None = None


@contextlib.contextmanager
def installed(reader: Reader) -> Iterator[None]:
    """While inside, ``willughby judge`` in this process reads with *reader*:
    its settings are the defaults every read takes (``VisionConfig.default``),
    its network is loaded where the shipped one would be, its calibration is
    the turn reader's default."""
    from willughby.vision import config as vconfig
    from willughby.vision import pointnet, turns

    saved = (vconfig._default_config, pointnet._net, turns.default_config, pointnet._parts)
    try:
        if reader.config is not None:
            vconfig._default_config = lambda: reader.config
        if reader.onnx is not None:
            shipped, load = str(pointnet.MODEL_PATH), saved[1]
            pointnet._net = lambda path: load(str(reader.onnx) if path == shipped else path)
            # the shipped network's two parts (read once and kept) are not the candidate's: read it whole
            pointnet._parts = lambda path: None
        if reader.turns is not None:
            turns.default_config = functools.partial(saved[2], Path(reader.turns))
        yield
    finally:
        vconfig._default_config, pointnet._net, turns.default_config, pointnet._parts = saved


# ------------------------------------------------------------------ one photo
@dataclass(frozen=True)
class Photo:
    """A labelled photo and what it is judged on: the corners given, the turns."""

    name: str
    label: dict[str, Any]
    image: Path
    corners: str
    turns: tuple[Turn, ...]


@dataclass
class PhotoResult:
    """What one reader made of one photo."""

    name: str
    occluded: bool = False
    read: bool = False                 # settled: not refused
    points_right: int = 0
    points: int = 24
    locations_right: int = 0
    locations: int = 52
    exact: bool = False
    diffs: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()        # the command's notes (why a photo was refused)
    tally: dict[str, Counter] = field(default_factory=lambda: {k: Counter() for k in KINDS})
    millis: list[float] = field(default_factory=list)

    @property
    def ms(self) -> float:
        return statistics.median(self.millis) if self.millis else float("nan")

    def score(self) -> tuple[int, int, int]:
        """How good: fewer turns ruled wrong, then more right, then more locations right."""
        wrong = sum(self.tally[k]["wrong"] for k in KINDS)
        right = sum(self.tally[k]["right"] for k in KINDS)
        return (-wrong, right, self.locations_right)

    def to_json(self) -> dict[str, Any]:
        return {"photo": self.name, "occluded": self.occluded, "read": self.read,
                "points_right": self.points_right, "points": self.points,
                "locations_right": self.locations_right, "locations": self.locations, "exact": self.exact,
                "misread": list(self.diffs), "notes": list(self.notes),
                "turns": {k: {o: self.tally[k][o] for o in (*OUTCOMES, "error")} for k in KINDS},
                "ms": round(self.ms, 1)}


def plan(folder: Path, jitter: float, turns: int, seed: int) -> list[Photo]:
    """Every labelled photo of *folder* with its corners (moved up to *jitter*
    px) and its turns, drawn once so that every reader meets the same."""
    rng = random.Random(seed)
    photos = []
    for label_path, image in labelled_pictures(folder):
        label = json.loads(label_path.read_text())
        text = corners_text(moved_corners(label["corners"], jitter, rng))
        photos.append(Photo(image.name, label, image, text,
                            tuple(build_turn_set(label, rng, turns, enter=True))))
    return photos


def measure_photo(photo: Photo, scratch: Path) -> PhotoResult:
    """Judge every turn of *photo* through the command, with the reader installed now."""
    result = PhotoResult(photo.name, occluded=bool(photo.label.get("occluded")))
    turns = list(photo.turns)
    reading_turn = turns[0] if turns else None
    if reading_turn is None:                # no turn could be built: one judge all the same, for the read
        after = after_position(photo.label)
        if after is not None:
            reading_turn = Turn(after.with_turn("light"), (6, 5), True)
    reading_doc: dict[str, Any] | None = None
    if reading_turn is not None and not turns:
        code, doc, err, _ = judge_turn(reading_turn, photo.image, photo.corners, scratch)
        reading_doc = doc if code == 0 else None
        if code != 0:
            print(f"  {photo.name}: {err.strip()}", file=sys.stderr)
    for t in turns:
        code, doc, err, took = judge_turn(t, photo.image, photo.corners, scratch)
        result.millis.append(took)
        if code != 0:
            result.tally[t.kind]["error"] += 1
            print(f"  {photo.name}: {err.strip()}", file=sys.stderr)
            continue
        result.tally[t.kind][score(t, doc)] += 1
        if doc.get("ask"):
            result.tally[t.kind]["one point"] += 1     # asked about one point alone (``judge``'s ``ask``)
        if reading_doc is None:
            reading_doc = doc                   # the read does not depend on the turn: the first one's
    if reading_doc:
        result.read = bool(reading_doc.get("settled"))
        result.notes = tuple(reading_doc.get("notes") or ())
        if result.read and not result.occluded:
            found = compare(photo.label, reading_doc["reading"])
            result.points_right, result.locations_right = found.points_right, found.right
            result.locations, result.exact, result.diffs = found.total, found.exact, found.diffs
    return result


def measure(reader: Reader, photos: list[Photo], scratch: Path, quiet: bool = False) -> list[PhotoResult]:
    """Every photo judged with *reader* (after one untimed warm-up)."""
    with installed(reader):
        if photos and photos[0].turns:
            judge_turn(photos[0].turns[0], photos[0].image, photos[0].corners, scratch)   # loads the network
        out = []
        for k, photo in enumerate(photos, 1):
            if not quiet:
                print(f"[{reader.name}] photo {k} of {len(photos)}: {photo.name}", file=sys.stderr, flush=True)
            out.append(measure_photo(photo, scratch))
        return out


# ------------------------------------------------------------------ totals
def totals(results: list[PhotoResult]) -> dict[str, Any]:
    """The figures over all photos (clear ones for the reading)."""
    clear = [r for r in results if not r.occluded]
    tally = {k: Counter() for k in KINDS}
    for r in results:
        for k in KINDS:
            tally[k].update(r.tally[k])
    millis = [m for r in results for m in r.millis]
    return {"photos": len(results), "clear": len(clear), "read": sum(r.read for r in clear),
            "occluded": len(results) - len(clear),
            "occluded_refused": sum(not r.read for r in results if r.occluded),
            "points_right": sum(r.points_right for r in clear), "points": 24 * len(clear),
            "locations_right": sum(r.locations_right for r in clear),
            "locations": sum(r.locations for r in clear), "exact": sum(r.exact for r in clear),
            "turns": {k: {o: tally[k][o] for o in (*OUTCOMES, "error", "one point")} for k in KINDS},
            "ms_median": round(statistics.median(millis), 1) if millis else None}


def _rag(t: dict[str, int]) -> str:
    return f"{t['right']} / {t['asked']} / {t['wrong']}" + (f" ({t['error']} errors)" if t.get("error") else "")


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "-"


def _cells(r: PhotoResult) -> list[str]:
    read = ("refused" if not r.read else "read") + (" (hand)" if r.occluded else "")
    return [read, f"{r.points_right}/24" if r.read and not r.occluded else "-",
            f"{r.locations_right}/{r.locations}" if r.read and not r.occluded else "-",
            "yes" if r.exact else "no", _rag({o: r.tally["legal"][o] for o in (*OUTCOMES, "error")}),
            _rag({o: r.tally["illegal"][o] for o in (*OUTCOMES, "error")}), f"{r.ms:.0f}"]


def _total_cells(t: dict[str, Any]) -> list[str]:
    return [f"{t['read']}/{t['clear']}", _pct(t["points_right"], t["points"]),
            _pct(t["locations_right"], t["locations"]), f"{t['exact']}/{t['clear']}",
            _rag(t["turns"]["legal"]), _rag(t["turns"]["illegal"]),
            f"{t['ms_median']:.0f}" if t["ms_median"] is not None else "-"]


COLUMNS = ["read", "points right", "locations right", "exact", "legal r / a / w", "illegal r / a / w", "ms"]


def table(readers: list[Reader], results: list[list[PhotoResult]]) -> list[str]:
    """The per-photo table, the readers side by side, and the totals (Markdown)."""
    many = len(readers) > 1
    head = ["photo"] + [f"{reader.name}: {c}" if many else c for reader in readers for c in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for i, first in enumerate(results[0]):
        lines.append("| " + " | ".join([first.name] + [c for rs in results for c in _cells(rs[i])]) + " |")
    lines.append("| **total** | " + " | ".join(c for rs in results for c in _total_cells(totals(rs))) + " |")
    return lines


# ------------------------------------------------------------------ leave one out
def _setting(text: str) -> tuple[str, list[Any]]:
    name, sep, values = text.partition("=")
    if not sep or not name or not values:
        raise argparse.ArgumentTypeError(f"give SETTING=V1,V2,..., not {text!r}")
    parsed: list[Any] = []
    for v in values.split(","):
        try:
            parsed.append(int(v) if v.strip().lstrip("-").isdigit() else float(v))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: {v!r} is not a number") from None
    return name.strip(), parsed


def with_setting(base: VisionConfig, name: str, value: Any) -> VisionConfig:
    """*base* with the dotted setting *name* (``reader.top_votes``) set to *value*."""
    values: Any = value
    for part in reversed(name.split(".")):
        values = {part: values}
    return base.with_values(values)


def current_value(base: VisionConfig, name: str) -> Any:
    obj: Any = base
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def leave_one_out(per_value: dict[Any, list[PhotoResult]], shipped: Any) -> list[tuple[Any, PhotoResult]]:
    """For each photo: the value best on all the others (:meth:`PhotoResult.score`
    summed; *shipped* where it ties, else the first listed) and its result on
    that photo."""
    values = list(per_value)
    n = len(next(iter(per_value.values())))
    out = []
    for i in range(n):
        def on_others(v: Any) -> tuple[int, ...]:
            s = [r.score() for j, r in enumerate(per_value[v]) if j != i]
            return tuple(sum(x[k] for x in s) for k in range(3))
        best = max(on_others(v) for v in values)
        tied = [v for v in values if on_others(v) == best]
        chosen = next((v for v in tied if v == shipped), tied[0])
        out.append((chosen, per_value[chosen][i]))
    return out


# ------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", default=str(DEFAULT_PHOTOS), help="a folder of labelled photos (docs/vision-labels.md)")
    ap.add_argument("--jitter", type=float, default=0.0, help="move each corner up to this many pixels (a finger)")
    ap.add_argument("--turns", type=int, default=3, help="legal turns built per photo, each with an illegal partner")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--candidate-config", metavar="TOML", help="a [vision] table: the candidate's settings")
    ap.add_argument("--candidate-onnx", metavar="FILE", help="a point reader network: the candidate's")
    ap.add_argument("--candidate-turns", metavar="JSON", help="a turn reader calibration: the candidate's")
    ap.add_argument("--leave-one-out", type=_setting, metavar="SETTING=V1,V2,...",
                    help="a numeric VisionConfig setting, chosen on the other photos for each photo")
    ap.add_argument("--json", action="store_true", help="one JSON document on standard output")
    args = ap.parse_args(argv)
    folder = Path(args.photos)
    if not folder.is_dir() or not labelled_pictures(folder):
        print(f"no labelled photos in {folder}: give --photos DIR (docs/vision-labels.md)", file=sys.stderr)
        return 2
    candidate = None
    try:
        if args.candidate_config or args.candidate_onnx or args.candidate_turns:
            for given in (args.candidate_onnx, args.candidate_turns):
                if given and not Path(given).is_file():
                    raise VisionConfigError(f"no such file: {given}")
            if args.candidate_onnx:
                cv2.dnn.readNetFromONNX(args.candidate_onnx)
            candidate = Reader("candidate", VisionConfig.from_toml(args.candidate_config)
                               if args.candidate_config else None,
                               Path(args.candidate_onnx) if args.candidate_onnx else None,
                               Path(args.candidate_turns) if args.candidate_turns else None)
        loo_configs: dict[Any, VisionConfig] = {}
        if args.leave_one_out:
            name, values = args.leave_one_out
            base = (candidate.config if candidate and candidate.config else None) or VisionConfig()
            loo_configs = {v: with_setting(base, name, v) for v in values}   # an unknown setting is refused here
            shipped_value = current_value(base, name)
    except (VisionConfigError, AttributeError, cv2.error) as exc:
        print(f"real_photos: {exc}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    photos = plan(folder, args.jitter, args.turns, args.seed)
    scratch = Path(tempfile.mkdtemp())
    readers = [Reader("shipped")] + ([candidate] if candidate else [])
    results = [measure(r, photos, scratch) for r in readers]
    doc: dict[str, Any] = {
        "photos": str(folder), "corners": "as labelled" if not args.jitter else f"moved up to {args.jitter} px",
        "turns_per_photo": args.turns, "seed": args.seed,
        "readers": {r.name: {"onnx": str(r.onnx) if r.onnx else None, "turns": str(r.turns) if r.turns else None,
                             "config": args.candidate_config if r is candidate else None,
                             "per_photo": [x.to_json() for x in rs], "totals": totals(rs)}
                    for r, rs in zip(readers, results)}}
    loo_lines: list[str] = []
    if loo_configs:
        name, values = args.leave_one_out
        on = candidate or readers[0]
        per_value = {v: measure(Reader(f"{name}={v}", c, on.onnx, on.turns), photos, scratch)
                     for v, c in loo_configs.items()}
        held = leave_one_out(per_value, shipped_value)
        held_totals = totals([r for _, r in held])
        doc["leave_one_out"] = {
            "setting": name, "values": values, "shipped": shipped_value, "on": on.name,
            "per_value": {str(v): totals(rs) for v, rs in per_value.items()},
            "per_photo": [dict(r.to_json(), chosen=v) for v, r in held], "totals": held_totals}
        loo_lines = [f"leave one out: {name} from {values} (the {on.name} reader's value {shipped_value}), "
                     "chosen on the other photos for each", "",
                     "| photo | chosen | " + " | ".join(COLUMNS) + " |", "|" + " --- |" * (len(COLUMNS) + 2)]
        loo_lines += ["| " + " | ".join([r.name, str(v)] + _cells(r)) + " |" for v, r in held]
        loo_lines.append("| **held out** | | " + " | ".join(_total_cells(held_totals)) + " |")
        loo_lines += ["", "each value on every photo (chosen on the photos it is measured on, for comparison):", ""]
        loo_lines += [f"- {name}={v}: " + ", ".join(f"{c} {x}" for c, x in zip(COLUMNS, _total_cells(totals(rs))))
                      for v, rs in per_value.items()]
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    n_turns = sum(len(p.turns) for p in photos)
    print(f"real photos in {folder} ({len(photos)}), corners {doc['corners']}; {n_turns} turns built "
          f"(up to {args.turns} legal per photo, each with an illegal partner; seed {args.seed}); "
          "judged by `willughby judge --after-image --corners --json` in this process, one thread")
    print("points: of 24, both colours right; locations: 24 points, bar and off of each colour "
          "(`willughby vision evaluate`); turns ruled right / asked / wrong; ms: median judge (read and weigh)")
    print()
    print("\n".join(table(readers, results)))
    for reader, res in zip(readers, results):
        t = totals(res)["turns"]
        asked = sum(t[k]["asked"] for k in KINDS)
        print(f"[{reader.name}] of the {asked} turns asked, {sum(t[k]['one point'] for k in KINDS)} asked about "
              "one point alone (how many men stand there)")
    if loo_lines:
        print()
        print("\n".join(loo_lines))
    misread = [(r.name, rs) for r, res in zip(readers, results) for rs in res if rs.diffs or not rs.read]
    if misread:
        print()
        print("refused (the command's notes) and misread (label -> read):")
        for reader, rs in misread:
            if not rs.read:
                print(f"  [{reader}] {rs.name}: refused: " + "; ".join(rs.notes))
            else:
                print(f"  [{reader}] {rs.name}: " + ", ".join(rs.diffs[:12]) + (" ..." if len(rs.diffs) > 12 else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
