"""Where the labelled dev images are: the one lookup for every test that reads them.

The dev set (about thirty labelled, photo-like frames of a board; the label
format is ``docs/vision-labels.md``) is not part of the repository. A test
that needs it finds it in the folder ``WILLUGHBY_VISION_DEV`` names, or else
in a ``shared/vision-dev`` folder next to the checkout's own folder (where
the project's maintainers keep their data); where neither holds it, the test
is skipped with :data:`MISSING`, which says how to get it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = ["ENV", "DEV", "MISSING", "dev_image"]

ENV = "WILLUGHBY_VISION_DEV"

DEV = Path(os.environ.get(ENV) or Path(__file__).resolve().parents[3] / "shared" / "vision-dev")

MISSING = (f"the labelled dev images are not here: set {ENV} to a folder of them "
           "(or put them in a shared/vision-dev folder next to the checkout's folder; "
           "docs/vision-labels.md describes the labels)")


def dev_image(name: str) -> Path:
    """The dev set's image *name* (``img_0007``: its ``.jpg``, with its ``.json``
    label beside it), or a skip saying how to get the dev set."""
    path = DEV / f"{name}.jpg"
    if not path.exists() or not path.with_suffix(".json").exists():
        pytest.skip(MISSING if not DEV.is_dir() else f"{MISSING}; {DEV} has no {name}.jpg with its label")
    return path
