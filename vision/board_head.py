"""The point reader adapted to the board it watches.

No network trained on drawn boards knows every club's board, men and lamp,
but a referee at a table is never cold: the calibration photo of the
starting position, and every frame whose board the referee knows (a turn
ruled legal surely, a question the players answered), is a labelled
picture of *this* board. :class:`BoardHead` is what the reader learns from
them: a correction to the network's last layer (the count of each point),
fitted on the network's own features of this board's points
(``pointnet``'s ``features`` output).

For a point with features ``h`` (``FEATURES`` numbers) and the network's
probabilities ``p`` (``CLASSES`` of them), the adapted log-probabilities are
``log p + dW h + db``, normalised: with ``dW`` and ``db`` zero the reader
reads as it did. They are fitted to the examples (:class:`BoardExamples`)
by gradient descent on the mean cross-entropy plus ``strength`` times half
their squared size (a Gaussian prior on the correction: a few examples move
it a little, many move it more). Only the classes the examples hold are
corrected: a count this board has not shown yet keeps the network's own
weight, so the start (2, 3 and 5 men and empty points) does not teach the
reader that no point ever holds 4.

Everything here is numpy: learning a frame takes tens of milliseconds on one
core (``benchmarks/turns.py --learn`` prints the times).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .classes import CLASS_COLOUR, CLASS_MEN, CLASSES, MOST_MEN, POINTS
from .errors import VisionError

__all__ = ["BoardExamples", "BoardHead", "HeadConfig", "fit_head", "board_classes_of", "contradicted",
           "CONTRADICTS"]

FEATURES = 160        # the network's features of a point (its ``features`` output)
FORMAT = "willughby-board-head/1"
#: a board the referee was told (a player's answer) is not learnt where the camera read another class at some
#: point this surely: a wrong answer must not teach the reader; the frame is kept aside to be looked at
CONTRADICTS = 0.99


@dataclass(frozen=True)
class HeadConfig:
    """How the correction is fitted."""

    #: the prior's weight on the correction's squared size (per example, as the cross-entropy is a mean).
    #: Chosen on frames of the styles held out for fitting (``benchmarks/turns.py --style-set held-out-fit
    #: --seed 101 --learn``, 300 turns): from 0.002 to 0.2 the same 11 turns asked (25 cold), at 1.0 13
    strength: float = 0.05
    #: gradient steps of a fit from nothing; a refit from the last correction takes ``refit_steps``
    steps: int = 150
    refit_steps: int = 30
    #: the most examples kept (points); the oldest beyond it are dropped (the start's are always kept).
    #: A point's example is 4 * (FEATURES + CLASSES) bytes and its class: 10,000 of them (400 frames)
    #: are about 10 MB in the calibration's JSON
    most_examples: int = 10000

    def __post_init__(self) -> None:
        if not self.strength > 0:
            raise VisionError(f"board head: strength must be above 0, not {self.strength}")
        if self.steps < 1 or self.refit_steps < 1 or self.most_examples < 24:
            raise VisionError("board head: steps and refit_steps must be at least 1, most_examples at least 24")


def board_classes_of(light: list[int], dark: list[int]) -> np.ndarray:
    """The 24 points' classes of a board (0 empty, n light men, 15 + n dark men)."""
    if len(light) != POINTS or len(dark) != POINTS:
        raise VisionError("a board has 24 points of each colour")
    return np.array([light[i] or (MOST_MEN + dark[i] if dark[i] else 0) for i in range(POINTS)], np.int64)


def contradicted(count_probs: np.ndarray, classes: np.ndarray, least: float = CONTRADICTS) -> list[int]:
    """The points (1..24) where the reader read another class than *classes*
    with probability *least* or more: where a board it is told contradicts
    what it sees surely (nothing is learnt from such a frame)."""
    p = np.asarray(count_probs, np.float64)
    read = p.argmax(axis=1)
    return [int(i) + 1 for i in np.flatnonzero((read != np.asarray(classes)) & (p.max(axis=1) >= least))]


@dataclass
class BoardExamples:
    """This board's labelled points: the network's features of each, its own
    log-probabilities there, and what the point truly held."""

    features: np.ndarray = field(default_factory=lambda: np.zeros((0, FEATURES), np.float32))
    log_probs: np.ndarray = field(default_factory=lambda: np.zeros((0, CLASSES), np.float32))
    classes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: how many of the first examples are the start's, never dropped
    kept: int = 0

    def __len__(self) -> int:
        return int(self.classes.size)

    def add(self, features: np.ndarray, count_probs: np.ndarray, classes: np.ndarray,
            most: int = HeadConfig.most_examples, keep: bool = False) -> None:
        """Add one frame's points (features (24, FEATURES), the network's
        probabilities (24, CLASSES), the true classes (24,)); *keep*: the
        start's, never dropped. The oldest others are dropped past *most*."""
        f = np.asarray(features, np.float32)
        p = np.asarray(count_probs, np.float64)
        y = np.asarray(classes, np.int64)
        if f.ndim != 2 or f.shape[1] != FEATURES or p.shape != (len(f), CLASSES) or y.shape != (len(f),):
            raise VisionError("board examples: features, probabilities and classes of the same points are needed")
        if ((y < 0) | (y >= CLASSES)).any():
            raise VisionError("board examples: a class out of range")
        self.features = np.concatenate([self.features, f])
        self.log_probs = np.concatenate([self.log_probs, np.log(np.maximum(p, 1e-12)).astype(np.float32)])
        self.classes = np.concatenate([self.classes, y])
        if keep and self.kept == len(self) - len(y):
            self.kept = len(self)
        over = len(self) - max(most, self.kept)
        if over > 0:
            idx = np.r_[0:self.kept, self.kept + over:len(self)]
            self.features, self.log_probs, self.classes = self.features[idx], self.log_probs[idx], self.classes[idx]

    def to_json(self) -> dict[str, Any]:
        return {"features": _pack(self.features), "log_probs": _pack(self.log_probs),
                "classes": self.classes.astype(int).tolist(), "kept": self.kept}

    @classmethod
    def from_json(cls, doc: Any) -> "BoardExamples":
        try:
            y = np.asarray(doc["classes"], np.int64)
            f = _unpack(doc["features"], (len(y), FEATURES))
            p = _unpack(doc["log_probs"], (len(y), CLASSES))
            kept = int(doc.get("kept", 0))
        except (KeyError, TypeError, ValueError) as exc:
            raise VisionError(f"the board's examples are damaged: {exc}") from None
        if not 0 <= kept <= len(y) or ((y < 0) | (y >= CLASSES)).any():
            raise VisionError("the board's examples are damaged: a class or the start's count out of range")
        return cls(f, p, y, kept)


@dataclass
class BoardHead:
    """A board's correction to the point reader's count layer (see the module)."""

    weight: np.ndarray                      # (CLASSES, FEATURES)
    bias: np.ndarray                        # (CLASSES,)
    examples: BoardExamples = field(default_factory=BoardExamples)
    config: HeadConfig = field(default_factory=HeadConfig)

    @classmethod
    def empty(cls, config: HeadConfig | None = None) -> "BoardHead":
        return cls(np.zeros((CLASSES, FEATURES)), np.zeros(CLASSES), BoardExamples(), config or HeadConfig())

    @property
    def frames_learnt(self) -> int:
        """How many frames it has learnt beyond the start's (24 points a frame)."""
        return (len(self.examples) - self.examples.kept) // 24

    def apply(self, count_probs: np.ndarray, features: np.ndarray | None) -> np.ndarray:
        """The adapted count probabilities of a frame's points (the network's
        unchanged where no features are at hand)."""
        if features is None or not len(self.examples):
            return count_probs
        logits = np.log(np.maximum(np.asarray(count_probs, np.float64), 1e-12))
        logits = logits + np.asarray(features, np.float64) @ self.weight.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        adapted: np.ndarray = (p / p.sum(axis=1, keepdims=True)).astype(np.float32)
        return adapted

    def learn(self, features: np.ndarray, count_probs: np.ndarray, classes: np.ndarray, start: bool = False,
              points: np.ndarray | None = None) -> None:
        """Add one known frame's points and fit again (from the correction so
        far: ``refit_steps``; the first fit ``steps``).  *points* (a bool for
        each): only those; the others' features were read from the same
        picture as an example learnt before (``Reading.points_read``), and
        learning it again would only weigh it more."""
        first = not len(self.examples)
        if points is not None:
            keep = np.asarray(points, bool)
            features, count_probs, classes = (np.asarray(features)[keep], np.asarray(count_probs)[keep],
                                              np.asarray(classes)[keep])
        self.examples.add(features, count_probs, classes, self.config.most_examples, keep=start)
        self.weight, self.bias = fit_head(self.examples, self.config, None if first else (self.weight, self.bias))

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "weight": _pack(self.weight.astype(np.float32)),
                "bias": _pack(self.bias.astype(np.float32)), "examples": self.examples.to_json()}

    @classmethod
    def from_json(cls, doc: Any, config: HeadConfig | None = None) -> "BoardHead":
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise VisionError(f"the board's learnt reader is not a {FORMAT} document")
        try:
            w = _unpack(doc["weight"], (CLASSES, FEATURES)).astype(np.float64)
            b = _unpack(doc["bias"], (CLASSES,)).astype(np.float64)
        except (KeyError, TypeError, ValueError) as exc:
            raise VisionError(f"the board's learnt reader is damaged: {exc}") from None
        return cls(w, b, BoardExamples.from_json(doc.get("examples", {"classes": [], "features": "",
                                                                         "log_probs": ""})), config or HeadConfig())


_COLOUR = CLASS_COLOUR + 1                                     # a class's colour: empty, light, dark
_COUNT = CLASS_MEN                                             # ... and its number of men
_PARTS = 3 + MOST_MEN + 1                                      # the correction's rows: 3 colours, 16 counts
_OF = np.zeros((CLASSES, _PARTS))                              # a class's correction = its colour's + its count's
_OF[np.arange(CLASSES), _COLOUR] = 1.0
_OF[np.arange(CLASSES), 3 + _COUNT] = 1.0


def fit_head(examples: BoardExamples, config: HeadConfig,
             start: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The correction (dW, db) fitted to *examples* (see the module), from
    *start* (a previous fit) or from zero.

    A class's correction is the sum of its colour's (empty, light, dark) and
    its number of men's: so two, three and five dark men on this board's
    points teach the reader how this board's dark men look, a single one
    included, while what a single man looks like beside a pile is left to
    the network until one is seen.  Only the colours and numbers the
    examples hold are corrected."""
    n = len(examples)
    parts = np.zeros((_PARTS, FEATURES + 1))
    if start is not None:
        both = np.hstack([start[0], start[1][:, None]])
        parts = np.linalg.lstsq(_OF, both, rcond=None)[0]
    if n == 0:
        return _expand(parts)
    X = np.hstack([examples.features, np.ones((n, 1), np.float32)])
    L0 = examples.log_probs
    y = examples.classes
    used = np.zeros(_PARTS, bool)
    used[_COLOUR[y]] = True
    used[3 + _COUNT[y]] = True
    # a step the cross-entropy's curvature allows: its Hessian is at most half the features' second moment
    # (largest eigenvalue, with the constant feature of the bias) times a class's parts (2), plus the prior's
    top = float(np.linalg.eigvalsh((X.T @ X).astype(np.float64) / n)[-1])
    rate = 1.0 / (0.5 * 2.0 * top + config.strength)
    steps = config.steps if start is None else config.refit_steps
    mask = used[:, None].astype(np.float64)
    rows = np.arange(n)
    for k in range(steps):
        if k % _ACTIVE_EVERY == 0:
            # the examples the correction still gets wrong enough to matter: an example read at 1 - _EASY or
            # more adds almost nothing to the gradient, and most of a board's points are such (empty points)
            P = _probs(L0, X, parts)
            rows = np.flatnonzero(P[np.arange(n), y] < 1.0 - _EASY)
        if rows.size:
            P = _probs(L0[rows], X[rows], parts)
            P[np.arange(rows.size), y[rows]] -= 1.0             # d(cross-entropy)/dz of each example ...
            g = _OF.T @ (P.T @ X[rows]).astype(np.float64) / n  # ... over all n (the easy ones add ~0)
        else:
            g = np.zeros_like(parts)
        parts -= rate * (g + config.strength * parts) * mask
    return _expand(parts)


_EASY = 1e-4          # an example whose true class has 1 - this or more is left out of a step's gradient ...
_ACTIVE_EVERY = 10    # ... chosen again every this many steps


def _probs(L0: np.ndarray, X: np.ndarray, parts: np.ndarray) -> np.ndarray:
    z = L0 + X @ (_OF @ parts).T.astype(np.float32)
    z -= z.max(axis=1, keepdims=True)
    P = np.exp(z)
    probs: np.ndarray = P / P.sum(axis=1, keepdims=True)
    return probs


def _expand(parts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    full = _OF @ parts
    return full[:, :FEATURES].copy(), full[:, FEATURES].copy()


def _pack(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a, np.float32).tobytes()).decode("ascii")


def _unpack(text: str, shape: tuple[int, ...]) -> np.ndarray:
    raw = base64.b64decode(text.encode("ascii"), validate=True) if text else b""
    a = np.frombuffer(raw, np.float32)
    if a.size != int(np.prod(shape)):
        raise ValueError(f"{a.size} numbers where {int(np.prod(shape))} belong")
    return a.reshape(shape).copy()
