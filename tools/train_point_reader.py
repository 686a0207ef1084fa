"""Train the point reader: a small convolutional network, from point strips
(``tools/point_reader_data.py``) to the men on a point, exported as ONNX
for OpenCV's own inference (``willughby.vision.pointnet``).

Training needs PyTorch and onnx, which the package itself does not (at run
time OpenCV reads the exported file, on the CPU)::

    python -m venv /tmp/trainenv
    /tmp/trainenv/bin/pip install torch==2.13.0 onnx numpy
    /tmp/trainenv/bin/python tools/train_point_reader.py DATA.npz [DATA2.npz ...] \
        --out vision/data/point_reader.onnx

It prints the loss and the held-out accuracy after each epoch.  The held-out
frames are whole frames (all 24 points of a frame on one side of the split).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
from torch import nn

CLASSES = 31          # 0 empty, 1..15 light, 16..30 dark
PILES = 3             # no pile, a pile of 2, a pile of 3
MAPS = (4, 140, 28)   # a strip's channels, length and width (willughby.vision.strips)
AUX = 6               # the camera numbers given with each strip
FEATURES = 160        # what the layers before the two outputs make of a point


def conv_features(channels: int, widths: tuple[int, ...]) -> nn.Sequential:
    """3x3 convolutions, each normalised, rectified and halved by pooling."""
    layers: list[nn.Module] = []
    for width in widths:
        layers += [nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2)]
        channels = width
    return nn.Sequential(*layers)


class PointNet(nn.Module):
    def __init__(self, channels: int = MAPS[0], aux: int = AUX, length: int = MAPS[1], width: int = MAPS[2]) -> None:
        super().__init__()
        self.features = conv_features(channels, (16, 24, 32))
        flat = 32 * (length // 8) * (width // 8)
        self.head = nn.Sequential(nn.Linear(flat + aux, FEATURES), nn.ReLU(), nn.Dropout(0.2))
        self.cls = nn.Linear(FEATURES, CLASSES)
        self.pile = nn.Linear(FEATURES, PILES)

    def forward(self, maps: torch.Tensor, aux: torch.Tensor):
        f = self.features(maps).flatten(1)
        h = self.head(torch.cat([f, aux], dim=1))
        return torch.softmax(self.cls(h), dim=1), torch.softmax(self.pile(h), dim=1)

    def logits(self, maps, aux):
        f = self.features(maps).flatten(1)
        h = self.head(torch.cat([f, aux], dim=1))
        return self.cls(h), self.pile(h)


def mirror(maps: torch.Tensor, aux: torch.Tensor):
    """The same point seen in a mirror across its axis: the strip flipped
    across, and the across components of the camera numbers negated (as
    ``willughby.vision.strips.Strips.mirrored`` does at run time; its
    ``AUX_ACROSS`` names the same two numbers)."""
    aux = aux.clone()
    aux[:, 0] = -aux[:, 0]
    aux[:, 2] = -aux[:, 2]
    return torch.flip(maps, dims=[3]), aux


def export(net: nn.Module, out: str, maps_shape: tuple[int, ...], aux_len: int, rows: int = 1) -> None:
    """Save the weights beside *out* (``out + ".pt"``, to start a later run
    from) and the network as ONNX for OpenCV (``out``), traced with *rows*
    strips (a network that reads whole frames needs 24)."""
    net.eval()
    torch.save(net.state_dict(), out + ".pt")
    dummy = (torch.zeros(rows, *maps_shape), torch.zeros(rows, aux_len))
    torch.onnx.export(net, dummy, out, input_names=["maps", "aux"], output_names=["count", "pile"],
                      dynamic_axes={"maps": {0: "n"}, "aux": {0: "n"}, "count": {0: "n"}, "pile": {0: "n"}},
                      opset_version=13, dynamo=False)
    add_features_output(out)


def add_features_output(path: str) -> bool:
    """Give the ONNX file at *path* a third output, ``features``: what the
    layers before the two outputs make of each point (the input of the
    count's last layer, ``FEATURES`` numbers a point), which the reader
    adapts to a board on (``willughby.vision.board_head``).  The weights and
    the other outputs are unchanged.  False where it has one already."""
    import onnx

    model = onnx.load(path)
    if any(o.name == "features" for o in model.graph.output):
        return False
    producer = {o: n for n in model.graph.node for o in n.output}
    softmax = producer["count"]
    gemm = producer[softmax.input[0]]
    model.graph.node.append(onnx.helper.make_node("Identity", [gemm.input[0]], ["features"], name="features"))
    model.graph.output.append(onnx.helper.make_tensor_value_info("features", onnx.TensorProto.FLOAT,
                                                                 ["n", FEATURES]))
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return True


def one_cycle(net: nn.Module, lr: float, steps: int):
    """AdamW and a one-cycle schedule peaking at *lr*, over *steps* batches."""
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    return opt, torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)


def mirrored_batches(order: np.ndarray, size: int, rows, maps: torch.Tensor, aux: torch.Tensor,
                     rng: np.random.Generator):
    """(rows, maps, aux) of each batch of *size* from *order* (``rows``
    turns a slice of it into the strips' rows), every other batch at random
    seen in a mirror (``mirror``)."""
    for k in range(0, len(order), size):
        b = rows(order[k:k + size])
        m, a = maps[b].float(), aux[b]
        if rng.random() < 0.5:
            m, a = mirror(m, a)
        yield b, m, a


def learn_step(opt, sched, loss: torch.Tensor) -> float:
    """One step down *loss*; its value."""
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    return float(loss.detach())


def load(paths: list[str]):
    """The strips of the data sets *paths*, one after another: (maps, aux,
    cls, pile, the loaded sets).  The strips are most of the memory: they
    fill one array part by part rather than holding every part and their
    concatenation at once."""
    parts = [np.load(p) for p in paths]
    sizes = [len(d["cls"]) for d in parts]
    first = parts[0]["maps"]
    maps = np.empty((sum(sizes), *first.shape[1:]), first.dtype)
    del first
    at = 0
    for d, n in zip(parts, sizes):
        maps[at:at + n] = d["maps"]
        at += n
    aux = np.concatenate([d["aux"] for d in parts]).astype(np.float32)
    cls = np.concatenate([d["cls"] for d in parts])
    pile = np.concatenate([d["pile"] for d in parts])
    return maps, aux, cls, pile, parts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--held-out", type=float, default=0.05)
    ap.add_argument("--init", help="start from these weights (a .pt file this script wrote)")
    ap.add_argument("--keep-empty", type=float, default=0.4,
                    help="share of the empty points to learn from (they are most of the points)")
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    maps, aux, cls, pile, parts = load(args.data)
    frame = np.concatenate([d["image"] + 100000 * k for k, d in enumerate(parts)])
    rng = np.random.default_rng(0)
    frames = np.unique(frame)
    held = set(rng.choice(frames, int(len(frames) * args.held_out), replace=False).tolist())
    test = np.array([f in held for f in frame])
    print(f"{len(cls)} points ({(~test).sum()} to learn from, {test.sum()} held out); "
          f"classes {np.bincount(cls, minlength=CLASSES).tolist()}", flush=True)
    Xm = torch.from_numpy(maps)
    Xa = torch.from_numpy(aux)
    Yc = torch.from_numpy(cls)
    Yp = torch.from_numpy(pile)
    train_idx = np.flatnonzero(~test & ((cls > 0) | (rng.random(len(cls)) < args.keep_empty)))
    test_idx = torch.from_numpy(np.flatnonzero(test))
    net = PointNet()
    if args.init:
        net.load_state_dict(torch.load(args.init))
    opt, sched = one_cycle(net, args.lr, args.epochs * (len(train_idx) // args.batch + 1))
    ce = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        net.train()
        t0 = time.perf_counter()
        order = rng.permutation(train_idx)
        total = 0.0
        for b, m, a in mirrored_batches(order, args.batch, torch.from_numpy, Xm, Xa, rng):
            lc, lp = net.logits(m, a)
            total += learn_step(opt, sched, ce(lc, Yc[b]) + 0.5 * ce(lp, Yp[b])) * len(b)
        net.eval()
        with torch.no_grad():
            right_c = right_p = 0
            for k in range(0, len(test_idx), 1024):
                b = test_idx[k:k + 1024]
                pc, pp = net(Xm[b].float(), Xa[b])
                right_c += int((pc.argmax(1) == Yc[b]).sum())
                right_p += int(((pc.argmax(1) == Yc[b]) & (pp.argmax(1) == Yp[b])).sum())
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / len(order):.4f}, held-out points "
              f"{right_c / len(test_idx):.4%} counts right, {right_p / len(test_idx):.4%} with piles "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    export(net, args.out, tuple(maps.shape[1:]), aux.shape[1])
    with torch.no_grad():
        pc, pp = net(Xm[test_idx[:64]].float(), Xa[test_idx[:64]])
    np.savez(args.out + ".check.npz", maps=Xm[test_idx[:64]].float().numpy(), aux=Xa[test_idx[:64]].numpy(),
             count=pc.numpy(), pile=pp.numpy())
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
