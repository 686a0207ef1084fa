"""How the learnt networks are loaded (``vision/onnx_nets.py``): the engine
asked of each OpenCV release, and no backend or target set on an engine that
takes none (OpenCV 5's graph engine warns on stderr at every start if given
a target)."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from willughby.vision import onnx_nets
from willughby.vision.dice_reader import FACE_PATH, FINDER_PATH
from willughby.vision.onnx_nets import onnx_net


class _FakeNet:
    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.calls: list[str] = []

    def setPreferableBackend(self, backend: int) -> None:  # noqa: N802 (OpenCV's name)
        self.calls.append(f"backend {backend}")

    def setPreferableTarget(self, target: int) -> None:  # noqa: N802
        self.calls.append(f"target {target}")


def _fake_dnn(**engines: int) -> types.SimpleNamespace:
    """A ``cv2.dnn`` with the engine constants *engines*, whose reader records the engine asked for."""
    def read(path: str, engine: Any = None) -> _FakeNet:
        return _FakeNet(engine)
    return types.SimpleNamespace(readNetFromONNX=read, DNN_BACKEND_OPENCV=0, DNN_TARGET_CPU=0, **engines)


OPENCV_4: dict[str, int] = {}
OPENCV_5_0 = {"ENGINE_CLASSIC": 1, "ENGINE_NEW": 2, "ENGINE_AUTO": 3, "ENGINE_ORT": 4}
OPENCV_5_1 = {"ENGINE_AUTO": 0, "ENGINE_OPENCV": 1, "ENGINE_ORT": 2}   # no classic engine left


@pytest.mark.parametrize("release, classic, engine, calls", [
    # OpenCV 4 has the classic engine alone, which takes the CPU as its target
    (OPENCV_4, True, None, ["backend 0", "target 0"]),
    (OPENCV_4, False, None, ["backend 0", "target 0"]),
    # OpenCV 5.0: the classic engine where asked for, and told the CPU; else OpenCV's choice, left alone
    (OPENCV_5_0, True, 1, ["backend 0", "target 0"]),
    (OPENCV_5_0, False, None, []),
    # OpenCV 5.1 has only its graph engine: asked for the classic engine or not, nothing is set on it
    (OPENCV_5_1, True, None, []),
    (OPENCV_5_1, False, None, []),
], ids=["4-classic", "4", "5.0-classic", "5.0", "5.1-classic", "5.1"])
def test_each_opencv_release_is_asked_for_an_engine_it_has_and_an_engine_without_targets_is_given_none(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, release: dict[str, int], classic: bool,
        engine: int | None, calls: list[str]) -> None:
    path = tmp_path / "net.onnx"
    path.write_bytes(b"")
    monkeypatch.setattr(onnx_nets.cv2, "dnn", _fake_dnn(**release))
    net: Any = onnx_net(path, classic=classic)
    assert (net.engine, net.calls) == (engine, calls)


@pytest.mark.skipif(not hasattr(cv2.dnn, "ENGINE_CLASSIC"), reason="this OpenCV has no classic engine (5.1 on)")
@pytest.mark.parametrize("path", [FINDER_PATH, FACE_PATH], ids=["finder", "face"])
def test_the_dice_reader_really_runs_on_the_classic_engine_where_opencv_has_one(path: Path) -> None:
    net = onnx_net(path, classic=True)
    # the classic engine keeps an input layer and its own convolutions; the graph engine has
    # neither (its convolution is ``Conv2``)
    types_ = set(net.getLayerTypes())
    assert {"__NetInputLayer__", "Convolution"} <= types_, types_
    assert "Conv2" not in types_


@pytest.mark.skipif(not hasattr(cv2.dnn, "ENGINE_CLASSIC"), reason="this OpenCV has no classic engine (5.1 on)")
def test_the_point_reader_is_refused_by_the_classic_engine_so_it_is_left_to_opencvs_choice() -> None:
    from willughby.vision.pointnet import MODEL_PATH, available

    if not available():
        pytest.skip("the trained point reader is not installed")
    with pytest.raises(cv2.error):
        cv2.dnn.readNetFromONNX(str(MODEL_PATH), engine=getattr(cv2.dnn, "ENGINE_CLASSIC"))
    net = onnx_net(MODEL_PATH)
    assert "__NetInputLayer__" not in net.getLayerTypes()   # the graph engine read it
