"""The shipped point reader's weights, for PyTorch: fill the frame network of
``train_frame_reader.py`` from ``vision/data/point_reader.onnx`` (only the
ONNX file ships; the ``.pt`` weights it was exported from do not), so a
fine-tuning run can start where the shipped network stands.

The export folded each BatchNorm into the convolution before it, so the
ONNX file holds folded convolution weights and no BatchNorm.  They are
loaded into the convolutions as they are, and each BatchNorm is set to the
identity (mean 0, variance 1 - eps, weight 1, bias 0); a run that starts
from them must keep the BatchNorm layers frozen in eval mode
(``freeze_batchnorm``), or the identity is lost at the first batch.

    /tmp/trainenv/bin/python tools/point_reader_weights.py [ONNX] [--out W.pt] [--data DATA.npz]

checks the loaded network against OpenCV's own inference of the ONNX file
(as ``willughby.vision.pointnet`` runs it) on the same frames, the strips of
*DATA* (``point_reader_data.py``) or random ones, and prints the largest
difference of the outputs; it fails above 1e-4.  OpenCV runs in the
project's own environment (``--cv2-python``), as torch runs in the training
one.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_frame_reader import POINTS, FrameNet, freeze_batchnorm  # noqa: E402,F401
from train_point_reader import AUX, MAPS, PointNet  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "vision" / "data" / "point_reader.onnx"
TOLERANCE = 1e-4


def onnx_weights(path: str | Path) -> dict[str, np.ndarray]:
    """The frame network's parameters from an exported ONNX file, by the
    names of ``FrameNet``'s state dict (BatchNorm left out: it is folded)."""
    model = onnx.load(str(path))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    nodes = model.graph.node
    convs = [n for n in nodes if n.op_type == "Conv"]
    gemms = {n.input[1]: n for n in nodes if n.op_type == "Gemm"}
    matmuls = [n for n in nodes if n.op_type == "MatMul"]
    if len(convs) != 3 or len(matmuls) != 1:
        raise ValueError(f"{path}: not the frame network's graph ({len(convs)} convolutions, "
                         f"{len(matmuls)} matrix products)")
    if any(n.op_type == "BatchNormalization" for n in nodes):
        raise ValueError(f"{path}: BatchNorm not folded; load it with torch's own weights instead")
    out: dict[str, np.ndarray] = {}
    for k, node in zip((0, 4, 8), convs):       # Conv, BatchNorm, ReLU, MaxPool per stage
        out[f"features.{k}.weight"] = init[node.input[1]]
        out[f"features.{k}.bias"] = init[node.input[2]]
    for name in ("head.0", "cls", "pile"):
        if f"{name}.weight" not in gemms:
            raise ValueError(f"{path}: no {name} layer")
        out[f"{name}.weight"] = init[f"{name}.weight"]
        out[f"{name}.bias"] = init[f"{name}.bias"]
    out["mix.weight"] = init[matmuls[0].input[1]].T        # exported as x @ W.T
    out["mix.bias"] = init["mix.bias"]
    return out


def identity_batchnorm(net: nn.Module) -> None:
    """Every BatchNorm of *net* the identity in eval mode."""
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.zero_()
                m.running_var.fill_(1.0 - m.eps)
                m.weight.fill_(1.0)
                m.bias.zero_()


def frame_net_from_onnx(path: str | Path = SHIPPED) -> FrameNet:
    """A ``FrameNet`` that computes what the ONNX file does (BatchNorm the identity)."""
    net = FrameNet(PointNet())
    state = net.state_dict()
    for name, value in onnx_weights(path).items():
        if tuple(state[name].shape) != value.shape:
            raise ValueError(f"{path}: {name} is {value.shape}, the network wants {tuple(state[name].shape)}")
        state[name] = torch.from_numpy(np.array(value, np.float32))
    net.load_state_dict(state)
    identity_batchnorm(net)
    net.eval()
    return net


_CV2_SCRIPT = """
import sys, cv2, numpy as np
d = np.load(sys.argv[2])
net = cv2.dnn.readNetFromONNX(sys.argv[1])
if not hasattr(cv2.dnn, "ENGINE_AUTO"):    # OpenCV 4's classic engine; OpenCV 5's graph engine takes no target
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
count, pile = [], []
for k in range(0, len(d["maps"]), 24):
    net.setInput(np.ascontiguousarray(d["maps"][k:k + 24], np.float32), "maps")
    net.setInput(np.ascontiguousarray(d["aux"][k:k + 24], np.float32), "aux")
    c, p = net.forward(["count", "pile"])
    count.append(c.copy()); pile.append(p.copy())
np.savez(sys.argv[3], count=np.concatenate(count), pile=np.concatenate(pile))
"""


def cv2_outputs(onnx_path: Path, maps: np.ndarray, aux: np.ndarray, python: str) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's outputs for the frames (*maps*, *aux*: 24 rows each), run by *python*."""
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = Path(tmp) / "in.npz", Path(tmp) / "out.npz"
        np.savez(inp, maps=maps, aux=aux)
        subprocess.run([python, "-c", _CV2_SCRIPT, str(onnx_path), str(inp), str(out)], check=True)
        d = np.load(out)
        return d["count"], d["pile"]


def check_inputs(data: str | None, frames: int) -> tuple[np.ndarray, np.ndarray]:
    """*frames* whole frames of strips from *data*, or random strips."""
    if data:
        d = np.load(data)
        n = min(frames, len(d["cls"]) // POINTS) * POINTS
        return d["maps"][:n].astype(np.float32), d["aux"][:n].astype(np.float32)
    rng = np.random.default_rng(0)
    return (rng.uniform(0, 1, (frames * POINTS, *MAPS)).astype(np.float32),
            rng.normal(0, 0.5, (frames * POINTS, AUX)).astype(np.float32))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("onnx", nargs="?", default=str(SHIPPED))
    ap.add_argument("--out", help="save the loaded weights here (a .pt for train_frame_reader.py --resume)")
    ap.add_argument("--data", help="check on the frames of this data set (default: random strips)")
    ap.add_argument("--frames", type=int, default=20, help="frames to check on (default 20)")
    ap.add_argument("--cv2-python", default=str(ROOT / ".venv" / "bin" / "python"),
                    help="a Python with OpenCV, to run the ONNX file as the reader does")
    args = ap.parse_args(argv)
    net = frame_net_from_onnx(args.onnx)
    maps, aux = check_inputs(args.data, args.frames)
    with torch.no_grad():
        tc, tp = (t.numpy() for t in net(torch.from_numpy(maps), torch.from_numpy(aux)))
    cc, cp = cv2_outputs(Path(args.onnx), maps, aux, args.cv2_python)
    diff = max(float(np.abs(tc - cc).max()), float(np.abs(tp - cp).max()))
    agree = float((tc.argmax(1) == cc.argmax(1)).mean())
    print(f"{args.onnx}: torch against cv2.dnn on {len(maps) // POINTS} frames "
          f"({'from ' + args.data if args.data else 'random strips'}): largest difference {diff:.2e}, "
          f"readings agree on {agree:.2%} of points")
    if args.out:
        torch.save(net.state_dict(), args.out)
        print(f"wrote {args.out}")
    if diff > TOLERANCE:
        print(f"FAILED: above {TOLERANCE:g}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
