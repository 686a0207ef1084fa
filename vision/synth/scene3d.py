"""The scene's solid geometry: the pinhole camera, the board in the world
(board-local millimetres to world and back), a die's axes, and how many
pixels a millimetre of the surface takes."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, overload

import numpy as np

from ..geometry import BoardGeometry

# ------------------------------------------------------------------ camera
class _Camera:
    """A pinhole camera: world (mm, z up) to pixels."""

    def __init__(self, f: float, cx: float, cy: float, R: np.ndarray, C: np.ndarray) -> None:
        self.f, self.cx, self.cy, self.R, self.C = f, cx, cy, R, C

    def to_cam(self, P: np.ndarray) -> np.ndarray:
        out: np.ndarray = (np.asarray(P, np.float64) - self.C) @ self.R.T
        return out

    def project(self, P: np.ndarray) -> np.ndarray:
        Q = self.to_cam(P)
        z = Q[..., 2:3]
        return np.concatenate([self.f * Q[..., 0:1] / z + self.cx, self.f * Q[..., 1:2] / z + self.cy], -1)

    def depth(self, P: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.linalg.norm(np.asarray(P, np.float64) - self.C, axis=-1)
        return out

    def ray_to_plane(self, px: np.ndarray, z0: float) -> np.ndarray:
        px = np.asarray(px, np.float64)
        d = np.stack([(px[..., 0] - self.cx) / self.f, (px[..., 1] - self.cy) / self.f,
                      np.ones(px.shape[:-1])], -1) @ self.R
        t = (z0 - self.C[2]) / np.minimum(d[..., 2], -1e-6)
        out: np.ndarray = self.C + t[..., None] * d
        return out


def _make_camera(f: float, size: tuple[int, int], tilt: float, az: float, roll: float,
                 dist: float, target: np.ndarray) -> _Camera:
    t, a, r = math.radians(tilt), math.radians(az), math.radians(roll)
    R0 = np.array([[1.0, 0, 0], [0, -math.cos(t), -math.sin(t)], [0, math.sin(t), -math.cos(t)]])
    Rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]])
    Rr = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1.0]])
    R = Rr @ R0 @ Rz.T
    C = target + Rz @ np.array([0.0, -dist * math.sin(t), dist * math.cos(t)])
    return _Camera(f, size[0] / 2, size[1] / 2, R, C)


# ------------------------------------------------------------------- board
@dataclass
class _Board:
    geo: BoardGeometry
    fw: float        # frame (rail) width
    rh: float        # rail height above the surface
    bh: float        # bar height above the surface
    zs: float        # surface height above the table
    yaw: float       # degrees
    mirror: bool
    bar_kind: str = "raised"   # "raised", "hinge" (a folding box's two inner rails), "flush" (no raised bar)

    @property
    def W(self) -> float:
        return self.geo.width

    @property
    def D(self) -> float:
        return self.geo.depth

    def l2w(self, u: Any, v: Any, z: Any) -> np.ndarray:
        """Board-local (u along the long edge, v across; mm) to world."""
        y = math.radians(self.yaw)
        a = np.asarray(u, np.float64) - self.W / 2
        b = -(np.asarray(v, np.float64) - self.D / 2)
        X = math.cos(y) * a - math.sin(y) * b
        Y = math.sin(y) * a + math.cos(y) * b
        Z = np.broadcast_to(np.asarray(z, np.float64), X.shape)
        return np.stack([X, Y, Z], -1)

    @overload
    def w2l(self, X: float, Y: float) -> tuple[float, float]: ...
    @overload
    def w2l(self, X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...

    def w2l(self, X: Any, Y: Any) -> tuple[Any, Any]:
        """World (X, Y) to board-local (u, v) mm: a point, or arrays of them."""
        y = math.radians(self.yaw)
        a = math.cos(y) * X + math.sin(y) * Y
        b = -math.sin(y) * X + math.cos(y) * Y
        return a + self.W / 2, self.D / 2 - b

    def dir_l2w(self, du: float, dv: float) -> np.ndarray:
        y = math.radians(self.yaw)
        a, b = du, -dv
        return np.array([math.cos(y) * a - math.sin(y) * b, math.sin(y) * a + math.cos(y) * b, 0.0])

    def g2l(self, x: Any, y: Any) -> tuple[Any, Any]:
        """Geometry (origin C3) to board-local: the mirror swaps the ends."""
        return (self.W - np.asarray(x, np.float64) if self.mirror else np.asarray(x, np.float64),
                np.asarray(y, np.float64))

    def outer_corners(self) -> np.ndarray:
        us = (-self.fw, self.W + self.fw)
        vs = (-self.fw, self.D + self.fw)
        zt = self.zs + self.rh
        return np.array([self.l2w(u, v, z) for u in us for v in vs for z in (0.0, zt)])


def _ppm(cam: _Camera, board: _Board) -> float:
    p = cam.project(board.l2w([0, board.W], [board.D / 2] * 2, board.zs))
    return float(np.linalg.norm(p[1] - p[0]) / board.W)


def _die_axes(yaw: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.array([math.cos(yaw), math.sin(yaw), 0.0]), np.array([-math.sin(yaw), math.cos(yaw), 0.0]),
            np.array([0, 0, 1.0]))
