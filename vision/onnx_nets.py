"""The learnt networks, loaded for OpenCV to run on the CPU.

The point reader (``pointnet``) and the dice reader (``dice_reader``) are
ONNX files that OpenCV's ``dnn`` module runs. OpenCV 5.0 reads such a file
with one of several engines. Left to choose, it takes its new graph engine,
which runs on the CPU only and takes no backend or target (it warns on
stderr at every start if given a target, so none is set there). On the dice
reader's networks (plain 3 x 3 convolutions) that engine is the slower: the
dice finder took 12.2 ms a board on one core here against 7.8 ms with the
classic engine, the face reader 10.2 against 9.2 ms for eight squares, their
outputs the same to within 1e-5. So the dice reader asks for the classic
engine (``classic``), told to run on the CPU. The point reader cannot:
OpenCV 5.0's classic importer refuses its network (a Concat of the point's
and the frame's features "inconsistent shape"), so it is left to OpenCV's
choice. OpenCV 5.1 has no classic engine (its ``ENGINE_OPENCV`` is the graph
engine, its ``ENGINE_AUTO`` that one too), so there both readers run on the
graph engine, with nothing set on it. OpenCV 4 has only the classic engine.

>>> onnx_net("/nonexistent.onnx")
Traceback (most recent call last):
...
FileNotFoundError: /nonexistent.onnx
"""

from __future__ import annotations

import os

import cv2

__all__ = ["onnx_net"]


def onnx_net(path: str | os.PathLike[str], classic: bool = False) -> "cv2.dnn.Net":
    """The network in the ONNX file *path*, to run on the CPU; with *classic*, by OpenCV's classic engine
    where OpenCV has one (see the module docstring). A missing file is a FileNotFoundError; a file
    OpenCV cannot read, its ``cv2.error``."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(path)
    dnn = cv2.dnn
    if hasattr(dnn, "ENGINE_AUTO"):     # OpenCV 5: a choice of engines
        classic_engine = getattr(dnn, "ENGINE_CLASSIC", None)    # gone in 5.1
        if not classic or classic_engine is None:
            # OpenCV's own choice, the graph engine: the CPU only, and no backend or target to set
            return dnn.readNetFromONNX(path)
        net = dnn.readNetFromONNX(path, engine=classic_engine)
    else:                               # OpenCV 4: the classic engine alone
        net = dnn.readNetFromONNX(path)
    net.setPreferableBackend(dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(dnn.DNN_TARGET_CPU)
    return net
