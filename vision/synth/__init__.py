"""Labelled synthetic camera frames of a tables board, for developing and
evaluating the board reader on many more images than the dev set holds.

A scene is a small 3D world: a table (cloth or wood), a wooden board on it
(a raised frame around the 530 x 450 mm playing surface, a raised bar, 24
points in two colours on a field), men as flat cylinders lying in rows, in
second layers or in piles, 0-2 dice, and sometimes a forearm and hand over
the board.  A pinhole camera looks down on it from straight above to 35
degrees of tilt; every solid is projected with the camera and painted far to
near (the order comes from separating planes between the solids), shaded by
one directional light, with soft shadows and a light fall-off, then given
camera effects: vignetting, slight blur, sensor noise and a JPEG round trip.

The label is the dev set's (``docs/vision-labels.md``): a board/1
document (``light``, ``dark``, ``bar``, ``off``, ``stacked``) plus
``corners`` (the exact projections of the playing-surface corners C1..C4 at
surface height), ``image_size``, ``occluded``, ``dice``, ``position_kind``
and ``style`` (the rendering parameters: for analysing failures, never for
the reader).

>>> import numpy as np
>>> image, label = render(np.random.default_rng(7), SceneSpec(image_size=(640, 360)))
>>> image.shape, label["format"], label["image_size"]
((360, 640, 3), 'board/1', [640, 360])

A game is played at one table: :class:`Scene` draws the table once (board,
men's style, camera, light, lens) and then any number of frames of it, each
with its own position, dice, hand and sensor noise::

    scene = Scene(np.random.default_rng(7), SceneSpec())
    before, label = scene.render(position, np.random.default_rng([7, 0]))
    after, label = scene.render(next_position, np.random.default_rng([7, 1]), dice_values=(3, 5))

From the command line::

    python -m willughby.vision.synth OUTDIR --count 200 --seed 1

The painter stands apart from the reader (docs/house-conventions.md, convention 16): the
companion's demo may call it, the reader never does.  Its modules, by job
(``docs/vision-painter.md``):

``styles``     the named styles (woods, fields, points, men, tables, lightings, lenses),
               training and held-out, and the style sets scenes draw from
``looks``      the looks of real boards and photographs (``SceneSpec.real_look``), each a randomised parameter
``spec``       :class:`SceneSpec` (what a scene must show) and :class:`SynthError`
``positions``  starting and random positions as board documents
``layout``     where the men and dice lie on the board
``scene3d``    the camera and the board in the world
``plan``       :func:`plan_scene`: everything a frame shows, decided before drawing
``textures``   wood, leather, cloth and felt
``raster``     polygons, warped textures, soft shadows, paint order, shading
``board``      the table, the board's rails and bar, the field and points
``pieces``     the men, the dice and a hand over the board
``post``       room light, tone, lens blur and sensor noise
``render``     :func:`render` and :func:`render_jpeg`; :class:`Scene`, one table for many frames
``dataset``    :func:`write_dataset` and the command line
"""

from __future__ import annotations

# (the private names below are insides that tests and tools/ reach for)
from .dataset import add_scene_options, main, scene_options, write_dataset
from .layout import _layout_men as _layout_men
from .looks import LOOK_RANGES, MEN_MATERIALS, Look, draw_look
from .plan import ScenePlan, plan_scene
from .plan import _jittered_palettes as _jittered_palettes
from .plan import _lum as _lum
from .post import _camera_effects as _camera_effects
from .randomized import RANDOMIZED
from .render import Scene, render, render_jpeg
from .spec import MEN_PER_SIDE, POSITION_KINDS, SceneSpec, SynthError
from .styles import _DICE_BODY as _DICE_BODY
from .styles import _STYLE_TABLES as _STYLE_TABLES
from .styles import (BOARD_RANGES, FIELDS, HELD_OUT, LENSES, LIGHTINGS, MEN_COLOURS, POINT_COLOURS, STYLE_FIELDS,
                     STYLE_SETS, STYLES, TABLES, WOODS, style_choices)

__all__ = [
    "SceneSpec",
    "ScenePlan",
    "plan_scene",
    "SynthError",
    "render",
    "Scene",
    "render_jpeg",
    "write_dataset",
    "main",
    "add_scene_options",
    "scene_options",
    "POSITION_KINDS",
    "MEN_PER_SIDE",
    "WOODS",
    "FIELDS",
    "POINT_COLOURS",
    "MEN_COLOURS",
    "TABLES",
    "LIGHTINGS",
    "LENSES",
    "HELD_OUT",
    "STYLES",
    "STYLE_FIELDS",
    "STYLE_SETS",
    "style_choices",
    "RANDOMIZED",
    "LOOK_RANGES",
    "MEN_MATERIALS",
    "Look",
    "draw_look",
    "BOARD_RANGES",
]
