"""Average the weights of two point reader networks of the same shape.

Two fine-tunes of one network, started from the same weights, each get a
few boards wrong that the other reads; the network whose every weight is
the mean of theirs (a "weight average", or "model soup") often reads
better than either and costs nothing more to run, unlike running both::

    /tmp/trainenv/bin/python tools/average_point_readers.py A.onnx.pt B.onnx.pt \\
        --out vision/data/point_reader.onnx [--weight 0.5]

*--weight* is B's share.  The .pt files are those ``train_point_reader.py``
writes beside its ONNX file; the averaged weights are written the same way.
Two ONNX files of the frame network (the shipped one, and what
``train_on_device.py`` or ``train_frame_reader.py`` exports) are read back
into it (``point_reader_weights.frame_net_from_onnx``: BatchNorm folded at
export) and averaged the same way::

    /tmp/trainenv/bin/python tools/average_point_readers.py vision/data/point_reader.onnx /tmp/tod/point_reader.onnx \
        --out /tmp/mean.onnx

Needs PyTorch, as training does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_point_reader import AUX, MAPS, PointNet, export  # noqa: E402


def average(a: dict, b: dict, weight: float) -> dict:
    """(1 - weight) * a + weight * b for every float tensor; counters are b's."""
    if a.keys() != b.keys() or any(a[k].shape != b[k].shape for k in a):
        raise ValueError("the two networks are not of the same shape")
    return {k: a[k] * (1 - weight) + b[k] * weight if a[k].is_floating_point() else b[k] for k in a}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="weights (.pt) of the first network")
    ap.add_argument("b", help="weights (.pt) of the second network")
    ap.add_argument("--out", required=True, help="the averaged network's ONNX file")
    ap.add_argument("--weight", type=float, default=0.5, help="the second network's share (default 0.5)")
    args = ap.parse_args(argv)
    if not 0 <= args.weight <= 1:
        ap.error(f"--weight must be 0..1, not {args.weight}")
    onnx = [str(p).endswith(".onnx") for p in (args.a, args.b)]
    if any(onnx) and not all(onnx):
        ap.error("give two .onnx files (frame networks) or two .pt files (point networks), not one of each")
    try:
        if all(onnx):
            from point_reader_weights import frame_net_from_onnx
            from train_frame_reader import POINTS

            net = frame_net_from_onnx(args.a)
            sd = average(net.state_dict(), frame_net_from_onnx(args.b).state_dict(), args.weight)
            rows = {"rows": POINTS}
        else:
            sd = average(torch.load(args.a, map_location="cpu"), torch.load(args.b, map_location="cpu"), args.weight)
            net, rows = PointNet(), {}
    except (OSError, RuntimeError, ValueError) as exc:
        ap.error(str(exc))
    net.load_state_dict(sd)
    net.eval()
    export(net, args.out, MAPS, AUX, **rows)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
