"""Drawing the table and the board: the table top with the board's shadow,
the rails and bar as wooden boxes, and the playing surface (field and
points) with the shadows that fall on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from .layout import _Man
from .raster import (_SHIFT, _bbox, _circle, _fill, _fix, _Light, _multiply, _ShadowLayer, _shadow_hull, _Solid,
                     _warp_quad)
from .scene3d import _Board, _Camera, _die_axes, _ppm
from .textures import _bgr, _cloth, _table_wood, _wood


def _draw_table(img: np.ndarray, rng: np.random.Generator, cam: _Camera, board: _Board,
                light: _Light, table: Mapping[str, Any]) -> None:
    h, w = img.shape[:2]
    px = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    P = cam.ray_to_plane(px, 0.0)
    lim = 2500.0
    xs = np.clip(P[:, 0], -lim, lim)
    ys = np.clip(P[:, 1], -lim, lim)
    x0, x1, y0, y1 = xs.min() - 50, xs.max() + 50, ys.min() - 50, ys.max() + 50
    tppm = float(min(0.5, 1400.0 / max(x1 - x0, y1 - y0)))
    tw, th = max(int((x1 - x0) * tppm), 8), max(int((y1 - y0) * tppm), 8)
    if table["kind"] == "wood":
        if rng.random() < 0.8:
            tex = _table_wood(rng, th, tw, tppm, table["light"], table["dark"])
        else:
            tex = np.ascontiguousarray(
                _table_wood(rng, tw, th, tppm, table["light"], table["dark"]).transpose(1, 0, 2))
    else:
        tex = _cloth(rng, th, tw, tppm, table["light"])
    tq = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64)
    world = np.stack([x0 + tq[:, 0] / tppm, y1 - tq[:, 1] / tppm, np.zeros(4)], -1)
    # the table is smooth: warp it at half size and enlarge
    M = cv2.getPerspectiveTransform(tq.astype(np.float32), (cam.project(world) / 2).astype(np.float32))
    half = cv2.warpPerspective(tex, M, ((w + 1) // 2, (h + 1) // 2), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)
    img[:] = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
    # the board's soft shadow and contact darkening on the table
    outer = board.outer_corners()
    hull = _shadow_hull(outer, light.L, 0.0, cam)
    foot = cam.project(outer[outer[:, 2] == 0]).astype(np.float32)
    foot = cv2.convexHull(foot).reshape(-1, 2)
    bb = _bbox(np.concatenate([hull, foot]), (w, h), pad=int(0.06 * w))
    if bb is None:
        return
    layer = _ShadowLayer((w, h), bb, 0.25)
    layer.add(hull)
    ppm = _ppm(cam, board)
    f = layer.factor(sigma_px=max(3.0, 10 * ppm), strength=0.85 * (1 - light.ambient))
    ao = _ShadowLayer((w, h), bb, 0.25)
    ao.add(foot)
    f *= ao.factor(sigma_px=max(2.0, 6 * ppm), strength=0.35)
    _multiply(img, f, bb[0], bb[1])


def _box_faces(board: _Board, u0: float, u1: float, v0: float, v1: float, z0: float, z1: float,
               inner_z0: float, skip: Sequence[str]) -> list[tuple[str, np.ndarray, np.ndarray, float, float]]:
    """(name, 4 local corners (u, v, z) with the first edge along the grain,
    local normal (du, dv, dz), grain length, width) of a box's outer faces."""
    faces = []
    Lu, Lv = u1 - u0, v1 - v0
    if Lu >= Lv:
        top = np.array([[u0, v0, z1], [u1, v0, z1], [u1, v1, z1], [u0, v1, z1]])
        faces.append(("top", top, np.array([0, 0, 1.0]), Lu, Lv))
    else:
        top = np.array([[u0, v0, z1], [u0, v1, z1], [u1, v1, z1], [u1, v0, z1]])
        faces.append(("top", top, np.array([0, 0, 1.0]), Lv, Lu))
    W, D = board.W, board.D

    def zb(name: str, nrm: tuple[float, float]) -> float:
        # faces towards the playing surface start at the surface
        cu, cv = (u0 + u1) / 2 + nrm[0] * Lu, (v0 + v1) / 2 + nrm[1] * Lv
        inside = 0 < cu < W and 0 < cv < D
        return inner_z0 if inside else z0

    for name, nrm in (("-v", (0, -1)), ("+v", (0, 1)), ("-u", (-1, 0)), ("+u", (1, 0))):
        if name in skip:
            continue
        b = zb(name, nrm)
        if name == "-v":
            q = [[u0, v0, z1], [u1, v0, z1], [u1, v0, b], [u0, v0, b]]
            length = Lu
        elif name == "+v":
            q = [[u1, v1, z1], [u0, v1, z1], [u0, v1, b], [u1, v1, b]]
            length = Lu
        elif name == "-u":
            q = [[u0, v1, z1], [u0, v0, z1], [u0, v0, b], [u0, v1, b]]
            length = Lv
        else:
            q = [[u1, v0, z1], [u1, v1, z1], [u1, v1, b], [u1, v0, b]]
            length = Lv
        faces.append((name, np.array(q, np.float64), np.array([nrm[0], nrm[1], 0.0]), length, z1 - b))
    return faces


def _bar_men_cylinders(board: _Board, men: list[_Man], thick: float) -> list[np.ndarray]:
    """Rim points (bottom and top circle, world) of each man on the bar."""
    r = board.geo.config.man_diameter / 2
    cx, cy = _circle(24)
    out = []
    for m in men:
        if m.on_bar:
            u, v = board.g2l(m.x, m.y)
            c = board.l2w(u, v, 0.0)
            z0 = board.zs + board.bh + m.level * thick
            ring = np.stack([c[0] + r * cx, c[1] + r * cy, np.full(24, z0)], -1)
            out.append(np.concatenate([ring, ring + [0, 0, thick]]))
    return out


@dataclass
class _Boxes:
    """The rails and the bar as painted wood, ready to draw (:func:`_board_boxes`):
    the texture, the rounded edges' colour and, a box each, its extent
    (u0, u1, v0, v1, z0, z1), its visible faces (image quad, texture quad,
    shade, name), its image bounding box and its depth."""

    tex: np.ndarray
    edge: np.ndarray
    boxes: list[tuple[tuple[float, ...], list, tuple[float, float, float, float], float]]


def _board_boxes(rng: np.random.Generator, cam: _Camera, board: _Board, light: _Light, wd: dict,
                 tex_ppm: float) -> _Boxes:
    """The four rails and the bar as boxes painted with wood (a table's
    share: nothing here depends on the men)."""
    W, D, fw = board.W, board.D, board.fw
    ztop = board.zs + board.rh
    length_px = int((W + 2 * fw + 20) * tex_ppm)
    tex_h = int(180 * tex_ppm)
    tex = _wood(rng, tex_h, length_px, tex_ppm, wd["light"], wd["dark"], wd["kind"])
    edge = np.clip(np.array(cv2.mean(tex)[:3]) * 1.12, 0, 255)   # the rounded edges of a top catch light
    boxes = [
        # (u0, u1, v0, v1, z0, z1, skip)
        (-fw, W + fw, -fw, 0.0, 0.0, ztop, ()),
        (-fw, W + fw, D, D + fw, 0.0, ztop, ()),
        (-fw, 0.0, 0.0, D, 0.0, ztop, ("-v", "+v")),
        (W, W + fw, 0.0, D, 0.0, ztop, ("-v", "+v")),
    ]
    b0, b1 = board.geo.bar_x
    boxes.append((W - b1 if board.mirror else b0, W - b0 if board.mirror else b1, 0.0, D, board.zs,
                  board.zs + board.bh, ("-v", "+v")))
    out = []
    for (u0, u1, v0, v1, z0, z1, skip) in boxes:
        faces = _box_faces(board, u0, u1, v0, v1, z0, z1, board.zs, skip)
        drawn = []
        all_pts = []
        for name, q, n_local, length, width in faces:
            Pw = board.l2w(q[:, 0], q[:, 1], q[:, 2])
            nw = board.dir_l2w(n_local[0], n_local[1]) if name != "top" else np.array([0, 0, 1.0])
            centre = Pw.mean(0)
            if float((cam.C - centre) @ nw) <= 0:
                continue
            ip = cam.project(Pw)
            all_pts.append(ip)
            ox = float(rng.uniform(0, max(1.0, tex.shape[1] - length * tex_ppm - 1)))
            oy = float(rng.uniform(0, max(1.0, tex.shape[0] - width * tex_ppm - 1)))
            tq = np.array([[ox, oy], [ox + length * tex_ppm, oy],
                           [ox + length * tex_ppm, oy + width * tex_ppm], [ox, oy + width * tex_ppm]])
            shade = light.shade(nw)
            if name != "top":
                shade *= 0.93
            drawn.append((ip, tq, shade, name))
        pts = np.concatenate(all_pts) if all_pts else cam.project(board.l2w([u0], [v0], [z1]))
        corners = board.l2w(np.array([u0, u1, u0, u1]), np.array([v0, v0, v1, v1]), (z0 + z1) / 2)
        out.append(((u0, u1, v0, v1, z0, z1), drawn,
                    (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())),
                    float(cam.depth(corners.mean(0)))))
    return _Boxes(tex, edge, out)


def _box_solids(art: _Boxes, cam: _Camera, board: _Board, light: _Light,
                bar_men: Sequence[np.ndarray] = ()) -> list[_Solid]:
    """The rails and the bar as solids to paint; the men on the bar
    (:func:`_bar_men_cylinders`) throw their shadows on its top."""
    tex, edge = art.tex, art.edge
    solids = []
    for (u0, u1, v0, v1, z0, z1), drawn, bbox, depth in art.boxes:
        casters = bar_men if z0 > 0 else ()

        def draw(img: np.ndarray, drawn: list = drawn, tex: np.ndarray = tex, casters: Sequence = casters,
                 ztop: float = z1) -> None:
            for ip, tq, shade, name in drawn:
                _warp_quad(img, tex, tq, ip, shade)
                if name == "top":
                    cv2.polylines(img, [_fix(ip)], True, tuple(float(c) for c in np.clip(edge * shade, 0, 255)),
                                  1, cv2.LINE_AA, _SHIFT)
                    if casters:
                        _shadows_on_top(img, ip, casters, ztop, cam, board, light)

        solids.append(_Solid("box", z0, z1, ("r", u0, u1, v0, v1), bbox, depth, draw))
    return solids


def _shadows_on_top(img: np.ndarray, top: np.ndarray, casters: Sequence[np.ndarray], z: float,
                    cam: _Camera, board: _Board, light: _Light) -> None:
    """Soft shadows of men standing on a raised top face (the bar)."""
    size = (img.shape[1], img.shape[0])
    bb = _bbox(top, size)
    if bb is None:
        return
    ppm = _ppm(cam, board)
    shadow = _ShadowLayer(size, bb, 0.5)
    contact = _ShadowLayer(size, bb, 0.5)
    for pts in casters:
        shadow.add(_shadow_hull(pts, light.L, z, cam))
        base = pts[: len(pts) // 2]
        centre = base.mean(0)
        contact.add(cam.project(centre + (base - centre) * 1.04))
    f = shadow.factor(max(1.0, 1.6 * ppm), 0.9 * (1 - light.ambient))
    f *= contact.factor(max(0.8, 1.2 * ppm), 0.45)
    region = np.zeros((bb[3] - bb[1], bb[2] - bb[0]), np.uint8)
    _fill(region, top - [bb[0], bb[1]], (255,), False)
    _multiply(img, f, bb[0], bb[1], region)


def _draw_surface(img: np.ndarray, rng: np.random.Generator, cam: _Camera, board: _Board, fd: dict, cols: tuple,
                  wd: dict, tex_ppm: float) -> None:
    """The field and the points (a table's share: the shadows that fall on
    them are :func:`_surface_shadows`)."""
    geo = board.geo
    W, D = board.W, board.D
    s = tex_ppm
    th, tw = int(D * s) + 1, int(W * s) + 1
    if fd["kind"] == "wood":
        lighter = [min(255, c * 1.08 + 6) for c in wd["light"]]
        tex = np.ascontiguousarray(_wood(rng, tw, th, s, lighter, wd["dark"], wd["kind"]).transpose(1, 0, 2))
    elif fd["kind"] == "leather":
        c = np.array(fd["colour"], float)
        tex = _wood(rng, th, tw, s, c, c * 0.88, "leather")
    else:
        tex = _cloth(rng, th, tw, s, fd["colour"], grain=0.012)
    if rng.random() < 0.5:
        cols = (cols[1], cols[0])
    half = geo.config.point_width / 2
    length = geo.config.point_length
    for col in range(12):
        x = geo.point_centre_x(13 + col)
        for top in (True, False):
            c = cols[(col + (0 if top else 1)) % 2]
            if top:
                tri = np.array([[x - half, 0], [x + half, 0], [x, length]])
            else:
                tri = np.array([[x - half, D], [x + half, D], [x, D - length]])
            _fill(tex, tri * s, _bgr(c), True)
    tq = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64)
    quad3 = board.l2w(tq[:, 0] / s, tq[:, 1] / s, board.zs)
    ip = cam.project(quad3)
    _warp_quad(img, tex, tq, ip, 1.0, aa=False)


def _surface_shadows(img: np.ndarray, cam: _Camera, board: _Board, light: _Light, men: list[_Man], thick: float,
                     dice_xy: list[tuple[float, float, float]], die_size: float, solids: list[_Solid]) -> None:
    """The shadows that fall on the playing surface (of the rails, the bar,
    the men and the dice) and contact darkening."""
    geo = board.geo
    W, D = board.W, board.D
    size = (img.shape[1], img.shape[0])
    sq = cam.project(board.l2w([0, W, W, 0], [0, 0, D, D], board.zs))
    bb = _bbox(sq, size)
    if bb is None:
        return
    ppm = _ppm(cam, board)
    shadow = _ShadowLayer(size, bb, 0.5)
    ao = _ShadowLayer(size, bb, 0.5)
    contact = _ShadowLayer(size, bb, 0.5)
    for sol in solids:
        u0, u1, v0, v1 = sol.fp[1:]
        corners = []
        for z in (max(sol.zmin, board.zs), sol.zmax):
            corners.append(board.l2w(np.array([u0, u1, u1, u0]), np.array([v0, v0, v1, v1]), z))
        shadow.add(_shadow_hull(np.concatenate(corners), light.L, board.zs, cam))
        ao.add(cam.project(corners[0]))
    r = geo.config.man_diameter / 2
    cx, cy = _circle(24)
    for m in men:
        if m.on_bar:
            continue
        u, v = board.g2l(m.x, m.y)
        c = board.l2w(u, v, 0.0)
        z0 = board.zs + m.level * thick
        ring = np.stack([c[0] + r * cx, c[1] + r * cy, np.full(24, z0)], -1)
        top = ring.copy()
        top[:, 2] = z0 + thick
        shadow.add(_shadow_hull(np.concatenate([ring, top]), light.L, board.zs, cam))
        if m.level == 0:
            ring2 = ring.copy()
            ring2[:, :2] = c[:2] + (ring[:, :2] - c[:2]) * 1.04
            contact.add(cam.project(ring2))
    for (x, y, yaw) in dice_xy:
        u, v = board.g2l(x, y)
        c = board.l2w(u, v, board.zs)
        ex, ey, ez = _die_axes(yaw)
        h = die_size / 2
        foot = np.array([c + (ex * i + ey * j) * h for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        shadow.add(_shadow_hull(np.concatenate([foot, foot + ez * die_size]), light.L, board.zs, cam))
        contact.add(cam.project(foot))
    k = 0.9 * (1 - light.ambient)
    f = shadow.factor(max(1.0, 1.6 * ppm), k)
    f *= ao.factor(max(2.0, 9 * ppm), 0.3)
    f *= contact.factor(max(0.8, 1.2 * ppm), 0.45)
    region = np.zeros((bb[3] - bb[1], bb[2] - bb[0]), np.uint8)
    _fill(region, sq - [bb[0], bb[1]], (255,), False)
    _multiply(img, f, bb[0], bb[1], region)
