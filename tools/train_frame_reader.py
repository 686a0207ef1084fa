"""Train the point reader that reads a frame's 24 points together, from a
network ``train_point_reader.py`` trained point by point.

The per-point network sees one point's strip.  Some of what tells a pile of
2 from a pile of 3 lies elsewhere in the frame: how thick this set of men
is (9 to 12.6 mm in the dev set), how the light falls, how the other piles
of the same start look.  This network keeps the per-point network's layers
and adds one: each point's 160 features are joined with their mean and
their maximum over the frame's 24 points, and mixed back to 160 before the
two outputs.  The new layer starts as the identity on the point's own
features and zero on the frame's, so before training the network reads
exactly as the per-point network it starts from.

It learns from whole frames (all 24 points of a frame in one batch; the
data sets of ``point_reader_data.py`` hold each frame's points together),
with empty points counting 0.4 in the loss, as the per-point training
keeps 40% of them::

    /tmp/trainenv/bin/python tools/train_frame_reader.py DATA.npz [...] \\
        --init /tmp/v11.onnx.pt --out /tmp/v12.onnx --epochs 3 --lr 5e-4

``--from-onnx FILE`` starts from an exported frame network instead (the
shipped ``vision/data/point_reader.onnx``, whose ``.pt`` weights are not
kept): its BatchNorm was folded into the convolutions at export, so the
BatchNorm layers are set to the identity and kept frozen, in eval mode, for
the whole run (``point_reader_weights.py``; ``--freeze-bn`` freezes them in
any run)::

    /tmp/trainenv/bin/python tools/train_frame_reader.py DATA.npz [...] \
        --from-onnx vision/data/point_reader.onnx --out /tmp/v13.onnx --epochs 3 --lr 3e-4 --threads 1

``--boost DATA.npz`` (repeatable) adds sets of frames that are rarer but
worth more, such as the path-traced frames of ``blender_frames.py``:
``--boost-frames`` of each batch's frames are drawn from them (with
replacement), and their held-out frames are reported on their own.

The exported network takes the strips of one frame, 24 rows (or several
frames, 24 rows each, one after another), and gives the same outputs as
before.  It prints the held-out frames' accuracy before training and after
each epoch, and exports after each epoch.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
from torch import nn

from train_point_reader import AUX, FEATURES, MAPS, PointNet, export, learn_step, load, mirrored_batches, one_cycle

POINTS = 24


def freeze_batchnorm(net: nn.Module) -> None:
    """Keep every BatchNorm of *net* as it stands: eval mode (its running
    statistics unchanged) and no gradient.  Call after each ``net.train()``."""
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
            for p in m.parameters():
                p.requires_grad_(False)


class FrameNet(nn.Module):
    def __init__(self, base: PointNet) -> None:
        super().__init__()
        self.features, self.head, self.cls, self.pile = base.features, base.head, base.cls, base.pile
        self.mix = nn.Linear(3 * FEATURES, FEATURES)
        with torch.no_grad():              # the identity on the point's own features
            self.mix.weight.zero_()
            self.mix.bias.zero_()
            self.mix.weight[:, :FEATURES] = torch.eye(FEATURES)

    def logits(self, maps: torch.Tensor, aux: torch.Tensor):
        h = self.head(torch.cat([self.features(maps).flatten(1), aux], dim=1))
        f = h.reshape(-1, POINTS, FEATURES)
        frame = torch.cat([f.mean(1, keepdim=True), f.amax(1, keepdim=True)], dim=2).expand(-1, POINTS, -1)
        g = torch.relu(self.mix(torch.cat([f, frame], dim=2))).reshape(-1, FEATURES)
        return self.cls(g), self.pile(g)

    def forward(self, maps: torch.Tensor, aux: torch.Tensor):
        c, p = self.logits(maps, aux)
        return torch.softmax(c, dim=1), torch.softmax(p, dim=1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--init", help="the per-point network's weights (.pt of train_point_reader.py)")
    ap.add_argument("--from-onnx", metavar="FILE",
                    help="start from an exported frame network (BatchNorm folded; it stays frozen)")
    ap.add_argument("--freeze-bn", action="store_true", help="keep every BatchNorm as it is (eval mode, no gradient)")
    ap.add_argument("--threads", type=int, default=0, help="torch's CPU threads (default: torch's own choice)")
    ap.add_argument("--resume", help="start from a frame network's weights (.pt this script wrote)")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--frames", type=int, default=12, help="frames to a batch")
    ap.add_argument("--held-out", type=float, default=0.04)
    ap.add_argument("--empty-weight", type=float, default=0.4)
    ap.add_argument("--boost", action="append", default=[], help="a set drawn into every batch (repeatable)")
    ap.add_argument("--boost-frames", type=int, default=3, help="frames of each batch from the --boost sets")
    args = ap.parse_args(argv)
    if args.boost and not 0 < args.boost_frames < args.frames:
        ap.error("--boost-frames must be more than 0 and fewer than --frames")
    if sum(x is not None for x in (args.init, args.from_onnx)) != 1:
        ap.error("give one of --init and --from-onnx")
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    if args.from_onnx:
        from point_reader_weights import frame_net_from_onnx
        net = frame_net_from_onnx(args.from_onnx)
        args.freeze_bn = True               # the identity BatchNorm must stay so
    else:
        base = PointNet()
        base.load_state_dict(torch.load(args.init))
        net = FrameNet(base)
    if args.resume:
        net.load_state_dict(torch.load(args.resume))

    def train_mode() -> None:
        net.train()
        if args.freeze_bn:
            freeze_batchnorm(net)
    maps, aux, cls, pile, _ = load(args.data + args.boost)
    if len(cls) % POINTS:
        ap.error("the data sets must hold whole frames of 24 points")
    n_frames = len(cls) // POINTS
    n_boost = sum(len(np.load(p)["cls"]) for p in args.boost) // POINTS   # the boost sets come last
    boosted = np.arange(n_frames) >= n_frames - n_boost
    rng = np.random.default_rng(0)
    held = rng.random(n_frames) < np.where(boosted, max(args.held_out, 0.1), args.held_out)
    learn, test = np.flatnonzero(~held & ~boosted), np.flatnonzero(held & ~boosted)
    learn_boost, test_boost = np.flatnonzero(~held & boosted), np.flatnonzero(held & boosted)
    Xm, Xa, Yc, Yp = (torch.from_numpy(a) for a in (maps, aux, cls, pile))

    def rows(frames: np.ndarray) -> torch.Tensor:
        return torch.from_numpy((frames[:, None] * POINTS + np.arange(POINTS)).ravel())

    def held_out(frames: np.ndarray = test, what: str = "held-out") -> str:
        net.eval()
        right_c = right_p = exact = 0
        with torch.no_grad():
            for k in range(0, len(frames), 40):
                b = rows(frames[k:k + 40])
                pc, pp = net(Xm[b].float(), Xa[b])
                ok_c = pc.argmax(1) == Yc[b]
                ok_p = ok_c & (pp.argmax(1) == Yp[b])
                right_c, right_p = right_c + int(ok_c.sum()), right_p + int(ok_p.sum())
                exact += int(ok_p.reshape(-1, POINTS).all(1).sum())
        n = max(1, len(frames) * POINTS)
        text = (f"{what} points {right_c / n:.4%} counts right, {right_p / n:.4%} with piles; "
                f"frames exact {exact}/{len(frames)}")
        if what == "held-out" and len(test_boost):
            text += "; " + held_out(test_boost, "boost held-out")
        return text

    print(f"{len(learn)} frames to learn from, {len(test)} held out"
          + (f"; boost sets: {len(learn_boost)} to learn from, {len(test_boost)} held out" if n_boost else "")
          + f"; before: {held_out()}", flush=True)
    per_batch = args.frames - args.boost_frames if n_boost else args.frames
    opt, sched = one_cycle(net, args.lr, args.epochs * (len(learn) // per_batch + 1))
    ce = nn.CrossEntropyLoss(reduction="none")
    for epoch in range(args.epochs):
        train_mode()
        t0 = time.perf_counter()
        order = rng.permutation(learn)
        if n_boost:                 # every batch: per_batch frames in turn, then boost frames drawn at random
            batches = [np.concatenate([order[k:k + per_batch], rng.choice(learn_boost, args.boost_frames)])
                       for k in range(0, len(order), per_batch)]
            order = np.concatenate(batches)
        total = 0.0
        for b, m, a in mirrored_batches(order, args.frames, rows, Xm, Xa, rng):
            lc, lp = net.logits(m, a)
            w = torch.where(Yc[b] == 0, args.empty_weight, 1.0)
            total += learn_step(opt, sched, ((ce(lc, Yc[b]) + 0.5 * ce(lp, Yp[b])) * w).sum() / w.sum())
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / (len(order) / args.frames):.4f} "
              f"({time.perf_counter() - t0:.0f} s); {held_out()}", flush=True)
        export(net, args.out, MAPS, AUX, rows=POINTS)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
