"""Build the pile reader's training set: the edge patches of occupied points.

    python tools/pile_reader_data.py OUT.npz --count 2000 --seed 5000

Frames come from ``willughby.vision.synth`` (a third each of the doublets
start, doublets positions part played down, and random positions, so piles
of 2 and 3 and men laid flat at the edge are all common), and go through
the reader's own stages.  For every point with men, the patch at its edge
(``strips.edge_patches``, 1 mm per pixel) and the label: ``pile`` 0 (no
pile), 1 (a pile of 2), 2 (a pile of 3).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

import numpy as np

from willughby.vision.config import VisionConfig
from willughby.vision.reader import observe
from willughby.vision.strips import edge_patches, maps
from willughby.vision.synth import SceneSpec, render

KINDS = ("doublets_start", "doublets_played", "random")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=5000)
    args = ap.parse_args(argv)
    config = VisionConfig()
    patches, aux, pile, count, frame = [], [], [], [], []
    t0 = time.perf_counter()
    for i in range(args.count):
        rng = np.random.default_rng([args.seed, i])
        spec = replace(SceneSpec(), occluded_share=0.0, position_kind=KINDS[i % 3])
        img, label = render(rng, spec)
        obs = observe(img, label["corners"], config)
        stack = maps(obs.geometry, obs.llr, obs.lab, float(obs.model.field[0]))
        points = [p for p in range(1, 25) if label["light"][p - 1] or label["dark"][p - 1]]
        if not points:
            continue
        cut = edge_patches(obs.geometry, obs.camera, stack, obs.margin, points)
        for k, p in enumerate(points):
            side = "light" if label["light"][p - 1] else "dark"
            st = label["stacked"][side][p - 1]
            patches.append(cut.maps[k].astype(np.float16))
            aux.append(cut.aux[k])
            pile.append({0: 0, 2: 1, 3: 2}.get(int(st), 2))
            count.append(label[side][p - 1])
            frame.append(i)
        if (i + 1) % 100 == 0:
            rate = (time.perf_counter() - t0) / (i + 1)
            print(f"{i + 1}/{args.count} frames, {rate:.3f} s each, {rate * (args.count - i - 1):.0f} s to go",
                  flush=True)
    np.savez_compressed(args.out, maps=np.stack(patches), aux=np.stack(aux), pile=np.array(pile),
                        count=np.array(count), image=np.array(frame))
    print(f"wrote {args.out}: {len(pile)} patches, piles {np.bincount(pile, minlength=3).tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
