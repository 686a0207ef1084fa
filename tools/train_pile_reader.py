"""Train the pile reader: from a point's edge patch (1 mm per pixel) to
whether its men at the edge stand in a pile of 2, of 3, or lie flat.
Exported as ONNX for ``willughby.vision.pointnet``.  Needs PyTorch and onnx
(see ``tools/train_point_reader.py``)::

    /tmp/trainenv/bin/python tools/train_pile_reader.py DATA.npz [...] --out vision/data/pile_reader.onnx
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
from torch import nn

from train_point_reader import conv_features, mirror


class PileNet(nn.Module):
    def __init__(self, channels: int = 4, aux: int = 6, length: int = 100, width: int = 56) -> None:
        super().__init__()
        self.features = conv_features(channels, (12, 24, 32))
        flat = 32 * (length // 8) * (width // 8)
        self.head = nn.Sequential(nn.Linear(flat + aux, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 3))

    def logits(self, maps, aux):
        return self.head(torch.cat([self.features(maps).flatten(1), aux], dim=1))

    def forward(self, maps, aux):
        return torch.softmax(self.logits(maps, aux), dim=1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    parts = [np.load(p) for p in args.data]
    X = torch.from_numpy(np.concatenate([d["maps"] for d in parts]))
    A = torch.from_numpy(np.concatenate([d["aux"] for d in parts]).astype(np.float32))
    Y = torch.from_numpy(np.concatenate([d["pile"] for d in parts]))
    frame = np.concatenate([d["image"] + 100000 * k for k, d in enumerate(parts)])
    rng = np.random.default_rng(0)
    frames = np.unique(frame)
    held = set(rng.choice(frames, max(1, len(frames) // 20), replace=False).tolist())
    test = np.array([f in held for f in frame])
    train_idx, test_idx = np.flatnonzero(~test), torch.from_numpy(np.flatnonzero(test))
    print(f"{len(Y)} patches ({len(train_idx)} to learn from, {len(test_idx)} held out); "
          f"piles {np.bincount(Y.numpy(), minlength=3).tolist()}", flush=True)
    net = PileNet()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr,
                                                total_steps=args.epochs * (len(train_idx) // args.batch + 1))
    ce = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        net.train()
        t0 = time.perf_counter()
        total = 0.0
        order = rng.permutation(train_idx)
        for k in range(0, len(order), args.batch):
            b = torch.from_numpy(order[k:k + args.batch])
            m, a = X[b].float(), A[b]
            if rng.random() < 0.5:
                m, a = mirror(m, a)
            loss = ce(net.logits(m, a), Y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(b)
        net.eval()
        with torch.no_grad():
            got = net(X[test_idx].float(), A[test_idx]).argmax(1)
        right = (got == Y[test_idx])
        piles = Y[test_idx] > 0
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / len(train_idx):.4f}, held out {right.float().mean():.4%} "
              f"right, on piles {right[piles].float().mean():.4%} ({time.perf_counter() - t0:.0f} s)", flush=True)
    net.eval()
    torch.save(net.state_dict(), args.out + ".pt")
    torch.onnx.export(net, (torch.zeros(1, *X.shape[1:]), torch.zeros(1, A.shape[1])), args.out,
                      input_names=["maps", "aux"], output_names=["pile"],
                      dynamic_axes={"maps": {0: "n"}, "aux": {0: "n"}, "pile": {0: "n"}},
                      opset_version=13, dynamo=False)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
