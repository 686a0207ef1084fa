"""Planning a scene: everything one frame shows (position, styles, board,
men, dice, camera, light and palettes) decided before anything is drawn,
as a :class:`ScenePlan`, and the label that describes it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..config import VisionConfig
from ..geometry import BoardGeometry
from .layout import _layout_men, _Man, _MenFinish, _place_dice
from .positions import (_backgammon_start, _classify, _doc, _doublets_played, _doublets_start, _normalise_position,
                        _random_position)
from .raster import _Light
from .scene3d import _Board, _Camera, _make_camera
from .spec import POSITION_KINDS, SceneSpec
from .randomized import RANDOM_NAME, RANDOMIZED, random_styles
from .looks import Look, draw_look
from .styles import _SKINS, BOARD_RANGES, STANDARD_BOARD, STYLE_FIELDS, STYLES, style_choices


def _jitter_rgb(rng: np.random.Generator, rgb: Sequence[float], amount: float) -> tuple[int, ...]:
    """One colour moved by about `amount`: its brightness, and each channel a
    little less."""
    gain = math.exp(rng.normal(0, amount)) * np.exp(rng.normal(0, amount / 2, 3))
    return tuple(int(np.clip(c * g, 0, 255)) for c, g in zip(rgb, gain))


def _lum(rgb: Sequence[float]) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


#: the points' two colours, or more (each (r, g, b))
_PointColours = tuple[Sequence[float], ...]
#: the men's colours: (light (r, g, b), dark (r, g, b), grooved)
_MenColours = tuple[Sequence[float], Sequence[float], bool]


def _jittered_palettes(rng: np.random.Generator, amount: float, wood: str | Mapping[str, Any],
                       field: str | Mapping[str, Any], points: str | _PointColours,
                       men: str | _MenColours) -> tuple[dict[str, Any], dict[str, Any], _PointColours, _MenColours]:
    """Copies of the chosen palette entries (given as entries, or by their
    names in ``STYLES``) with their colours spread; the light men stay
    clearly lighter than the dark ones."""
    wood_entry: Mapping[str, Any] = STYLES["wood"][wood] if isinstance(wood, str) else wood
    field_entry: Mapping[str, Any] = STYLES["field"][field] if isinstance(field, str) else field
    point_colours: _PointColours = STYLES["points"][points] if isinstance(points, str) else points
    men_colours: _MenColours = STYLES["men"][men] if isinstance(men, str) else men
    wd = dict(wood_entry)
    wd["light"] = _jitter_rgb(rng, wd["light"], amount)
    wd["dark"] = _jitter_rgb(rng, wd["dark"], amount)
    fd = dict(field_entry)
    if fd["colour"] is not None:
        fd["colour"] = _jitter_rgb(rng, fd["colour"], amount)
    pc = tuple(_jitter_rgb(rng, c, amount) for c in point_colours)
    light_c, dark_c, grooved = men_colours
    lc: Sequence[float]
    dc: Sequence[float]
    for _ in range(8):
        lc, dc = _jitter_rgb(rng, light_c, amount), _jitter_rgb(rng, dark_c, amount)
        if _lum(lc) - _lum(dc) >= 60:
            break
    else:
        lc, dc = light_c, dark_c
    return wd, fd, pc, (lc, dc, grooved)


def _nearer_men(rng: np.random.Generator, men: _MenColours, amount: float) -> _MenColours:
    """The men's colours (light, dark, grooved) brought nearer each other
    (``SceneSpec.men_contrast``): light men darker by up to *amount*, dark men
    lighter by up to twice it, keeping about 35 of luminance between them."""
    light_c, dark_c, grooved = men

    def scaled(rgb: Sequence[float], f: float) -> tuple[int, ...]:
        return tuple(int(np.clip(round(c * f), 0, 255)) for c in rgb)

    lc = scaled(light_c, 1.0 - float(rng.uniform(0, amount)))
    df = 1.0 + float(rng.uniform(0, 2 * amount))
    while _lum(lc) - _lum(scaled(dark_c, df)) < 35 and df > 1.0:
        df = max(1.0, df - 0.05)
    return lc, scaled(dark_c, df), grooved


_PLAN_NAME = {"wood": "wood", "men": "men_style", "points": "points", "field": "field", "table": "table",
              "lighting": "lighting", "lens": "lens"}


def _plain(value: Any) -> Any:
    """*value* as plain JSON values (tuples as lists)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _choose(rng: np.random.Generator, value: Any, options: Sequence[Any], p: Sequence[float] | None = None) -> Any:
    if value is not None:
        return value
    if p is not None:
        p = np.asarray(p, float) / np.sum(p)
    return options[int(rng.choice(len(options), p=p))]


@dataclass
class ScenePlan:
    """Everything one scene shows, decided before anything is drawn
    (:func:`plan_scene`): the rasteriser here paints it, and
    ``tools/blender_frames.py`` builds the same scene in Blender.  Lengths
    are millimetres, angles degrees; ``cam`` and ``board`` give world
    coordinates (z up, the table at z = 0)."""

    spec: SceneSpec
    doc: dict[str, Any]
    kind: str
    wood: str
    men_style: str
    points: str
    field: str
    table: str
    lighting: str
    lens: str
    size: tuple[int, int]
    mirror: bool
    yaw: float
    tilt: float
    focal: float
    fill: float
    fill_actual: float
    az: float
    roll: float
    row_max: int
    thick: float
    bar_light_side: int
    board: _Board
    gap: float
    spread: float
    finish: _MenFinish | None
    men: list[_Man]
    dice_values: list[int]
    die_size: float
    dice_xy: list[tuple[float, float, float]]
    occluded: bool
    cam: _Camera
    target: np.ndarray
    shift: np.ndarray
    elev: float
    lazi: float
    light: _Light
    skin: tuple[int, int, int]
    dice_body: str
    wood_e: dict[str, Any]
    field_e: dict[str, Any]
    points_e: _PointColours
    men_e: _MenColours
    # the style entries the scene was drawn with, by field (``STYLE_FIELDS``),
    # before any palette jitter: the named entries, or a randomised scene's own
    style_e: dict[str, Any]
    # how real boards and photographs look (``SceneSpec.real_look``), None when not asked
    look: Look | None = None

    @property
    def table_e(self) -> Mapping[str, Any]:
        entry: Mapping[str, Any] = self.style_e["table"]
        return entry

    @property
    def lighting_e(self) -> Mapping[str, Any]:
        entry: Mapping[str, Any] = self.style_e["lighting"]
        return entry

    @property
    def lens_e(self) -> Mapping[str, Any]:
        entry: Mapping[str, Any] = self.style_e["lens"]
        return entry

    def corners(self) -> np.ndarray:
        """C1..C4 of the playing surface, projected into the frame."""
        board, geo = self.board, self.board.geo
        corners3d = board.l2w(*board.g2l(geo.surface_corners()[:, 0], geo.surface_corners()[:, 1]), board.zs)
        return self.cam.project(corners3d)

    def label(self, post: Mapping[str, Any], style_extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The frame's label (the dev set's format); *post* holds the camera
        effects drawn, *style_extra* what a renderer adds to ``style``."""
        board, cam, cfg = self.board, self.cam, self.board.geo.config
        dice_label = []
        for (x, y, _), v in zip(self.dice_xy, self.dice_values):
            u, vv = board.g2l(x, y)
            c = cam.project(board.l2w(u, vv, board.zs + self.die_size / 2))
            dice_label.append({"value": int(v), "center": [round(float(c[0]), 2), round(float(c[1]), 2)]})
        size, shift, spec, finish = self.size, self.shift, self.spec, self.finish
        style = {
            "renderer": "willughby.vision.synth/1",
            "wood": self.wood, "men": self.men_style, "lighting": self.lighting, "points": self.points,
            "field": self.field, "table": self.table,
            # a frame drawn from a style set, or through a named lens, says so
            **({"lens": self.lens, "style_set": spec.style_set or "training"}
               if spec.style_set is not None or spec.lens is not None else {}),
            # a randomised scene's own palettes, light and lens
            **({"randomized": _plain({f: e for f, e in self.style_e.items()
                                      if getattr(self, _PLAN_NAME[f]) == RANDOM_NAME})}
               if spec.style_set == RANDOMIZED else {}),
            "image_size": [size[0], size[1]], "mirror": self.mirror,
            "board_yaw": round(self.yaw, 2), "tilt_deg": round(self.tilt, 2), "cam_az_deg": round(self.az, 2),
            "cam_roll_deg": round(self.roll, 2), "focal_mm": round(self.focal, 1), "fill": round(self.fill, 3),
            "fill_actual": round(self.fill_actual, 3), "shift": [round(float(shift[0] / size[0]), 4),
                                                                round(float(shift[1] / size[1]), 4)],
            "cam_dist_m": round(float(np.linalg.norm(cam.C - self.target)) / 1000, 3),
            "men_thick": round(self.thick / cfg.man_diameter, 3), "men_thick_mm": round(self.thick, 2),
            "row_max": self.row_max, "bar_light_side": self.bar_light_side, "n_dice": len(dice_label),
            "die_mm": round(self.die_size, 1), "dice_body": self.dice_body, "occluded": self.occluded,
            "skin": [round(c / 255, 2) for c in self.skin],
            "frame_mm": [round(board.fw, 1), round(board.rh, 1), round(board.bh, 1), round(board.zs, 1)],
            "light_elev_deg": round(math.degrees(self.elev), 1),
            "light_azim_deg": round(math.degrees(self.lazi), 1),
            "ambient": round(self.light.ambient, 2),
            **{k: post[k] for k in ("exposure", "contrast", "glare") if k in post},
            "palette_jitter": spec.palette_jitter,
            "edge_gap_mm": round(self.gap, 2), "row_spread_mm": round(self.spread, 2),
            **({"men_contrast": spec.men_contrast, "men_rgb": [list(self.men_e[0]), list(self.men_e[1])]}
               if spec.men_contrast > 0 else {}),
            **({} if finish is None else {"men_finish": {
                "grooved": list(finish.grooved), "side_gain": round(finish.side_gain, 2),
                "askew": round(finish.askew, 2)}}),
            **({} if self.look is None else {"look": self.look.label()}),
            **({} if board.bar_kind == "raised" else {"bar_kind": board.bar_kind}),
            **dict(style_extra or {}),
            "post": {k: post[k] for k in ("vignette", "blur", "noise", "jpeg_q")},
        }
        geometry = {f: getattr(cfg, f) for f in GEOMETRY_FIELDS}
        return {
            **self.doc,
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners()],
            "image_size": [size[0], size[1]],
            # a board of other proportions than the reader's defaults says which (VisionConfig's fields)
            **({} if geometry == {f: getattr(VisionConfig(), f) for f in GEOMETRY_FIELDS}
               else {"geometry": geometry}),
            "occluded": self.occluded,
            "dice": dice_label,
            "position_kind": self.kind,
            "style": style,
        }


def plan_scene(rng: np.random.Generator, spec: SceneSpec | None = None) -> ScenePlan:
    """Decide everything a scene shows (position, styles, board, men, dice,
    camera, light, palettes), drawing from *rng* in the order :func:`render`
    always has, so a seed gives the same scene whichever renderer draws it."""
    spec = spec or SceneSpec()
    geo = BoardGeometry(VisionConfig())
    # ---- what is on the board
    if spec.position is not None:
        doc = _normalise_position(spec.position)
        kind = spec.position_kind or _classify(doc)
    else:
        kind = _choose(rng, spec.position_kind, POSITION_KINDS, (0.5, 0.2, 0.13, 0.17))
        starts: dict[str, Callable[[], dict[str, Any]]] = {
            "random": lambda: _random_position(rng),
            "backgammon_start": _backgammon_start,
            "doublets_start": _doublets_start,
            "doublets_played": lambda: _doublets_played(rng)}
        doc = starts[kind]()
    t = _plan_styles_and_board(rng, spec, geo)
    geo = t["board"].geo
    # ---- men and dice
    gap, spread, finish = _plan_men_manner(rng, spec)
    men = _layout_men(doc, geo, t["row_max"], t["bar_light_side"], rng, gap, spread,
                      1.0 if finish is None else finish.askew)
    dice_values = _plan_dice_values(rng, spec.dice_values, spec.n_dice)
    die_size = float(rng.uniform(14.5, 17.0))
    dice_xy = _place_dice(len(dice_values), men, geo, die_size, rng)
    dice_values = dice_values[:len(dice_xy)]
    occluded = bool(rng.random() < spec.occluded_share) if spec.occluded is None else bool(spec.occluded)
    return ScenePlan(spec=spec, doc=doc, kind=kind, **t, gap=gap, spread=spread, finish=finish, men=men,
                     dice_values=dice_values, die_size=die_size, dice_xy=dice_xy, occluded=occluded,
                     **_plan_camera_and_light(rng, spec, t))


def _plan_table(rng: np.random.Generator, spec: SceneSpec) -> ScenePlan:
    """Everything about one table that stays the same for a whole game
    (styles, palettes, board, camera, light, how the men are finished, the
    dice's size and body), drawn from *rng* whatever the position; the plan
    has an empty board, no men and no dice (:class:`~.render.Scene` fills
    them in frame by frame).  The draws are plan_scene's, in its order, less
    those that depend on the position."""
    geo = BoardGeometry(VisionConfig())
    t = _plan_styles_and_board(rng, spec, geo)
    geo = t["board"].geo
    gap, spread, finish = _plan_men_manner(rng, spec)
    die_size = float(rng.uniform(14.5, 17.0))
    empty = _doc([0] * 24, [0] * 24)
    return ScenePlan(spec=spec, doc=empty, kind=_classify(empty), **t, gap=gap, spread=spread, finish=finish,
                     men=[], dice_values=[], die_size=die_size, dice_xy=[], occluded=False,
                     **_plan_camera_and_light(rng, spec, t))


def _plan_dice_values(rng: np.random.Generator, values: Sequence[int] | None, n: int | None) -> list[int]:
    """The dice's values: *values* when given, else *n* dice (0-2 at random
    when None) thrown with *rng*."""
    if values is not None:
        return [int(v) for v in values]
    nd = int(rng.choice([0, 1, 2], p=[0.35, 0.1, 0.55]) if n is None else n)
    return [int(v) for v in rng.integers(1, 7, nd)]


def _plan_styles_and_board(rng: np.random.Generator, spec: SceneSpec, geo: BoardGeometry) -> dict[str, Any]:
    """The styles, the picture's size, the camera's angles, how the men lie
    and the board's build (ScenePlan's fields, by name)."""
    # ---- style: the training styles, in this order and with these weights,
    # unless the spec names a style set (styles.STYLE_SETS)
    sset = spec.style_set
    if sset == RANDOMIZED:          # every field drawn from the ranges; a field named outright wins
        drawn = random_styles(rng, STYLE_FIELDS)
        names = {f: getattr(spec, f) or RANDOM_NAME for f in STYLE_FIELDS}
        style_e = {f: drawn[f] if names[f] == RANDOM_NAME else STYLES[f][names[f]] for f in STYLE_FIELDS}
        wood, men_style, points, field, table, lighting, lens = (names[f] for f in STYLE_FIELDS)
    else:
        wood = _choose(rng, spec.wood, *style_choices(sset, "wood"))
        men_style = _choose(rng, spec.men, *style_choices(sset, "men"))
        points = _choose(rng, spec.points, *style_choices(sset, "points"))
        field = _choose(rng, spec.field, *style_choices(sset, "field"))
        table = _choose(rng, spec.table, *style_choices(sset, "table"))
        lighting = _choose(rng, spec.lighting, *style_choices(sset, "lighting"))
        lenses, lens_p = style_choices(sset, "lens")     # one training lens: nothing drawn for it
        lens = spec.lens or (lenses[0] if len(lenses) == 1 else _choose(rng, None, lenses, lens_p))
        style_e = {f: STYLES[f][n] for f, n in zip(STYLE_FIELDS, (wood, men_style, points, field, table, lighting,
                                                                   lens))}
    look = None
    if spec.real_look or spec.look:     # drawn only when asked, so other frames stay as they were
        look = draw_look(rng, spec.real_look, dict(spec.look))
    bar_kind = "raised"
    if spec.varied_board or any(getattr(spec, k) is not None for k in STANDARD_BOARD):
        geo, bar_kind = _plan_geometry(rng, spec)
    width, height = spec.image_size or ((1280, 720) if rng.random() < 0.7 else (1280, 960))
    size = (int(width), int(height))
    mirror = bool(rng.random() < 0.5) if spec.mirror is None else bool(spec.mirror)
    if spec.board_yaw_deg is None:
        base = float(rng.choice([0.0, 180.0, 90.0, 270.0], p=[0.44, 0.44, 0.06, 0.06]))
        yaw = base + float(np.clip(rng.normal(0, 6.0), -15, 15))
    else:
        yaw = float(spec.board_yaw_deg)
    tilt = float(rng.uniform(0, 35) if spec.tilt_deg is None else spec.tilt_deg)
    focal = float(rng.uniform(24, 60) if spec.focal_mm is None else spec.focal_mm)
    fill = float(rng.uniform(0.6, 0.95) if spec.fill is None else spec.fill)
    az = float(rng.uniform(-5, 5) if spec.cam_az_deg is None else spec.cam_az_deg)
    roll = float(rng.uniform(-3, 3) if spec.cam_roll_deg is None else spec.cam_roll_deg)
    row_max = int(rng.choice([5, 6]) if spec.row_max is None else spec.row_max)
    thick = float(rng.uniform(9.0, 12.6) if spec.men_thick_mm is None else spec.men_thick_mm)
    bar_light_side = int(rng.choice([-1, 1]))
    board = _Board(geo, fw=float(rng.uniform(24, 38)), rh=float(rng.uniform(15, 24)),
                   bh=0.0, zs=float(rng.uniform(8, 14)), yaw=yaw, mirror=mirror)
    board.bh = board.rh - float(rng.uniform(0, 3))
    board.bar_kind = bar_kind
    if bar_kind == "flush":                     # a line or strip on the surface, no raised bar
        board.bh = 0.0
    d = geo.config.man_diameter
    if d != VisionConfig().man_diameter:        # men as thick for their size, rows that fit
        if spec.men_thick_mm is None:
            thick *= d / VisionConfig().man_diameter
        if spec.row_max is None:
            row_max = int(max(3, min(row_max, (geo.depth / 2 - 2) // d)))
    if look is not None:
        if look["tall_view"]:                   # a low camera over thick men
            if spec.tilt_deg is None:
                tilt = 28.0 + 17.0 * float(look.rng(1).random())
            if spec.men_thick_mm is None:
                thick = d * (0.36 + 0.14 * float(look.rng(2).random()))
        if look["crop"] and spec.fill is None:
            fill = look["crop"]
    return dict(look=look, wood=wood, men_style=men_style, points=points, field=field, table=table, lighting=lighting,
                lens=lens, size=size, mirror=mirror, yaw=yaw, tilt=tilt, focal=focal, fill=fill, az=az, roll=roll,
                row_max=row_max, thick=thick, bar_light_side=bar_light_side, board=board, style_e=style_e)


def _plan_geometry(rng: np.random.Generator, spec: SceneSpec) -> tuple[BoardGeometry, str]:
    """The board's proportions (``styles.BOARD_RANGES``): those the spec
    names, the rest drawn (the standard board's where *varied_board* is
    off), and the bar's kind."""
    r = BOARD_RANGES
    varied = spec.varied_board
    kinds = r["bar_kinds"]
    draws = (rng.uniform(*r["surface_aspect"]), int(rng.choice(len(kinds), p=r["bar_kind_p"])), rng.random(),
             rng.uniform(*r["point_share"]), rng.uniform(*r["point_length_share"]), rng.uniform(*r["man_share"]))
    aspect = spec.surface_aspect or (float(draws[0]) if varied else STANDARD_BOARD["surface_aspect"])
    kind = spec.bar_kind or (kinds[draws[1]] if varied else STANDARD_BOARD["bar_kind"])
    lo, hi = r["bar_width_mm"][kind]
    bar = spec.bar_width_mm or (lo + (hi - lo) * float(draws[2]) if varied else STANDARD_BOARD["bar_width_mm"])
    width = r["surface_width"]
    depth = width * aspect
    bar = round(bar, 2)
    half = math.floor((width - bar) / 2 * 100) / 100
    pw = spec.point_width_mm or (half / 6 * float(draws[3]) if varied else STANDARD_BOARD["point_width_mm"])
    pw = min(math.floor(pw * 100) / 100, math.floor(half / 6 * 100) / 100)
    length = depth * float(draws[4]) if varied else depth * 180.0 / 450.0
    man = pw * float(draws[5]) if varied else pw * 0.9
    man = min(man, (depth / 2 - 2) / 4)          # four men of a row fit in half the depth at least
    config = VisionConfig().with_values({
        "surface_width": width, "surface_depth": round(depth, 2), "half_width": half,
        "bar_width": bar, "point_width": pw, "point_length": round(length, 2),
        "man_diameter": round(man, 2)})
    return BoardGeometry(config), kind


GEOMETRY_FIELDS = ("surface_width", "surface_depth", "half_width", "bar_width", "point_width", "point_length",
                   "man_diameter")


def _plan_men_manner(rng: np.random.Generator, spec: SceneSpec) -> tuple[float, float, _MenFinish | None]:
    """How far off the edge and apart the men lie, and how they are finished."""
    gap = spread = 0.0
    if spec.edge_gap > 0:           # drawn only when asked, so other renders stay as they were
        gap = float(rng.uniform(0, spec.edge_gap))
        spread = float(rng.uniform(0, spec.edge_gap / 10))
    finish = None
    if spec.varied_men:             # likewise
        finish = _MenFinish(grooved=(bool(rng.random() < 0.5), bool(rng.random() < 0.5)),
                            side_gain=float(rng.uniform(0.85, 1.3)),
                            askew=float(rng.choice([0.0, rng.uniform(0.0, 1.0)])))
    return gap, spread, finish


def _plan_camera_and_light(rng: np.random.Generator, spec: SceneSpec, t: Mapping[str, Any]) -> dict[str, Any]:
    """The camera fitted to the board (*t*: _plan_styles_and_board's), the
    light, the hand's skin, the dice's body and the palettes (ScenePlan's
    fields, by name)."""
    board, size, tilt, az, roll, fill = t["board"], t["size"], t["tilt"], t["az"], t["roll"], t["fill"]
    # ---- camera: fit the distance so the board fills the frame as asked
    f_px = t["focal"] / 36.0 * size[0]
    target = np.array([0.0, 0.0, board.zs])
    dist = 1500.0
    outer = board.outer_corners()
    for _ in range(6):
        cam = _make_camera(f_px, size, tilt, az, roll, dist, target)
        p = cam.project(outer)
        bw, bh_ = np.ptp(p[:, 0]), np.ptp(p[:, 1])
        got = max(bw / size[0], bh_ / size[1])
        dist *= got / fill
    cam = _make_camera(f_px, size, tilt, az, roll, dist, target)
    p = cam.project(outer)
    bw, bh_ = np.ptp(p[:, 0]), np.ptp(p[:, 1])
    fill_actual = max(bw / size[0], bh_ / size[1])
    slack = np.array([max(size[0] - bw, 0) / 2, max(size[1] - bh_, 0) / 2])
    shift = rng.uniform(-0.35, 0.35, 2) * np.minimum(slack, 0.04 * np.array(size))
    centre = (p.min(0) + p.max(0)) / 2
    cam.cx += size[0] / 2 - centre[0] + shift[0]
    cam.cy += size[1] / 2 - centre[1] + shift[1]
    # ---- light
    lit = t["style_e"]["lighting"]
    elev = math.radians(rng.uniform(*lit.get("elev_deg", (30, 65))))
    lazi = rng.uniform(0, 2 * math.pi)
    light = _Light(np.array([math.cos(elev) * math.cos(lazi), math.cos(elev) * math.sin(lazi), math.sin(elev)]),
                   float(rng.uniform(*lit.get("ambient", (0.35, 0.55)))))
    skin = _SKINS[int(rng.integers(0, len(_SKINS)))]
    dice_body = "white" if rng.random() < 0.6 else "ivory"

    base = t["style_e"]
    wood_e, field_e, points_e, men_e = base["wood"], base["field"], base["points"], base["men"]
    if spec.palette_jitter > 0:
        wood_e, field_e, points_e, men_e = _jittered_palettes(rng, spec.palette_jitter, wood_e, field_e, points_e,
                                                              men_e)
    if spec.men_contrast > 0:       # drawn only when asked
        men_e = _nearer_men(rng, men_e, spec.men_contrast)
    return dict(fill_actual=float(fill_actual), cam=cam, target=target, shift=shift, elev=elev, lazi=lazi,
                light=light, skin=skin, dice_body=dice_body, wood_e=wood_e, field_e=field_e, points_e=points_e,
                men_e=men_e)
