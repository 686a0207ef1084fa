"""``python -m willughby.vision.synth OUTDIR --count N --seed S``: write a
labelled synthetic data set (:func:`willughby.vision.synth.dataset.main`)."""

import sys

from .dataset import main

sys.exit(main())
