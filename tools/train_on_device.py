"""Draw training frames on every core, train the point reader from the
shipped weights, export it and measure it, in one command (for a GPU
machine in one call of a few minutes, or a CPU at a smaller scale)::

    python3 tools/train_on_device.py --frames 12000 --epochs 6 --workers 16 --device cuda --out OUT
    sh tools/train_on_device.sh --frames 40 --epochs 1 --workers 2 --device cpu --out /tmp/tod

It needs only python3 with torch, onnx, opencv and numpy, installs nothing
and runs from a checkout: where ``willughby`` is not installed it makes a
folder of links that maps the checkout's folders to their import names
(as ``pyproject.toml``'s package-dir does) and puts it on the path.

1. **Frames.** ``--frames`` frames of the painter (``willughby.vision.synth``,
   never the dev set or any photograph) are drawn in ``--workers``
   processes, each passed through the reader's own first stages
   (``reader.observe``) with the board's own geometry where the painter
   varied it, so the strips are those the reader will see.  The mix
   (``RECIPES``): most frames draw every palette, light and lens at random
   (``style_set="randomized"``) with the looks of real boards and
   photographs (``real_look``) on boards of varied proportions
   (``varied_board``); some with men on few tall points, some at the
   unstacking games' starts, some plain randomised, some of the training
   styles (so the reader keeps what it knew).
2. **Training.** The frame network of ``train_frame_reader.py`` is filled
   from ``vision/data/point_reader.onnx`` (``point_reader_weights.py``:
   BatchNorm folded at export, so it stays frozen) and trained with AdamW
   and a one-cycle schedule over ``--epochs``, batches of whole frames,
   every other batch mirrored, empty points weighing 0.4.
3. **Measure.** Before training and after every epoch it prints its
   figures on frames of the painter's *held-out* styles, which nothing here
   trains on: ``held-out-test`` with the real looks on varied boards,
   ``held-out-fit`` plain, and the training styles plain (points whose
   count is right, with the pile right too, frames read exactly).
4. **Export.** After every epoch (so a run cut short still leaves a
   model): ``point_reader.onnx`` and ``point_reader.onnx.pt`` in the output
   folder (``--out``, else ``$OUT``), then the ONNX file is run through
   ``cv2.dnn`` as ``willughby.vision.pointnet`` runs it and checked
   against torch; ``summary.json`` holds the figures and timings.

``--time-limit S`` keeps the whole run within S seconds: drawing stops at
55% of it (the frames drawn by then are trained on), and no epoch starts
that would not end in time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TOOLS = Path(__file__).resolve().parent
SHIPPED = ROOT / "vision" / "data" / "point_reader.onnx"
sys.path.insert(0, str(TOOLS))         # the other training scripts, imported as modules
# pyproject.toml's [tool.setuptools.package-dir]: import name under willughby -> folder
PACKAGE_DIRS = ("engine", "vision", "firmware_bridge", "hardware", "companion", "web_ui")


def import_checkout() -> None:
    """Make ``willughby.*`` import from this checkout: a folder holding
    ``willughby/`` with a link to each package folder, first on the path
    (and on ``PYTHONPATH``, for any process started later)."""
    tmp = Path(tempfile.mkdtemp(prefix="willughby-path-"))
    pkg = tmp / "willughby"
    pkg.mkdir()
    for name in PACKAGE_DIRS:
        (pkg / name).symlink_to(ROOT / name, target_is_directory=True)
    sys.path.insert(0, str(tmp))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(tmp), *filter(None, [os.environ.get("PYTHONPATH")])])
    import willughby.vision.synth  # noqa: F401  (fails here, plainly, if the checkout is broken)


# (name, share of the frames, SceneSpec fields, tall positions)
RECIPES: tuple[tuple[str, float, dict[str, Any], bool], ...] = (
    ("real", 0.45, dict(style_set="randomized", real_look=True, varied_board=True, varied_men=True,
                        edge_gap=4.0), False),
    ("real-tall", 0.15, dict(style_set="randomized", real_look=True, varied_board=True, varied_men=True,
                             edge_gap=4.0), True),
    ("real-doublets", 0.1, dict(style_set="randomized", real_look=True, varied_board=True, varied_men=True,
                                edge_gap=4.0, position_kind="doublets_start"), False),
    ("real-near-men", 0.05, dict(style_set="randomized", real_look=True, varied_men=True, edge_gap=4.0,
                                 men_contrast=0.3), False),
    ("randomized", 0.1, dict(style_set="randomized", varied_men=True, edge_gap=4.0), False),
    ("training", 0.15, dict(palette_jitter=0.12, varied_men=True, edge_gap=4.0), False),
)
# held-out painter styles: (name, share of --val-frames, SceneSpec fields)
VALIDATION: tuple[tuple[str, float, dict[str, Any]], ...] = (
    ("held-out-test, real looks, varied boards", 0.5,
     dict(style_set="held-out-test", real_look=True, varied_board=True, varied_men=True, edge_gap=3.0)),
    ("held-out-fit", 0.25, dict(style_set="held-out-fit")),
    ("training styles", 0.25, dict()),
)


def recipe_of(i: int, seed: int) -> int:
    """Which recipe frame *i* is drawn with (by its own seed, so any count
    draws the same frames first)."""
    u = np.random.default_rng([seed, i, 7]).random()
    edges = np.cumsum([r[1] for r in RECIPES])
    return int(min(np.searchsorted(edges / edges[-1], u, side="right"), len(RECIPES) - 1))


def _frame(job: tuple[int, int, dict[str, Any], bool]) -> tuple[int, Any, float] | tuple[int, str, float]:
    """Draw one frame and cut its strips: (index, (maps, aux, cls, pile), seconds) or (index, error, seconds)."""
    from dataclasses import replace

    import cv2

    from willughby.vision.config import VisionConfig
    from willughby.vision.synth import SceneSpec, SynthError, render
    from point_reader_data import labels_of, reader_strips, tall_position

    t0 = time.perf_counter()
    i, seed, fields, tall = job
    rng = np.random.default_rng([seed, i])
    try:
        spec = SceneSpec(occluded_share=0.0, **fields)
        if tall:
            spec = replace(spec, position=tall_position(rng))
        image, label = render(rng, spec)
        strips = reader_strips(image, label, VisionConfig())
        cls, pile = labels_of(label)
    except (SynthError, ValueError, ArithmeticError, cv2.error) as exc:   # a frame that cannot be read: left out, said
        return i, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0
    return i, (strips.maps.astype(np.float16), strips.aux.astype(np.float32), cls, pile), time.perf_counter() - t0


def _init_worker() -> None:
    import cv2
    cv2.setNumThreads(1)


def draw(jobs: list, workers: int, deadline: float | None, what: str) -> dict[str, Any]:
    """Draw *jobs* in *workers* processes (until *deadline*, a perf_counter
    time, where given): the frames' strips and labels stacked, the frames
    left out, and the timings."""
    import multiprocessing as mp

    t0 = time.perf_counter()
    got: dict[int, Any] = {}
    errors: list[str] = []
    busy = 0.0
    ctx = mp.get_context("fork")
    with ctx.Pool(workers, initializer=_init_worker) as pool:
        for n, (i, out, sec) in enumerate(pool.imap_unordered(_frame, jobs, chunksize=4), start=1):
            busy += sec
            if isinstance(out, str):
                errors.append(f"frame {i}: {out}")
            else:
                got[i] = out
            if n % max(1, len(jobs) // 10) == 0 or n == len(jobs):
                el = time.perf_counter() - t0
                print(f"  {what}: {n}/{len(jobs)} frames in {el:.0f} s ({n / el:.1f} a second; "
                      f"{busy / n:.3f} s of a core each)", flush=True)
            if deadline is not None and time.perf_counter() > deadline:
                print(f"  {what}: stopped at {n} frames, the time limit's share for drawing spent", flush=True)
                pool.terminate()
                break
    order = sorted(got)
    if not order:
        raise SystemExit(f"{what}: no frame could be drawn ({'; '.join(errors[:3])})")
    maps = np.stack([got[i][0] for i in order])
    aux = np.stack([got[i][1] for i in order])
    cls = np.stack([got[i][2] for i in order])
    pile = np.stack([got[i][3] for i in order])
    for e in errors[:5]:
        print(f"  left out: {e}", flush=True)
    return {"maps": maps, "aux": aux, "cls": cls, "pile": pile, "index": np.array(order), "errors": len(errors),
            "wall_s": time.perf_counter() - t0, "core_s_per_frame": busy / max(1, len(got) + len(errors))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=2000, help="training frames to draw (default 2000)")
    ap.add_argument("--val-frames", type=int, default=0,
                    help="held-out frames to measure on (default: a tenth of --frames, 24..600)")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes drawing frames")
    ap.add_argument("--device", choices=("cuda", "cpu"), default=None, help="default: cuda where there is one")
    ap.add_argument("--out", default=os.environ.get("OUT"), help="output folder (default: $OUT)")
    ap.add_argument("--seed", type=int, default=31000)
    ap.add_argument("--lr", type=float, default=4e-4)
    ap.add_argument("--batch-frames", type=int, default=0, help="frames to a batch (default: 32 on cuda, 12 on cpu)")
    ap.add_argument("--empty-weight", type=float, default=0.4)
    ap.add_argument("--init", default=str(SHIPPED), help="the ONNX file to start from (default: the shipped one)")
    ap.add_argument("--time-limit", type=float, default=0.0, help="seconds the whole run may take (0: no limit)")
    args = ap.parse_args(argv)
    if not args.out:
        ap.error("give --out FOLDER (or set $OUT)")
    if args.frames < 1 or args.epochs < 1 or args.workers < 1:
        ap.error("--frames, --epochs and --workers must be 1 or more")
    t_start = time.perf_counter()
    deadline = t_start + args.time_limit if args.time_limit > 0 else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import_checkout()
    n_val = args.val_frames or int(np.clip(args.frames // 10, 24, 600))

    # ---- 1. frames
    print(f"drawing {args.frames} training frames and {n_val} held-out frames in {args.workers} processes", flush=True)
    val_sets = []                       # the held-out frames first: the time limit then bounds the rest
    for k, (name, share, fields) in enumerate(VALIDATION):
        n = max(4, int(round(n_val * share)))
        vjobs = [(i, args.seed + 1_000_003 * (k + 1), fields, False) for i in range(n)]
        val_sets.append((name, draw(vjobs, args.workers, None, f"held-out: {name}")))
    jobs = []
    for i in range(args.frames):
        _, _, fields, tall = RECIPES[recipe_of(i, args.seed)]
        jobs.append((i, args.seed, fields, tall))
    draw_deadline = None if deadline is None else t_start + 0.55 * args.time_limit
    train = draw(jobs, args.workers, draw_deadline, "training frames")
    recipes = np.bincount([recipe_of(int(i), args.seed) for i in train["index"]], minlength=len(RECIPES))
    print("training frames by recipe: " + ", ".join(f"{r[0]} {c}" for r, c in zip(RECIPES, recipes)), flush=True)

    # ---- 2. training (torch only now: no process was forked with it loaded)
    import torch
    from torch import nn

    from point_reader_weights import frame_net_from_onnx
    from train_frame_reader import POINTS, freeze_batchnorm
    from train_point_reader import AUX, MAPS, export, mirror, one_cycle

    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if device.type == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda, but torch sees no GPU")
    per_batch = args.batch_frames or (32 if device.type == "cuda" else 12)
    torch.manual_seed(0)
    net = frame_net_from_onnx(args.init).to(device)

    def tensors(d: dict) -> tuple:
        n = len(d["cls"])
        return (torch.from_numpy(d["maps"].reshape(n * POINTS, *MAPS)).to(device),
                torch.from_numpy(d["aux"].reshape(n * POINTS, AUX)).to(device),
                torch.from_numpy(d["cls"].reshape(-1)).to(device), torch.from_numpy(d["pile"].reshape(-1)).to(device))

    Xm, Xa, Yc, Yp = tensors(train)
    vals = [(name, tensors(d), len(d["cls"])) for name, d in val_sets]

    def rows(frames: np.ndarray) -> torch.Tensor:
        return torch.from_numpy((frames[:, None] * POINTS + np.arange(POINTS)).ravel()).to(device)

    def measure() -> list[dict[str, Any]]:
        net.eval()
        res = []
        with torch.no_grad():
            for name, (m, a, c, p), n in vals:
                right_c = right_p = exact = 0
                for k in range(0, n, 64):
                    b = rows(np.arange(k, min(n, k + 64)))
                    pc, pp = net(m[b].float(), a[b])
                    ok_c = pc.argmax(1) == c[b]
                    ok_p = ok_c & (pp.argmax(1) == p[b])
                    right_c, right_p = right_c + int(ok_c.sum()), right_p + int(ok_p.sum())
                    exact += int(ok_p.reshape(-1, POINTS).all(1).sum())
                res.append({"set": name, "frames": n, "counts_right": right_c / (n * POINTS),
                            "with_piles": right_p / (n * POINTS), "frames_exact": exact})
        return res

    def say(figures: list[dict[str, Any]], when: str) -> None:
        for f in figures:
            print(f"  {when} | {f['set']}: points {f['counts_right']:.2%} counts right, {f['with_piles']:.2%} "
                  f"with piles; frames exact {f['frames_exact']}/{f['frames']}", flush=True)

    before = measure()
    print(f"held-out figures of the weights started from ({args.init}):", flush=True)
    say(before, "before")
    n_frames = len(train["cls"])
    steps_per_epoch = (n_frames + per_batch - 1) // per_batch
    opt, sched = one_cycle(net, args.lr, args.epochs * steps_per_epoch)
    ce = nn.CrossEntropyLoss(reduction="none")
    rng = np.random.default_rng(0)
    history, step_times = [], []
    onnx_path = out / "point_reader.onnx"
    epochs_done = 0
    export_error: str | None = "no epoch was trained"
    for epoch in range(args.epochs):
        last = history[-1]["seconds"] if history else 0.0
        if deadline is not None and epochs_done and time.perf_counter() + last * 1.1 + 20 > deadline:
            print(f"stopping after {epochs_done} epochs: another would pass the time limit", flush=True)
            break
        net.train()
        freeze_batchnorm(net)
        t0 = time.perf_counter()
        order = rng.permutation(n_frames)
        total = 0.0
        for k in range(0, n_frames, per_batch):
            ts = time.perf_counter()
            b = rows(order[k:k + per_batch])
            m, a = Xm[b].float(), Xa[b]
            if rng.random() < 0.5:
                m, a = mirror(m, a)
            lc, lp = net.logits(m, a)
            w = torch.where(Yc[b] == 0, args.empty_weight, 1.0)
            loss = ((ce(lc, Yc[b]) + 0.5 * ce(lp, Yp[b])) * w).sum() / w.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            step_times.append(time.perf_counter() - ts)
        epochs_done += 1
        figures = measure()
        seconds = time.perf_counter() - t0
        history.append({"epoch": epoch + 1, "loss": total / steps_per_epoch, "seconds": seconds, "held_out": figures})
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / steps_per_epoch:.4f} ({seconds:.1f} s, "
              f"{np.median(step_times) * 1000:.1f} ms a step of {per_batch} frames)", flush=True)
        say(figures, f"epoch {epoch + 1}")
        net.cpu()
        try:
            export(net, str(onnx_path), MAPS, AUX, rows=POINTS)
        except (RuntimeError, TypeError, ValueError, ImportError) as exc:   # said, and training goes on
            export_error = f"{type(exc).__name__}: {exc}"
            print(f"  the ONNX export failed ({export_error}); the weights are in {onnx_path}.pt", flush=True)
        else:
            export_error = None
        net.to(device)

    if export_error is not None:
        print(f"no ONNX file: {export_error}; the weights are in {onnx_path}.pt "
              "(a FrameNet of tools/train_frame_reader.py loads them; train_point_reader.export writes the ONNX)",
              file=sys.stderr)
        return 1
    # ---- 4. the exported file through cv2.dnn, as the reader runs it
    from willughby.vision import pointnet
    from willughby.vision.strips import Strips

    name, d = val_sets[0]
    diffs, agree = [], []
    net.eval()
    net.cpu()
    for f in range(min(8, len(d["cls"]))):
        strips = Strips(d["maps"][f].astype(np.float32), d["aux"][f])
        count, pile = pointnet.probabilities(strips, onnx_path)
        with torch.no_grad():
            tc, tp = (t.numpy() for t in net(torch.from_numpy(strips.maps), torch.from_numpy(strips.aux)))
        diffs.append(max(float(np.abs(tc - count).max()), float(np.abs(tp - pile).max())))
        agree.append(float((tc.argmax(1) == count.argmax(1)).mean()))
    shipped_inputs = {i.name: tuple(i.shape) for i in _onnx_inputs(SHIPPED)}
    new_inputs = {i.name: tuple(i.shape) for i in _onnx_inputs(onnx_path)}
    print(f"{onnx_path}: cv2.dnn against torch on {len(diffs)} held-out frames: largest difference "
          f"{max(diffs):.2e}, readings agree on {np.mean(agree):.2%} of points; inputs {new_inputs} "
          f"(shipped: {shipped_inputs})", flush=True)
    total_s = time.perf_counter() - t_start
    summary = {
        "args": vars(args), "device": str(device), "frames": n_frames, "frames_left_out": train["errors"],
        "recipes": {r[0]: int(c) for r, c in zip(RECIPES, recipes)},
        "draw_wall_s": round(train["wall_s"], 1), "draw_core_s_per_frame": round(train["core_s_per_frame"], 4),
        "draw_frames_per_s": round(n_frames / train["wall_s"], 2),
        "step_ms_median": round(float(np.median(step_times)) * 1000, 2) if step_times else None,
        "batch_frames": per_batch, "before": before, "epochs": history,
        "cv2_max_difference": max(diffs), "total_s": round(total_s, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"wrote {onnx_path}, {onnx_path}.pt and {out / 'summary.json'} in {total_s:.0f} s", flush=True)
    return 0 if max(diffs) < 1e-3 else 1


def _onnx_inputs(path: Path) -> list:
    """The graph inputs of an ONNX file, each with .name and .shape (None where dynamic)."""
    import onnx

    class _In:
        def __init__(self, v) -> None:
            self.name = v.name
            self.shape = [d.dim_value or None for d in v.type.tensor_type.shape.dim]

    model = onnx.load(str(path))
    init = {t.name for t in model.graph.initializer}
    return [_In(v) for v in model.graph.input if v.name not in init]


if __name__ == "__main__":
    sys.exit(main())
