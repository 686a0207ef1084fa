"""Drawing what stands on the board: the men (shaded cylinders with a lit
rim and, for some sets, a turned groove), the dice with their pips, and a
forearm and hand reaching over the board with its shadow."""

from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np

from .board import _rail_shade
from .layout import _Man, _MenFinish
from .looks import Look
from .raster import _SHIFT, _bbox, _circle, _fill, _fix, _Light, _multiply, _ShadowLayer, _Solid
from .scene3d import _Board, _Camera, _die_axes, _ppm
from .styles import _DICE_BODY
from .textures import _bgr, _Colour, _fine_noise, _smooth_noise, _wood

# what a look adds to a man's top (:func:`_looked_top`'s last five arguments)
_TopExtra = tuple[np.ndarray, np.ndarray, np.ndarray | None, float, np.ndarray | None]


def _men_solids(cam: _Camera, board: _Board, light: _Light, men: list[_Man], thick: float,
                colours: tuple[_Colour, _Colour, bool], rng: np.random.Generator, finish: _MenFinish | None = None,
                bevel: float | None = None, tints: Sequence[float] | None = None,
                look: Look | None = None) -> list[_Solid]:
    """Each man a cylinder: side wall (shaded in three bands), a rounded rim
    lit on the light's side, the top face and, for some sets, a turned groove.
    The rim's *bevel* (0.86-0.93) and each man's brightness (*tints*, one a
    man, 0.97-1.03) are drawn from *rng* where not given.  With a *look*:
    a raised rim and hollow top, tops of wood, stone or glossy plastic,
    varnish's highlights on the rims, and each man in the rails' shade
    where he stands in it."""
    geo = board.geo
    r = geo.config.man_diameter / 2
    light_c, dark_c, grooved = colours
    grooves = (grooved, grooved) if finish is None else finish.grooved
    base = (_bgr(light_c), _bgr(dark_c))
    N = 32
    ca, sa = _circle(N)
    mid_a = np.arange(N) * (2 * np.pi / N) + np.pi / N
    normals = np.stack([np.cos(mid_a), np.sin(mid_a), np.zeros(N)], -1)
    side_shade = light.shade_many(normals) * 0.8
    if finish is not None:
        side_shade = np.minimum(side_shade * finish.side_gain, 1.0)
    rim_normals = np.stack([normals[:, 0] * 0.6, normals[:, 1] * 0.6, np.full(N, 0.8)], -1)
    rim_shade = light.shade_many(rim_normals)
    lit = rim_shade >= np.median(rim_shade)
    if bevel is None:
        bevel = float(rng.uniform(0.86, 0.93))
    covered: set[int] = set()
    if finish is not None:          # a pile's men under another show no top: no seam where they meet
        covered = {i for i, m in enumerate(men) for o in men
                   if not m.on_bar and not o.on_bar and o.point == m.point and o.level == m.level + 1
                   and math.hypot(o.x - m.x, o.y - m.y) < 3.0}
    solids = []
    rim = look["men_rim"] if look is not None else 0.0
    varnish = look["varnish"] if look is not None else 0.0
    material = look.men_material if look is not None else "plain"
    if material == "plastic":
        varnish = max(varnish, 0.45)
    top_tex: list[np.ndarray | None] = [None, None]
    if look is not None and material in ("wood", "stone"):     # (a material only a look gives)
        top_tex = [_top_texture(look.rng(50 + k), base[k], material) for k in (0, 1)]
    # where on the rim a highlight shows: towards the light, seen from the camera
    hl = np.array([light.L[0], light.L[1]]) / max(float(np.hypot(light.L[0], light.L[1])), 1e-6)
    for i, m in enumerate(men):
        u, v = board.g2l(m.x, m.y)
        c = board.l2w(u, v, 0.0)
        support = board.zs + (board.bh if m.on_bar else 0.0)
        z0 = support + m.level * thick
        z1 = z0 + thick
        ring = np.stack([c[0] + r * ca, c[1] + r * sa], -1)
        pts3 = np.concatenate([np.concatenate([ring, np.full((N, 1), z0)], 1),
                               np.concatenate([ring, np.full((N, 1), z1)], 1),
                               [[c[0], c[1], z1]]])
        proj = cam.project(pts3)
        pb, pt, ct = proj[:N], proj[N:2 * N], proj[2 * N]
        mid = np.stack([c[0] + r * normals[:, 0], c[1] + r * normals[:, 1], np.full(N, (z0 + z1) / 2)], -1)
        visible = np.einsum("ij,ij->i", cam.C - mid, normals) > 0
        col = base[m.colour] * float(rng.uniform(0.97, 1.03) if tints is None else tints[i])
        if look is not None and look["rail_shadow"]:
            col = col * float(_rail_shade(board, look, u, v))
        allp = np.concatenate([pb, pt])
        # the visible side wall as up to three bands of one shade each
        bands: list[tuple[np.ndarray, np.ndarray]] = []
        idx = np.nonzero(visible)[0]
        if len(idx):
            # order the visible segments as one run around the circle
            start = next((i for i in idx if not visible[(i - 1) % N]), idx[0])
            run = [(start + k) % N for k in range(len(idx))]
            for chunk in np.array_split(np.array(run), min(3, len(run))):
                ks = list(chunk) + [(chunk[-1] + 1) % N]
                poly = np.concatenate([pb[ks], pt[ks][::-1]])
                bands.append((poly, col * float(side_shade[chunk].mean())))
        side_mean = col * float(side_shade[visible].mean() if visible.any() else 0.6)
        lit_idx = np.nonzero(lit)[0]
        start = next((i for i in lit_idx if not lit[(i - 1) % N]), lit_idx[0])
        arc = [(start + k) % N for k in range(len(lit_idx) + 1)]
        outer = pt[arc]
        rim_poly = np.concatenate([outer, ct + (outer[::-1] - ct) * bevel])
        rim_col = np.clip(col * float(rim_shade[lit].mean()) * 0.97, 0, 255)

        extra: _TopExtra | None = None
        if look is not None:
            sq = cam.project(np.array([[c[0] - r, c[1] - r, z1], [c[0] + r, c[1] - r, z1], [c[0] + r, c[1] + r, z1],
                                       [c[0] - r, c[1] + r, z1]]))
            glint_arc = np.linspace(-0.5, 0.5, 7) + math.atan2(hl[1], hl[0])
            glint = cam.project(np.stack([c[0] + r * 0.93 * np.cos(glint_arc), c[1] + r * 0.93 * np.sin(glint_arc),
                                          np.full(7, z1)], -1))
            spot = None
            if material == "plastic":   # a glossy top: a soft patch of the light's reflection
                sc = np.array([c[0] + r * 0.4 * hl[0], c[1] + r * 0.4 * hl[1], z1])
                spot = cam.project(np.stack([sc[0] + r * 0.25 * ca, sc[1] + r * 0.25 * sa, np.full(N, z1)], -1))
            tint = float(np.linalg.norm(col) / max(float(np.linalg.norm(base[m.colour])), 1e-6))
            extra = (sq, glint, top_tex[m.colour], tint, spot)

        def draw(img: np.ndarray, allp: np.ndarray = allp, bands: list[tuple[np.ndarray, np.ndarray]] = bands,
                 pt: np.ndarray = pt,
                 ct: np.ndarray = ct, col: np.ndarray = col, side_mean: np.ndarray = side_mean,
                 rim_poly: np.ndarray = rim_poly, rim_col: np.ndarray = rim_col,
                 grooved: bool = grooves[m.colour], under: bool = i in covered,
                 extra: _TopExtra | None = extra) -> None:
            hull = cv2.convexHull(allp.astype(np.float32)).reshape(-1, 2)
            _fill(img, hull, side_mean)
            for poly, bc in bands:
                _fill(img, poly, bc, aa=False)
            if under:
                return
            _fill(img, pt, col * 0.86)
            _fill(img, rim_poly, rim_col, aa=False)
            _fill(img, ct + (pt - ct) * bevel, col)
            if extra is not None:
                _looked_top(img, pt, ct, col, bevel, rim, varnish, *extra)
            if grooved:
                cv2.polylines(img, [_fix(ct + (pt - ct) * 0.62), ], True, tuple(float(x) for x in col * 0.8),
                              1, cv2.LINE_AA, _SHIFT)
                cv2.polylines(img, [_fix(ct + (pt - ct) * 0.665)], True,
                              tuple(float(x) for x in np.clip(col * 1.06, 0, 255)), 1, cv2.LINE_AA, _SHIFT)

        solids.append(_Solid("man", z0, z1, ("c", float(u), float(v), r),
                             (float(allp[:, 0].min()), float(allp[:, 1].min()),
                              float(allp[:, 0].max()), float(allp[:, 1].max())),
                             float(cam.depth(np.array([c[0], c[1], (z0 + z1) / 2]))), draw))
    return solids


def _top_texture(rng: np.random.Generator, colour: np.ndarray, material: str, n: int = 64) -> np.ndarray:
    """A man's top (BGR, *n* px square, mean about *colour*): wood's grain
    across it, or stone's mottling and a vein."""
    if material == "wood":
        rgb = colour[::-1]
        tex = _wood(rng, n, n, n / 36.0, np.clip(rgb * 1.1, 0, 255), rgb * 0.8)
    else:
        v = 0.75 * _smooth_noise(rng, n, n, 5, 5) + 0.35 * _fine_noise(rng, n, n)
        a = float(rng.uniform(0, np.pi))
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        vein = np.abs((xx - n / 2) * math.cos(a) + (yy - n / 2) * math.sin(a)
                      + 6 * _smooth_noise(rng, n, n, 3, 3))
        v -= 1.2 * np.exp(-vein / 1.5)
        f = 1.0 + 0.07 * v
        tex = np.clip(colour[None, None, :] * f[..., None], 0, 255).astype(np.uint8)
    mean = np.array(cv2.mean(tex)[:3])
    gain = colour / np.maximum(mean, 1.0)
    top: np.ndarray = np.clip(tex * gain[None, None, :], 0, 255).astype(np.uint8)
    return top


def _looked_top(img: np.ndarray, pt: np.ndarray, ct: np.ndarray, col: np.ndarray, bevel: float, rim: float,
                varnish: float, square: np.ndarray, glint: np.ndarray, tex: np.ndarray | None, tint: float,
                spot: np.ndarray | None) -> None:
    """What a look adds to a man's top: its material's texture, a raised
    rim round a hollow, a highlight of varnish on the rim towards the light,
    and on glossy plastic a soft patch of the light's reflection."""
    inner = ct + (pt - ct) * bevel
    if tex is not None:
        size = (img.shape[1], img.shape[0])
        bb = _bbox(inner, size)
        if bb is not None:
            x0, y0, x1, y1 = bb
            n = tex.shape[0]
            M = cv2.getPerspectiveTransform(np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32),
                                            (square - [x0, y0]).astype(np.float32))
            patch = cv2.warpPerspective(tex, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_REFLECT)
            if tint != 1.0:
                patch = cv2.convertScaleAbs(patch, alpha=tint)
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            _fill(mask, inner - [x0, y0], (255,))
            roi = img[y0:y1, x0:x1]
            m = mask.astype(np.uint16)[..., None]
            roi[:] = ((patch.astype(np.uint16) * m + roi.astype(np.uint16) * (255 - m) + 127) // 255).astype(np.uint8)
    if rim:
        hollow = ct + (pt - ct) * 0.72
        _fill(img, ct + (pt - ct) * 0.78, np.clip(col * (1 + 0.12 * rim), 0, 255))       # the rim's inner edge
        _fill(img, hollow, col * (1 - 0.14 * rim))                                      # the hollow, shaded
        _fill(img, ct + (hollow - ct) * 0.92, col * (1 - 0.08 * rim))
        cv2.polylines(img, [_fix(pt)], True, tuple(float(x) for x in col * (1 - 0.45 * rim)), 1, cv2.LINE_AA,
                      _SHIFT)
    if spot is not None:
        size = (img.shape[1], img.shape[0])
        bb = _bbox(spot, size, pad=4)
        if bb is not None:
            x0, y0, x1, y1 = bb
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            _fill(mask, spot - [x0, y0], (255,))
            a = (cv2.GaussianBlur(mask, (0, 0), 1.5).astype(np.float32) * (0.45 / 255))[..., None]
            roi = img[y0:y1, x0:x1]
            roi[:] = np.clip(roi * (1 - a) + 255 * a + 0.5, 0, 255).astype(np.uint8)
    if varnish:
        c = tuple(float(x) for x in np.clip(col + (255 - col) * (0.35 + 0.6 * varnish), 0, 255))
        cv2.polylines(img, [_fix(glint)], False, c, 1 + int(varnish > 0.6), cv2.LINE_AA, _SHIFT)


_PIPS = {
    1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _dice_solids(cam: _Camera, board: _Board, light: _Light, dice_xy: list[tuple[float, float, float]],
                 values: list[int], s: float, body: str, rng: np.random.Generator) -> list[_Solid]:
    solids = []
    colour = _bgr(_DICE_BODY[body])
    pip_col = np.array([28, 28, 30], np.float32)
    pc, ps = _circle(10)
    for (x, y, yaw), value in zip(dice_xy, values):
        u, v = board.g2l(x, y)
        c = board.l2w(u, v, board.zs)
        ex, ey, ez = _die_axes(yaw)
        h = s / 2
        centre = c + ez * h
        # faces: normal, two in-plane axes, value (opposite faces sum to 7)
        side = [a for a in range(1, 7) if a not in (value, 7 - value)]
        a = side[int(rng.integers(0, 4))]
        b = [q for q in side if q not in (a, 7 - a)][0]
        faces = [(ez, ex, ey, value), (ex, ey, ez, a), (-ex, ey, ez, 7 - a), (ey, ex, ez, b), (-ey, ex, ez, 7 - b)]
        draws: list[tuple[np.ndarray, np.ndarray, list[np.ndarray]]] = []
        pts_all = []
        for n, e1, e2, val in faces:
            fc = centre + n * h
            if float((cam.C - fc) @ n) <= 0:
                continue
            q = np.array([fc + (e1 * i + e2 * j) * h for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
            iq = cam.project(q)
            pts_all.append(iq)
            pips = []
            for (i, j) in _PIPS[val]:
                pcen = fc + (e1 * i + e2 * j) * h * 0.5
                ring = pcen + (np.outer(pc, e1) + np.outer(ps, e2)) * s * 0.09
                pips.append(cam.project(ring))
            draws.append((iq, colour * min(light.shade(n), 1.05), pips))
        pts = np.concatenate(pts_all)

        def draw(img: np.ndarray, draws: list[tuple[np.ndarray, np.ndarray, list[np.ndarray]]] = draws) -> None:
            for iq, col, pips in draws:
                _fill(img, iq, col)
                cv2.polylines(img, [_fix(iq)], True, tuple(float(v) for v in col * 0.85), 1, cv2.LINE_AA, _SHIFT)
                for p in pips:
                    _fill(img, p, pip_col)

        solids.append(_Solid("die", board.zs, board.zs + s, ("c", float(u), float(v), s * 0.72),
                             (float(pts[:, 0].min()), float(pts[:, 1].min()),
                              float(pts[:, 0].max()), float(pts[:, 1].max())),
                             float(cam.depth(centre)), draw))
    return solids


# -------------------------------------------------------------------- hand
def _capsule_outline(a: np.ndarray, b: np.ndarray, ra: float, rb: float, n: int = 12) -> np.ndarray:
    d = b - a
    ln = float(np.hypot(*d))
    d = d / ln if ln > 1e-6 else np.array([1.0, 0.0])
    nn = np.array([-d[1], d[0]])
    t = np.linspace(0, np.pi, n)
    arc_b = b + rb * (np.outer(np.cos(t), nn) + np.outer(np.sin(t), d))
    arc_a = a + ra * (np.outer(np.cos(t), -nn) + np.outer(np.sin(t), -d))
    return np.concatenate([arc_b, arc_a])


def _hand_parts(rng: np.random.Generator, board: _Board) -> list[tuple[np.ndarray, np.ndarray, float, float]]:
    """Capsules (3D end points in world, radii in mm): forearm, palm, fingers, thumb."""
    W, D = board.W, board.D
    u = float(rng.uniform(0.15, 0.85) * W)
    v = float(rng.uniform(0.2, 0.8) * D)
    side = int(rng.integers(0, 4))
    ang = side * np.pi / 2 + float(rng.normal(0, 0.3))
    dl = np.array([math.cos(ang), math.sin(ang)])          # from the hand towards the body (local)
    dw = board.dir_l2w(dl[0], dl[1])[:2]
    pw = np.array([-dw[1], dw[0]])
    hz = board.zs + board.rh + float(rng.uniform(40, 120))
    wrist = np.append(board.l2w(u, v, 0.0)[:2], hz)
    forearm_len = float(rng.uniform(260, 320))
    elbow = np.append(wrist[:2] + dw * forearm_len, hz + float(rng.uniform(30, 120)))
    shoulder = np.append(elbow[:2] + dw * 300, elbow[2] + 150)
    parts = [(shoulder, elbow, 40.0, 34.0), (elbow, wrist, float(rng.uniform(30, 35)), float(rng.uniform(22, 26)))]
    palm_len = float(rng.uniform(60, 75))
    knuckles = np.append(wrist[:2] - dw * palm_len, hz - 6)
    parts.append((wrist - np.append(dw * 10, 0), knuckles, 27.0, 32.0))
    spread = float(rng.uniform(0.0, 0.25))
    curl = float(rng.uniform(5, 30))
    for i, off in enumerate((-24.0, -8.0, 8.0, 22.0)):
        base = knuckles.copy()
        base[:2] += pw * off
        a = -dw + pw * (off / 24.0) * spread
        a /= np.linalg.norm(a)
        length = float((62, 74, 76, 60)[i] * rng.uniform(0.9, 1.1))
        tip = np.append(base[:2] + a * length, hz - curl)
        parts.append((base, tip, 8.5, 7.0))
    tside = 1 if rng.random() < 0.5 else -1
    tb = wrist.copy()
    tb[:2] += pw * tside * 25 - dw * 15
    ta = -dw * 0.6 + pw * tside * 0.8
    ta /= np.linalg.norm(ta)
    parts.append((tb, np.append(tb[:2] + ta * 55, hz - 8), 11.0, 8.5))
    return parts


def _draw_hand(img: np.ndarray, rng: np.random.Generator, cam: _Camera, board: _Board, light: _Light,
               skin: Sequence[int]) -> None:
    parts = _hand_parts(rng, board)
    size = (img.shape[1], img.shape[0])
    # its shadow on the board, taken to lie at the surface's height
    outlines = []
    for a, b, ra, rb in parts:
        sa, sb = [p - (p[2] - board.zs) / light.L[2] * light.L for p in (a, b)]
        pa, pb = cam.project(np.array([sa, sb]))
        za, zb = cam.to_cam(np.array([sa, sb]))[:, 2]
        outlines.append(_capsule_outline(pa, pb, cam.f * ra / za, cam.f * rb / zb))
    allp = np.concatenate(outlines)
    bb = _bbox(allp, size, pad=int(0.05 * size[0]))
    if bb is not None:
        layer = _ShadowLayer(size, bb, 0.25)
        for o in outlines:
            layer.add(o)
        _multiply(img, layer.factor(max(4.0, 14 * _ppm(cam, board)), 0.85 * (1 - light.ambient)), bb[0], bb[1])
    col = _bgr(skin)
    order = sorted(parts, key=lambda p: -float(cam.depth((p[0] + p[1]) / 2)))
    for a, b, ra, rb in order:
        pa, pb = cam.project(np.array([a, b]))
        za, zb = cam.to_cam(np.array([a, b]))[:, 2]
        rpa, rpb = cam.f * ra / za, cam.f * rb / zb
        d = pb - pa
        ln = float(np.hypot(*d)) or 1.0
        nn = np.array([-d[1], d[0]]) / ln
        lp = cam.project(np.array([a, a + light.L * 100]))
        toward = float(np.sign(nn @ (lp[1] - lp[0])) or 1.0)
        levels = 8
        for k in range(levels):
            s = 1 - 0.85 * k / levels
            off = (1 - s) * 0.4 * toward * nn
            bright = 0.52 + 0.56 * math.sqrt(max(0.0, 1 - s * s))
            _fill(img, _capsule_outline(pa + off * rpa, pb + off * rpb, rpa * s, rpb * s),
                  np.clip(col * bright, 0, 255))
