"""Things drawn over a labelled photo of a real board, to measure the
refusal on real boards (``covered_photos.py``): a bare forearm and hand, a
sleeved arm and hand, a sleeve alone, a dice cup.

Each is a height field over the picture, shaded by one light (Lambert, a
little shine), with a soft shadow on the board beneath, in true sizes (a
forearm 60-75 mm wide, a hand 80-90 mm, fingers 18 mm wide and 70-85 mm
long, a cup 58-70 mm across (a dice cup's mouth)) turned into pixels by the man's size where it
lies.  It lies over a man the label says is there, found where the reader
finds the board's points (``board_config``) with the labelled corners:
arms come in from the picture's edge beyond the nearer long side, up to
30 degrees aslant, with the palm or the fingers alone over the man; cups
stand on the man, half of them in the colour of the men there.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

import cv2
import numpy as np

from willughby.vision.config import VisionConfig
from willughby.vision.geometry import BoardGeometry
from willughby.vision.reader import board_config

KINDS = ("arm", "sleeved hand", "sleeve", "cup")
SKIN = ((118, 150, 205), (96, 128, 178), (64, 90, 132), (150, 176, 218), (44, 62, 96))          # BGR
CLOTH = ((70, 40, 25), (40, 40, 40), (40, 40, 150), (215, 215, 210), (60, 110, 60), (140, 110, 80),
         (30, 30, 30), (150, 150, 155))
CUPS = ((30, 45, 75), (20, 20, 20), (35, 35, 140), (60, 90, 120), (200, 200, 195))


def frame_to_image(config: VisionConfig, corners: Sequence[Sequence[float]]) -> np.ndarray:
    """The homography from the surface's mm (*config*'s proportions) to the picture."""
    return cv2.getPerspectiveTransform(BoardGeometry(config).surface_corners().astype(np.float32),
                                       np.float32(corners))


def _to_px(H: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.float32(pts_mm).reshape(-1, 1, 2), H).reshape(-1, 2)


def _capsule(shape: tuple[int, int], a: np.ndarray, b: np.ndarray, r0: float, r1: float) -> np.ndarray:
    """Height field of a rounded band from *a* (radius *r0*) to *b* (*r1*), px."""
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    d = b - a
    t = np.clip(((xx - a[0]) * d[0] + (yy - a[1]) * d[1]) / max(float(d @ d), 1e-6), 0, 1)
    dist = np.hypot(xx - (a[0] + t * d[0]), yy - (a[1] + t * d[1]))
    r = r0 + (r1 - r0) * t
    return np.sqrt(np.maximum(r * r - dist * dist, 0)).astype(np.float32)


def _ellipse(shape: tuple[int, int], c: np.ndarray, ax: float, ay: float, angle: float) -> np.ndarray:
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    ca, sa = np.cos(angle), np.sin(angle)
    u = ((xx - c[0]) * ca + (yy - c[1]) * sa) / ax
    v = (-(xx - c[0]) * sa + (yy - c[1]) * ca) / ay
    return (np.sqrt(np.maximum(1 - u * u - v * v, 0)) * min(ax, ay)).astype(np.float32)


def _paint(img: np.ndarray, height: np.ndarray, colour: Sequence[float], light: np.ndarray,
           texture: np.ndarray | None = None, shine: float = 30.0) -> np.ndarray:
    """*img* with the object of *height* drawn over it: its shadow first, then it, shaded."""
    mask = (height > 0).astype(np.float32)
    if not mask.any():
        return img
    size = float(np.sqrt(mask.sum()))
    shift = np.float32([[1, 0, -light[0] * 0.15 * size], [0, 1, -light[1] * 0.15 * size]])
    shadow = cv2.warpAffine(mask, shift, (img.shape[1], img.shape[0]))
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.06 * size))
    out = img.astype(np.float32) * (1 - 0.45 * shadow)[..., None]
    gy, gx = np.gradient(cv2.GaussianBlur(height, (0, 0), 1.0))
    n = np.dstack([-gx, -gy, np.ones_like(gx)])
    n /= np.linalg.norm(n, axis=2, keepdims=True)
    lam = np.clip(n @ light, 0, 1)
    col = np.asarray(colour, np.float32)[None, None, :] * (0.35 + 0.75 * lam)[..., None]
    if texture is not None:
        col *= texture[..., None]
    col += shine * (lam ** 24)[..., None]
    alpha = cv2.GaussianBlur(mask, (0, 0), 0.8)[..., None]
    out = out * (1 - alpha) + col * alpha
    return np.clip(out, 0, 255).astype(np.uint8)


def _cloth(shape: tuple[int, int], along: np.ndarray, px_per_mm: float, rng: random.Random) -> np.ndarray:
    """A sleeve's folds across its length, or a woven check."""
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
    t = xx * along[0] + yy * along[1]
    if rng.random() < 0.5:
        period = rng.uniform(18, 35) * px_per_mm
        return (1 + 0.18 * np.sin(2 * np.pi * t / period + rng.uniform(0, 6.3))).astype(np.float32)
    s = -xx * along[1] + yy * along[0]
    period = rng.uniform(4, 9) * px_per_mm
    return (1 + 0.12 * np.sign(np.sin(2 * np.pi * t / period)) * np.sign(np.sin(2 * np.pi * s / period))
            ).astype(np.float32)


def _men_spots(label: dict[str, Any], geometry: BoardGeometry,
               diameter: float) -> list[tuple[str, int, int, float, float]]:
    """(colour, point, man, x mm, y mm) of the first three men of every point the label fills."""
    spots = []
    for colour in ("light", "dark"):
        for p in range(1, 25):
            for j in range(min(3, int(label[colour][p - 1]))):
                y = (j + 0.5) * diameter
                spots.append((colour, p, j, geometry.point_centre_x(p),
                              y if geometry.is_top(p) else geometry.depth - y))
    return spots


def cover_photo(image: np.ndarray, label: dict[str, Any], config: VisionConfig, kind: str,
                rng: random.Random) -> tuple[np.ndarray, str, np.ndarray]:
    """*image* with one thing of *kind* (``KINDS``) over one of its men, what
    lies over which man (module docstring), and where it lies (a mask)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    corners = label["corners"]
    cfg, _, _ = board_config(image, corners, config)
    geometry = BoardGeometry(cfg)
    spots = _men_spots(label, geometry, cfg.man_diameter)
    if not spots:
        raise ValueError("the label shows no man on a point to cover")
    colour, p, j, x, y = rng.choice(spots)
    H = frame_to_image(cfg, corners)
    target, edge = _to_px(H, np.array([[x, y], [x + cfg.man_diameter / 2, y]]))
    px_per_mm = float(np.linalg.norm(edge - target)) / (cfg.man_diameter / 2) * (cfg.man_diameter / 38.0)
    # a man is about 38 mm across: the board's millimetres are scaled to its points, not true
    light = np.array([rng.uniform(-0.5, 0.5), rng.uniform(-0.7, -0.2), 1.0])
    light /= np.linalg.norm(light)
    shape = image.shape[:2]
    where = f"{kind} over {colour}@{p} (man {j + 1})"
    if kind == "cup":                   # upright: its side seen by a camera not straight above, its mouth open
        r = rng.uniform(29, 35) * px_per_mm
        tall = rng.uniform(85, 100) * px_per_mm
        base = target + np.array([rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)]) * r
        middle = np.array([shape[1] / 2, shape[0] / 2])
        top = base + (base - middle) * rng.uniform(0.05, 0.2) + np.array([0.0, -rng.uniform(0.0, 0.5) * tall])
        if rng.random() < 0.5:          # the men's own colour, where the cup stands
            m = int(max(2, 0.3 * r))
            ty, tx = int(target[1]), int(target[0])
            patch = image[max(0, ty - m):ty + m, max(0, tx - m):tx + m]
            col = np.median(patch.reshape(-1, 3), axis=0) if patch.size else np.array(rng.choice(CUPS))
            where += ", the men's colour"
        else:
            col = np.array(rng.choice(CUPS), np.float32)
        body = _capsule(shape, base, top, r, r)
        out = _paint(image, body, col, light, shine=20.0)
        rim = _ellipse(shape, top, r, r, 0.0)
        out = _paint(out, np.where(rim > 0, r, 0).astype(np.float32), np.clip(col * 1.15, 0, 255), light, shine=10.0)
        if rng.random() < 0.7:          # open: the inside dark, lit a little from one side
            mouth = np.zeros(shape, np.uint8)
            cv2.circle(mouth, (int(top[0]), int(top[1])), int(0.85 * r), 255, -1, cv2.LINE_AA)
            a = cv2.GaussianBlur(mouth.astype(np.float32) / 255, (0, 0), 1.0)[..., None]
            inside = np.clip(col * 0.2, 0, 255)[None, None, :]
            out = np.clip(out * (1 - a) + inside * a, 0, 255).astype(np.uint8)
        return out, where, (body > 0) | (rim > 0)
    # an arm: from beyond the nearer long side, aslant
    outward = np.array([0.0, -1.0 if geometry.is_top(p) else 1.0])
    turn = np.radians(rng.uniform(-30, 30))
    d_mm = np.array([outward[0] * np.cos(turn) - outward[1] * np.sin(turn),
                     outward[0] * np.sin(turn) + outward[1] * np.cos(turn)])
    far = _to_px(H, np.array([[x, y], [x + d_mm[0] * 10, y + d_mm[1] * 10]]))
    direction = far[1] - far[0]
    direction /= np.linalg.norm(direction)              # from the man outward, in the picture
    inward = -direction
    diag = float(np.hypot(*shape))
    fore_r = rng.uniform(30, 37.5) * px_per_mm
    skin = np.array(rng.choice(SKIN), np.float32) * rng.uniform(0.85, 1.1)
    cloth = np.array(rng.choice(CLOTH), np.float32)
    side = np.array([-inward[1], inward[0]])
    if kind == "sleeve":
        end = target + inward * rng.uniform(0.0, 0.5) * fore_r
        height = _capsule(shape, end - inward * diag, end, fore_r * 1.15, fore_r)
        return _paint(image, height, cloth, light, _cloth(shape, inward, px_per_mm, rng)), where, height > 0
    # a hand: the palm or the fingers alone over the man
    palm_len, palm_w = rng.uniform(45, 55) * px_per_mm, rng.uniform(40, 45) * px_per_mm
    finger_len, finger_r = rng.uniform(70, 85) * px_per_mm, 9 * px_per_mm
    fingers_over = rng.random() < 0.5
    palm = target - inward * ((palm_len + 0.6 * finger_len) if fingers_over else 0.0)
    wrist = palm - inward * palm_len
    spread = rng.uniform(0.0, 0.25)
    if fingers_over:
        where += ", fingers only"
    hand = _ellipse(shape, palm, palm_len, palm_w, float(np.arctan2(inward[1], inward[0])))
    for f in range(4):
        off = (f - 1.5) / 1.5
        base = palm + inward * 0.8 * palm_len + side * off * 0.75 * palm_w
        tip_dir = inward + side * off * spread
        tip_dir /= np.linalg.norm(tip_dir)
        hand = np.maximum(hand, _capsule(shape, base, base + tip_dir * finger_len * (1 - 0.12 * abs(off)),
                                         finger_r, finger_r * 0.85))
    thumb = palm + side * palm_w * 0.9
    hand = np.maximum(hand, _capsule(shape, thumb - inward * 0.3 * palm_len, thumb + (inward + side) * 0.4 * finger_len,
                                     finger_r * 1.2, finger_r))
    forearm = _capsule(shape, wrist - inward * diag, wrist, fore_r * 1.15, fore_r * 0.85)
    if kind == "sleeved hand":          # the hand and wrist bare, the sleeve from its cuff on
        cuff = wrist - inward * rng.uniform(10, 40) * px_per_mm
        bare = np.maximum(hand, _capsule(shape, cuff, wrist, fore_r * 0.9, fore_r * 0.85))
        sleeve = _capsule(shape, cuff - inward * diag, cuff, fore_r * 1.3, fore_r * 1.1)
        return (_paint(_paint(image, bare, skin, light), sleeve, cloth, light, _cloth(shape, inward, px_per_mm, rng)),
                where, (bare > 0) | (sleeve > 0))
    arm = np.maximum(hand, forearm)
    return _paint(image, arm, skin, light), where, arm > 0
