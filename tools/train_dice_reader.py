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

(``DICE``: the dataset's folder; ``PYTHONPATH`` so that the painter,
``willughby.vision.synth``, and the dice reader's own crop imports;
``vision/data/dice_reader.md`` gives the commands the shipped networks were
made with.)
It runs on the CPU, or on a GPU where torch finds one (``--device cuda``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_examples import (FACE_SIZE, FINDER_SIZE, Picture, face_batch, face_examples_of,  # noqa: E402
                           finder_batch, mine_negatives, painted_pictures, read_split)

FACES = 7                  # no die, then the faces 1..6


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class DiceFinder(nn.Module):
    """A picture to a map of dice centres (a logit per cell), their sizes and where in its cell each
    centre lies, one cell per 4 pixels.

    Plain 3 x 3 convolutions (the fastest kind in OpenCV's runner), down to one cell per 16
    pixels for the view round a die (enough to tell a die from the pip of a larger one), and back
    up to one per 4. The picture's sides must be multiples of 16 (the reader pads them)."""

    def __init__(self) -> None:
        super().__init__()
        self.to4 = nn.Sequential(_conv(1, 8, 2), _conv(8, 12, 2))
        self.to8 = nn.Sequential(_conv(12, 24, 2), _conv(24, 24))
        self.to16 = nn.Sequential(_conv(24, 40, 2), _conv(40, 40), _conv(40, 40))
        self.up16 = nn.Conv2d(40, 24, 1)
        self.mix8 = _conv(24, 24)
        self.up8 = nn.Conv2d(24, 12, 1)
        self.skip4 = nn.Conv2d(12, 12, 1)
        self.head = nn.Sequential(_conv(12, 12), nn.Conv2d(12, 5, 1))
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
    """A 32-pixel grey square to its class: no die, or the face 1..6 on top."""

    def __init__(self) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> list[nn.Module]:
            return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]

        self.features = nn.Sequential(*block(1, 20), *block(20, 20), nn.MaxPool2d(2),
                                      *block(20, 40), *block(40, 40), nn.MaxPool2d(2),
                                      *block(40, 80), *block(80, 80), nn.MaxPool2d(2))
        self.classify = nn.Sequential(nn.Flatten(), nn.Linear(80 * (FACE_SIZE // 8) ** 2, 128), nn.ReLU(),
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


def _finder_of(path: Path) -> "Callable[[np.ndarray], list[tuple[float, float, float]]]":
    """A finder's guesses on a grey picture, at every size the dice reader looks for dice where it is
    given no board, as the reader makes them."""
    from willughby.vision.dice_reader import DiceReader, DiceReaderSettings

    settings = DiceReaderSettings(min_found=0.25)
    reader = DiceReader(finder_path=path, face_path=path, settings=settings)

    def find(grey: np.ndarray) -> list[tuple[float, float, float]]:
        return [(x, y, side) for x, y, side, _ in reader.find_places(grey, settings.search_px)]
    return find


def export(net: nn.Module, path: Path, shape: tuple[int, ...], dynamic: bool) -> None:
    net.eval().to("cpu")
    dummy = torch.zeros(*shape)
    axes = {"x": {0: "n", 2: "h", 3: "w"}, "y": {0: "n", 2: "h", 3: "w"}} if dynamic else {"x": {0: "n"}, "y": {0: "n"}}
    torch.onnx.export(net, dummy, str(path), input_names=["x"], output_names=["y"], dynamic_axes=axes,
                      opset_version=13, dynamo=False)
    torch.save(net.state_dict(), str(path) + ".pt")


def _trained(name: str, net: nn.Module, args: argparse.Namespace, peak_lr: float,
             batch_loss: "Callable[[nn.Module], torch.Tensor]", report: "Callable[[nn.Module], str]",
             t0: float) -> nn.Module:
    """*net* (started from ``--init`` where given) trained ``--epochs`` of ``--steps`` batches, each
    batch's loss from *batch_loss*; after each epoch its loss and *report* on the held-out part printed."""
    if args.init is not None:
        net.load_state_dict(torch.load(args.init))
    net = net.to(args.device)
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, peak_lr, total_steps=args.epochs * args.steps)
    for epoch in range(args.epochs):
        net.train()
        total = 0.0
        for _ in range(args.steps):
            loss = batch_loss(net)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        print(f"{name} epoch {epoch + 1}: loss {total / args.steps:.3f}; {report(net)} ({time.time() - t0:.0f} s)",
              flush=True)
    return net


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the dice dataset's folder (train/ and valid/)")
    parser.add_argument("--out", type=Path, default=Path("vision/data"))
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--steps", type=int, default=300, help="batches an epoch, for each network")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--painted", type=int, default=300, help="boards the painter draws, with dice")
    parser.add_argument("--limit", type=int, default=None, help="at most this many real pictures (a quick run)")
    parser.add_argument("--only", choices=("finder", "face"), default=None)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--init", type=Path, default=None,
                        help="weights (the .pt written beside an .onnx) to start the network trained (--only) from")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--finder", type=Path, default=None,
                        help="a finder (ONNX) whose mistakes on the pictures the face reader learns as no die")
    args = parser.parse_args(argv)
    if args.init is not None and args.only is None:
        parser.error("--init starts one network: say which with --only")
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    train = read_split(args.dataset, "train", args.limit)
    valid = read_split(args.dataset, "valid", args.limit)
    painted = painted_pictures(args.painted, args.seed + 1000) if args.painted else []
    print(f"{len(train)} real pictures to learn from, {len(valid)} held out, {len(painted)} painted boards "
          f"({time.time() - t0:.0f} s)", flush=True)
    learn = train + painted
    if args.finder is not None:
        mined = mine_negatives(learn, _finder_of(args.finder), progress=lambda n: print(
            f"  {n} of {len(learn)} pictures looked at ({time.time() - t0:.0f} s)", flush=True))
        print(f"{mined} places the finder {args.finder.name} took for a die where there is none, learnt as "
              f"no die ({time.time() - t0:.0f} s)", flush=True)
    held_faces = list(face_examples_of(valid))
    args.out.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "face"):
        def face_loss(net: nn.Module) -> torch.Tensor:
            x, y = face_batch(learn, rng, args.batch)
            out = net(torch.from_numpy(_normalise(x)).to(args.device))
            return F.cross_entropy(out, torch.from_numpy(y).to(args.device), label_smoothing=0.02)

        def face_report(net: nn.Module) -> str:
            right, wrong, none = face_figures(net, held_faces, args.device)
            n = len(held_faces)
            return (f"held-out dice {n}: right {right} ({100 * right / n:.2f}%), wrong face {wrong}, "
                    f"said no die {none}")

        face = _trained("face", FaceReader(), args, 3e-3, face_loss, face_report, t0)
        export(face, args.out / "dice_face.onnx", (1, 1, FACE_SIZE, FACE_SIZE), dynamic=False)
    if args.only in (None, "finder"):
        def finder_loss(net: nn.Module) -> torch.Tensor:
            x, heat, size, mask, weight = finder_batch(learn, rng, args.batch)
            out = net(torch.from_numpy(_normalise(x)).to(args.device))
            heat_t, size_t, mask_t, weight_t = (torch.from_numpy(a).to(args.device)
                                                for a in (heat, size, mask, weight))
            return focal(out[:, :1], heat_t, weight_t) + 0.5 * (F.l1_loss(out[:, 1:] * mask_t, size_t * mask_t,
                                                               reduction="sum") / mask_t.sum().clamp(min=1))

        def finder_report(net: nn.Module) -> str:
            found, missed, false = finder_figures(net, valid, args.device)
            return f"held-out dice found {found}, missed {missed}, false {false}"

        finder = _trained("finder", DiceFinder(), args, 4e-3, finder_loss, finder_report, t0)
        export(finder, args.out / "dice_finder.onnx", (1, 1, FINDER_SIZE, FINDER_SIZE), dynamic=True)
    print(f"written to {args.out} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
