"""Split the shipped frame network in two, so that the reader need not read
again a point whose picture has not changed since the frame it last read.

The frame network (``train_frame_reader.FrameNet``) reads each of the 24
strips alone (three convolutions and a layer: nearly all of its time), then
lets each point see the others (the mean and the most of the 24 points'
features) before the count and the pile.  This writes beside the whole
network:

- ``point_reader_points.onnx``: ``maps`` and ``aux`` of any number of
  strips to each strip's own features (``points``, (n, 160));
- ``point_reader_frame.onnx``: the 24 points' ``points`` (24·frames, 160)
  to ``count``, ``pile`` and ``features``, as the whole network gives them.

``willughby.vision.pointnet`` uses the pair only where they answer a probe
frame as the whole network does, so a network trained again and not split
again is read whole (and this script should be run again).

    /tmp/trainenv/bin/python tools/split_point_reader.py [ONNX]

needs the ``onnx`` package (the training environment has it; the product
does not).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import onnx
from onnx import helper, utils

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "vision" / "data" / "point_reader.onnx"
SPLIT_NAME = "points"            # the tensor between the two parts (``pointnet.SPLIT_TENSOR``)


def _between(model: onnx.ModelProto) -> str:
    """The name of the tensor of each strip's own features: what the first
    Reshape gathers into frames of 24 points."""
    reshapes = [n for n in model.graph.node if n.op_type == "Reshape"]
    if not reshapes:
        raise ValueError("no Reshape in the graph: not the frame network")
    return reshapes[0].input[0]


def _renamed(model: onnx.ModelProto, old: str, new: str) -> onnx.ModelProto:
    for node in model.graph.node:
        node.input[:] = [new if x == old else x for x in node.input]
        node.output[:] = [new if x == old else x for x in node.output]
    for value in list(model.graph.input) + list(model.graph.output):
        if value.name == old:
            value.name = new
    return model


def split(whole: Path) -> tuple[Path, Path]:
    """Write the two parts of *whole* beside it; their paths."""
    model = onnx.load(str(whole))
    middle = _between(model)
    points_path = whole.with_name(whole.stem + "_points.onnx")
    frame_path = whole.with_name(whole.stem + "_frame.onnx")
    tmp_points, tmp_frame = points_path.with_suffix(".tmp"), frame_path.with_suffix(".tmp")
    utils.extract_model(str(whole), str(tmp_points), ["maps", "aux"], [middle])
    utils.extract_model(str(whole), str(tmp_frame), [middle], ["count", "pile", "features"])
    for tmp, path in ((tmp_points, points_path), (tmp_frame, frame_path)):
        part = _renamed(onnx.load(str(tmp)), middle, SPLIT_NAME)
        part.doc_string = f"a part of {whole.name} (tools/split_point_reader.py)"
        onnx.checker.check_model(part)
        onnx.save(part, str(path))
        tmp.unlink()
    return points_path, frame_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("onnx", nargs="?", default=str(SHIPPED), help="the whole frame network (the shipped one)")
    args = ap.parse_args(argv)
    whole = Path(args.onnx)
    if not whole.is_file():
        print(f"no such network: {whole}", file=sys.stderr)
        return 2
    try:
        points, frame = split(whole)
    except (ValueError, onnx.checker.ValidationError) as exc:
        print(f"cannot split {whole}: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {points} ({points.stat().st_size // 1024} KiB) and {frame} ({frame.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
