"""Rendering one frame: plan the scene, paint table, board, men, dice and
hand far to near, light and tone it, add camera effects and a JPEG round
trip; the picture and its label."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from .board import _bar_men_cylinders, _board_boxes, _Boxes, _box_solids, _draw_surface, _draw_table, _surface_shadows
from .pieces import _dice_solids, _draw_hand, _men_solids
from .plan import ScenePlan, plan_scene
from .post import _camera_effects, _light_and_tone, _post_params
from .raster import _paint_order
from .spec import SceneSpec
from .styles import STYLES


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
    _draw_table(img, rng, cam, board, light, STYLES["table"][plan.table])
    boxes = _board_boxes(rng, cam, board, light, plan.wood_e, tex_ppm)
    _draw_surface(img, rng, cam, board, plan.field_e, plan.points_e, plan.wood_e, tex_ppm)
    return _TableArt(img, boxes)


def _paint_pieces(img: np.ndarray, art: _TableArt, plan: ScenePlan, rng: np.random.Generator,
                  bevel: float | None = None, tints: Sequence[float] | None = None) -> np.ndarray:
    """Paint onto *img* (a copy of ``art.base``, or the base itself) the
    shadows on the surface, the rails, bar, men and dice far to near, and a
    hand where the plan is occluded; the men's *bevel* and *tints*, the
    dice's turned faces and the hand are drawn from *rng* where not given."""
    cam, board, light, men, thick = plan.cam, plan.board, plan.light, plan.men, plan.thick
    man_solids = _men_solids(cam, board, light, men, thick, plan.men_e, rng, plan.finish, bevel, tints)
    die_solids = _dice_solids(cam, board, light, plan.dice_xy, plan.dice_values, plan.die_size, plan.dice_body,
                              rng)
    solids = _box_solids(art.boxes, cam, board, light, _bar_men_cylinders(board, men, thick))
    _surface_shadows(img, cam, board, light, men, thick, plan.dice_xy, plan.die_size, solids)
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
    post = _post_params(rng, STYLES["lens"][plan.lens])
    _lighting_extras(rng, plan, STYLES["lighting"][plan.lighting], post)
    return post


def _develop(img: np.ndarray, plan: ScenePlan, post: Mapping[str, Any], rng: np.random.Generator) -> np.ndarray:
    """Light and tone the painted scene, then (where the spec wants camera
    effects) blur it and add this frame's sensor noise from *rng*."""
    img = _light_and_tone(img, plan.cam, plan.board, STYLES["lighting"][plan.lighting], post)
    if plan.spec.camera_effects:
        img = _camera_effects(img, rng, post)
    return img


def _jpeg_round_trip(img: np.ndarray, q: int) -> np.ndarray:
    """The image as a JPEG of quality *q* decodes (unchanged where q is 0)."""
    if not q:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _render(rng: np.random.Generator, spec: SceneSpec) -> tuple[np.ndarray, dict[str, Any], int]:
    """The picture before JPEG, its label, and the JPEG quality to use (0: none)."""
    plan = plan_scene(rng, spec)
    art = _table_art(rng, plan)
    img = _paint_pieces(art.base, art, plan, rng)
    post = _scene_post(rng, plan)
    img = _develop(img, plan, post, rng)
    return img, plan.label(post), (post["jpeg_q"] if spec.camera_effects else 0)


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
