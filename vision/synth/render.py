"""Rendering frames: plan the scene, paint table, board, men, dice and
hand far to near, light and tone it, add camera effects and a JPEG round
trip; the picture and its label.  :func:`render` draws a whole new scene
for every frame; a :class:`Scene` keeps one table and draws many frames of
it, with the same code."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from willughby.engine.position import Position

from .board import (_bar_men_cylinders, _board_boxes, _Boxes, _box_solids, _draw_surface, _draw_table,
                    _surface_shadows)
from .layout import _layout_men, _Man, _place_dice
from .looks import Look
from .pieces import _dice_solids, _draw_hand, _men_solids
from .plan import ScenePlan, _plan_dice_values, _plan_table, plan_scene
from .positions import _classify, _normalise_position
from .post import _camera_effects, _light_and_tone, _post_params
from .raster import _paint_order
from .spec import SceneSpec, SynthError


@dataclass
class _TableArt:
    """What a table looks like before anything stands on it: the table top
    with the board's shadow, the field and the points (*base*, no shadows on
    them yet), and the rails and bar ready to paint (*boxes*)."""

    base: np.ndarray
    boxes: _Boxes


def _table_art(rng: np.random.Generator, plan: ScenePlan) -> _TableArt:
    """Paint the table and the board's surface and texture the rails: the
    part of a frame that no man or die changes."""
    cam, board, light = plan.cam, plan.board, plan.light
    cfg = board.geo.config
    img = np.zeros((plan.size[1], plan.size[0], 3), np.uint8)
    ppm = float(np.linalg.norm(np.diff(cam.project(board.l2w([0, cfg.surface_width], [0, 0], board.zs)), axis=0)))
    ppm /= cfg.surface_width
    tex_ppm = float(np.clip(round(ppm * 1.05, 1), 0.6, 2.0))
    _draw_table(img, rng, cam, board, light, plan.table_e)
    boxes = _board_boxes(rng, cam, board, light, plan.wood_e, tex_ppm)
    _draw_surface(img, rng, cam, board, plan.field_e, plan.points_e, plan.wood_e, tex_ppm, plan.look)
    return _TableArt(img, boxes)


def _paint_pieces(img: np.ndarray, art: _TableArt, plan: ScenePlan, rng: np.random.Generator,
                  bevel: float | None = None, tints: Sequence[float] | None = None) -> np.ndarray:
    """Paint onto *img* (a copy of ``art.base``, or the base itself) the
    shadows on the surface, the rails, bar, men and dice far to near, and a
    hand where the plan is occluded; the men's *bevel* and *tints*, the
    dice's turned faces and the hand are drawn from *rng* where not given."""
    cam, board, light, men, thick = plan.cam, plan.board, plan.light, plan.men, plan.thick
    man_solids = _men_solids(cam, board, light, men, thick, plan.men_e, rng, plan.finish, bevel, tints, plan.look)
    die_solids = _dice_solids(cam, board, light, plan.dice_xy, plan.dice_values, plan.die_size, plan.dice_body,
                              rng)
    solids = _box_solids(art.boxes, cam, board, light, _bar_men_cylinders(board, men, thick))
    _surface_shadows(img, cam, board, light, men, thick, plan.dice_xy, plan.die_size, solids, plan.look)
    everything = solids + man_solids + die_solids
    cam_uv = board.w2l(float(cam.C[0]), float(cam.C[1]))
    for k in _paint_order(everything, cam_uv):
        everything[k].draw(img)
    if plan.occluded:
        _draw_hand(img, rng, cam, board, light, plan.skin)
    return img


def _scene_post(rng: np.random.Generator, plan: ScenePlan) -> dict[str, Any]:
    """The room's light and the camera's settings (exposure, tone, fall-off,
    lens blur, vignetting, noise level, JPEG quality, a held-out lighting's
    extras)."""
    post = _post_params(rng, plan.lens_e)
    _lighting_extras(rng, plan, plan.lighting_e, post)
    if plan.look is not None:
        _look_extras(plan, plan.look, post)
    return post


def _look_extras(plan: ScenePlan, look: Look, post: dict[str, Any]) -> None:
    """What *look* (the plan's) adds to the picture's settings, from the look's own
    generator: a dark exposure (and the sensor's noise that comes with it),
    a harsher JPEG, a window's reflection on the varnish."""
    board = plan.board
    if look["dark"]:
        post["exposure"] = round(post["exposure"] - look["dark"], 2)
        post["noise"] = round(post["noise"] * (1 + 0.3 * look["dark"]), 2)
    if look["jpeg_q"]:
        post["jpeg_q"] = int(min(post["jpeg_q"], look["jpeg_q"]))
    if look["varnish"]:
        r = look.rng(60)
        x, y, _ = board.l2w(float(r.uniform(0.15, 0.85)) * board.W, float(r.uniform(0.15, 0.85)) * board.D, 0.0)
        post["reflection"] = [round(float(x), 1), round(float(y), 1), round(float(r.uniform(60, 200)), 1),
                              round(float(r.uniform(25, 90)), 1), round(float(r.uniform(0, 180)), 1),
                              round(float(look["varnish"] * r.uniform(0.35, 0.7)), 3)]
    if look["watermark"]:
        post["watermark"] = [round(look["watermark"], 3), int(look.rng(61).integers(0, 2 ** 31))]
    if look["squash"]:
        post["squash"] = int(look["squash"])


def _develop(img: np.ndarray, plan: ScenePlan, post: Mapping[str, Any], rng: np.random.Generator) -> np.ndarray:
    """Light and tone the painted scene, then (where the spec wants camera
    effects) blur it and add this frame's sensor noise from *rng*."""
    img = _light_and_tone(img, plan.cam, plan.board, plan.lighting_e, post)
    if plan.spec.camera_effects:
        img = _camera_effects(img, rng, post)
    return img


def _jpeg_round_trip(img: np.ndarray, q: int) -> np.ndarray:
    """The image as a JPEG of quality *q* decodes (unchanged where q is 0)."""
    if not q:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    if decoded is None:  # pragma: no cover -- a BGR uint8 picture always encodes and decodes
        raise SynthError(f"cannot round-trip the picture through a JPEG of quality {q}")
    return decoded


def _finish(img: np.ndarray, label: dict[str, Any], post: Mapping[str, Any], q: int) -> np.ndarray:
    """A look's last touches before the JPEG: a stock photograph's faint
    text, and the frame squashed (or stretched) to a square as a public
    data set stores it, once saved as a JPEG before (the label's corners,
    dice and size follow)."""
    if "watermark" in post:
        img = _watermark(img, *post["watermark"])
    if "squash" in post:
        side = int(post["squash"])
        h, w = img.shape[:2]
        img = cv2.resize(_jpeg_round_trip(img, max(q, 70)), (side, side),
                         interpolation=cv2.INTER_AREA if side < min(w, h) else cv2.INTER_LINEAR)
        sx, sy = side / w, side / h
        label["corners"] = [[round(x * sx, 2), round(y * sy, 2)] for x, y in label["corners"]]
        for d in label["dice"]:
            d["center"] = [round(d["center"][0] * sx, 2), round(d["center"][1] * sy, 2)]
        label["image_size"] = [side, side]
    return img


def _watermark(img: np.ndarray, opacity: float, seed: int) -> np.ndarray:
    """Faint made-up words in rows across the picture, turned, as stock
    photographs carry them."""
    rng = np.random.default_rng(seed)
    h, w = img.shape[:2]
    letters = "abcdeghiklmnoprstuvwy"
    words = ["".join(rng.choice(list(letters), int(rng.integers(4, 8)))).capitalize() for _ in range(2)]
    text = " ".join(words)
    layer = np.zeros((2 * h, 2 * w), np.uint8)
    scale = float(rng.uniform(0.6, 1.4)) * w / 1000
    step = int(max(40, 160 * scale))
    for k, y in enumerate(range(0, 2 * h, step)):
        cv2.putText(layer, text, (int((k % 2) * step * 1.5) - step, y), cv2.FONT_HERSHEY_SIMPLEX, scale * 1.5, 255,
                    max(1, int(3 * scale)), cv2.LINE_AA)
        cv2.putText(layer, text, (int((k % 2) * step * 1.5) + int(w * 0.9), y), cv2.FONT_HERSHEY_SIMPLEX,
                    scale * 1.5, 255, max(1, int(3 * scale)), cv2.LINE_AA)
    M = cv2.getRotationMatrix2D((w, h), float(rng.uniform(-45, 45)), 1.0)
    layer = cv2.warpAffine(layer, M, (2 * w, 2 * h))[h // 2:h // 2 + h, w // 2:w // 2 + w]
    a = (layer.astype(np.float32) * (opacity / 255.0))[..., None]
    shade = 255.0 if rng.random() < 0.7 else 40.0
    marked: np.ndarray = np.clip(img * (1 - a) + shade * a + 0.5, 0, 255).astype(np.uint8)
    return marked


def _render(rng: np.random.Generator, spec: SceneSpec) -> tuple[np.ndarray, dict[str, Any], int]:
    """The picture before JPEG, its label, and the JPEG quality to use (0: none)."""
    plan = plan_scene(rng, spec)
    art = _table_art(rng, plan)
    img = _paint_pieces(art.base, art, plan, rng)
    post = _scene_post(rng, plan)
    img = _develop(img, plan, post, rng)
    label = plan.label(post)
    q = post["jpeg_q"] if spec.camera_effects else 0
    return _finish(img, label, post, q), label, q


def _lighting_extras(rng: np.random.Generator, plan: ScenePlan, lit: Mapping[str, Any],
                     post: dict[str, Any]) -> None:
    """What a held-out lighting adds to the picture's settings: an exposure
    shift (a dim room), more sensor noise, a lamp's hot spot on the board.
    The training lightings have none of these, and draw nothing here."""
    if "exposure" in lit:
        post["exposure"] = round(post["exposure"] + lit["exposure"], 2)
    if "noise_gain" in lit:
        post["noise"] = round(post["noise"] * lit["noise_gain"], 2)
    if "glare" in lit:
        board = plan.board
        x, y, _ = board.l2w(float(rng.uniform(0.2, 0.8)) * board.W, float(rng.uniform(0.2, 0.8)) * board.D, 0.0)
        post["glare"] = [round(float(x), 1), round(float(y), 1), round(float(rng.uniform(50, 110)), 1),
                         round(float(rng.uniform(*lit["glare"])), 2)]


def render(rng: np.random.Generator, spec: SceneSpec | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Draw one labelled frame: a BGR uint8 image and its label (the dev set's format).

    Everything *spec* leaves open is drawn from *rng*, so the same generator
    state gives the same picture.  The image has been through the JPEG round
    trip (unless ``spec.camera_effects`` is False).

    >>> import numpy as np
    >>> from willughby.engine.rules import preset_rules, start_position
    >>> spec = SceneSpec(position=start_position(preset_rules("backgammon")), image_size=(640, 360))
    >>> image, label = render(np.random.default_rng(1), spec)
    >>> label["position_kind"], sum(label["light"]), len(label["corners"])
    ('backgammon_start', 15, 4)
    """
    img, label, q = _render(rng, spec or SceneSpec())
    return _jpeg_round_trip(img, q), label


def render_jpeg(rng: np.random.Generator, spec: SceneSpec | None = None) -> tuple[bytes, dict[str, Any]]:
    """Like :func:`render`, but the JPEG file's bytes (which decode to render's image)."""
    spec = spec or SceneSpec()
    img, label, q = _render(rng, spec)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q or 95])
    return buf.tobytes(), label


class Scene:
    """One table for a whole game: the same board, men, camera and light in
    every frame, only the men (and the dice, and a hand) moving, and each
    frame with its own sensor noise, as a real camera's frames have.

    Everything about the table is drawn from *rng* once, here: the styles
    and their palettes, the board's build, the camera and its corners, the
    light, the room's exposure and glare, the lens's blur, vignetting, noise
    level and JPEG quality, how thick the men are and how many lie in a row,
    how they are finished and the dice's size and body.  :meth:`render`
    then paints a position on it.  A point's men lie where they lay in every
    frame that has the same men on that point (their jitter is the table's,
    point by point; a man added to a row leaves the others in place), so two
    frames differ only around the points whose men changed, where the dice
    lie, under a hand, and by noise.  *spec* is as :func:`render`'s; its
    position, position kind and occlusion are a frame's business and are
    not used here (its dice, where named, are each frame's default).

    >>> import numpy as np
    >>> from willughby.engine.rules import preset_rules, start_position
    >>> scene = Scene(np.random.default_rng(3), SceneSpec(image_size=(640, 360)))
    >>> start = start_position(preset_rules("backgammon"))
    >>> a, label_a = scene.render(start, np.random.default_rng(1), n_dice=0)
    >>> b, label_b = scene.render(start, np.random.default_rng(2), n_dice=0)
    >>> label_a["corners"] == label_b["corners"], label_a["style"] == label_b["style"]
    (True, True)
    """

    def __init__(self, rng: np.random.Generator, spec: SceneSpec | None = None) -> None:
        self.spec = spec or SceneSpec()
        #: the table's plan: an empty board, no men, no dice
        self.plan = _plan_table(rng, self.spec)
        self._art = _table_art(rng, self.plan)
        self._bevel = float(rng.uniform(0.86, 0.93))
        #: the room's light and the camera's settings, as a label's style shows them
        self.post = _scene_post(rng, self.plan)
        self._key = int(rng.integers(0, 2 ** 63))

    def _rng(self, stream: int, colour: int, point: int) -> np.random.Generator:
        return np.random.default_rng([self._key, stream, colour, point])

    def plan_frame(self, position: Position | Mapping[str, Any], rng: np.random.Generator,
                   dice_values: Sequence[int] | None = None, n_dice: int | None = None,
                   occluded: bool = False) -> ScenePlan:
        """The plan of one frame: the table's, with *position*'s men laid
        out on it, the dice (*dice_values*; else *n_dice* dice thrown with
        *rng*; else the spec's; else 0-2 at random, as :func:`render`
        throws them) placed with *rng* clear of the men, and a hand over
        the board where *occluded*."""
        spec, table = self.spec, self.plan
        doc = _normalise_position(position)
        kind = spec.position_kind or _classify(doc)
        finish = table.finish
        men = _layout_men(doc, table.board.geo, table.row_max, table.bar_light_side, rng, table.gap, table.spread,
                          1.0 if finish is None else finish.askew, rng_for=lambda c, p: self._rng(0, c, p))
        if dice_values is None and n_dice is None:
            dice_values, n_dice = spec.dice_values, spec.n_dice
        if n_dice is not None and not 0 <= n_dice <= 2:
            raise SynthError(f"n_dice must be 0..2, not {n_dice!r}")
        if dice_values is not None and (len(dice_values) > 2 or any(v not in range(1, 7) for v in dice_values)):
            raise SynthError(f"dice_values must be up to two values 1..6, not {tuple(dice_values)!r}")
        values = _plan_dice_values(rng, dice_values, n_dice)
        dice_xy = _place_dice(len(values), men, table.board.geo, table.die_size, rng)
        return replace(table, doc=doc, kind=kind, men=men, dice_values=values[:len(dice_xy)], dice_xy=dice_xy,
                       occluded=bool(occluded))

    def _tints(self, men: Sequence[_Man]) -> list[float]:
        """Each man's brightness, the same for the k-th man of a colour on a
        point in every frame."""
        tints, streams = [], {}
        for m in men:
            key = (m.colour, m.point)
            if key not in streams:
                streams[key] = self._rng(1, *key)
            tints.append(float(streams[key].uniform(0.97, 1.03)))
        return tints

    def render(self, position: Position | Mapping[str, Any], rng: np.random.Generator,
               dice_values: Sequence[int] | None = None, n_dice: int | None = None,
               occluded: bool = False) -> tuple[np.ndarray, dict[str, Any]]:
        """One frame of this table showing *position* (a
        :class:`~willughby.engine.position.Position` or a board document):
        a BGR uint8 image and its label, as :func:`render` gives them (the
        same keys; the style is the table's).  The dice, the hand and the
        sensor noise are drawn from *rng* (:meth:`plan_frame`); everything
        else is the table's."""
        plan = self.plan_frame(position, rng, dice_values, n_dice, occluded)
        img = _paint_pieces(self._art.base.copy(), self._art, plan, rng, self._bevel, self._tints(plan.men))
        img = _develop(img, plan, self.post, rng)
        label = plan.label(self.post)
        q = self.post["jpeg_q"] if self.spec.camera_effects else 0
        return _jpeg_round_trip(_finish(img, label, self.post, q), q), label
