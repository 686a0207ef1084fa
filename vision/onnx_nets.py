"""The learnt networks, loaded for OpenCV to run on the CPU.

The point reader (``pointnet``) and the dice reader (``dice_reader``) are
ONNX files that OpenCV's ``dnn`` module runs. OpenCV 5 reads such a file
with one of several engines. Left to choose, it takes its new graph engine,
which runs on the CPU only (and warns at every start if given a target, so
none is set there). On the dice reader's networks (plain 3 x 3
convolutions) that engine is the slower: the dice finder took 12.2 ms a
board on one core here against 7.8 ms with the classic engine, the face
reader 10.2 against 9.2 ms for eight squares, their outputs the same to
within 1e-5. So the dice reader asks for the classic engine (``classic``).
The point reader cannot: OpenCV 5's classic importer refuses its network
(a Concat of the point's and the frame's features "inconsistent shape"),
so it is left to OpenCV's choice. OpenCV 4 has only the classic engine.

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
    where OpenCV offers a choice (see the module docstring). A missing file is a FileNotFoundError; a file
    OpenCV cannot read, its ``cv2.error``."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(path)
    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None) if classic else None
    net = cv2.dnn.readNetFromONNX(path) if engine is None else cv2.dnn.readNetFromONNX(path, engine=engine)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    if engine is not None or not hasattr(cv2.dnn, "ENGINE_NEW"):
        net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    return net
