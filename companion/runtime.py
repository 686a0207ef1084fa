"""The composition root: the companion joined to its devices and its page.

:func:`build` makes everything a configuration names -- the game store, the
referee, the camera watcher, the dice (the box, the Pi's pins or the page),
the lights and the voice, and the Flask app -- and :class:`Runtime` closes
them in the right order. ``willughby serve`` and ``willughby demo`` both
run one; the demo swaps the camera for the drawn table and the box for the
fake box.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from willughby.engine.position import Position

from .config import CompanionConfig, ConfigError, DeviceAbsentError, ensure_pin
from .periodic import Periodic
from .service import Companion
from .store import GameStore, StoreError, StoreUnwritableError
from .store_health import StoreHealth
from .store_schema import unwritable
from .documents import StateDoc

__all__ = ["Runtime", "build", "limit_malloc_arenas"]

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    """A running companion and everything it holds."""

    config: CompanionConfig
    companion: Companion
    app: Any
    pin_created: bool = False
    #: the game in progress that was carried on (``game_id``, ``preset``, ``players``, ``turn``, ``awaiting``)
    resumed: dict[str, Any] | None = None
    #: the game in progress that was left unfinished (kept as abandoned) for a new one, the same way
    left: dict[str, Any] | None = None
    parts: dict[str, Any] = field(default_factory=dict)
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        """Stop every device, then the store; harmless twice."""
        while self._closers:
            fn = self._closers.pop()
            try:
                fn()
            except (OSError, RuntimeError, ValueError) as exc:
                log.warning("closing: %s", exc)


def limit_malloc_arenas(arenas: int | None = None) -> bool:
    """Ask glibc for at most *arenas* malloc arenas (M_ARENA_MAX), as
    ``MALLOC_ARENA_MAX`` would: by default every thread that allocates (the
    camera, the page's few, the box link) may get an arena of its own, and
    the frames' large buffers then leave each arena's memory resident. On the
    demo this took the peak resident set from 220 MB to 190 MB
    (``benchmarks/companion.py``). Call it before the threads start.
    *arenas* defaults to ``WILLUGHBY_MALLOC_ARENAS`` or 2; 0 leaves glibc's
    default (the benchmark's baseline). False where nothing was set (not
    glibc, or 0)."""
    import ctypes
    import ctypes.util

    if arenas is None:
        text = os.environ.get("WILLUGHBY_MALLOC_ARENAS", "2")
        arenas = int(text) if text.isdigit() else 2
    name = ctypes.util.find_library("c")
    if not name or arenas <= 0:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    M_ARENA_MAX = -8
    return bool(mallopt(M_ARENA_MAX, arenas))


def _secret_key(data_dir: Path) -> bytes:
    """The page's session key, made once and kept under the data directory."""
    path = data_dir / "session.key"
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_bytes(32)
    part = path.with_name(path.name + ".part")
    part.unlink(missing_ok=True)
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)   # private from its first byte
    with os.fdopen(fd, "wb") as f:
        f.write(key)
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, path)
    return key


def build(config: CompanionConfig, *, demo: bool = False, speed: float = 1.0, seed: int | None = None,
          games: int | None = None, mistakes: float = 0.08, start: dict[str, Any] | None = None,
          pin_factory: Any = None, seats: int | None = None, new_game: bool = False,
          resume_other_preset: bool = True, match: int | None = None) -> Runtime:
    """Make (and start) everything *config* names; *demo* plays on the drawn table with the fake box
    (*seats*: how many play a counting game, else three to five by the seed).
    *pin_factory* is gpiozero's, for the Pi's pins (gpiozero's default, or its mock pins in tests).

    A game in progress in the store is carried on (:attr:`Runtime.resumed` says which), unless
    *new_game*, or unless it is of another preset than the configured one and not
    *resume_other_preset*: then the configured game starts and the one in progress is kept as
    abandoned (:attr:`Runtime.left`). The demo carries on a game of another preset with its players.
    With *match* (the demo's ``--match N``), the demo's players play a match to N points: a match in play is
    carried on, any other game in progress is kept as abandoned and the match begins."""
    from willughby.engine.rules import get_preset
    from willughby.web_ui import create_app

    data_dir = Path(config.data_dir)
    _make_data_dir(data_dir, "--data-dir" if demo else "companion.data_dir")
    try:
        config, made = ensure_pin(config)
        secret_key = _secret_key(data_dir)
    except OSError as exc:          # a full or read-only disk under the data directory: one line, not a traceback
        raise unwritable(exc, str(data_dir / "pin")) or StoreError(
            f"cannot write under the data directory {data_dir}: {exc.strerror or exc}") from None
    store = GameStore(config.store_path)
    try:
        store.check_writable()      # a full disk, a read-only mount, a failing card: found now, not at the first move
        companion = Companion(store, photo_dir=data_dir / "photos")
        found = _summary(companion.state())
        playing = store.current_match()
        in_match = found is not None and playing is not None and found["game_id"] in playing["games"]
        fresh = found is not None and (new_game or (not resume_other_preset
                                                    and found["preset"] != get_preset(config.preset).id)
                                       or (match is not None and not in_match))
        if fresh and demo and found is not None:   # the demo's devices are fakes: the asked game can start at once
            store.abandon(found["game_id"])
            if playing is not None:
                store.end_match(playing["id"], "abandoned")
            companion = Companion(store, photo_dir=data_dir / "photos")
        elif found is not None and not fresh and demo and found["preset"] != get_preset(config.preset).id:
            config = replace(config, preset=found["preset"])   # the players play on at the game in progress
    except BaseException:  # noqa: close the store, then re-raise (nothing is hidden)
        store.close()
        raise
    rt = Runtime(config, companion, app=None, pin_created=made, resumed=None if fresh else found,
                 left=found if fresh else None)
    rt._closers.append(store.close)
    health = StoreHealth(store, lambda alert: companion.set_device("store", alert))
    health.start()
    rt._closers.append(health.close)
    # the match's clock looked at five times a second, so a flag is said when it falls
    ticker = Periodic("willughby-clock", 0.2, companion.tick)
    ticker.start()
    rt._closers.append(ticker.close)
    try:
        _dice(rt, demo)
        _camera(rt, demo, speed, start)
        _lights(rt, pin_factory)
        _voice(rt)
        _hub(rt)
        if demo:
            from .demo import DemoPlayers

            players = DemoPlayers(companion, rt.parts["table"], rt.parts["box"], speed=speed, seed=seed,
                                  mistakes=mistakes, preset=config.preset, players=dict(config.players),
                                  games=games, start=start, seats=seats, camera_dice=config.dice == "camera",
                                  match=match)
            rt.parts["players"] = players
            rt._closers.append(players.close)
            players.start()
        if not demo and (fresh or companion.state()["phase"] == "none"):
            # nothing in progress, or a new game asked for once every device opened: the configured game,
            # ready for the roll for start (one in progress is kept as abandoned)
            if config.match_length:
                companion.new_match(config.match_length, config.preset, dict(config.options), dict(config.players),
                                    config.match_crawford, who="serve", clock=config.clock_terms())
            else:
                companion.new_game(config.preset, dict(config.options), dict(config.players), who="serve")
        rt.app = create_app(config.web_config(config.pin, secret_key), companion=companion)
    except BaseException:  # noqa: close what was built, then re-raise (nothing is hidden)
        rt.close()
        raise
    return rt


def _summary(state: StateDoc) -> dict[str, Any] | None:
    """The game in progress in a few words (None: none): its id, preset, players ("Ann v Bob"), turn and
    what it waits for."""
    if state.get("phase") in (None, "none"):
        return None
    players = state.get("players")
    if isinstance(players, dict):
        names = [str(players.get(c, c)) for c in ("light", "dark")]
    else:
        names = [str(p) for p in players or ()]
    return {"game_id": state["game_id"], "preset": state["preset"], "players": " v ".join(names),
            "turn": state.get("turn_number"), "awaiting": state.get("awaiting")}


def _make_data_dir(path: Path, key: str) -> None:
    """Make the data directory, or say in one line (a :class:`ConfigError`) why it cannot be used."""
    where = "give a folder the service's user may write, such as ~/.local/share/willughby or /var/lib/willughby"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{key} {str(path)!r} cannot be made ({exc.strerror or exc}): {where}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(f"{key} {str(path)!r} may not be written by this user: {where} "
                          "(owned by that user)")


#: the camera sources a configuration may name, and how to find the cameras
CAMERA_SOURCES = ("the sources are camera:N (a USB camera; v4l2-ctl --list-devices or ls /dev/video* lists them), "
                  "picamera:N (the Pi's camera; rpicam-hello --list-cameras lists them), folder:PATH, video:PATH, "
                  "or none (no camera: the board is entered on the page)")


def _dice(rt: Runtime, demo: bool) -> None:
    c, cfg = rt.companion, rt.config
    if demo or cfg.dice == "box":
        from willughby.firmware_bridge.codec import Press, Throw
        from willughby.firmware_bridge.link import BoxLink

        port = cfg.box_port
        if demo:
            from willughby.firmware_bridge.fake import FakeBox

            box = FakeBox(seed=None).start()
            rt.parts["box"] = box
            rt._closers.append(box.close)
            port = box.port
        link = BoxLink(port)

        def on_event(ev: Any) -> None:
            if isinstance(ev, Throw):
                try:
                    c.enter_dice(list(ev.dice), who="box", ident=f"box-{ev.session:08x}-{ev.seq}")
                except (ValueError, RuntimeError) as exc:
                    c.notice(f"dice from the box not taken: {exc}")
                except StoreUnwritableError as exc:   # a full disk: the throw is not kept; the page says why
                    c.notice(f"dice from the box not kept ({exc}): enter them on the page once there is room")
            elif isinstance(ev, Press):
                c.press(ev.button, who="box")

        link.add_listener(on_event)
        # in the demo with the camera as the dice's source, the fake box is there for its buttons alone
        device = "buttons" if cfg.dice == "camera" else "dice"
        link.add_state_listener(_box_status(c, device))
        shown: dict[str, Any] = {}

        def show_on_box(state: StateDoc) -> None:
            """ROLL works only when a throw is wanted; the box's lights show whose turn it is."""
            phase = state.get("phase")
            playing = phase not in ("none", "over")
            turn = (state.get("board") or {}).get("turn")
            dice_count = int(state.get("dice_wanted") or 2)
            roll_enabled = phase in ("start", "throw")
            showing = turn if playing and turn in ("light", "dark") else "none"
            want = {"dice_count": dice_count, "roll_enabled": roll_enabled, "turn": showing}
            if want != shown and not link.closed:
                shown.update(want)
                link.configure(dice_count=dice_count, roll_enabled=roll_enabled, turn=showing)

        c.add_state_listener(show_on_box)
        show_on_box(c.state())
        rt.parts["link"] = link
        rt._closers.append(link.close)
        c.set_device(device, "box connecting")
        if device != "dice":
            c.set_device("dice", "camera")
        link.start()
    elif cfg.dice == "pi":
        c.set_device("dice", "pi")
    elif cfg.dice == "camera":
        c.set_device("dice", "camera")
    else:
        c.set_device("dice", "page")


def _camera_throws(rt: Runtime, demo: bool) -> dict[str, Any]:
    """What takes the dice the camera sees (the watcher's ``on_dice`` and ``dice_wanted``): the throw, where the
    players' own dice are the source; the comparison with the box's throw, where the box is (not in the demo,
    whose box throws no real dice); nothing otherwise."""
    from .camera_throws import CameraThrows

    if rt.config.dice == "camera":
        throws = CameraThrows(rt.companion)
    elif rt.config.dice == "box" and not demo:
        throws = CameraThrows(rt.companion, compare_only=True)
    else:
        return {}
    rt.parts["camera_throws"] = throws
    return {"on_dice": throws.on_dice, "dice_wanted": throws.wanted}


def _camera(rt: Runtime, demo: bool, speed: float, start: dict[str, Any] | None = None) -> None:
    from .watch import CameraWatcher

    c, cfg = rt.companion, rt.config
    if demo:
        from willughby.engine.rules import preset_rules, start_position

        from .demo import DemoTable

        from .demo import board_position
        from .games import family_of_preset

        resumed = board_position(c.state()["board"])   # a game carried on: the men stand where it left them
        if resumed is not None:
            first = resumed
        elif start:
            first = Position.from_board(start)
        elif family_of_preset(cfg.preset).board == "tally":
            first = Position(tuple([0] * 24), tuple([0] * 24))   # Sice-Ace: no men on the table's points
        else:
            first = start_position(preset_rules(cfg.preset))
        table = DemoTable(first)
        rt.parts["table"] = table
        watcher = CameraWatcher(table, lambda board, conf, evidence=None: c.on_reading(board, conf, evidence=evidence),
                                corners=table.corners, turn_evidence=True, config=cfg.vision_config, men=c.men_per_side,
                                fps=min(30.0, 8.0 * max(1.0, speed / 4)), **_camera_throws(rt, demo))
    elif cfg.camera != "none":
        from willughby.hardware.camera import CameraAbsentError, CameraError, open_source

        def opened() -> Any:
            # a folder of stills paced by camera.fps, its last still standing (the board as nobody touches it)
            return open_source(cfg.camera, width=cfg.camera_width or None, height=cfg.camera_height or None,
                               loop=cfg.camera_loop, hold_last=True, controls=cfg.camera_controls)

        try:
            source = opened()
        except CameraAbsentError as exc:     # not there yet, perhaps: the service is started again
            raise DeviceAbsentError(f"camera.source {cfg.camera!r}: {exc}; {CAMERA_SOURCES}") from None
        except CameraError as exc:
            raise ConfigError(f"camera.source {cfg.camera!r}: {exc}; {CAMERA_SOURCES}") from None
        watcher = CameraWatcher(source, lambda board, conf, evidence=None: c.on_reading(board, conf, evidence=evidence),
                                turn_evidence=True, config=cfg.vision_config, men=c.men_per_side,
                                calibration_path=cfg.calibration_path, on_status=_camera_status(c),
                                reopen=opened if source.live else None, **_camera_throws(rt, demo))
    else:
        c.set_device("camera", "absent")
        return
    c.camera = watcher
    rt.parts["watcher"] = watcher
    rt._closers.append(watcher.close)
    watcher.start()
    c.set_device("camera", "ok")


def _camera_status(c: Companion) -> Callable[[str], None]:
    """What the camera watcher reports, on the page: the device's state, and a notice when it is lost
    (the game goes on: the board can be entered on the page) and when it is back."""
    def told(status: str) -> None:
        c.set_device("camera", status)
        if status.startswith("lost"):
            c.notice(f"the camera is lost ({status.removeprefix('lost: ')}): enter the board on the page "
                     "until it is back")
        elif status.startswith("stopped"):
            c.notice(f"the camera stopped ({status.removeprefix('stopped: ')}): enter the board on the page; "
                     "the service's log says why")
        elif status == "ok":
            c.notice("the camera is back")

    return told


def _box_status(c: Companion, device: str = "dice") -> Callable[[str], None]:
    """The box link's state on the page, as the *device* it is there (``dice``; ``buttons`` where the
    dice are the players' own, read by the camera); a notice (and the log) when a box that was connected
    is lost, and when it is back (the link reconnects by itself)."""
    seen = {"connected": False, "lost": False}

    def told(state: str) -> None:
        if state == "connecting" and seen["connected"]:
            seen["lost"] = True
            log.warning("the dice box is lost: reconnecting")
            c.set_device(device, "box lost: reconnecting")
            c.notice("the dice box is lost (its cable?): reconnecting; enter the dice on the page meanwhile")
        else:
            c.set_device(device, f"box {state}")
            if state == "connected" and seen["lost"]:
                seen["lost"] = False
                log.warning("the dice box is back")
                c.notice("the dice box is back")
        seen["connected"] = state == "connected"

    return told


def _lights(rt: Runtime, pin_factory: Any = None) -> None:
    cfg, c = rt.config, rt.companion
    if not cfg.pins:
        return
    from willughby.hardware.config import PinConfig
    from willughby.hardware.dice import PiDice, PipEntry
    from willughby.hardware.errors import PinUnavailableError
    from willughby.hardware.pins import PiPanel

    try:
        panel = PiPanel(PinConfig.from_mapping(cfg.pin_numbers), pin_factory=pin_factory)
    except PinUnavailableError as exc:
        raise ConfigError(f"hardware.enabled = true: {exc}; without the Pi's pins set enabled = false "
                          "under [hardware]") from None
    rt.parts["panel"] = panel
    rt._closers.append(panel.close)
    entry = PipEntry()
    entry.attach(panel)
    def thrown_by(who: str) -> Callable[[Any], None]:
        def enter(throw: Any) -> None:
            c.enter_dice(list(throw.dice), who=who, ident=throw.ident)
        return enter

    entry.add_listener(thrown_by("pins"))
    if cfg.dice == "pi":
        dice = PiDice()
        dice.attach(panel)
        dice.add_listener(thrown_by("pi"))

    def pressed(name: str) -> None:
        if name == "done":
            c.press("done", who="pins")
        elif name == "undo" and not entry.undo():
            c.press("undo", who="pins")

    panel.add_listener(pressed)

    def show(state: StateDoc) -> None:
        board = state.get("board") or {}
        turn = board.get("turn")
        playing = state.get("phase") not in ("none", "over")
        panel.show_turn("light" if playing and turn == "light" else "dark" if playing and turn == "dark" else None)
        rulings = state.get("rulings") or []
        panel.signal_illegal(bool(rulings) and rulings[-1]["verdict"] == "illegal"
                             and state.get("phase") == "move")

    c.add_state_listener(show)
    c.add_announcement_listener(lambda a: panel.beep(0.3) if a.kind in ("illegal", "win") else None)


def _voice(rt: Runtime) -> None:
    cfg, c = rt.config, rt.companion
    if cfg.speech == "off":
        return
    from .speech import Speaker, espeak_available

    if espeak_available() is None:
        if cfg.speech == "on":
            log.warning("speech is on but espeak-ng is not installed (apt-get install espeak-ng)")
        return
    speaker = Speaker()
    rt.parts["speaker"] = speaker
    rt._closers.append(speaker.close)
    c.add_announcement_listener(speaker)
    c.set_device("speech", True)


def _hub(rt: Runtime) -> None:
    """Where ``[hub]`` names the club's broker: the board, its games and logs published there
    (``hub_publish.py``), from a thread of its own; the password is the data directory's ``hub-password``."""
    config = rt.config
    if not config.hub_broker:
        return
    from importlib.metadata import PackageNotFoundError, version

    from .hub_publish import HubPublisher, HubSettings, PahoLink, topics

    password = ""
    path = config.hub_password_path
    if path.exists():
        if path.stat().st_mode & 0o077:
            raise ConfigError(f"{path} (the board's password at the hub) must be its owner's alone: chmod 600 {path}")
        password = path.read_text(encoding="utf-8").strip()
    if config.hub_tls and config.hub_ca_file and not Path(config.hub_ca_file).is_file():
        raise ConfigError(f"hub.ca_file: no certificate authority at {config.hub_ca_file}")
    settings = HubSettings(broker=config.hub_broker, board=config.hub_board, port=config.hub_port,
                           root=config.hub_root, username=config.hub_username, password=password,
                           tls=config.hub_tls, ca_file=config.hub_ca_file)
    try:
        ours = version("willughby")
    except PackageNotFoundError:
        ours = ""
    status = topics(settings.root, settings.board)["status"]
    offline = json.dumps({"board": settings.board, "online": False}).encode("utf-8")
    publisher = HubPublisher(rt.companion.store, settings, PahoLink(settings, will=(status, offline)),
                             state=rt.companion.state, version=ours)
    rt.companion.add_state_listener(publisher.wake)
    where = f"{settings.board} at {settings.broker}:{settings.port}"
    publisher.on_trouble = lambda text: rt.companion.set_device("hub", f"publishing as {where}" if text is None
                                                                else f"waiting: {text}")
    rt.companion.set_device("hub", f"connecting as {where}")
    publisher.start()
    rt.parts["hub"] = publisher
    rt._closers.append(publisher.close)
