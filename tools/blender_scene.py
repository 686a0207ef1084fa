"""Build and path-trace scenes of a tables board in Blender (run inside it).

This is the half of ``tools/blender_frames.py`` that runs in Blender's own
Python; that script writes the scenes (every solid already placed in world
millimetres, from ``synth.plan_scene``) and starts Blender with this one:

    blender -b --factory-startup -noaudio -P tools/blender_scene.py -- SCENES.json RAWDIR

For each scene it builds a table, the board (body, field, 24 points, rails
and bar), the men (turned discs, with a groove where the scene asks), the
dice and the light, renders with Cycles on the CPU through Filmic, and
writes ``RAWDIR/<name>.png``.  A frame already written is skipped, so a
stopped run resumes where it was.  It imports nothing of the project:
Blender's Python does not see it.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time

import bpy
from mathutils import Matrix, Vector

MM = 0.001


def linear(rgb, gain=1.0, top=0.92, saturate=1.25):
    """An sRGB colour (0-255) as a linear albedo, at most *top*.  The
    palettes give colours as they come out in a photo; Filmic takes some of
    their saturation away, so it is put back (*saturate*, a power on each
    channel's share of the luminance)."""
    lin = []
    for c in rgb:
        c = c / 255.0
        lin.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    y = max(1e-4, 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2])
    out = [min(top, gain * y * (max(c, 1e-4) / y) ** saturate) for c in lin]
    return (*out, 1.0)


# ------------------------------------------------------------------ materials
def _principled(name, rough=0.5, spec=0.3):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = rough
    bsdf.inputs["Specular"].default_value = spec
    return mat, bsdf


def plain(name, rgb, rough=0.5, spec=0.3, gain=1.0, saturate=1.25):
    mat, bsdf = _principled(name, rough, spec)
    bsdf.inputs["Base Color"].default_value = linear(rgb, gain, saturate=saturate)
    return mat


def _feed(nt, socket, value):
    """Link *value* (another node's output) into *socket*, or set it (a number or a colour)."""
    if isinstance(value, (int, float, tuple)):
        socket.default_value = value
    else:
        nt.links.new(value, socket)


def _math(nt, op, a, b=0.0):
    """A Math node's output: *op* of *a* and *b* (each an output or a number)."""
    node = nt.nodes.new("ShaderNodeMath")
    node.operation = op
    _feed(nt, node.inputs[0], a)
    _feed(nt, node.inputs[1], b)
    return node.outputs[0]


def _mix(nt, fac, first, second):
    """A colour mix's output: *first* where *fac* is 0, *second* where it is 1 (each an output or a colour)."""
    node = nt.nodes.new("ShaderNodeMixRGB")
    _feed(nt, node.inputs["Fac"], fac)
    _feed(nt, node.inputs["Color1"], first)
    _feed(nt, node.inputs["Color2"], second)
    return node.outputs["Color"]


def textured(name, kind, light, dark, scale=1.0, rough=0.5, spec=0.3):
    """Wood grain (bands of the light and dark colour, distorted), leather,
    felt or cloth (fine noise and a little bump), in object space."""
    mat, bsdf = _principled(name, rough, spec)
    nt = mat.node_tree
    coord = nt.nodes.new("ShaderNodeTexCoord")
    mapping = nt.nodes.new("ShaderNodeMapping")
    nt.links.new(coord.outputs["Object"], mapping.inputs["Vector"])
    if kind == "grain":
        mapping.inputs["Scale"].default_value = (1.0 * scale, 14.0 * scale, 1.0)
        tex = nt.nodes.new("ShaderNodeTexWave")
        tex.wave_type = "BANDS"
        tex.bands_direction = "Y"
        tex.inputs["Scale"].default_value = 18.0
        tex.inputs["Distortion"].default_value = 6.0
        tex.inputs["Detail"].default_value = 3.0
        tex.inputs["Detail Scale"].default_value = 1.5
        nt.links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
        fac = _math(nt, "POWER", tex.outputs["Fac"], 1.6)
    else:
        mapping.inputs["Scale"].default_value = (scale, scale, scale)
        tex = nt.nodes.new("ShaderNodeTexNoise")
        tex.inputs["Scale"].default_value = {"leather": 260.0, "felt": 600.0, "cloth": 900.0}.get(kind, 400.0)
        tex.inputs["Detail"].default_value = 4.0
        nt.links.new(mapping.outputs["Vector"], tex.inputs["Vector"])
        fac = tex.outputs["Fac"]
        bump = nt.nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = {"leather": 0.25, "felt": 0.15, "cloth": 0.2}.get(kind, 0.15)
        bump.inputs["Distance"].default_value = 0.0005
        nt.links.new(tex.outputs["Fac"], bump.inputs["Height"])
        nt.links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    nt.links.new(_mix(nt, fac, linear(dark), linear(light)), bsdf.inputs["Base Color"])
    return mat


def inlaid(name, base, inlay, rough=0.5, spec=0.3):
    """A man's face inlaid as turned men of real sets are: a disc of another
    colour in the middle (*inlay*: ``rgb``, ``radius`` mm), cut into
    ``sectors`` alternating with ``rgb2`` (a star or a rosette), and a ring
    of the inlay's colour nearer the rim (``ring``: inner and outer radius,
    mm, or none), measured from the man's axis in his own space."""
    mat, bsdf = _principled(name, rough, spec)
    nt = mat.node_tree
    coord = nt.nodes.new("ShaderNodeTexCoord")
    xyz = nt.nodes.new("ShaderNodeSeparateXYZ")
    nt.links.new(coord.outputs["Object"], xyz.inputs["Vector"])
    flat = nt.nodes.new("ShaderNodeCombineXYZ")
    nt.links.new(xyz.outputs["X"], flat.inputs["X"])
    nt.links.new(xyz.outputs["Y"], flat.inputs["Y"])
    radius = nt.nodes.new("ShaderNodeVectorMath")
    radius.operation = "LENGTH"
    nt.links.new(flat.outputs["Vector"], radius.inputs[0])

    r = radius.outputs["Value"]
    inner = linear(inlay["rgb"], saturate=1.0)
    if inlay.get("sectors"):
        angle = nt.nodes.new("ShaderNodeTexGradient")
        angle.gradient_type = "RADIAL"
        nt.links.new(coord.outputs["Object"], angle.inputs["Vector"])
        turns = _math(nt, "MULTIPLY", angle.outputs["Fac"], float(inlay["sectors"]))
        # alternate the sectors, and again across half the disc's radius: a star of two colours
        ring_half = _math(nt, "GREATER_THAN", r, inlay["radius"] * 0.5 * MM)
        odd = _math(nt, "GREATER_THAN", _math(nt, "FRACT", turns), 0.5)
        star = _math(nt, "ABSOLUTE", _math(nt, "SUBTRACT", odd, ring_half))
        inner = _mix(nt, star, inner, linear(inlay["rgb2"], saturate=1.0))
    colour = _mix(nt, _math(nt, "LESS_THAN", r, inlay["radius"] * MM), linear(base, saturate=1.0), inner)
    ring = inlay.get("ring")
    if ring:
        band = _math(nt, "MULTIPLY", _math(nt, "GREATER_THAN", r, ring[0] * MM),
                     _math(nt, "LESS_THAN", r, ring[1] * MM))
        colour = _mix(nt, band, colour, linear(inlay["rgb"], saturate=1.0))
    nt.links.new(colour, bsdf.inputs["Base Color"])
    return mat


def striped(name, rgb, rgb2, pitch, rough=0.55, spec=0.25):
    """Marquetry stripes of two colours, *pitch* mm apart, across the board's long side."""
    mat, bsdf = _principled(name, rough, spec)
    nt = mat.node_tree
    coord = nt.nodes.new("ShaderNodeTexCoord")
    wave = nt.nodes.new("ShaderNodeTexWave")
    wave.wave_type = "BANDS"
    wave.bands_direction = "X"
    wave.inputs["Scale"].default_value = math.pi / (10 * pitch * MM)     # (Cycles' bands: a period of pi/10 units)
    wave.inputs["Distortion"].default_value = 0.0
    nt.links.new(coord.outputs["Object"], wave.inputs["Vector"])
    stripe = _math(nt, "GREATER_THAN", wave.outputs["Fac"], 0.5)
    nt.links.new(_mix(nt, stripe, linear(rgb), linear(rgb2)), bsdf.inputs["Base Color"])
    return mat


# ------------------------------------------------------------------- geometry
def _linked(name, mesh):
    """An object of *mesh* in the scene."""
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def mesh_object(name, verts, faces, mat, smooth=False, parent=None):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    if smooth:
        for poly in mesh.polygons:
            poly.use_smooth = True
    mesh.materials.append(mat)
    obj = _linked(name, mesh)
    if parent is not None:
        obj.parent = parent
    return obj


def box(name, x0, x1, y0, y1, z0, z1, mat, parent=None, bevel=0.0):
    v = [(x, y, z) for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)]
    v = [(a * MM, b * MM, c * MM) for a, b, c in v]
    f = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    obj = mesh_object(name, v, f, mat, parent=parent)
    if bevel > 0:
        mod = obj.modifiers.new("bevel", "BEVEL")
        mod.width = bevel * MM
        mod.segments = 3
        mod.limit_method = "ANGLE"
        obj.data.polygons.foreach_set("use_smooth", [True] * len(obj.data.polygons))
        obj.data.use_auto_smooth = True
    return obj


def lathe(name, profile, mat, steps=48):
    """A solid of revolution about z from (r, z) pairs in mm, the first and
    last on the axis (r = 0)."""
    verts, faces = [], []
    rings = []
    for r, z in profile:
        if r == 0:
            rings.append([len(verts)])
            verts.append((0.0, 0.0, z * MM))
        else:
            ring = []
            for i in range(steps):
                a = 2 * math.pi * i / steps
                ring.append(len(verts))
                verts.append((r * MM * math.cos(a), r * MM * math.sin(a), z * MM))
            rings.append(ring)
    for a, b in zip(rings, rings[1:]):
        for i in range(steps):
            j = (i + 1) % steps
            if len(a) == 1:
                faces.append((a[0], b[j], b[i]))
            elif len(b) == 1:
                faces.append((a[i], a[j], b[0]))
            else:
                faces.append((a[i], a[j], b[j], b[i]))
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    mesh.use_auto_smooth = True
    mesh.auto_smooth_angle = math.radians(40)
    mesh.materials.append(mat)
    return mesh


def man_mesh(name, radius, thick, mat, groove, rim):
    """A turned man: rounded rims of *rim* mm, and a groove on the top (and
    bottom) face when *groove* (its radius as a share of the man's)."""
    r, t, b = radius, thick, rim
    top = [(0, t)]
    if groove:
        g, w, d = radius * groove, 1.1, 0.5
        top += [(g - w, t), (g - w * 0.5, t - d), (g + w * 0.5, t - d), (g + w, t)]
    top += [(r - b, t), (r - b * 0.3, t - b * 0.3), (r, t - b), (r, b), (r - b * 0.3, b * 0.3), (r - b, 0), (0, 0)]
    return lathe(name, top, mat)


def shrunk(tri, by):
    """The triangle *tri* ((a, b) mm) with each side moved *by* mm inwards (toward its incentre)."""
    (ax, ay), (bx, by_), (cx, cy) = tri
    la, lb, lc = math.dist((bx, by_), (cx, cy)), math.dist((ax, ay), (cx, cy)), math.dist((ax, ay), (bx, by_))
    per = la + lb + lc
    ix, iy = (la * ax + lb * bx + lc * cx) / per, (la * ay + lb * by_ + lc * cy) / per
    area = abs((bx - ax) * (cy - ay) - (cx - ax) * (by_ - ay)) / 2
    inradius = 2 * area / per
    k = max(0.0, 1 - by / inradius)
    return [(ix + (x - ix) * k, iy + (y - iy) * k) for x, y in tri]


def placed(obj, start, end):
    """Turn *obj* (built along +z from its origin) to run from *start* toward *end* (world mm)."""
    a, b = Vector(start) * MM, Vector(end) * MM
    obj.matrix_world = Matrix.Translation(a) @ (b - a).to_track_quat("Z", "Y").to_matrix().to_4x4()


def cover_part(i, part):
    """One solid of a hand, arm, sleeve or cup over the board (``blender_looks.cover``), in world mm."""
    kind = part["material"]
    if kind == "cloth":
        mat = textured(f"cover{i}", "cloth", part["rgb"], [c * 0.8 for c in part["rgb"]], rough=0.9, spec=0.1)
    else:
        mat = plain(f"cover{i}", part["rgb"], rough=0.55 if kind == "skin" else 0.35, spec=0.3, saturate=1.0)
    if part["shape"] == "cylinder":
        length = (Vector(part["end"]) - Vector(part["start"])).length
        r0, r1 = part["radius"]
        obj = _linked(f"cover{i}", lathe(f"cover{i}", [(0, 0), (r0, 0), (r1, length), (0, length)], mat, steps=32))
        placed(obj, part["start"], part["end"])
    elif part["shape"] == "ellipsoid":
        profile = [(math.sin(t * math.pi / 12), -math.cos(t * math.pi / 12)) for t in range(13)]
        profile = [(0.0 if abs(r) < 1e-9 else r, z) for r, z in profile]
        obj = _linked(f"cover{i}", lathe(f"cover{i}", profile, mat, steps=32))
        obj.location = Vector(part["centre"]) * MM
        obj.scale = tuple(float(r) for r in part["radii"])      # (the profile is a sphere of 1 mm)
        obj.rotation_euler = (0, math.radians(part.get("pitch", 0.0)), math.radians(part["yaw"]))
    else:                                   # a dice cup: open at one end, its wall *wall* mm thick
        r0, r1, h, wall = part["mouth"], part["base"], part["height"], part["wall"]
        mesh = lathe(f"cover{i}", [(0, h), (r1, h), (r0, 0), (r0 - wall, 0), (r1 - wall, h - wall), (0, h - wall)],
                     mat, steps=40)
        placed(_linked(f"cover{i}", mesh), part["start"], part["end"])


# ---------------------------------------------------------------------- scene
def clear():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def build(scene):
    sc = bpy.context.scene
    w, h = scene["size"]
    # ---- render settings
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    sc.cycles.samples = int(scene["samples"])
    sc.cycles.use_adaptive_sampling = False
    # (Debian's Blender is built without a denoiser: ``blender_frames.py --denoise`` denoises the render after)
    sc.cycles.use_denoising = False
    sc.cycles.max_bounces = 4
    sc.cycles.diffuse_bounces = 2
    sc.cycles.glossy_bounces = 2
    sc.cycles.transmission_bounces = 0
    sc.cycles.transparent_max_bounces = 2
    sc.cycles.caustics_reflective = False
    sc.cycles.caustics_refractive = False
    sc.cycles.seed = int(scene["seed"]) % (2 ** 31)
    sc.cycles.filter_width = 1.5
    sc.render.resolution_x, sc.render.resolution_y = w, h
    sc.render.resolution_percentage = 100
    border = scene.get("border")              # only the board's part of the frame (x0, y0, x1, y1, from top left)
    if border:
        sc.render.use_border = True
        sc.render.use_crop_to_border = False
        sc.render.border_min_x, sc.render.border_max_x = float(border[0]), float(border[2])
        sc.render.border_min_y, sc.render.border_max_y = 1.0 - float(border[3]), 1.0 - float(border[1])
    sc.render.image_settings.file_format = "PNG"
    sc.render.image_settings.color_mode = "RGB"
    sc.view_settings.view_transform = "Filmic"
    sc.view_settings.look = scene["look"]
    sc.view_settings.exposure = float(scene["exposure"])
    threads = int(os.environ.get("WILLUGHBY_BLENDER_THREADS", "0"))
    if threads > 0:
        sc.render.threads_mode = "FIXED"
        sc.render.threads = threads

    # ---- camera: the plan's pinhole (OpenCV axes: x right, y down, z forward)
    cam = scene["camera"]
    data = bpy.data.cameras.new("camera")
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = 36.0
    data.lens = cam["f"] * 36.0 / w
    data.shift_x = (w / 2 - cam["cx"]) / w
    data.shift_y = (cam["cy"] - h / 2) / w
    data.clip_start = 0.05
    data.clip_end = 20.0
    obj = bpy.data.objects.new("camera", data)
    sc.collection.objects.link(obj)
    R = Matrix(cam["R"])                       # world -> camera (OpenCV)
    flip = Matrix(((1, 0, 0), (0, -1, 0), (0, 0, -1)))
    rot = R.transposed() @ flip
    obj.matrix_world = Matrix.Translation(Vector(cam["C"]) * MM) @ rot.to_4x4()
    sc.camera = obj

    # ---- world and lights
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    lit = scene["light"]
    bg.inputs["Color"].default_value = (*lit["ambient_rgb"], 1.0)
    bg.inputs["Strength"].default_value = lit["ambient"]
    sc.world = world
    direction = Vector(lit["dir"]).normalized()
    ldata = bpy.data.lights.new("light", lit["type"])
    ldata.energy = lit["energy"]
    ldata.color = lit["rgb"]
    if lit["type"] == "AREA":
        ldata.shape = "RECTANGLE"
        ldata.size, ldata.size_y = lit["size"]
    elif lit["type"] == "POINT":
        ldata.shadow_soft_size = lit["size"][0]
    lobj = bpy.data.objects.new("light", ldata)
    sc.collection.objects.link(lobj)
    lobj.location = Vector(lit["target"]) * MM + direction * lit["distance"]
    lobj.rotation_euler = (-direction).to_track_quat("-Z", "Y").to_euler()
    second = scene.get("light2")              # a window or lamp of another colour from another side
    if second:
        sdata = bpy.data.lights.new("light2", "AREA")
        sdata.energy = second["energy"]
        sdata.color = second["rgb"]
        sdata.shape = "RECTANGLE"
        sdata.size, sdata.size_y = second["size"]
        sobj = bpy.data.objects.new("light2", sdata)
        sc.collection.objects.link(sobj)
        sdir = Vector(second["dir"]).normalized()
        sobj.location = Vector(second["target"]) * MM + sdir * second["distance"]
        sobj.rotation_euler = (-sdir).to_track_quat("-Z", "Y").to_euler()

    # ---- table
    tb = scene["table"]
    table_mat = textured("table", tb["kind"], tb["light"], tb.get("dark", tb["light"]), scale=0.6,
                         rough=0.8 if tb["kind"] == "cloth" else 0.5, spec=0.2)
    box("table", -1800, 1800, -1800, 1800, -20, 0, table_mat)

    # ---- board (in its own frame: a along the long edge, b across, z up)
    bd = scene["board"]
    frame = bpy.data.objects.new("board", None)
    sc.collection.objects.link(frame)
    frame.rotation_euler = (0, 0, math.radians(bd["yaw"]))
    wood = bd["wood"]
    wood_mat = textured("wood", wood["kind"], wood["light"], wood["dark"], scale=1.0, rough=0.45, spec=0.35)
    W, D, fw, rh, bh, zs = bd["W"], bd["D"], bd["fw"], bd["rh"], bd["bh"], bd["zs"]
    a0, a1, b0, b1 = -W / 2, W / 2, -D / 2, D / 2
    box("body", a0 - fw, a1 + fw, b0 - fw, b1 + fw, 0, zs - 0.5, wood_mat, frame)
    fld = bd["field"]
    if fld["colour"] is None:
        field_mat = wood_mat
    else:
        field_mat = textured("field", fld["kind"], fld["colour"], [c * 0.9 for c in fld["colour"]],
                             rough=0.85 if fld["kind"] == "felt" else 0.55, spec=0.15 if fld["kind"] == "felt" else 0.3)
    box("field", a0, a1, b0, b1, zs - 0.5, zs, field_mat, frame)
    ztop = zs + rh
    box("rail_n", a0 - fw, a1 + fw, b1, b1 + fw, 0, ztop, wood_mat, frame, bevel=2.0)
    box("rail_s", a0 - fw, a1 + fw, b0 - fw, b0, 0, ztop, wood_mat, frame, bevel=2.0)
    box("rail_w", a0 - fw, a0, b0, b1, 0, ztop, wood_mat, frame, bevel=2.0)
    box("rail_e", a1, a1 + fw, b0, b1, 0, ztop, wood_mat, frame, bevel=2.0)
    u0, u1 = bd["bar_u"]
    box("bar", u0 - W / 2, u1 - W / 2, b0, b1, zs - 0.5, zs + bh, wood_mat, frame, bevel=1.5)
    for j, panel in enumerate(bd.get("panels", [])):    # inlaid panels of the field, under the points' tips
        pa0, pa1, pb0, pb1 = panel["box"]
        box(f"panel{j}", pa0, pa1, pb0, pb1, zs, zs + 0.06, plain(f"panel{j}", panel["rgb"], rough=0.5), frame)
        if panel.get("diamond"):
            ca, cb, ra, rb = (pa0 + pa1) / 2, (pb0 + pb1) / 2, (pa1 - pa0) * 0.4, (pb1 - pb0) * 0.4
            verts = [((ca + da) * MM, (cb + db) * MM, (zs + 0.09) * MM) for da, db in ((ra, 0), (0, rb), (-ra, 0), (0, -rb))]
            mesh_object(f"diamond{j}", verts, [(0, 1, 2, 3)], plain(f"diamond{j}", panel["rgb2"], rough=0.5),
                        parent=frame)
    if bd.get("point_grain"):                        # points of wood, as inlaid boards have
        point_mats = [textured(f"point{i}", "grain", c, [v * 0.72 for v in c], scale=2.0, rough=0.55, spec=0.3)
                      for i, c in enumerate(bd["point_rgb"])]
    else:
        point_mats = [plain(f"point{i}", c, rough=0.6, spec=0.25) for i, c in enumerate(bd["point_rgb"])]
    border = bd.get("point_border")                  # a stripe of marquetry round each point
    border_mat = striped("border", border["rgb"], border["rgb2"], border["pitch"]) if border else None
    for i, tri in enumerate(bd["point_tris"]):       # board-local (a, b), mm
        order = [(0, 1, 2) if _ccw(tri) else (0, 2, 1)]
        if border:
            verts = [(a * MM, b * MM, (zs + 0.12) * MM) for a, b in tri]
            mesh_object(f"ptb{i}", verts, order, border_mat, parent=frame)
            tri = shrunk(tri, border["width"])
        verts = [(a * MM, b * MM, (zs + (0.16 if border else 0.12)) * MM) for a, b in tri]
        mesh_object(f"pt{i}", verts, order, point_mats[bd["point_colour"][i]], parent=frame)

    # ---- men
    men = scene["men"]
    meshes = []
    for colour in (0, 1):
        m = men["rgb"][colour]
        inlay = (men.get("inlay") or [None, None])[colour]
        if inlay:
            mat = inlaid(f"men{colour}", m, inlay, rough=men["rough"], spec=men["spec"])
        else:
            mat = plain(f"men{colour}", m, rough=men["rough"], spec=men["spec"], saturate=1.0)   # no pink ivory
        meshes.append(man_mesh(f"man{colour}", men["radius"], men["thick"] - 0.05, mat,
                               men["groove"] if men["grooved"][colour] else 0.0, men["rim"]))
    for i, man in enumerate(men["list"]):
        obj = _linked(f"m{i}", meshes[man["colour"]])
        obj.location = Vector(man["xyz"]) * MM
        obj.rotation_euler = (math.radians(man.get("tip", [0, 0])[0]), math.radians(man.get("tip", [0, 0])[1]),
                              math.radians(man.get("turn", 0.0)))

    # ---- a hand, an arm, a sleeve or a cup over the board (frames for the check for a cover)
    for i, part in enumerate(scene.get("cover", [])):
        cover_part(i, part)

    # ---- dice
    dice = scene["dice"]
    if dice["list"]:
        body = plain("die", dice["rgb"], rough=0.35, spec=0.45)
        pip = plain("pip", (28, 28, 30), rough=0.5)
        for i, die in enumerate(dice["list"]):
            s = die["size"]
            cube = box(f"die{i}", -s / 2, s / 2, -s / 2, s / 2, 0, s, body, bevel=s * 0.12)
            cube.location = Vector(die["xyz"]) * MM
            cube.rotation_euler = (0, 0, math.radians(die["yaw"]))
            for j, (pa, pb) in enumerate(_PIPS[die["value"]]):
                disc = box(f"pip{i}_{j}", -s * 0.08, s * 0.08, -s * 0.08, s * 0.08, s - 0.2, s + 0.15, pip,
                           parent=cube, bevel=s * 0.04)
                disc.location = (pa * s * 0.27 * MM, pb * s * 0.27 * MM, 0)


_PIPS = {
    1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _ccw(tri):
    (x0, y0), (x1, y1), (x2, y2) = tri
    return (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0) > 0


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 2:
        print("usage: blender -b --factory-startup -P blender_scene.py -- SCENES.json RAWDIR", file=sys.stderr)
        sys.exit(2)
    scenes = json.load(open(argv[0]))
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for scene in scenes:
        path = os.path.join(out, scene["name"] + ".png")
        if os.path.exists(path):
            continue
        t0 = time.time()
        clear()
        build(scene)
        built = time.time() - t0
        tmp = path[:-4] + ".part.png"
        bpy.context.scene.render.filepath = tmp
        bpy.ops.render.render(write_still=True)
        os.replace(tmp, path)                       # a frame is there whole or not at all
        print(f"WILLUGHBY rendered {scene['name']} in {time.time() - t0:.1f} s (scene built in {built:.2f} s)",
              flush=True)


if __name__ == "__main__":
    main()
