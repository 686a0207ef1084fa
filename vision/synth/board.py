"""Drawing the table and the board: the table top with the board's shadow,
the rails and bar as wooden boxes, and the playing surface (field and
points) with the shadows that fall on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from .layout import _Man
from .looks import Look
from .raster import (_SHIFT, _bbox, _circle, _fill, _fix, _Light, _multiply, _ShadowLayer, _shadow_hull, _Solid,
                     _warp_quad)
from .scene3d import _Board, _Camera, _die_axes, _ppm
from .textures import _bgr, _cloth, _Colour, _felt, _table_wood, _wood


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
    foot: np.ndarray = cam.project(outer[outer[:, 2] == 0]).astype(np.float32)
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


#: a box's face as drawn: its image quad, its texture quad, its shade and its name
_Face = tuple[np.ndarray, np.ndarray, float, str]


@dataclass
class _Boxes:
    """The rails and the bar as painted wood, ready to draw (:func:`_board_boxes`):
    the texture, the rounded edges' colour and, a box each, its extent
    (u0, u1, v0, v1, z0, z1), its visible faces (image quad, texture quad,
    shade, name), its image bounding box and its depth."""

    tex: np.ndarray
    edge: np.ndarray
    boxes: list[tuple[tuple[float, float, float, float, float, float], list[_Face], tuple[float, float, float, float],
                      float]]


def _board_boxes(rng: np.random.Generator, cam: _Camera, board: _Board, light: _Light, wd: Mapping[str, Any],
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
    if board.bar_kind != "flush":   # a flush bar is painted on the surface (_draw_surface)
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
        seam = _hinge_seam(cam, board, u0, u1, v1, z1) if z0 > 0 and board.bar_kind == "hinge" else None

        def draw(img: np.ndarray, drawn: list[_Face] = drawn, tex: np.ndarray = tex,
                 casters: Sequence[np.ndarray] = casters, ztop: float = z1,
                 seam: tuple[np.ndarray, list[np.ndarray]] | None = seam) -> None:
            for ip, tq, shade, name in drawn:
                _warp_quad(img, tex, tq, ip, shade)
                if name == "top":
                    cv2.polylines(img, [_fix(ip)], True, tuple(float(c) for c in np.clip(edge * shade, 0, 255)),
                                  1, cv2.LINE_AA, _SHIFT)
                    if seam is not None:
                        line, hinges = seam
                        cv2.polylines(img, [_fix(line)], False, (18, 18, 20), 2, cv2.LINE_AA, _SHIFT)
                        for h in hinges:
                            _fill(img, h, (150, 154, 160))
                            cv2.polylines(img, [_fix(h)], True, (70, 72, 76), 1, cv2.LINE_AA, _SHIFT)
                    if casters:
                        _shadows_on_top(img, ip, casters, ztop, cam, board, light)

        solids.append(_Solid("box", z0, z1, ("r", u0, u1, v0, v1), bbox, depth, draw))
    return solids


def _hinge_seam(cam: _Camera, board: _Board, u0: float, u1: float, v1: float,
                z: float) -> tuple[np.ndarray, list[np.ndarray]]:
    """A folding box's bar: the seam between its halves' two inner rails
    (image points along the bar's top) and two metal hinges across it."""
    uc = (u0 + u1) / 2
    line = cam.project(board.l2w(np.full(2, uc), np.array([0.0, v1]), z))
    hw = min(12.0, (u1 - u0) * 0.45)
    hinges = []
    for vc in (v1 * 0.22, v1 * 0.78):
        q = board.l2w(np.array([uc - hw, uc + hw, uc + hw, uc - hw]), np.array([vc - 14, vc - 14, vc + 14, vc + 14]),
                      z + 0.3)
        hinges.append(cam.project(q))
    return line, hinges


def _rail_shade(board: _Board, look: Look | None, u: np.ndarray, v: np.ndarray) -> np.ndarray | float:
    """How much of the room's light reaches the surface at board-local
    (u, v) mm past the rails' and a raised bar's inner walls (1: all of
    it): ``look["rail_shadow"]`` lost at a wall, falling off over
    ``look["rail_shadow_mm"]``."""
    if look is None or not look["rail_shadow"]:
        return 1.0
    u, v = np.asarray(u, np.float64), np.asarray(v, np.float64)
    d = np.minimum(np.minimum(u, board.W - u), np.minimum(v, board.D - v))
    if board.bar_kind != "flush" and board.bh > 0:
        b0, b1 = board.geo.bar_x
        u0, u1 = (board.W - b1, board.W - b0) if board.mirror else (b0, b1)
        d = np.minimum(d, np.where(u < u0, u0 - u, np.where(u > u1, u - u1, 0.0)) * 1.6)   # the bar is lower
    d = np.clip(d, 0, None)
    shade: np.ndarray = 1.0 - look["rail_shadow"] * np.exp(-d / max(look["rail_shadow_mm"], 1.0))
    return shade


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


def _draw_surface(img: np.ndarray, rng: np.random.Generator, cam: _Camera, board: _Board, fd: Mapping[str, Any],
                  cols: tuple[_Colour, ...], wd: Mapping[str, Any], tex_ppm: float, look: Look | None = None) -> None:
    """The field and the points (a table's share: the shadows that fall on
    them are :func:`_surface_shadows`); with a *look*, felt, grained
    veneer, a line round each point, mosaic, and a flush bar drawn from the
    look's own generators."""
    geo = board.geo
    W, D = board.W, board.D
    s = tex_ppm
    th, tw = int(D * s) + 1, int(W * s) + 1
    felt = look["felt"] if look is not None else 0.0
    if look is not None and felt:                 # (felt is 0 without a look)
        tex = _felt(look.rng(10), th, tw, s, fd["colour"] or wd["light"], felt)
    elif fd["kind"] == "wood":
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
    triangles: list[tuple[np.ndarray, int]] = []
    for col in range(12):
        x = geo.point_centre_x(13 + col)
        for top in (True, False):
            if top:
                tri = np.array([[x - half, 0], [x + half, 0], [x, length]])
            else:
                tri = np.array([[x - half, D], [x + half, D], [x, D - length]])
            triangles.append((tri, (col + (0 if top else 1)) % 2))
    if look is None:
        for tri, k in triangles:
            _fill(tex, tri * s, _bgr(cols[k]), True)
    else:
        _looked_points(tex, look, board, triangles, cols, wd, s, felt)
    tq = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64)
    quad3 = board.l2w(tq[:, 0] / s, tq[:, 1] / s, board.zs)
    ip = cam.project(quad3)
    _warp_quad(img, tex, tq, ip, 1.0, aa=False)


def _looked_points(tex: np.ndarray, look: Look, board: _Board, triangles: list[tuple[np.ndarray, int]],
                   cols: tuple[_Colour, ...], wd: Mapping[str, Any], s: float, felt: float) -> None:
    """The points painted into the surface's texture as a *look* has them:
    grained veneer, printed on felt with soft edges, a thin line round
    each, mosaic bands along their sides and round the surface, a panel in
    each half, and a flush bar."""
    th, tw = tex.shape[:2]
    geo = board.geo
    W = board.W
    for k in (0, 1):
        colour = _bgr(cols[k])
        mask: np.ndarray = np.zeros((th, tw), np.uint8)
        for tri, kk in triangles:
            if kk == k:
                _fill(mask, tri * s, (255,), True)
        if felt:            # printed or sewn on felt: soft edges, the felt's fibre showing through
            mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, 1.2 * felt * s))
        paint = np.empty_like(tex)
        paint[:] = colour
        if look["grain"]:   # inlaid veneer, its grain along the point
            g = look["grain"]
            light = np.clip(np.array(cols[k], float) * 1.16 + 4, 0, 255)
            dark = np.array(cols[k], float) * 0.72
            veneer = np.ascontiguousarray(_wood(look.rng(20 + k), tw, th, s, light, dark).transpose(1, 0, 2))
            paint = cv2.addWeighted(veneer, g, paint, 1 - g, 0)
        if felt:
            lum = cv2.cvtColor(tex, cv2.COLOR_BGR2GRAY).astype(np.float32)
            rel = lum / max(float(lum.mean()), 1.0)
            paint = cv2.multiply(paint, cv2.merge([rel, rel, rel]), dtype=cv2.CV_8U)
        m = mask.astype(np.uint16)[..., None]
        tex[:] = ((paint.astype(np.uint16) * m + tex.astype(np.uint16) * (255 - m) + 127) // 255).astype(np.uint8)
    lr = look.rng(30)
    if look["outline"]:     # a thin line of a contrasting colour round each point
        field = np.array(cv2.mean(tex)[:3])
        line = np.array((30, 30, 32)) if field.mean() > 110 and lr.random() < 0.6 else np.array(
            ((238, 238, 232), (70, 170, 212), (40, 40, 40))[int(lr.integers(0, 3))], float)
        thick = max(1, int(round(look["outline"] * s)))
        dots = lr.random() < 0.4            # and, on some boards, a dot beyond each tip
        dot_r, dot_gap = float(lr.uniform(2.5, 5.0)), float(lr.uniform(6.0, 14.0))
        for tri, _ in triangles:
            cv2.polylines(tex, [_fix(tri * s)], True, tuple(float(c) for c in line), thick, cv2.LINE_AA, _SHIFT)
            if dots:
                base = (tri[0] + tri[1]) / 2
                d = (tri[2] - base) / np.linalg.norm(tri[2] - base)
                cx, cy = _circle(16)
                c = tri[2] + d * (dot_gap + dot_r)
                _fill(tex, np.stack([c[0] + dot_r * cx, c[1] + dot_r * cy], -1) * s, line, True)
    if look["mosaic"]:
        _mosaic(tex, look, board, triangles, cols, s)
    if board.bar_kind == "flush":   # the bar a strip of wood or a printed line, level with the surface
        b0, b1 = geo.bar_x
        u0, u1 = (W - b1, W - b0) if board.mirror else (b0, b1)
        x0, x1 = int(round(u0 * s)), max(int(round(u1 * s)), int(round(u0 * s)) + 1)
        if lr.random() < 0.5:
            strip = _wood(lr, th, x1 - x0, s, wd["light"], wd["dark"])
        else:
            strip = np.empty((th, x1 - x0, 3), np.uint8)
            strip[:] = _bgr((232, 230, 222) if lr.random() < 0.5 else wd["dark"])
        tex[:, x0:x1] = strip
        cv2.line(tex, ((x0 + x1) // 2, 0), ((x0 + x1) // 2, th - 1), (20, 20, 20), 1, cv2.LINE_AA)


def _mosaic(tex: np.ndarray, look: Look, board: _Board, triangles: list[tuple[np.ndarray, int]],
            cols: tuple[_Colour, ...], s: float) -> None:
    """Inlaid mosaic: bands of small tiles in turn along each point's two
    sides and round the surface, and a square or diamond panel in the middle
    of each half."""
    rng = look.rng(40)
    palette = [np.array(c, float) for c in ((236, 228, 204), (36, 32, 30), (168, 48, 40), (44, 110, 70),
                                            (200, 160, 90))]
    palette += [np.array(cols[0], float), np.array(cols[1], float)]
    tiles = [_bgr(palette[int(i)]) for i in rng.integers(0, len(palette), 4)]
    band = float(rng.uniform(2.5, 6.0))          # mm across
    step = float(rng.uniform(2.5, 5.0))          # mm a tile along

    def strip(a: np.ndarray, b: np.ndarray, inward: np.ndarray) -> None:
        n = max(1, int(np.linalg.norm(b - a) / step))
        for i in range(n):
            p0, p1 = a + (b - a) * i / n, a + (b - a) * (i + 1) / n
            quad = np.array([p0, p1, p1 + inward * band, p0 + inward * band])
            _fill(tex, quad * s, tiles[i % len(tiles)], False)

    for tri, _ in triangles:
        centroid = tri.mean(0)
        for a, b in ((tri[0], tri[2]), (tri[1], tri[2])):
            d = (b - a) / np.linalg.norm(b - a)
            nrm = np.array([-d[1], d[0]])
            if nrm @ (centroid - a) < 0:
                nrm = -nrm
            strip(a, b, nrm)
    W, D = board.W, board.D
    corners = np.array([[0, 0], [W, 0], [W, D], [0, D]], float)
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        d = (b - a) / np.linalg.norm(b - a)
        strip(a, b, np.array([-d[1], d[0]]))      # inward: the corners go round clockwise in the texture
    geo = board.geo
    b0, b1 = geo.bar_x
    size = min(b0 * 0.7, (D - 2 * geo.config.point_length) * 0.85)
    if size > 20 and rng.random() < 0.8:
        fill_c, edge_c = _bgr(palette[int(rng.integers(0, len(palette)))]), tiles[0]
        diamond = rng.random() < 0.5
        for cx in (b0 / 2, (b1 + W) / 2):
            c = np.array([cx, D / 2])
            h = size / 2
            shape = (np.array([[0, -h], [h, 0], [0, h], [-h, 0]]) if diamond
                     else np.array([[-h, -h], [h, -h], [h, h], [-h, h]])) + c
            _fill(tex, shape * s, edge_c, True)
            _fill(tex, (c + (shape - c) * 0.85) * s, fill_c, True)
            _fill(tex, (c + (shape - c) * 0.4) * s, tiles[1], True)


def _surface_shadows(img: np.ndarray, cam: _Camera, board: _Board, light: _Light, men: list[_Man], thick: float,
                     dice_xy: list[tuple[float, float, float]], die_size: float, solids: list[_Solid],
                     look: Look | None = None) -> None:
    """The shadows that fall on the playing surface (of the rails, the bar,
    the men and the dice) and contact darkening; with a *look*, the rails'
    shade (``_rail_shade``) and the men's darker shadows."""
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
        fp = sol.fp
        assert fp[0] == "r"                       # a box's footprint: a rectangle (u0, u1, v0, v1)
        u0, u1, v0, v1 = fp[1:]
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
    ms = look["men_shadow"] if look is not None else 0.0
    f *= contact.factor(max(0.8, (1.2 + 2.0 * ms) * ppm), 0.45 + 0.4 * ms)
    if look is not None and look["rail_shadow"]:
        gy, gx = np.mgrid[bb[1]:bb[3]:2, bb[0]:bb[2]:2].astype(np.float64) + 0.5
        P = cam.ray_to_plane(np.stack([gx, gy], -1), board.zs)
        u, v = board.w2l(P[..., 0], P[..., 1])
        shade = np.asarray(_rail_shade(board, look, u, v), np.float32)   # an array here (a float only without a look)
        f *= cv2.resize(shade, (f.shape[1], f.shape[0]), interpolation=cv2.INTER_LINEAR)
    region = np.zeros((bb[3] - bb[1], bb[2] - bb[0]), np.uint8)
    _fill(region, sq - [bb[0], bb[1]], (255,), False)
    _multiply(img, f, bb[0], bb[1], region)
