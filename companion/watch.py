"""The camera's side of the companion: frames in, settled readings to the referee.

:class:`CameraWatcher` runs on a thread of its own: it takes frames from a
frame source (``willughby.hardware.camera``), finds the board (the saved
calibration's corners, found again by its markers where the board was
nudged, or those the demo's table gives), lets the settler (``willughby.vision.settle``) decide when the
board is still and uncovered, and hands each newly settled reading to the
companion. A frame with a hand over the board is never handed on.

The reader learns the board as the game goes (``willughby.vision.board_head``):
when a frame settles, the frame settled before it, whose board the referee
has since said it showed (a play ruled legal from it, or the players'
answer to its question), is learnt, and what was learnt is saved with the
calibration (so it survives a restart, and a new calibration starts
afresh); so is this board's own noise in the comparison with the frame
before (``willughby.vision.board_noise``), from the points where that
turn moved no man. A board told that the camera contradicts (it read another count at
some point at 0.99 or more) is not learnt: the frame and the board are kept
under ``set-aside/`` beside the calibration, to be looked at.

A camera that goes away (unplugged: its source raises, or gives no frames
for a few seconds) is logged and reported to *on_status* as ``"lost: why"``;
where the runtime gave a way to open it again, the watcher tries that now and
then (backing off to half a minute) and reports ``"ok"`` when frames come
back. Meanwhile the game goes on with the page and the dice.

The steps of learning the board are in ``watch_learning.py``; the saving of
what was learnt off the watcher's thread, in ``watch_saver.py`` (its
:class:`LatestSaver` is re-exported here).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

import cv2
import numpy as np

from pathlib import Path

from willughby.vision.calibration import (Calibration, calibrate_from_photo, check_order, corners_for,
                                          load_calibration, save_calibration)
from willughby.vision.config import VisionConfig
from willughby.hardware.camera import CameraError
from willughby.vision.errors import CalibrationMissing, VisionError
from willughby.vision.classes import MEN_PER_SIDE
from willughby.vision.settle import Settler

from .store_schema import StoreUnwritableError
from .watch_learning import keep_aside, known_board, learnt_look
from .watch_saver import LatestSaver as LatestSaver  # re-exported: the saver was defined here

__all__ = ["CameraWatcher"]

log = logging.getLogger(__name__)

#: how long a calibration waits for the camera to meter the board again and give a frame
METER_TIMEOUT_S = 5.0


class CameraWatcher:
    """Watch the board; call ``on_reading(board_doc, confidence)`` per settled change."""

    def __init__(self, source: Any, on_reading: Callable[..., Any], *,
                 corners: Callable[[np.ndarray], Any] | None = None, calibration_path: Path | None = None,
                 config: VisionConfig | None = None, fps: float = 10.0, turn_evidence: bool = False,
                 on_status: Callable[[str], Any] | None = None, reopen: Callable[[], Any] | None = None,
                 lost_after_s: float = 3.0, retry_s: tuple[float, float] = (1.0, 30.0),
                 men: Callable[[], int] | None = None, on_dice: Callable[[list[Any]], Any] | None = None,
                 dice_wanted: Callable[[], bool] | None = None) -> None:
        """*on_reading* is called with the board document and the confidence
        per location of each newly settled reading; with *turn_evidence*, also
        with a :class:`~willughby.vision.turns.TurnEvidence` for the turn
        reader (the point reader's probabilities and, where the frame settled
        before is at hand, which points' pictures changed since).

        *on_status* is told ``"lost: why"`` when the source has given no frame
        for *lost_after_s* seconds (or raised), and ``"ok"`` when frames come
        again; *reopen* (a function giving a new source) is tried while it is
        lost, first after *retry_s[0]* seconds, backing off to *retry_s[1]*.
        *men* says how many men a side has in the game in progress (the
        reader puts no more on the board; None: fifteen).

        *on_dice*, where the players throw their own dice for the camera, is
        called with the dice of each newly settled frame
        (``vision.dice_reader.SeenDie``), before *on_reading*: a throw and its
        move landing in one frame are taken in that order; *dice_wanted*, where
        given, says whether a frame's dice are wanted now (they are read only then)."""
        self.source = source
        self._men = men
        self._on_status = on_status
        self._reopen = reopen
        self.lost_after_s = lost_after_s
        self.retry_s = retry_s
        self.lost: str | None = None                  # why the camera is lost, while it is
        self._failing_since: float | None = None      # time.monotonic() of the first frame missed in a row
        self._next_retry = 0.0
        self._retry_delay = retry_s[0]
        self.reopened = 0
        self._given_corners = corners
        self.calibration_path = calibration_path
        self._calibration: Calibration | None = None
        self._on_reading = on_reading
        self._on_dice = on_dice
        self._dice_wanted = dice_wanted
        self._dice_reader: Any = None             # the dice reader (vision.dice_reader), made when first needed
        self.settler: Settler[Any] = Settler(config or VisionConfig(), reader=self._read)
        self._look: Any = None          # what calibration learnt of the board (reader.Look), once loaded
        self._period = 1.0 / fps
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_frame: np.ndarray | None = None
        self._frame_lock = threading.Lock()
        self._frames_taken = 0                     # frames taken since the start (for waiting on a new one)
        self.status = "starting"
        self.readings = 0
        self.last_settled_at: float | None = None     # time.monotonic() of the last settled frame
        self.last_read_ms: float | None = None        # what reading that frame took
        self.turn_evidence = turn_evidence
        # the last settled frame (rectified for comparing), its corners, the board read there, and the turn
        # evidence handed over with it (where the referee later says which board that frame showed: ``shown``,
        # set when it ruled a play from it or the players answered its question)
        self._settled: tuple[Any, np.ndarray, dict[str, Any], Any] | None = None
        self._not_kept = ""               # why the last settled reading could not be kept (said once)
        self._current: Any = None
        # what the reader may learn from that frame once its board is known: the frame, the network's features
        # and own probabilities there, and the probabilities as read (with what it had learnt so far)
        self._learnable: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Any] | None = None
        self._recent: np.ndarray | None = None    # the surface as the frame settled last showed it
        self._points_read: Any = None             # the points as the frame read last showed them
        self.learnt = 0               # frames learnt since the start
        self.set_aside = 0            # boards told that the camera contradicted, kept aside
        self.last_learn_ms: float | None = None
        self._saver = LatestSaver("calibration saver")
        # a calibration (from the page's thread) and the learning of a frame (on the watcher's) change the look
        # under this lock; each calibration starts a new generation, and what was learnt in an older one is
        # neither kept nor saved
        self._look_lock = threading.Lock()
        self._generation = 0

    def start(self) -> "CameraWatcher":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        if not self._saver.close():
            log.warning("what the reader learnt of the board was still being saved when the camera closed")
        self.source.close()

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until what was learnt of the board is saved with the calibration; False if it was not done
        within *timeout* seconds."""
        return self._saver.flush(timeout)

    def read_now(self) -> None:
        """DONE was pressed: read the next still frame even if nothing seems to have moved."""
        self.settler.reset()

    def _corners(self, frame: np.ndarray) -> Any:
        """The board's corners in *frame*: as given, or from the saved
        calibration (found again by its markers where the board was nudged);
        None before a calibration."""
        if self._given_corners is not None:
            return self._given_corners(frame)
        if self.calibration_path is None:
            return None
        if self._calibration is None:
            try:
                self._calibration = load_calibration(self.calibration_path)
            except CalibrationMissing:
                return None
            self._look = self._look_of(self._calibration)
        return corners_for(frame, self._calibration)

    @staticmethod
    def _look_of(calibration: Calibration) -> Any:
        """The board's look the calibration learnt, if any (a calibration of
        an older version, or one whose look is spoilt, reads without it)."""
        from willughby.vision.reader import Look

        if not calibration.colours:
            return None
        try:
            return Look.from_json(calibration.colours)
        except VisionError as exc:
            log.warning("the calibration's look is not used: %s", exc)
            return None

    def _read(self, frame: np.ndarray, corners: Any, config: VisionConfig) -> Any:
        """The settler's reader: the board read with what calibration learnt of it, and what the frame
        settled last showed (something lying over the men comes and goes; the board's own look stays);
        the dice found, so that a die thrown or picked up is not taken for men come or gone."""
        from willughby.vision.reader import read_board

        # the board the referee holds for the frame settled last (its ruling, or the players' answer)
        known = getattr(self._settled[3], "shown", None) if self._settled is not None else None
        reading = read_board(frame, corners, config, look=self._look, recent=self._recent, dice=True,
                             earlier=self._points_read, known=known or None,
                             men_per_side=self._men() if self._men is not None else MEN_PER_SIDE)
        # what the point reader read of each point, from which picture: the next frame reads again only the
        # points whose picture changed since (``vision.point_memory``)
        self._points_read = getattr(reading, "point_memory", None)
        return reading

    def _meter_again(self, timeout_s: float = METER_TIMEOUT_S) -> None:
        """Before a calibration, with the board clear: a camera whose exposure or
        white balance is configured ``"lock"`` meters the scene again and holds
        it (``FrameSource.lock_exposure``), and the calibration is made on a
        frame taken after, so the board's look it learns is the one the camera
        keeps from then on. A source that is not a camera changes nothing;
        without the watching loop running (a recorded game) nothing is waited for."""
        relock = getattr(self.source, "lock_exposure", None)
        if not callable(relock):
            return
        try:
            relock()
        except (CameraError, VisionError) as exc:
            log.info("the camera's exposure was not metered again: %s", exc)
            return
        if self._thread is None or not self._thread.is_alive():
            return
        deadline = time.monotonic() + timeout_s
        while getattr(self.source, "controls_settling", False) and time.monotonic() < deadline:
            time.sleep(0.05)
        with self._frame_lock:
            seen = self._frames_taken
        while time.monotonic() < deadline:          # a frame read once the camera holds its settings
            with self._frame_lock:
                if self._frames_taken > seen:
                    return
            time.sleep(0.02)
        log.warning("the camera gave no frame within %.0f s of metering again: calibrating on the last one",
                    timeout_s)

    def calibrate(self, corners: Any, known: Any = None, c1_confirmed: bool | None = None) -> dict[str, Any]:
        """Save *corners* (C1..C4, pixels of the last frame) as the board's
        calibration; with *known*, the board the frame shows (the referee's,
        a game's start), the reader learns this board's points from it.
        With *c1_confirmed* given (the page's calibration), corners whose
        order neither the known board in the frame tells nor the players
        confirmed are not saved (``calibration.check_order``: a
        :class:`~willughby.vision.errors.CornerOrderUnknown`), and the answer
        says how the order is known (``"order"``)."""
        if self.calibration_path is None:
            raise VisionError("this camera keeps no calibration")
        self._meter_again()
        with self._frame_lock:
            frame = self._last_frame
        if frame is None:
            raise VisionError("no frame from the camera yet: nothing to calibrate on")
        # the corners a finger marked are moved along the board to the points' edges, and the board's look
        # (its colours and its frame's picture) is learnt from this frame, which must show no hand
        order = None
        if c1_confirmed is not None:
            order = check_order(frame, corners, known, self.settler.config, c1_confirmed=c1_confirmed)
        cal, refinement = calibrate_from_photo(frame, corners, self.settler.config, known=known)
        with self._look_lock:
            self._generation += 1
            self._saver.drop()          # what was learnt of the board calibrated before is not saved over this
            save_calibration(self.calibration_path, cal)
            self._calibration = cal
            self._look = self._look_of(cal)
            self._settled = None
            self._learnable = None
            self._recent = None
            self._points_read = None
        self.settler.reset()
        return {"corners": np.asarray(cal.corners).tolist(), "saved": str(self.calibration_path),
                "moved_px": [round(float(m), 1) for m in refinement.moved_px] if refinement is not None else None,
                "learnt_start": bool(self._look is not None and self._look.head is not None),
                **({} if order is None else {"order": order})}

    def _learn_shown(self) -> None:
        """Learn the frame settled before from the board the referee has since
        said it showed (see the module), and save it with the calibration."""
        with self._look_lock:
            generation = self._generation
            learnable, settled, look, cal = self._learnable, self._settled, self._look, self._calibration
            self._learnable = None
        if learnable is None or settled is None or look is None or cal is None or self.calibration_path is None:
            return
        shown = getattr(settled[3], "shown", None)
        if not shown:
            return
        from dataclasses import replace

        from willughby.vision.board_head import contradicted

        frame, features, net_probs, probs, points_read = learnable
        known = known_board(shown)
        if known is None:
            return
        against = contradicted(probs, known)
        if against:
            self._keep_aside(frame, shown, probs, against)
            return
        t0 = time.perf_counter()
        # learnt on copies, so that a calibration made meanwhile keeps its own look untouched
        learnt = learnt_look(look, known, features, net_probs, points_read, settled[3], shown)
        # saved off this thread (a board's examples run to megabytes: the ruling must not wait for the disk);
        # nothing changes *learnt* after this, since the next frame is learnt on copies of it
        path = self.calibration_path
        with self._look_lock:
            if self._generation != generation:
                log.info("the board was calibrated again while a frame was learnt: what was learnt is not kept")
                return
            self._look = learnt
            self._saver.submit(lambda: save_calibration(path, replace(cal, colours=learnt.to_json())))
        self.learnt += 1
        self.last_learn_ms = (time.perf_counter() - t0) * 1000

    def _keep_aside(self, frame: np.ndarray, shown: Any, probs: np.ndarray, points: list[int]) -> None:
        """A board told that the camera contradicts: the frame and the board kept to be looked at."""
        assert self.calibration_path is not None
        folder = self.calibration_path.parent / "set-aside"
        keep_aside(folder, time.strftime("%Y%m%d-%H%M%S") + f"-{self.set_aside + 1}", frame, shown, probs, points)
        self.set_aside += 1             # counted once kept (a page, or a test, may look at the files at once)
        log.warning("a board told contradicts the camera at points %s: not learnt, kept in %s", points, folder)

    def snapshot(self, known: Any = None) -> tuple[bytes, dict[str, Any]] | None:
        """The last frame as JPEG, the corners the calibration finds in it,
        and the corners the board finder proposes where there is no
        calibration (*known*: the board the referee holds to stand on the
        table, which names the corners)."""
        with self._frame_lock:
            frame = self._last_frame
        if frame is None:
            return None
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            return None
        try:
            corners = self._corners(frame)
        except VisionError:
            corners = None
        proposal = None
        if corners is None:
            from willughby.vision.board_finder import propose_corners

            proposal = propose_corners(frame, known=known, config=self.settler.config)
        h, w = frame.shape[:2]
        return buf.tobytes(), {"corners": None if corners is None else np.asarray(corners).tolist(),
                               "proposed": None if proposal is None else [[round(float(x), 1), round(float(y), 1)]
                                                                           for x, y in proposal.corners],
                               "found_by": None if proposal is None else proposal.found_by,
                               "order_known": None if proposal is None else bool(proposal.order_known),
                               "size": [w, h]}

    def _evidence(self, frame: np.ndarray, corners: Any, reading: Any) -> Any:
        """The turn reader's evidence of a settled reading: its probabilities,
        and where the frame settled before is of the same board from the same
        place, each point's share of changed picture since that frame (and
        what was read there, so the referee uses it only if that was its board)."""
        from willughby.vision.turns import (CHANGE_DELTA_E, FAINT_DELTA_E, SAME_PLACE_PX, TurnEvidence, bar_change,
                                            point_change_profiles, rectified)

        if getattr(reading, "count_probs", None) is None:
            return None
        profiles, faint, before_read, before_known, bar = None, None, None, False, None
        here = np.asarray(corners, np.float64)
        try:
            current = rectified(frame, here.tolist(), reading=reading)   # kept for the next settled frame
        except (VisionError, ValueError, cv2.error) as exc:
            log.info("this frame cannot be compared with the next: %s", exc)
            current = None
        if self._settled is not None and current is not None:
            prev, prev_corners, prev_board, prev_evidence = self._settled
            shown = getattr(prev_evidence, "shown", None)
            if shown:
                prev_board = dict(shown)    # the board the referee judged that frame to show, piles and all
            before_known = bool(shown)
            if (prev is not None and prev.frame_shape == tuple(frame.shape) and prev_corners.shape == here.shape
                    and np.abs(prev_corners - here).max() < SAME_PLACE_PX):
                try:
                    profiles, faint = point_change_profiles(prev, current, prev.corners,
                                                            delta_e=(CHANGE_DELTA_E, FAINT_DELTA_E))
                    bar = bar_change(prev, current)         # a man gone from the bar, or come to it
                    before_read = prev_board
                except (VisionError, ValueError, cv2.error) as exc:
                    log.info("no comparison with the frame before: %s", exc)
        self._current = current
        evidence = TurnEvidence.from_reading(reading, profiles=profiles, faint_profiles=faint)
        evidence.before_read = before_read
        evidence.before_known = before_known and before_read is not None
        evidence.bar_change = bar if before_read is not None else None
        noise = self._look.noise if self._look is not None else None
        if noise is not None:
            evidence.still_faint_share = noise.faint_share(0.0) or None     # this board's own, once learnt
        return evidence

    def step(self, frame: np.ndarray, t0: float | None = None) -> str:
        """Take one frame (the watching loop calls this for every frame; a
        recorded game's referee, ``companion.replay``, calls it itself):
        find the board, feed the settler, and where a reading newly settled,
        learn the frame before it and hand the reading on.  Returns
        ``"settled"``, ``"read"`` (a frame taken, nothing newly settled) or
        ``"waiting"`` (no board in it yet: not calibrated, or not found)."""
        t0 = time.monotonic() if t0 is None else t0
        with self._frame_lock:
            self._last_frame = frame
            self._frames_taken += 1
        try:
            corners = self._corners(frame)
        except VisionError as exc:
            self.status = f"board not found: {exc}"
            return "waiting"
        if corners is None:
            self.status = "not calibrated"
            return "waiting"
        self.status = "ok"
        try:
            reading = self.settler.feed(frame, corners)
        except VisionError as exc:
            self.status = f"unreadable frame: {exc}"
            reading = None
        if reading is None:
            return "read"
        self.readings += 1
        self.last_settled_at = t0
        self.last_read_ms = getattr(reading, "millis", None)
        board = reading.to_board()
        self._current = None
        evidence = None
        try:
            if self._on_dice is not None and (self._dice_wanted is None or self._dice_wanted()):
                self._hand_dice(frame, corners)
            if self.turn_evidence:
                evidence = self._evidence(frame, corners, reading)
                self._on_reading(board, dict(reading.location_confidence), evidence)
            else:
                self._on_reading(board, dict(reading.location_confidence))
        except StoreUnwritableError as exc:
            # not kept (a full disk): nothing was judged; the board is settled afresh and handed on again,
            # so the turn is judged once a write can be made (the page's alert says why it waits)
            if str(exc) != self._not_kept:
                log.warning("reading not kept: %s", exc)
            self._not_kept = str(exc)
            self.settler.reset()
            return "read"
        except (ValueError, RuntimeError, LookupError) as exc:
            log.info("reading not taken: %s", exc)
        self._not_kept = ""
        # what this frame shows, for the next: the board the referee judges it to show, where it does
        # (exact, piles and all; read when the next frame settles), else the reader's own reading
        self._learn_shown()
        self._settled = (self._current, np.asarray(corners, np.float64), board, evidence)
        self._recent = getattr(reading, "surface_seen", None)
        if getattr(reading, "point_features", None) is not None and reading.count_probs is not None:
            self._learnable = (frame, reading.point_features, reading.net_count_probs, reading.count_probs,
                               getattr(reading, "points_read", None))
        return "settled"

    def _hand_dice(self, frame: np.ndarray, corners: Any) -> None:
        """The dice of a settled frame, read and handed to *on_dice*."""
        from willughby.vision.dice_reader import DiceReader

        assert self._on_dice is not None
        try:
            if self._dice_reader is None:
                self._dice_reader = DiceReader()
            seen = self._dice_reader.read(frame, corners)
        except VisionError as exc:
            log.info("the dice cannot be read in this frame: %s", exc)
            return
        self._on_dice(seen)

    # ------------------------------------------------------ a camera lost
    def _tell(self, status: str) -> None:
        if self._on_status is not None:
            self._on_status(status)

    def _ended(self) -> None:
        """A recorded source (a folder of stills, a video) has shown all its frames: said once, as it is."""
        status = f"ended: {getattr(self.source, 'name', 'the recording')} has shown all its frames"
        if self.status != status:
            self.status = status
            log.info("the camera's %s", status)
            self._tell(status)

    def _missed(self, why: str) -> None:
        """No frame this time: after *lost_after_s* seconds of these, the camera is lost (logged and told);
        while it is, it is opened again now and then where it can be."""
        now = time.monotonic()
        if self._failing_since is None:
            self._failing_since = now
        self.status = f"no frame: {why}"
        if self.lost is None and now - self._failing_since >= self.lost_after_s:
            self.lost = why
            self._next_retry = now + self.retry_s[0]
            self._retry_delay = self.retry_s[0]
            log.warning("the camera is lost: %s", why)
            self._tell(f"lost: {why}")
        if self.lost is not None and self._reopen is not None and now >= self._next_retry:
            self._retry_delay = min(self._retry_delay * 2, self.retry_s[1])
            self._next_retry = now + self._retry_delay
            self._open_again()

    def _open_again(self) -> None:
        old = self.source
        try:
            old.close()
        except (OSError, RuntimeError, ValueError) as exc:    # the device is gone: closing it may complain
            log.info("closing the lost camera: %s", exc)
        reopen = self._reopen
        if reopen is None:
            return
        try:
            self.source = reopen()
        except (CameraError, VisionError) as exc:
            log.info("the camera cannot be opened again yet: %s", exc)
            self.status = f"lost: {self.lost}; not yet back: {exc}"
            return
        self.reopened += 1
        log.info("the camera was opened again")

    def _found(self) -> None:
        """A frame: the camera is (back) in use."""
        self._failing_since = None
        if self.lost is not None:
            log.warning("the camera is back (it was lost: %s)", self.lost)
            self.lost = None
            self._recent = None
            self._points_read = None          # the camera may have moved while it was gone
            self.settler.reset()          # what settled before it went may not be what it sees now
            self._tell("ok")

    def _run(self) -> None:
        try:
            self._watch()
        except BaseException as exc:  # noqa: a fault of ours: shown, logged and re-raised (nothing is hidden)
            if not self._stop.is_set():
                log.exception("the camera stopped")
                self._tell(f"stopped: {type(exc).__name__}: {exc}")
            raise

    def _watch(self) -> None:
        while not self._stop.is_set():
            t0 = time.monotonic()
            if getattr(self.source, "closed", False):     # lost, and not opened again yet
                self._missed(self.lost or "closed")
                self._stop.wait(min(1.0, max(self._period, self._next_retry - time.monotonic())))
                continue
            try:
                frame = self.source.read()
            except (VisionError, CameraError) as exc:
                self._missed(str(exc))
                self._stop.wait(min(1.0, self.lost_after_s / 3))
                continue
            if frame is None:
                if not getattr(self.source, "live", True) and not getattr(self.source, "loop", False):
                    self._ended()           # a folder or a video played to its end: not a camera lost
                else:
                    self._missed(f"{getattr(self.source, 'name', 'the camera')} gives no frames")
                self._stop.wait(self._period)
                continue
            self._found()
            if self.step(frame, t0) == "waiting":
                self._stop.wait(self._period)
                continue
            self._stop.wait(max(0.0, self._period - (time.monotonic() - t0)))
