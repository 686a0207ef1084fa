"""Train the dice reader's two small networks and export them as ONNX for OpenCV.

- the **finder** (``vision/data/dice_finder.onnx``): a grey picture, scaled so
  that a die is 12 to 32 pixels across, to a map of where dice lie (one cell
  per 4 pixels) and each die's width and height;
- the **face reader** (``vision/data/dice_face.onnx``): a grey square of 32
  pixels around one die to its face on top (1..6), or no die at all.

They learn from the real photographs of the dice dataset "Rune55" v3
(Roboflow Universe, workspace rune-zkmvl, licence CC BY 4.0: its ``train``
split; its ``valid`` split is held out and measured after each epoch) and
from boards the project's painter draws, with men beside the dice. Training
needs PyTorch and onnx, which the package itself does not::

    python -m venv /tmp/trainenv
    /tmp/trainenv/bin/pip install torch==2.13.0 onnx numpy opencv-python-headless
    PYTHONPATH=/path/to/a/folder/with/willughby /tmp/trainenv/bin/python tools/train_dice_reader.py \\
        DICE --out vision/data --epochs 12

(``DICE``: the dataset's folder, or the one file ``tools/pack_dice_pictures.py`` packs it into,
small enough to send to a GPU machine; ``PYTHONPATH`` so that the painter,
``willughby.vision.synth``, and the dice reader's own crop imports;
``vision/data/dice_reader.md`` gives the commands the shipped networks were
made with.)
It runs on the CPU, or on a GPU where torch finds one (``--device cuda``); there
``--workers`` processes draw the batches, and ``--minutes`` trains for a set time
with the learning rate on the clock. After each epoch the networks are written, so
a training stopped early leaves its last epoch's.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from functools import partial
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_examples import (FACE_SIZE, FINDER_SIZE, Picture, face_batch, face_examples_of,  # noqa: E402
                           finder_batch, mine_finder_places, painted_pictures, read_pack, read_split)

FACES = 7                  # no die, then the faces 1..6
#: the finder's channels at a half, a quarter, an eighth and a sixteenth of the picture's size
FINDER_WIDTHS = (8, 12, 24, 40)


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class DiceFinder(nn.Module):
    """A picture to a map of dice centres (a logit per cell), their sizes and where in its cell each
    centre lies, one cell per 4 pixels.

    Plain 3 x 3 convolutions (the fastest kind in OpenCV's runner), down to one cell per 16
    pixels for the view round a die (enough to tell a die from the pip of a larger one), and back
    up to one per 4, with *widths* channels at each size (``FINDER_WIDTHS``). The picture's sides
    must be multiples of 16 (the reader pads them)."""

    def __init__(self, widths: tuple[int, ...] = FINDER_WIDTHS) -> None:
        super().__init__()
        c2, c4, c8, c16 = widths
        self.to4 = nn.Sequential(_conv(1, c2, 2), _conv(c2, c4, 2))
        self.to8 = nn.Sequential(_conv(c4, c8, 2), _conv(c8, c8))
        self.to16 = nn.Sequential(_conv(c8, c16, 2), _conv(c16, c16), _conv(c16, c16))
        self.up16 = nn.Conv2d(c16, c8, 1)
        self.mix8 = _conv(c8, c8)
        self.up8 = nn.Conv2d(c8, c4, 1)
        self.skip4 = nn.Conv2d(c4, c4, 1)
        self.head = nn.Sequential(_conv(c4, c4), nn.Conv2d(c4, 5, 1))
        nn.init.constant_(self.head[1].bias, 0.0)
        with torch.no_grad():
            self.head[1].bias[0] = -4.0                   # few cells hold a die

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.to4(x)
        f8 = self.to8(f4)
        f16 = self.to16(f8)
        m8 = self.mix8(f8 + F.interpolate(self.up16(f16), scale_factor=2.0, mode="nearest"))
        return self.head(self.skip4(f4) + F.interpolate(self.up8(m8), scale_factor=2.0, mode="nearest"))


class FaceReader(nn.Module):
    """A 32-pixel grey square to its class: no die, or the face 1..6 on top. Its layers have *width*,
    twice and four times as many channels (the shipped reader: 20)."""

    def __init__(self, width: int = 20) -> None:
        super().__init__()
        a, b, c = width, 2 * width, 4 * width

        def block(cin: int, cout: int) -> list[nn.Module]:
            return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]

        self.features = nn.Sequential(*block(1, a), *block(a, a), nn.MaxPool2d(2),
                                      *block(a, b), *block(b, b), nn.MaxPool2d(2),
                                      *block(b, c), *block(c, c), nn.MaxPool2d(2))
        self.classify = nn.Sequential(nn.Flatten(), nn.Linear(c * (FACE_SIZE // 8) ** 2, 128), nn.ReLU(),
                                      nn.Dropout(0.2), nn.Linear(128, FACES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classify(self.features(x))


def focal(logit: torch.Tensor, heat: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """The centre map's loss: a focal loss that counts the cells near a centre less as misses, and
    cells of weight 0 not at all."""
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    at = heat.eq(1).float()
    pos = -((1 - p) ** 2) * torch.log(p) * at
    neg = -((1 - heat) ** 4) * (p ** 2) * torch.log(1 - p) * (1 - at) * weight
    return (pos.sum() + neg.sum()) / at.sum().clamp(min=1.0)


def _normalise(x: np.ndarray) -> np.ndarray:
    """Each square as the reader brings it before its networks see it (``vision/dice_reader.py``)."""
    from willughby.vision.dice_reader import normalised

    return normalised(x)


def finder_figures(net: DiceFinder, pictures: list[Picture], device: str, threshold: float = 0.3,
                   limit: int = 300) -> tuple[int, int, int]:
    """Found, missed and false dice of the finder on *pictures* (each scaled so its dice are 20 px)."""
    from dice_examples import _scaled

    net.eval()
    found = missed = false = 0
    with torch.no_grad():
        for pic in pictures[:limit]:
            grey, boxes = _scaled(pic, 20.0)
            h, w = grey.shape
            ph, pw = -h % 16, -w % 16
            x = np.pad(grey.astype(np.float32) / 255.0, ((0, ph), (0, pw)), mode="edge")[None, None]
            out = net(torch.from_numpy(_normalise(x)).to(device))
            heat = torch.sigmoid(out[0, 0])
            peaks = (heat == F.max_pool2d(heat[None, None], 3, 1, 1)[0, 0]) & (heat > threshold)
            ys, xs = torch.nonzero(peaks, as_tuple=True)
            centres = np.stack([xs.cpu().numpy() * 4 + 2, ys.cpu().numpy() * 4 + 2], 1).astype(np.float32)
            used = np.zeros(len(centres), bool)
            for bx, by, bw, bh in boxes:
                if len(centres):
                    d = np.hypot(centres[:, 0] - bx, centres[:, 1] - by)
                    d[used] = np.inf
                    k = int(np.argmin(d))
                    if d[k] <= 0.5 * max(bw, bh):
                        used[k] = True
                        found += 1
                        continue
                missed += 1
            false += int((~used).sum())
    return found, missed, false


def face_figures(net: FaceReader, examples: list[tuple[np.ndarray, int]], device: str) -> tuple[int, int, int]:
    """Right, wrong and said to be no die, of the face reader on the held-out dice."""
    net.eval()
    right = wrong = none = 0
    with torch.no_grad():
        for k in range(0, len(examples), 512):
            chunk = examples[k:k + 512]
            x = _normalise(np.stack([e[0] for e in chunk])[:, None].astype(np.float32))
            pred = net(torch.from_numpy(x).to(device)).argmax(1).cpu().numpy()
            truth = np.array([e[1] for e in chunk])
            right += int((pred == truth).sum())
            none += int((pred == 0).sum())
            wrong += int(((pred != truth) & (pred != 0)).sum())
    return right, wrong, none


def export(net: nn.Module, path: Path, shape: tuple[int, ...], dynamic: bool) -> None:
    net.eval().to("cpu")
    dummy = torch.zeros(*shape)
    axes = {"x": {0: "n", 2: "h", 3: "w"}, "y": {0: "n", 2: "h", 3: "w"}} if dynamic else {"x": {0: "n"}, "y": {0: "n"}}
    torch.onnx.export(net, dummy, str(path), input_names=["x"], output_names=["y"], dynamic_axes=axes,
                      opset_version=13, dynamo=False)
    torch.save(net.state_dict(), str(path) + ".pt")


class _Batches(torch.utils.data.IterableDataset):  # type: ignore[type-arg]
    """Endless batches from *make* (a random generator to one batch), each worker drawing its own."""

    def __init__(self, make: "Callable[[np.random.Generator], tuple[np.ndarray, ...]]", seed: int) -> None:
        self.make, self.seed = make, seed

    def __iter__(self) -> "Iterator[tuple[np.ndarray, ...]]":
        info = torch.utils.data.get_worker_info()
        if info is not None:
            cv2.setNumThreads(1)
        rng = np.random.default_rng([self.seed, 0 if info is None else info.id + 1])
        while True:
            yield self.make(rng)


def _as_is(batch: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    return batch


def batches(make: "Callable[[np.random.Generator], tuple[np.ndarray, ...]]", args: argparse.Namespace
            ) -> "Iterator[tuple[torch.Tensor, ...]]":
    """Endless batches from *make*, drawn by ``--workers`` processes (or this one), on ``--device``."""
    # the batches come through a pipe as they are (not through shared memory, which a container may keep small)
    stream = torch.utils.data.DataLoader(_Batches(make, args.seed), batch_size=None, num_workers=args.workers,
                                         collate_fn=_as_is, prefetch_factor=4 if args.workers else None,
                                         persistent_workers=bool(args.workers))
    for batch in stream:
        yield tuple(torch.as_tensor(a).to(args.device, non_blocking=True) for a in batch)


def _clock_rate(fraction: float, peak: float) -> float:
    """The learning rate *fraction* of the way through a training on the clock: up for the first
    30%, then down, as ``OneCycleLR`` does by steps."""
    low = peak / 25
    if fraction < 0.3:
        return low + (peak - low) * (1 - math.cos(math.pi * fraction / 0.3)) / 2
    return low / 1e4 + (peak - low / 1e4) * (1 + math.cos(math.pi * (fraction - 0.3) / 0.7)) / 2


def _trained(nets: dict[str, nn.Module], args: argparse.Namespace, peak_lr: float,
             stream: "Iterator[tuple[torch.Tensor, ...]]",
             loss_of: "Callable[[nn.Module, tuple[torch.Tensor, ...]], torch.Tensor]",
             report: "Callable[[nn.Module], str]", save: "Callable[[str, nn.Module], None]",
             t0: float) -> None:
    """*nets* (each started from ``--init`` where given) trained on the same batches from *stream*:
    ``--epochs`` of ``--steps`` batches, or for ``--minutes`` (the learning rate then follows the
    clock). After each epoch each net's loss and *report* on the held-out part are printed and the
    net is saved (a training stopped early leaves its last epoch's networks)."""
    opts, scheds = {}, {}
    for name, net in nets.items():
        if args.init is not None:
            net.load_state_dict(torch.load(args.init))
        net.to(args.device)
        opts[name] = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
        if not args.minutes:
            scheds[name] = torch.optim.lr_scheduler.OneCycleLR(opts[name], peak_lr,
                                                               total_steps=args.epochs * args.steps)
    budget = 60.0 * args.minutes if args.minutes else None
    start, epoch, fraction = time.time(), 0, 0.0
    while fraction < 1.0:
        for net in nets.values():
            net.train()
        totals, steps = dict.fromkeys(nets, 0.0), 0
        while steps < args.steps:
            fraction = (time.time() - start) / budget if budget else (epoch * args.steps + steps) / (
                args.epochs * args.steps)
            if fraction >= 1.0:
                break
            batch = next(stream)
            for name, net in nets.items():
                if budget:
                    for group in opts[name].param_groups:
                        group["lr"] = _clock_rate(fraction, peak_lr)
                loss = loss_of(net, batch)
                opts[name].zero_grad()
                loss.backward()
                opts[name].step()
                if name in scheds:
                    scheds[name].step()
                totals[name] += loss.item()
            steps += 1
        epoch += 1
        fraction = 1.0 if not budget and epoch >= args.epochs else fraction
        for name, net in nets.items():
            print(f"{name} epoch {epoch}: loss {totals[name] / max(1, steps):.3f}; {report(net)} "
                  f"({time.time() - t0:.0f} s)", flush=True)
            save(name, net)


def painted(count: int, seed: int, workers: int) -> list[Picture]:
    """*count* painted boards: drawn here from *seed*, or by *workers* processes in parts of 50 (each
    part from its own seed)."""
    if workers <= 1 or count <= 50:
        return painted_pictures(count, seed)
    import multiprocessing

    parts = [(min(50, count - k), seed * 1000 + k) for k in range(0, count, 50)]
    with multiprocessing.Pool(workers) as pool:
        return [p for part in pool.starmap(painted_pictures, parts) for p in part]


def _face_examples(pictures: list[Picture], n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    x, y = face_batch(pictures, rng, n)
    return _normalise(x), y


def _finder_examples(pictures: list[Picture], n: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    x, heat, size, mask, weight = finder_batch(pictures, rng, n)
    return _normalise(x), heat, size, mask, weight


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path,
                        help="the dice dataset's folder (train/ and valid/), or a file tools/pack_dice_pictures.py wrote")
    parser.add_argument("--out", type=Path, default=Path("vision/data"))
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--steps", type=int, default=300, help="batches an epoch, for each network")
    parser.add_argument("--minutes", type=float, default=None,
                        help="train each network this long (epochs of --steps until then) instead of --epochs")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--workers", type=int, default=0,
                        help="processes drawing the batches (and painting and mining); 0: this one")
    parser.add_argument("--painted", type=int, default=300, help="boards the painter draws, with dice")
    parser.add_argument("--limit", type=int, default=None, help="at most this many real pictures (a quick run)")
    parser.add_argument("--only", choices=("finder", "face"), default=None)
    parser.add_argument("--face-widths", default="20",
                        help="the face readers to train on the same batches, by width (comma-separated): "
                             "20 is written as dice_face.onnx, another W as dice_face_wW.onnx")
    parser.add_argument("--finder-widths", default=",".join(map(str, FINDER_WIDTHS)),
                        help="the finder's channels at a half, a quarter, an eighth and a sixteenth of the "
                             "picture's size (fewer: a faster finder)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--init", type=Path, default=None,
                        help="weights (the .pt written beside an .onnx) to start the network trained (--only) from")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--finder", type=Path, default=None,
                        help="a finder (ONNX) whose mistakes on the pictures the face reader learns as no die, "
                             "and whose right places it learns the dice from, as the reader hands them")
    parser.add_argument("--peak-lr", type=float, default=None,
                        help="the learning rate's peak (3e-3 for the face reader, 4e-3 for the finder; less to go "
                             "on from --init)")
    args = parser.parse_args(argv)
    if args.init is not None and args.only is None:
        parser.error("--init starts one network: say which with --only")
    try:
        widths = [int(w) for w in args.face_widths.split(",")]
    except ValueError:
        parser.error(f"--face-widths: {args.face_widths!r} is not a list of whole numbers")
    if any(w < 1 for w in widths) or len(set(widths)) != len(widths):
        parser.error("--face-widths: each width once, each at least 1")
    try:
        finder_widths = tuple(int(w) for w in args.finder_widths.split(","))
    except ValueError:
        parser.error(f"--finder-widths: {args.finder_widths!r} is not a list of whole numbers")
    if len(finder_widths) != 4 or min(finder_widths) < 1:
        parser.error("--finder-widths: four widths, each at least 1")
    if args.init is not None and args.only == "face" and len(widths) > 1:
        parser.error("--init starts one face reader: give --face-widths one width, the one its weights have")
    if args.peak_lr is not None and not 0 < args.peak_lr < 1:
        parser.error("--peak-lr must be between 0 and 1")
    if args.minutes is not None and args.minutes <= 0:
        parser.error("--minutes must be more than 0")
    torch.manual_seed(args.seed)
    # no OpenCV threads here: the processes forked to draw batches would hang on a pool they inherit
    cv2.setNumThreads(0)
    t0 = time.time()
    if args.dataset.is_file():
        train, valid = read_pack(args.dataset, "train")[:args.limit], read_pack(args.dataset, "valid")[:args.limit]
    else:
        train, valid = read_split(args.dataset, "train", args.limit), read_split(args.dataset, "valid", args.limit)
    boards = painted(args.painted, args.seed + 1000, args.workers) if args.painted else []
    print(f"{len(train)} real pictures to learn from, {len(valid)} held out, {len(boards)} painted boards "
          f"({time.time() - t0:.0f} s)", flush=True)
    learn = train + boards
    if args.finder is not None:
        # (a pack's pictures keep the mistakes found at their full size)
        wrong, right = mine_finder_places(learn, args.finder, args.workers, progress=lambda n: print(
            f"  {n} of {len(learn)} pictures looked at ({time.time() - t0:.0f} s)", flush=True))
        print(f"in {len(learn)} pictures the finder {args.finder.name} took {wrong} places for a die where there "
              f"is none, learnt as no die, and found {right} dice, learnt where it placed them "
              f"({time.time() - t0:.0f} s)", flush=True)
    held_faces = list(face_examples_of(valid))
    args.out.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "face"):
        def face_loss(net: nn.Module, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
            x, y = batch
            return F.cross_entropy(net(x), y, label_smoothing=0.02)

        def face_report(net: nn.Module) -> str:
            right, wrong, none = face_figures(net, held_faces, args.device)
            n = max(1, len(held_faces))
            return (f"held-out dice {len(held_faces)}: right {right} ({100 * right / n:.2f}%), wrong face {wrong}, "
                    f"said no die {none}")

        def face_saved(name: str, net: nn.Module) -> None:
            export(net, args.out / f"{name}.onnx", (1, 1, FACE_SIZE, FACE_SIZE), dynamic=False)
            net.to(args.device)

        readers = {"dice_face" if w == 20 else f"dice_face_w{w}": FaceReader(w) for w in widths}
        _trained(readers, args, args.peak_lr or 3e-3, batches(partial(_face_examples, learn, args.batch), args),
                 face_loss, face_report, face_saved, t0)
    if args.only in (None, "finder"):
        def finder_loss(net: nn.Module, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
            x, heat_t, size_t, mask_t, weight_t = batch
            out = net(x)
            return focal(out[:, :1], heat_t, weight_t) + 0.5 * (F.l1_loss(out[:, 1:] * mask_t, size_t * mask_t,
                                                               reduction="sum") / mask_t.sum().clamp(min=1))

        def finder_report(net: nn.Module) -> str:
            found, missed, false = finder_figures(net, valid, args.device)
            return f"held-out dice found {found}, missed {missed}, false {false}"

        def finder_saved(name: str, net: nn.Module) -> None:
            export(net, args.out / f"{name}.onnx", (1, 1, FINDER_SIZE, FINDER_SIZE), dynamic=True)
            net.to(args.device)

        _trained({"dice_finder": DiceFinder(finder_widths)}, args, args.peak_lr or 4e-3,
                 batches(partial(_finder_examples, learn, args.batch), args),
                 finder_loss, finder_report, finder_saved, t0)
    print(f"written to {args.out} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
