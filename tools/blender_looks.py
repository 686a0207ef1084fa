"""What widens the path-traced scenes beyond the painter's plan (``blender_frames.py``).

The plan (``synth.plan_scene``) places the board, the men, the dice, the
camera and the light; these draws change only how things look, or add
something over the board, each from a stream of its own, so a frame's
other draws (and so the frames made without them) stay as they were:

- ``widen_light`` (``--varied-light``): lamps and windows of every colour,
  a second light, gloss and bevelled rims, dark men on dark points;
- ``inlay`` (``--inlaid``): the look of inlaid sets, men whose faces carry a
  disc, a star or a ring of other woods, points of wood grain or bordered
  with stripes of marquetry, panels inlaid in the field;
- ``cover`` (``--covered-share``): a bare forearm and hand, a sleeved arm and
  hand, a sleeve or a dice cup over one of the men, in true sizes (a forearm
  60-75 mm across, a hand 80-90 mm, a cup's mouth 58-70 mm), for measuring
  the check that refuses a covered frame.  The point reader never learns
  from these frames.
"""

from __future__ import annotations

import math

import numpy as np

#: what lies over the board in a covered frame
COVER_KINDS = ("arm", "sleeved hand", "sleeve", "cup")
# colours as sRGB (0-255, red first), as the Blender scene takes them
SKIN = ((205, 150, 118), (178, 128, 96), (132, 90, 64), (218, 176, 150), (96, 62, 44))
CLOTH = ((25, 40, 70), (40, 40, 40), (150, 40, 40), (210, 215, 215), (60, 110, 60), (80, 110, 140),
         (30, 30, 30), (155, 150, 150))
CUP = ((75, 45, 30), (20, 20, 20), (140, 35, 35), (120, 90, 60), (195, 200, 200))
# the woods and stains of inlay: ebony, rosewood, boxwood, walnut, a red and a green stain, bone
INLAY = ((35, 28, 24), (110, 50, 35), (226, 200, 150), (120, 80, 45), (160, 40, 35), (60, 100, 65),
         (235, 228, 210))


def kelvin_rgb(kelvin: float) -> tuple[float, float, float]:
    """A light's colour at a colour temperature (K), as RGB shares of its
    brightest channel: 2,700 K a tungsten bulb, 4,000 K a warm-white tube,
    5,500 K midday, 6,500 K an overcast window (read off the blackbody
    locus between these anchors, linearly)."""
    anchors = ((2700, (1.0, 0.66, 0.38)), (3500, (1.0, 0.77, 0.54)), (4500, (1.0, 0.87, 0.73)),
               (5500, (1.0, 0.94, 0.88)), (6500, (1.0, 0.98, 1.0)), (8000, (0.86, 0.90, 1.0)))
    k = min(max(kelvin, anchors[0][0]), anchors[-1][0])
    for (k0, c0), (k1, c1) in zip(anchors, anchors[1:]):
        if k <= k1:
            t = (k - k0) / (k1 - k0)
            return tuple(round(a + (b - a) * t, 4) for a, b in zip(c0, c1))  # type: ignore[return-value]
    return anchors[-1][1]


def widen_light(scene: dict, rng: np.random.Generator) -> None:
    """More of the light and finish real rooms and sets have (``--varied-light``): the lamp's colour
    from a candle-warm bulb to a blue window, a second light of another colour from another side in
    half the frames, glossy or matt men with rims from sharp to bevelled, and in a quarter of the frames
    one colour of points brought to the men of its shade (dark men on dark points, light on light)."""
    light = scene["light"]
    light["rgb"] = list(kelvin_rgb(float(rng.uniform(2700, 7500))))
    light["ambient_rgb"] = list(kelvin_rgb(float(rng.uniform(3500, 8000))))
    if rng.random() < 0.5:
        az = float(rng.uniform(0, 2 * math.pi))
        elev = float(rng.uniform(0.35, 1.2))
        second = {"type": "AREA", "energy": float(light["energy"] * rng.uniform(0.15, 0.6)),
                  "size": [float(rng.uniform(0.3, 1.0))] * 2, "distance": float(rng.uniform(1.5, 2.5)),
                  "dir": [math.cos(az) * math.cos(elev), math.sin(az) * math.cos(elev), math.sin(elev)],
                  "target": light["target"], "rgb": list(kelvin_rgb(float(rng.uniform(2700, 8000))))}
        scene["light2"] = second
    men = scene["men"]
    men["rough"] = float(rng.uniform(0.08, 0.6))
    men["spec"] = float(rng.uniform(0.3, 0.9))
    men["rim"] = float(rng.uniform(0.6, min(3.6, men["thick"] * 0.3)))
    if rng.random() < 0.25:
        shade = int(rng.integers(0, 2))                  # 0: light men on light points, 1: dark on dark
        man = np.asarray(men["rgb"][shade], float)
        points = scene["board"]["point_rgb"]
        which = int(np.argmin([np.sum(np.abs(np.asarray(c, float) - man)) for c in points]))
        points[which] = [float(v) for v in np.clip(man * rng.uniform(0.85, 1.15, 3), 0, 255)]


def _pick(rng: np.random.Generator, colours: tuple, jitter: float = 0.08, avoid: list | None = None) -> list[float]:
    """One of *colours*, each channel scaled within *jitter*; not the one nearest *avoid* where given."""
    choices = list(colours)
    if avoid is not None and len(choices) > 1:
        choices.pop(int(np.argmin([np.abs(np.subtract(c, avoid)).sum() for c in choices])))
    base = np.asarray(choices[int(rng.integers(len(choices)))], float)
    return [round(float(v), 1) for v in np.clip(base * rng.uniform(1 - jitter, 1 + jitter, 3), 0, 255)]


def inlay(scene: dict, rng: np.random.Generator) -> None:
    """The look of an inlaid set (``--inlaid``): each of three parts in about half the frames drawn --
    the men's faces (a disc of another wood in the middle, cut into a star of 4-8 sectors of two woods
    or whole, and a ring nearer the rim in some), the points (of wood grain, or each bordered by
    1.5-4 mm of striped marquetry), and a panel inlaid in each half's field between the points' tips
    (some with a diamond in it)."""
    men, board = scene["men"], scene["board"]
    if rng.random() < 0.6:
        radius = float(men["radius"])
        share, sectors = float(rng.uniform(0.3, 0.65)), int(rng.choice([0, 4, 6, 8]))
        ring = None
        if rng.random() < 0.5:
            inner = float(rng.uniform(max(share + 0.08, 0.55), 0.8)) * radius
            ring = [round(inner, 2), round(min(inner + float(rng.uniform(0.8, 2.0)), radius * 0.92), 2)]
        men["inlay"] = [{"rgb": _pick(rng, INLAY, avoid=men["rgb"][c]), "rgb2": _pick(rng, INLAY),
                         "radius": round(share * radius, 2), "sectors": sectors, "ring": ring} for c in (0, 1)]
    if rng.random() < 0.4:
        board["point_grain"] = True
    if rng.random() < 0.4:
        board["point_border"] = {"rgb": _pick(rng, INLAY), "rgb2": _pick(rng, INLAY),
                                 "width": round(float(rng.uniform(1.5, 4.0)), 2),
                                 "pitch": round(float(rng.uniform(1.2, 3.0)), 2)}
    if rng.random() < 0.5:
        W, D = float(board["W"]), float(board["D"])
        gap = min(abs(tri[2][1]) for tri in board["point_tris"])          # the tips' distance from the middle
        u0, u1 = board["bar_u"]
        halves = ((-W / 2, u0 - W / 2), (u1 - W / 2, W / 2))
        colour, second = _pick(rng, INLAY), _pick(rng, INLAY)
        across, along, diamond = float(rng.uniform(0.6, 1.25)), float(rng.uniform(0.45, 0.85)), rng.random() < 0.5
        board["panels"] = []
        for a0, a1 in halves:
            mid, half = (a0 + a1) / 2, (a1 - a0) / 2 * along
            board["panels"].append({"box": [round(mid - half, 2), round(mid + half, 2),
                                            round(-gap * across, 2), round(gap * across, 2)],
                                    "rgb": colour, "rgb2": second, "diamond": bool(diamond)})


def cover(scene: dict, rng: np.random.Generator, kind: str) -> list[dict]:
    """The solids of one *kind* (``COVER_KINDS``) over one of the scene's men, world mm: arms come from
    the side of the board nearer the camera, up to 35 degrees aslant, rising away from the board, with
    the palm (or a sleeve's end) over the man; a cup stands on his pile, or is turned over him, or lies
    on its side across him, half of them in the colour of his men."""
    if kind not in COVER_KINDS:
        raise ValueError(f"kind must be one of {', '.join(COVER_KINDS)}, not {kind!r}")
    men, board = scene["men"], scene["board"]
    if not men["list"]:
        raise ValueError("a cover lies over a man, and this scene has none")
    man = men["list"][int(rng.integers(len(men["list"])))]
    x, y, z = man["xyz"]
    zs, thick = float(board["zs"]), float(men["thick"])
    top = z + thick
    yaw = math.radians(board["yaw"])
    normal = np.array([-math.sin(yaw), math.cos(yaw)])
    camera = np.asarray(scene["camera"]["C"][:2], float)
    if float(normal @ (camera - (x, y))) < 0:
        normal = -normal
    turn = math.radians(float(rng.uniform(-35, 35)))
    d = np.array([normal[0] * math.cos(turn) - normal[1] * math.sin(turn),
                  normal[0] * math.sin(turn) + normal[1] * math.cos(turn)])
    if kind == "cup":
        mouth = float(rng.uniform(29, 35))
        height, rgb = float(rng.uniform(70, 100)), (list(men["rgb"][man["colour"]]) if rng.random() < 0.5
                                                    else _pick(rng, CUP))
        part = {"shape": "cup", "mouth": mouth, "base": mouth * float(rng.uniform(0.8, 0.95)), "height": height,
                "wall": 3.0, "rgb": rgb, "material": "cup"}
        how = rng.random()
        if how < 0.4:                                    # standing on his pile, mouth up
            part.update(start=[x, y, top + height], end=[x, y, top])
        elif how < 0.7:                                  # turned over him, mouth down on the board
            part.update(start=[x, y, zs], end=[x, y, zs + height])
        else:                                            # lying on its side across him
            mid = np.array([x, y]) - d * height / 2
            part.update(start=[*map(float, mid), top + mouth], end=[*map(float, mid + d), top + mouth])
        return [part]
    hand_z = top + float(rng.uniform(28, 65))
    rise = float(rng.uniform(0.15, 0.45))                # the arm's slope up, away from the board
    reach = 520.0

    def along(s: float, dz: float = 0.0) -> list[float]:
        px, py = np.array([x, y]) + d * s
        return [float(px), float(py), hand_z + s * rise + dz]

    skin = _pick(rng, SKIN)
    hand = {"shape": "ellipsoid", "centre": along(0.0), "radii": [float(rng.uniform(48, 56)),
                                                                   float(rng.uniform(40, 45)),
                                                                   float(rng.uniform(12, 17))],
            "yaw": math.degrees(math.atan2(d[1], d[0])), "pitch": -math.degrees(math.atan(rise)),
            "rgb": skin, "material": "skin"}
    forearm = float(rng.uniform(30, 37.5))
    if kind == "arm":
        return [hand, {"shape": "cylinder", "start": along(40.0), "end": along(reach),
                       "radius": [forearm * 0.8, forearm], "rgb": skin, "material": "skin"}]
    sleeve = {"shape": "cylinder", "end": along(reach), "radius": [forearm + 8, forearm + 14],
              "rgb": _pick(rng, CLOTH), "material": "cloth"}
    if kind == "sleeve":
        sleeve["start"] = along(0.0, max(8.0, forearm + 11 - (hand_z - top)))     # its cuff clear of the men
        return [sleeve]
    sleeve["start"] = along(float(rng.uniform(70, 110)))
    return [hand, {"shape": "cylinder", "start": along(40.0), "end": along(140.0),
                   "radius": [forearm * 0.75, forearm * 0.8], "rgb": skin, "material": "skin"}, sleeve]
