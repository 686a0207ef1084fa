"""Camera frames in, board readings out (docs/house-conventions.md: ``vision/``).

The reader is a row of stages, each a function of ``(config, image)``; every
number they use is in :class:`~willughby.vision.config.VisionConfig`, whose
per-stage records (``reader``, ``dice``, ``occlusion``) a TOML file's
``[vision]``, ``[vision.reader]``, ``[vision.dice]`` and ``[vision.occlusion]``
tables override.  Start at :func:`willughby.vision.reader.read_board`:

1. **locate** -- the board's four corners C1..C4 in the frame: from the
   printed markers (``markers``) or a saved calibration (``calibration``),
   which also keeps the board's look;
2. **rectify** -- the playing surface warped top-down, 1 px per mm
   (``reader.rectify``, ``geometry``), and the camera's place over the board
   recovered from the same corners (``camera``);
3. **sample** -- the board's own colours and the men's, learnt from the
   picture (``reader.learn_board``), per-pixel evidence for a man of each
   colour (``reader.evidence``), and one strip of it per point
   (``strips``);
4. **count** -- the point reader (``pointnet``), a small network run by
   OpenCV from ``data/point_reader.onnx``, gives for every point the
   probability of empty, 1..15 light or 1..15 dark men, and of the men at
   the edge lying flat or in a pile of 2 or 3 (``Reading.count_probs``,
   ``Reading.pile_probs``);
   the most likely board that fits the men a side is read, preferring a
   game's start where it nearly fits (``starts``).  The older reader that
   fits arrangements of men (``counting``) is the baseline and the fallback.
   The bar is read from the round tops on it; dice (``dice``) are found only
   when asked; a hand across the frame refuses the frame (``occlusion``);
5. **settle** -- a reading is passed on only once the board has stood still
   for a few frames (``settle``).

A read's working memory is kept by the process for the next frame
(``memory``: the C library's allocator told once not to hand it back), which
is a fifth of a read's time on a machine where fresh pages are dear.

Quality is measured over labelled frames (``evaluate``, ``willughby vision
evaluate``), not by eye: ``docs/point-reader.md`` has the figures.

The reader gives probabilities, not moves: the turn reader (``turns``)
takes the few boards the referee says a throw allows and weighs each
against the point reader's probabilities for the frames (docs/house-conventions.md,
convention 15), and against what changed since the frame before
(``changes``); in the games of piles also against where along each point it
changed (``footprints``, ``turns_piles``).  Vision never learns the rules.

What draws or trains lives apart (convention 16): the painter of synthetic
boards is ``willughby.vision.synth`` (frames and labels for training and
benchmarks, and the demo's table); the training scripts are in ``tools/``.
The reader never imports the painter.  Camera devices (a Pi camera, a USB
camera, a folder or video of frames) are in ``willughby.hardware.camera``;
``vision`` never imports ``hardware``: the companion hands frames over.
"""
