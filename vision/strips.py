"""One strip of evidence per point: what the point reader looks at.

A point is a long narrow place: its men lie in a row from the board's edge
toward the middle, further men on top, a pile at the edge.  For each of the
24 points this module cuts the same strip out of the rectified board (with
the margin round the surface, where the tops of piles and tall points seen
from the side appear), turned so that the board's edge is always at the
strip's top, and stacks four maps of it:

0. how much better each pixel fits a **light** man than the alternatives
   (the bare board there, or a dark man),
1. the same for a **dark** man,
2. lightness, relative to the open field (so the board's own brightness and
   the room's light do not matter),
3. the strength of the lightness edges (the outlines of men's tops).

The two colour maps come from the colours learnt from the picture itself
(``reader.learn_board``), so the strip is the same whatever the board's and
the men's colours.  Besides the maps, a few numbers tell where the camera
is: how far, and which way, the top of a man of a given height appears
displaced from his foot on this point (``aux``).  Those are what a pile or a
second layer looks like from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from . import scalar_ops
from .camera import Camera
from .geometry import BoardGeometry

__all__ = ["STRIP_MM", "STRIP_PX", "Strips", "point_strips", "CHANNELS", "AUX"]

STRIP_MM = (56.0, 280.0)        # width across the point, length from 30 mm beyond the edge
STRIP_BEYOND = 30.0             # mm of the strip outside the playing surface (the margin)
MM_PER_PX = 2.0
STRIP_PX = (int(STRIP_MM[0] / MM_PER_PX), int(STRIP_MM[1] / MM_PER_PX))   # (width, length)
CHANNELS = 4
AUX = 6
AUX_ACROSS = (0, 2)             # the camera numbers measured across the strip (``_camera_numbers``)
_PROBE_HEIGHT = 33.0            # mm: three men's height, where the aux displacement is measured


@dataclass
class Strips:
    """The 24 points' strips (24, CHANNELS, length, width) and camera numbers (24, AUX)."""

    maps: np.ndarray
    aux: np.ndarray

    def mirrored(self, rows: np.ndarray | None = None) -> "Strips":
        """The strips (or those of *rows*) seen in a mirror across the
        point's axis: each strip flipped across, and the camera numbers
        measured across it negated.  A point so mirrored is as good a
        point; the point reader was trained on both (``mirror`` in
        tools/train_point_reader.py, which cannot import this, does the same)."""
        maps = self.maps if rows is None else self.maps[rows]
        aux = np.array(self.aux if rows is None else self.aux[rows], np.float32)
        aux[:, list(AUX_ACROSS)] *= -1
        return Strips(np.ascontiguousarray(maps[..., ::-1]), aux)


def _maps(llr: dict[str, np.ndarray], lab: np.ndarray, field_lightness: float) -> np.ndarray:
    """The four maps, stacked as channels of one rectified image (each made
    in place where it can be: a frame's worth of fresh memory costs more than
    the arithmetic)."""
    h, w = lab.shape[:2]
    L = cv2.extractChannel(lab, 0)
    gx = cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3)
    np.multiply(gx, 0.25, out=gx)
    np.multiply(gy, 0.25, out=gy)
    edges = cv2.magnitude(gx, gy, gx)
    np.multiply(edges, 1 / 20.0, out=edges)
    np.minimum(edges, 2.0, out=edges)
    lightness = scalar_ops.subtract(L, field_lightness, dst=gy)
    scalar_ops.multiply(lightness, 1 / 25.0, dst=lightness)
    light, dark = llr.get("light"), llr.get("dark")
    if light is None or dark is None:
        zero = np.zeros((h, w), np.float32)
        light = zero if light is None else light
        dark = zero if dark is None else dark
    return cv2.merge([
        scalar_ops.multiply(light, 0.5),
        scalar_ops.multiply(dark, 0.5),
        lightness,
        edges,
    ])


def _strip_affines(geometry: BoardGeometry, margin: float) -> tuple[np.ndarray, ...]:
    """Each point's strip (``STRIP_MM``, from 30 mm beyond the edge, at
    ``MM_PER_PX``) as an affine map from the rectified board's pixels to the
    strip's, the board's edge at the strip's top (the same for every frame)."""
    s = geometry.config.scale
    length_mm = STRIP_MM[1]
    sw, sl = STRIP_PX
    half = STRIP_MM[0] / 2
    out = []
    for p in range(1, 25):
        xc = geometry.point_centre_x(p)
        top = geometry.is_top(p)
        # the strip in rectified pixels: the edge of the board at its top
        if top:
            y0, y1 = -STRIP_BEYOND, length_mm - STRIP_BEYOND
        else:
            y0, y1 = geometry.depth - length_mm + STRIP_BEYOND, geometry.depth + STRIP_BEYOND
        x0, x1 = xc - half, xc + half
        src = np.array([[(x0 + margin) * s, (y0 + margin) * s], [(x1 + margin) * s, (y0 + margin) * s],
                        [(x0 + margin) * s, (y1 + margin) * s]], np.float32)
        dst = np.array([[0, 0], [sw, 0], [0, sl]], np.float32)
        if not top:                       # turned: the edge at the strip's top
            dst = np.array([[sw, sl], [0, sl], [sw, 0]], np.float32)
        out.append(cv2.getAffineTransform(src, dst))
    return tuple(out)


def _cut(geometry: BoardGeometry, camera: Camera | None, stack: np.ndarray, margin: float) -> Strips:
    """Cut each point's strip (``STRIP_MM``, from 30 mm beyond the edge) at
    ``MM_PER_PX`` from *stack*'s channels (the reader's ``CHANNELS``, or any
    other number: the turn reader cuts one, the changed picture); without a
    *camera*, the camera numbers (``aux``) are left at 0."""
    sw, sl = STRIP_PX
    channels = stack.shape[2]
    maps = np.empty((24, channels, sl, sw), np.float32)
    aux = np.zeros((24, AUX), np.float32)
    for i, A in enumerate(_strip_affines(geometry, margin)):
        cut = cv2.warpAffine(stack, A, (sw, sl), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        maps[i] = cut.reshape(sl, sw, channels).transpose(2, 0, 1)
        if camera is not None:
            aux[i] = _camera_numbers(geometry, camera, i + 1)
    return Strips(maps, aux)


def cut_pixels(geometry: BoardGeometry, image: np.ndarray, margin: float,
               interpolation: int = cv2.INTER_NEAREST) -> np.ndarray:
    """The 24 strips of *image* (a rectified board, any type and number of
    channels), each (length, width[, channels]) and of *image*'s type, where
    :func:`whole_pixel_strips` holds: each pixel of a strip is one pixel of
    *image*, those beyond it 0.  Where it does not, with
    *interpolation* ``cv2.INTER_LINEAR``: each strip's pixel drawn from the
    four nearest (the same where it holds)."""
    sw, sl = STRIP_PX
    out = np.empty((24, sl, sw) + image.shape[2:], image.dtype)
    for i, A in enumerate(_strip_affines(geometry, margin)):
        cv2.warpAffine(image, A, (sw, sl), dst=out[i], flags=interpolation, borderMode=cv2.BORDER_CONSTANT)
    return out


@lru_cache(maxsize=8)
def whole_pixel_strips(geometry: BoardGeometry, margin: float) -> bool:
    """Whether every pixel of every strip is one whole pixel of the
    rectified board (no interpolation between pixels): then a strip cut from
    a picture is that picture's own pixels, and what is computed pixel by
    pixel may as well be computed on the strips (the default ``scale`` of
    1 px per mm, and any whole number of pixels per ``MM_PER_PX``)."""
    for A in _strip_affines(geometry, margin):
        back = cv2.invertAffineTransform(A)
        if np.abs(back - np.round(back)).max() > 1e-6:
            return False
    return True


def _camera_numbers(geometry: BoardGeometry, camera: Camera, p: int) -> list[float]:
    """Where the tops of three men appear, from two places on the point, in
    strip axes (across, and along away from the edge), in cm; the
    magnification there, and the tilt."""
    top = geometry.is_top(p)
    sign = 1.0 if top else -1.0
    feats = []
    for along in (18.0, 162.0):
        bx, by = geometry.slot_centre(p, 0.0)
        by = by + sign * (along - 18.0)
        tx, ty = camera.on_surface(bx, by, _PROBE_HEIGHT)
        feats.extend([sign * (tx - bx) / 10.0, sign * (ty - by) / 10.0])
    feats.append((camera.magnification(_PROBE_HEIGHT) - 1.0) * 20.0)
    feats.append(camera.tilt_deg / 30.0)
    return feats


def point_strips(geometry: BoardGeometry, camera: Camera, llr: dict[str, np.ndarray],
                 lab: np.ndarray, field_lightness: float, margin: float) -> Strips:
    """Cut the 24 strips out of the rectified maps (``config.scale`` px per
    mm, *margin* mm round the surface, as ``reader.read_board`` makes them)."""
    if margin < STRIP_BEYOND:
        raise ValueError(f"the rectified board needs a margin of at least {STRIP_BEYOND} mm")
    s = geometry.config.scale
    stack = _maps(llr, lab, field_lightness)
    if MM_PER_PX * s > 1.0:                # average before taking every other pixel
        k = int(round(MM_PER_PX * s))
        stack = cv2.blur(stack, (k, k))
    return _cut(geometry, camera, stack, margin)

