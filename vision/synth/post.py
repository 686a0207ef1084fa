"""After painting: the room light's fall-off over the scene, vignetting,
colour cast, exposure and the camera's tone curve; then the lens blur and
sensor noise (the JPEG round trip is the renderer's)."""

from __future__ import annotations

import math
from typing import Any, Mapping

import cv2
import numpy as np

from .scene3d import _Board, _Camera
from .styles import LENSES


def _post_params(rng: np.random.Generator, lens: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Exposure, tone, light fall-off and camera-effect settings of one
    picture; the camera effects in the ranges of *lens* (the training lens
    when None)."""
    lens = lens or LENSES["pi_camera"]
    return {
        "exposure": round(float(rng.uniform(-0.2, 0.25)), 2),
        "contrast": round(float(rng.uniform(-0.2, 0.25)), 2),
        "cast_jitter": [round(float(x), 3) for x in rng.uniform(-0.03, 0.03, 3)],
        "vignette": round(float(rng.uniform(*lens["vignette"])), 3),
        "blur": round(float(rng.uniform(*lens["blur"])), 2),
        "noise": round(float(rng.uniform(*lens["noise"])), 2),
        "jpeg_q": int(rng.integers(*lens["jpeg_q"])),
        "falloff": round(float(rng.uniform(0.05, 0.22)), 3),
        "falloff_dir": round(float(rng.uniform(0, 2 * np.pi)), 3),
        "lamp": [round(float(x), 1) for x in (*rng.uniform(-500, 500, 2), rng.uniform(700, 1500))],
        "lamp_power": round(float(rng.uniform(1.0, 2.2)), 2),
    }


def _light_and_tone(img: np.ndarray, cam: _Camera, board: _Board,
                    lighting: Mapping[str, Any], post: Mapping[str, Any]) -> np.ndarray:
    """The light's fall-off over the scene (a window's gradient or a lamp's
    pool), vignetting, colour cast, exposure and the camera's tone curve;
    and where *post* has a ``glare`` (x, y, radius mm on the surface,
    strength), a lamp's hot spot reflected off the board, washing it out
    towards white."""
    h, w = img.shape[:2]
    gw = 64
    gh = max(2, int(round(gw * h / w)))
    gx, gy = np.meshgrid((np.arange(gw) + 0.5) * w / gw, (np.arange(gh) + 0.5) * h / gh)
    P = cam.ray_to_plane(np.stack([gx, gy], -1), board.zs)
    X, Y = P[..., 0], P[..., 1]
    if lighting["falloff"] == "gradient":
        a = post["falloff_dir"]
        t = (X * math.cos(a) + Y * math.sin(a)) / 600.0
        I = 1 + post["falloff"] * np.tanh(t)
        I *= 1 - 0.5 * post["falloff"] * np.tanh((X ** 2 + Y ** 2) / 1.2e6)
    else:
        lx, ly, lh = post["lamp"]
        if lighting["falloff"] == "spot_wide":
            lh *= 1.6
        r2 = (X - lx) ** 2 + (Y - ly) ** 2
        I = (lh ** 2 / (lh ** 2 + r2)) ** post["lamp_power"]
        I0 = (lh ** 2 / (lh ** 2 + lx ** 2 + ly ** 2)) ** post["lamp_power"]
        I = I / I0
        I = 0.35 + 0.65 * I
        I = np.minimum(I, 1.45)
    rn2 = ((gx - w / 2) ** 2 + (gy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)  # 1 at a corner
    V = 1 - post["vignette"] * np.clip(rn2, 0, 1.2) ** 1.1
    gain = 2.0 ** post["exposure"]
    cast = np.array(lighting["cast"][::-1], np.float32) + np.array(post["cast_jitter"], np.float32)
    grid = (I * V * gain).astype(np.float32)[..., None] * cast
    m = cv2.resize(grid, (w, h), interpolation=cv2.INTER_LINEAR)
    u8 = cv2.multiply(img, m, dtype=cv2.CV_8U)
    if "glare" in post:
        gx0, gy0, gr, gs = post["glare"]
        G = (gs * np.exp(-((X - gx0) ** 2 + (Y - gy0) ** 2) / (2 * gr * gr))).astype(np.float32)
        G = cv2.resize(G, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
        f = u8.astype(np.float32)
        u8 = np.clip(f + (255 - f) * G + 0.5, 0, 255).astype(np.uint8)
    if "reflection" in post:        # a window's reflection on varnish: a bright soft-edged oblong
        rx, ry, ra, rb, rang, rs = post["reflection"]
        c, s_ = math.cos(math.radians(rang)), math.sin(math.radians(rang))
        a = ((X - rx) * c + (Y - ry) * s_) / ra
        b = (-(X - rx) * s_ + (Y - ry) * c) / rb
        G = (rs / (1 + np.exp(8 * (np.maximum(np.abs(a), np.abs(b)) - 1)))).astype(np.float32)
        big = cv2.resize(G, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
        f = u8.astype(np.float32)
        u8 = np.clip(f + (255 - f) * big + 0.5, 0, 255).astype(np.uint8)
    x = np.arange(256, dtype=np.float64) / 255
    c = post["contrast"]
    y = x + c * x * (1 - x) * (2 * x - 1) * 2.2
    y = np.clip(y, 0, 1) * 0.97 + 0.012          # a little lift and roll-off, as a camera's tone curve
    lut = np.clip(np.round(y * 255), 0, 255).astype(np.uint8)
    return cv2.LUT(u8, lut)


_GAUSS_LUT = np.array([0.0], np.float32)


def _gauss_lut() -> np.ndarray:
    """Normal quantiles of 256 equal slices: a uint8 of uniform noise through it is Gaussian."""
    global _GAUSS_LUT
    if _GAUSS_LUT.size != 256:
        p = (np.arange(256) + 0.5) / 256
        # inverse normal CDF by Newton's method on erf (no scipy)
        z = np.zeros(256)
        for _ in range(50):
            cdf = 0.5 * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))
            pdf = np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
            z -= (cdf - p) / pdf
        _GAUSS_LUT = (z / z.std()).astype(np.float32)
    return _GAUSS_LUT


def _camera_effects(img: np.ndarray, rng: np.random.Generator, post: Mapping[str, Any]) -> np.ndarray:
    """Lens blur, then sensor noise (mostly in brightness, a little in colour)."""
    h, w = img.shape[:2]
    img = cv2.GaussianBlur(img, (0, 0), post["blur"])
    lut = _gauss_lut()
    lum = cv2.LUT(np.frombuffer(rng.bytes(h * w), np.uint8).reshape(h, w), lut * post["noise"])
    hh, hw = (h + 1) // 2, (w + 1) // 2
    cb = np.frombuffer(rng.bytes(3 * hh * hw), np.uint8).reshape(hh, hw, 3)
    noise: np.ndarray = cv2.resize(cv2.LUT(cb, lut * (post["noise"] * 0.4)), (w, h), interpolation=cv2.INTER_LINEAR)
    noise += lum[..., None]
    return cv2.add(img, noise, dtype=cv2.CV_8U)
