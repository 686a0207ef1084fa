"""Examples for the dice reader: real photographs of dice and boards the painter draws.

Two kinds of example, for the two networks of ``willughby.vision.dice_reader``:

- **finder examples**: a grey square of ``FINDER_SIZE`` pixels cut from a
  picture scaled so that its dice are 12 to 32 pixels across (or, for
  some, far larger: dice another look finds, where this one must see
  nothing), with the finder's targets: a map of the dice's centres (a small Gaussian at each,
  one cell per ``STRIDE`` pixels), each die's width and height, and where
  its centre lies within its cell;
- **face examples**: a grey square of ``FACE_SIZE`` pixels around one die,
  turned, shifted and lit at random, labelled with the face on top (1..6),
  or 0 for a square with no die centred in it (the board, a man, a point, the
  background).

The real dice come from the dice dataset "Rune55" v3 (Roboflow Universe,
workspace rune-zkmvl, licence CC BY 4.0): a folder with ``train/`` and
``valid/``, each ``images/*.jpg`` (640 x 640) and ``labels/*.txt`` (YOLO:
``CLASS x y w h``, normalised; CLASS 0..5 is the face 1..6). Its images are
never part of the project: this module takes the folder's path. Boards with
men and dice come from the project's painter (``willughby.vision.synth``),
whose labels give each die's centre and face.

>>> pictures = [Picture(np.zeros((200, 200), np.uint8), np.array([[100.0, 100.0, 40.0, 40.0]]), np.array([3]))]
>>> x, heat, size, mask, weight = finder_batch(pictures, np.random.default_rng(0), 2)
>>> x.shape, heat.shape, size.shape, weight.shape
((2, 1, 128, 128), (2, 1, 32, 32), (2, 4, 32, 32), (2, 1, 32, 32))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

from willughby.vision.dice_reader import FACE_MARGIN as READER_FACE_MARGIN
from willughby.vision.dice_reader import FACE_SIZE as READER_FACE_SIZE
from willughby.vision.dice_dataset import dice_labels, label_path_of
from willughby.vision.dice_reader import die_px_of, face_square

FINDER_SIZE = 128          # the finder's square, in pixels
STRIDE = 4                 # pixels of the square a cell of the finder's maps covers
DIE_PX = (12.0, 32.0)      # how many pixels across the finder sees a die
FACE_SIZE = READER_FACE_SIZE     # the face reader's square, in pixels (the reader's own)
FACE_MARGIN = READER_FACE_MARGIN  # the face square's side, in sides of the die's box
NO_DIE = 0                 # the face reader's class for a square with no die
SIDE_JITTER = (0.8, 1.3)   # how far from a die's own size the face reader learns to read it
WRONG_SIZE = (0.55, 1.8)   # a place the finder sees at a size this far from the die's own is no die's face
RIGHT_SIZE = (0.7, 1.45)   # a place the finder sees at a size this near the die's own (and near its centre) is the die
#: the share of the dice the face reader learns from that are cut where the finder placed them (where it has)
FOUND_SHARE = 0.5


@dataclass
class Picture:
    """A grey picture and its dice: boxes (centre x, centre y, width, height,
    in pixels) and faces (1..6; 0 for a die lying so that its face cannot be read)."""

    grey: np.ndarray
    boxes: np.ndarray
    faces: np.ndarray
    #: places the finder took for a die where there is none (x, y, side): the face reader's hardest "no die"
    negatives: np.ndarray | None = None
    #: places the finder took for a die rightly (x, y, side, face), at its own centre and size: the dice as
    #: the face reader is handed them at run time
    found: np.ndarray | None = None


def read_split(folder: Path, split: str, limit: int | None = None) -> list[Picture]:
    """The pictures of one split (``train`` or ``valid``) of the dice dataset in *folder*."""
    images = sorted((folder / split / "images").glob("*.jpg"))[:limit]
    out = []
    for path in images:
        grey = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        if grey is None:
            continue
        h, w = grey.shape
        rows = dice_labels(label_path_of(path), w, h)
        table = np.array(rows, np.float32).reshape(-1, 5)
        out.append(Picture(grey, table[:, :4], table[:, 4].astype(np.int64)))
    return out


def painted_pictures(count: int, seed: int) -> list[Picture]:
    """*count* frames of boards the painter draws, with men and one or two dice, grey."""
    from willughby.vision.synth.render import render
    from willughby.vision.synth.spec import SceneSpec

    out = []
    rng = np.random.default_rng(seed)
    for _ in range(count):
        img, label = render(rng, SceneSpec(n_dice=int(rng.integers(1, 3))))
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        # the die as the style draws it, its top and the sides the camera sees
        die = die_px_of(label["corners"], float((label.get("style") or {}).get("die_mm") or 16.0))
        dice = label.get("dice") or []
        boxes = np.array([[d["center"][0], d["center"][1], die, die] for d in dice], np.float32).reshape(-1, 4)
        faces = np.array([d["value"] for d in dice], np.int64)
        out.append(Picture(grey, boxes, faces))
    return out


def _median_side(picture: Picture) -> float:
    """The median side of *picture*'s dice, in pixels (40 where it has none)."""
    if not len(picture.boxes):
        return 40.0
    return float(np.median(np.maximum(picture.boxes[:, 2], picture.boxes[:, 3])))


def _scaled(picture: Picture, die_px: float) -> tuple[np.ndarray, np.ndarray]:
    """The picture scaled so that its median die is *die_px* across, and its boxes so."""
    scale = die_px / _median_side(picture)
    h, w = picture.grey.shape
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    grey = cv2.resize(picture.grey, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    return grey, picture.boxes * scale


def _lit(grey: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The picture with its light changed at random: contrast, brightness, gamma, noise, blur, sometimes inverted."""
    x = grey.astype(np.float32) / 255.0
    x = np.clip(x ** math.exp(rng.normal(0, 0.25)), 0, 1)
    x = x * rng.uniform(0.6, 1.3) + rng.uniform(-0.2, 0.2)
    if rng.random() < 0.15:
        x = 1.0 - x                                  # dark dice with light pips
    if rng.random() < 0.3:
        k = float(rng.uniform(0.3, 1.2))
        x = cv2.GaussianBlur(x, (0, 0), k)
    x = x + rng.normal(0, rng.uniform(0, 0.04), x.shape).astype(np.float32)
    return np.clip(x, 0, 1).astype(np.float32)


def finder_batch(pictures: list[Picture], rng: np.random.Generator, n: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """*n* finder examples: the squares (n, 1, S, S) in 0..1, the centre maps
    (n, 1, S/STRIDE, S/STRIDE), the sizes (n, 4, ...): each die's width and height in units of 32
    pixels and its centre's offset from its cell's middle, in cells, the
    mask of the cells that carry a size (n, 1, ...), and each cell's weight in
    the centre map's loss (n, 1, ...).

    The picture is scaled so that its dice are mostly within ``DIE_PX`` (the
    finder's to find), and sometimes larger or smaller: a die much larger than
    ``DIE_PX`` is one a coarser look finds, so the finder learns to see
    nothing there (not its pips, not its edges); a die much smaller, one a
    finer look finds. Near the band's edges the cells are not counted either way."""
    s, cells = FINDER_SIZE, FINDER_SIZE // STRIDE
    x = np.zeros((n, 1, s, s), np.float32)
    heat = np.zeros((n, 1, cells, cells), np.float32)
    size = np.zeros((n, 4, cells, cells), np.float32)
    mask = np.zeros((n, 1, cells, cells), np.float32)
    weight = np.ones((n, 1, cells, cells), np.float32)
    ys, xs = np.mgrid[0:cells, 0:cells].astype(np.float32)
    for k in range(n):
        pic = pictures[int(rng.integers(len(pictures)))]
        if rng.random() < 0.7:
            die_px = float(rng.uniform(*DIE_PX))
        else:
            die_px = float(math.exp(rng.uniform(math.log(DIE_PX[1] * 1.3), math.log(DIE_PX[1] * 5))))
        grey, boxes = _scaled(pic, die_px)
        h, w = grey.shape
        if len(boxes) and rng.random() < 0.8:
            cx, cy = boxes[int(rng.integers(len(boxes)))][:2] + rng.uniform(-s * 0.4, s * 0.4, 2)
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        x0, y0 = int(round(cx - s / 2)), int(round(cy - s / 2))
        crop = cv2.copyMakeBorder(grey, s, s, s, s, cv2.BORDER_REFLECT)[y0 + s:y0 + 2 * s, x0 + s:x0 + 2 * s]
        flip = rng.random() < 0.5
        if flip:
            crop = crop[:, ::-1]
        x[k, 0] = _lit(np.ascontiguousarray(crop), rng)
        for bx, by, bw, bh in boxes:
            px, py = bx - x0, by - y0
            if flip:
                px = s - 1 - px
            side = max(bw, bh)
            if not (-side / 2 <= px < s + side / 2 and -side / 2 <= py < s + side / 2):
                continue
            gx, gy = px / STRIDE, py / STRIDE
            near = (xs - gx) ** 2 + (ys - gy) ** 2
            if not DIE_PX[0] * 0.75 <= side <= DIE_PX[1] * 1.3:
                continue                              # another look's die: nothing to find here
            if not DIE_PX[0] <= side <= DIE_PX[1]:    # at the band's edge: neither found nor missed
                weight[k, 0][near <= (side / STRIDE / 2) ** 2] = 0.0
                continue
            if not (0 <= px < s and 0 <= py < s):
                continue
            sigma = max(0.6, side / STRIDE / 4.0)
            heat[k, 0] = np.maximum(heat[k, 0], np.exp(-near / (2 * sigma ** 2)))
            i, j = min(cells - 1, int(gy)), min(cells - 1, int(gx))
            heat[k, 0, i, j] = 1.0
            weight[k, 0, i, j] = 1.0
            size[k, :, i, j] = (bw / 32.0, bh / 32.0, gx - (j + 0.5), gy - (i + 0.5))
            mask[k, 0, i, j] = 1.0
    return x, heat, size, mask, weight


def face_batch(pictures: list[Picture], rng: np.random.Generator, n: int,
               no_die_share: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """*n* face examples: squares (n, 1, FACE_SIZE, FACE_SIZE) in 0..1 and their classes (0 no die, 1..6)."""
    x = np.zeros((n, 1, FACE_SIZE, FACE_SIZE), np.float32)
    y = np.zeros(n, np.int64)
    k = 0
    while k < n:
        pic = pictures[int(rng.integers(len(pictures)))]
        angle = float(rng.uniform(0, 360))
        if len(pic.boxes) and rng.random() >= no_die_share:
            if pic.found is not None and len(pic.found) and rng.random() < FOUND_SHARE:
                # where the finder placed a die, as the reader is handed it
                fx, fy, fside, fface = pic.found[int(rng.integers(len(pic.found)))]
                side = float(fside) * FACE_MARGIN * float(rng.uniform(0.9, 1.1))
                cx, cy = float(fx) + rng.normal(0, 0.03) * side, float(fy) + rng.normal(0, 0.03) * side
                label = int(fface)
            else:
                d = int(rng.integers(len(pic.boxes)))
                if pic.faces[d] < 1:
                    continue
                bx, by, bw, bh = pic.boxes[d]
                side = max(bw, bh) * FACE_MARGIN * float(rng.uniform(*SIDE_JITTER))
                cx, cy = bx + rng.normal(0, 0.06) * side, by + rng.normal(0, 0.06) * side
                label = int(pic.faces[d])
        elif pic.negatives is not None and len(pic.negatives) and rng.random() < 0.6:
            nx, ny, nside = pic.negatives[int(rng.integers(len(pic.negatives)))]
            side = float(nside) * FACE_MARGIN * float(rng.uniform(0.9, 1.15))
            cx, cy = float(nx) + rng.normal(0, 0.05) * side, float(ny) + rng.normal(0, 0.05) * side
            label = NO_DIE
        else:
            h, w = pic.grey.shape
            sides = np.maximum(pic.boxes[:, 2], pic.boxes[:, 3]) if len(pic.boxes) else np.array([60.0])
            side = float(np.median(sides)) * FACE_MARGIN * float(rng.uniform(0.8, 1.3))
            cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
            if len(pic.boxes):
                # off every die's centre by at least half a die (a square half on a die is no die's face)
                near = np.hypot(pic.boxes[:, 0] - cx, pic.boxes[:, 1] - cy) < 0.5 * sides
                if near.any():
                    continue
            label = NO_DIE
        square = face_square(pic.grey, cx, cy, side, angle)
        x[k, 0] = _lit(square, rng)
        y[k] = label
        k += 1
    return x, y


def face_examples_of(pictures: list[Picture]) -> Iterator[tuple[np.ndarray, int]]:
    """Every labelled die of *pictures*, its square as the reader sees it (not turned): for measuring."""
    for pic in pictures:
        for (bx, by, bw, bh), face in zip(pic.boxes, pic.faces):
            square = face_square(pic.grey, float(bx), float(by), float(max(bw, bh)) * FACE_MARGIN)
            yield square.astype(np.float32) / 255.0, int(face)


def finder_places(path: Path) -> "Callable[[np.ndarray], list[tuple[float, float, float]]]":
    """A finder's guesses on a grey picture, at every size the dice reader looks for dice where it is
    given no board, as the reader makes them."""
    from willughby.vision.dice_reader import DiceReader, DiceReaderSettings

    settings = DiceReaderSettings(min_found=0.25)
    reader = DiceReader(finder_path=path, face_path=path, settings=settings)

    def find(grey: np.ndarray) -> list[tuple[float, float, float]]:
        return [(x, y, side) for x, y, side, _ in reader.find_places(grey, settings.search_px)]
    return find


def right_places(picture: Picture, places: "list[tuple[float, float, float]]") -> np.ndarray:
    """Of *places* (x, y, side) a finder took for dice in *picture*, those on a labelled die whose face can
    be read, near its centre and its size (``RIGHT_SIZE``), each with that die's face: (x, y, side, face)."""
    right: list[tuple[float, float, float, float]] = []
    if not len(picture.boxes):
        return np.zeros((0, 4), np.float32)
    sides = np.maximum(picture.boxes[:, 2], picture.boxes[:, 3])
    for x, y, s in places:
        d = np.hypot(picture.boxes[:, 0] - x, picture.boxes[:, 1] - y)
        k = int(np.argmin(d / sides))
        if (picture.faces[k] >= 1 and d[k] <= 0.35 * sides[k]
                and RIGHT_SIZE[0] <= s / float(sides[k]) <= RIGHT_SIZE[1]):
            right.append((x, y, s, float(picture.faces[k])))
    return np.array(right, np.float32).reshape(-1, 4)


def wrong_places(picture: Picture, places: "list[tuple[float, float, float]]") -> np.ndarray:
    """Of *places* (x, y, side) a finder took for dice in *picture*, those where no labelled die lies,
    or where one does at a size far from its own (a pip of a larger die, two dice seen as one)."""
    wrong = []
    for x, y, s in places:
        if len(picture.boxes):
            d = np.hypot(picture.boxes[:, 0] - x, picture.boxes[:, 1] - y)
            k = int(np.argmin(d))
            ratio = s / float(max(picture.boxes[k, 2], picture.boxes[k, 3]))
            if d[k] <= 0.7 * s and WRONG_SIZE[0] <= ratio <= WRONG_SIZE[1]:
                continue
        wrong.append((x, y, s))
    return np.array(wrong, np.float32).reshape(-1, 3)


_FIND: "Callable[[np.ndarray], list[tuple[float, float, float]]] | None" = None


def _start_finding(path: Path) -> None:
    global _FIND
    cv2.setNumThreads(1)
    _FIND = finder_places(path)


def _places_of(grey: np.ndarray) -> "list[tuple[float, float, float]]":
    assert _FIND is not None
    return _FIND(grey)


def mine_finder_places(pictures: list[Picture], finder: Path, workers: int = 1,
                       progress: "Callable[[int], None] | None" = None) -> tuple[int, int]:
    """Give each picture the places the finder at *finder* (ONNX), looking at every size as the reader
    does, takes for a die wrongly (:func:`wrong_places`; kept where the picture has them already, as a
    pack's pictures do, found at their full size) and rightly (:func:`right_places`), looking at *workers*
    pictures at once: how many places of each in all. *progress* is told how many pictures are done,
    every 500."""
    import multiprocessing

    wrong = right = 0
    with multiprocessing.Pool(max(1, workers), _start_finding, (finder,)) as pool:
        found = pool.imap(_places_of, (pic.grey for pic in pictures), chunksize=4)
        for n, (pic, places) in enumerate(zip(pictures, found)):
            if progress is not None and n and n % 500 == 0:
                progress(n)
            if pic.negatives is None:
                pic.negatives = wrong_places(pic, places)
            pic.found = right_places(pic, places)
            wrong += len(pic.negatives)
            right += len(pic.found)
    return wrong, right


def write_pack(pictures: dict[str, list[Picture]], path: Path, quality: int = 85) -> int:
    """Write *pictures* (by split) to one file at *path*: each picture as a grey JPEG of *quality*,
    with its dice and the places a finder took wrongly; the file's size in bytes."""
    blobs, boxes, faces, negatives, split_of, ends = [], [], [], [], [], []
    for k, split in enumerate(sorted(pictures)):
        for pic in pictures[split]:
            ok, data = cv2.imencode(".jpg", pic.grey, [cv2.IMWRITE_JPEG_QUALITY, quality])
            if not ok:
                raise ValueError("a picture could not be encoded")
            blobs.append(data.reshape(-1))
            boxes.append(pic.boxes.astype(np.float32).reshape(-1, 4))
            faces.append(pic.faces.astype(np.int64).reshape(-1))
            negs = pic.negatives if pic.negatives is not None else np.zeros((0, 3), np.float32)
            negatives.append(negs.astype(np.float32).reshape(-1, 3))
            split_of.append(k)
            ends.append((len(blobs[-1]), len(boxes[-1]), len(negatives[-1])))
    counts = np.array(ends, np.int64).reshape(-1, 3)
    np.savez(path, splits=np.array(sorted(pictures)), split_of=np.array(split_of, np.int64), counts=counts,
             jpeg=np.concatenate(blobs) if blobs else np.zeros(0, np.uint8),
             boxes=np.concatenate(boxes) if boxes else np.zeros((0, 4), np.float32),
             faces=np.concatenate(faces) if faces else np.zeros(0, np.int64),
             negatives=np.concatenate(negatives) if negatives else np.zeros((0, 3), np.float32))
    return path.stat().st_size


def read_pack(path: Path, split: str) -> list[Picture]:
    """The pictures of *split* in a file :func:`write_pack` wrote."""
    with np.load(path) as pack:
        splits = [str(s) for s in pack["splits"]]
        if split not in splits:
            raise ValueError(f"{path}: no part {split!r} (it has {', '.join(splits)})")
        want = splits.index(split)
        counts, split_of = pack["counts"], pack["split_of"]
        jpeg, boxes, faces, negatives = pack["jpeg"], pack["boxes"], pack["faces"], pack["negatives"]
    starts = np.vstack([np.zeros((1, 3), np.int64), np.cumsum(counts, axis=0)])
    out = []
    for n in np.flatnonzero(split_of == want):
        (j0, b0, g0), (j1, b1, g1) = starts[n], starts[n + 1]
        grey = cv2.imdecode(jpeg[j0:j1], cv2.IMREAD_GRAYSCALE)
        out.append(Picture(grey, boxes[b0:b1], faces[b0:b1], negatives[g0:g1]))
    return out


def shrunk(picture: Picture, die_px: float) -> Picture:
    """*picture* made smaller (never larger) so that its median die is at most *die_px* across."""
    if not len(picture.boxes) or _median_side(picture) <= die_px:
        return picture
    grey, boxes = _scaled(picture, die_px)
    scale = np.float32(die_px / _median_side(picture))
    negatives = None if picture.negatives is None else picture.negatives * scale
    found = None if picture.found is None else picture.found * np.array([scale, scale, scale, 1], np.float32)
    return Picture(grey, boxes, picture.faces, negatives, found)
