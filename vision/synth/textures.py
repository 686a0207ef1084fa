"""Procedural textures: wood grain and leather for the board, a table's
planks, cloth and felt; all from band-limited noise mapped through a colour
table."""

from __future__ import annotations

from typing import Sequence, TypeAlias

import cv2
import numpy as np

#: a colour, (r, g, b) or (b, g, r) as the function says, as numbers or an array of them
_Colour: TypeAlias = "Sequence[float] | np.ndarray"


def _bgr(rgb: _Colour) -> np.ndarray:
    return np.array([rgb[2], rgb[1], rgb[0]], np.float32)


# ---------------------------------------------------------------- textures
_NOISE_CACHE: dict[int, np.ndarray] = {}


def _noise_tile(n: int = 512) -> np.ndarray:
    """A fixed tile of white noise (mean 0, sd 1), sampled at random offsets."""
    tile = _NOISE_CACHE.get(n)
    if tile is None:
        tile = np.random.default_rng(20240607).standard_normal((n, n)).astype(np.float32)
        _NOISE_CACHE[n] = tile
    return tile


def _fine_noise(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    tile = _noise_tile()
    n = tile.shape[0]
    oy, ox = int(rng.integers(0, n)), int(rng.integers(0, n))
    reps = (h + oy) // n + 1, (w + ox) // n + 1
    big = np.tile(tile, reps) if reps != (1, 1) else tile
    out = big[oy:oy + h, ox:ox + w]
    if rng.random() < 0.5:
        out = out[::-1]
    return np.ascontiguousarray(out)


def _smooth_noise(rng: np.random.Generator, h: int, w: int, ch: int, cw: int) -> np.ndarray:
    """Band-limited noise: a (ch x cw) grid of random values, smoothly enlarged."""
    small = rng.standard_normal((max(ch, 2), max(cw, 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _colourise(v: np.ndarray, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Map a value field (0 = *dark*, 1 = *light*, up to 1.15) to BGR through a table."""
    q = cv2.convertScaleAbs(v, alpha=255 / 1.15)
    t = np.arange(256, dtype=np.float32)[:, None] * (1.15 / 255)
    lut = np.clip(dark + (light - dark) * t, 0, 255).astype(np.uint8).reshape(256, 1, 3)
    return cv2.LUT(cv2.merge([q, q, q]), lut)


def _wood(rng: np.random.Generator, h: int, w: int, ppm: float, light: _Colour,
          dark: _Colour, kind: str = "grain") -> np.ndarray:
    """Procedural wood (grain along x) or leather, *ppm* pixels per mm."""
    lo, hi = _bgr(dark), _bgr(light)
    if kind == "leather":
        v = 0.6 + 0.06 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 40)), max(2, int(w / ppm / 40)))
        v += 0.025 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 6)), max(2, int(w / ppm / 6)))
        v += 0.03 * _fine_noise(rng, h, w)
        return _colourise(v, lo, hi)
    period = float(rng.uniform(3.0, 8.0)) * ppm  # mm between grain lines, in px
    ys = np.arange(h, dtype=np.float32)[:, None]
    warp = _smooth_noise(rng, h, w, max(2, int(h / ppm / 25)), max(2, int(w / ppm / 120))) * (period * 1.6)
    warp += _smooth_noise(rng, h, w, max(2, int(h / ppm / 8)), max(2, int(w / ppm / 300))) * (period * 0.4)
    phase = (ys + warp) * (np.pi / period)
    rings = np.abs(np.sin(phase))
    streak = _smooth_noise(rng, h, w, max(2, int(h / ppm * 1.2)), max(2, int(w / ppm / 25)))
    broad = _smooth_noise(rng, h, w, max(2, int(h / ppm / 30)), max(2, int(w / ppm / 60)))
    v = 0.58 + 0.22 * rings + 0.08 * streak + 0.1 * broad + 0.03 * _fine_noise(rng, h, w)
    return _colourise(v, lo, hi)


def _table_wood(rng: np.random.Generator, h: int, w: int, ppm: float, light: _Colour,
                dark: _Colour) -> np.ndarray:
    """A table top: soft bands along x, as a wide plank's grain looks from afar."""
    v = 0.5 + 0.12 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 14)), max(2, int(w / ppm / 700)))
    v += 0.1 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 80)), max(2, int(w / ppm / 900)))
    v += 0.04 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 4)), max(2, int(w / ppm / 250)))
    return _colourise(v, _bgr(dark), _bgr(light))


def _cloth(rng: np.random.Generator, h: int, w: int, ppm: float, colour: _Colour,
           grain: float = 0.025) -> np.ndarray:
    """Cloth or felt: smooth, faintly mottled."""
    c = _bgr(colour)
    v = 0.5 + 0.08 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 300)), max(2, int(w / ppm / 300)))
    v += 0.035 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 5)), max(2, int(w / ppm / 5)))
    if grain:
        v += grain * 4 * _fine_noise(rng, h, w)
    return _colourise(v, c * 0.9, c * 1.1)


def _felt(rng: np.random.Generator, h: int, w: int, ppm: float, colour: _Colour,
          strength: float = 1.0) -> np.ndarray:
    """Felt: soft mottling over a fibrous grain, short fibres running every way."""
    c = _bgr(colour)
    v = 0.5 + 0.07 * strength * _smooth_noise(rng, h, w, max(2, int(h / ppm / 60)), max(2, int(w / ppm / 60)))
    fibre: np.ndarray = cv2.GaussianBlur(_fine_noise(rng, h, w), (0, 0), max(0.4, 0.35 * ppm))
    fibre /= max(float(fibre.std()), 1e-6)
    v += 0.05 * strength * fibre
    v += 0.02 * _fine_noise(rng, h, w)
    return _colourise(v, c * 0.88, c * 1.12)
