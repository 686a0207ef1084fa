"""``willughby bridge``: decode captured bytes, watch a live box, run a fake one.

    willughby bridge decode < capture.bin           # one JSON line per message
    willughby bridge monitor /dev/ttyACM0           # a live box: events and link state
    willughby bridge fake-box --faults garbage=0.1  # a fake box on a pseudo-terminal

Errors are :class:`~willughby.firmware_bridge.errors.BridgeError` (or a
``ValueError`` for a bad option), reported by the ``willughby`` command as
one line with status 2.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from typing import Any, TextIO

from .codec import Decoder, to_json
from .errors import BridgeError

__all__ = ["add_bridge_commands"]


def _line(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def cmd_decode(args: argparse.Namespace) -> int:
    """Raw bytes on standard input -> one JSON line per message; a summary on standard error."""
    decoder = Decoder()
    stream = sys.stdin.buffer
    out = sys.stdout
    while True:
        chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
        if not chunk:
            break
        for msg in decoder.feed(chunk):
            out.write(_line(to_json(msg)) + "\n")
    decoder.close()
    s = decoder.stats
    reasons = ", ".join(f"{k}: {v}" for k, v in sorted(s.reasons.items()))
    print(f"decoded {s.messages} message{'s' if s.messages != 1 else ''} from {s.bytes_in} bytes; "
          f"rejected {s.rejected_bytes} bytes in {s.rejected_frames} frame{'s' if s.rejected_frames != 1 else ''}"
          + (f" ({reasons})" if reasons else ""), file=sys.stderr)
    return 0


def _describe(msg: Any) -> str:
    d = to_json(msg)
    kind = d.pop("type")
    if kind == "throw":
        return f"throw #{d['seq']}: {'-'.join(map(str, d['dice']))} ({'box dice' if d['source'] == 'box' else 'by hand'})"
    if kind == "press":
        return f"press #{d['seq']}: {str(d['button']).upper()}"
    return f"{kind} " + " ".join(f"{k}={v}" for k, v in d.items())


def cmd_monitor(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Show a live box: link state changes and every event, until Ctrl-C or --seconds."""
    from .link import BoxLink

    out = out or sys.stdout
    lock = threading.Lock()

    def show(kind: str, text: str, data: dict[str, Any]) -> None:
        with lock:
            if args.json:
                out.write(_line({"t": round(time.monotonic() - t0, 3), "kind": kind, **data}) + "\n")
            else:
                out.write(f"{time.monotonic() - t0:8.3f}  {text}\n")
            out.flush()

    t0 = time.monotonic()
    link = BoxLink(args.port)
    link.add_state_listener(lambda state: show("state", f"link {state}"
                                               + (f" (box session {link.session:08x}, {link.hello.firmware})"
                                                  if state == "connected" and link.hello else ""),
                                               {"state": state}))
    link.add_listener(lambda ev: show("event", _describe(ev), {"event": to_json(ev)}))
    show("state", f"looking for the box on {args.port}", {"state": "connecting"})
    if args.seconds is None and threading.current_thread() is threading.main_thread():
        # it runs until Ctrl-C: so Ctrl-C stops it even where it was started with the interrupt ignored (a
        # job a script put in the background is), in which case Python would not stop on it
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with link:
            if args.seconds is not None:
                time.sleep(args.seconds)
            else:
                while True:
                    time.sleep(3600)
    except KeyboardInterrupt:
        pass
    show("stats", "stats " + _line(link.stats.to_json()), {"stats": link.stats.to_json()})
    return 0


def cmd_fake_box(args: argparse.Namespace) -> int:
    """Run a fake box on a pseudo-terminal; press its buttons by typing lines."""
    from .fake import FakeBox, Faults

    try:
        faults = Faults.parse(args.faults or "")
    except ValueError as exc:
        raise BridgeError(f"--faults: {exc}") from None
    with FakeBox(faults=faults, seed=args.seed) as box:
        print(f"fake dice box on {box.port} (session {box.box.session:08x})", flush=True)
        print("type: roll | done | undo | pips like '6 3' | vanish | back | quit", file=sys.stderr, flush=True)
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] in ("quit", "exit"):
                break
            if words[0] == "vanish":
                box.vanish()
            elif words[0] == "back":
                box.reappear()
            elif all(w.isdigit() and 1 <= int(w) <= 6 for w in words):
                for w in words:
                    box.press(int(w))
            elif words[0] in ("roll", "done", "undo") and len(words) == 1:
                box.press(words[0])
            else:
                print(f"not understood: {line.strip()!r}", file=sys.stderr, flush=True)
    return 0


def add_bridge_commands(subparsers: Any) -> None:
    """Add ``bridge decode``, ``bridge monitor`` and ``bridge fake-box`` to a command's subparsers."""
    bridge = subparsers.add_parser("bridge", help="the dice box: decode bytes, watch a box, run a fake one")
    sub = bridge.add_subparsers(dest="bridge_command", required=True, metavar="COMMAND")

    p = sub.add_parser("decode", help="decode raw protocol bytes from standard input, one JSON line each")
    p.set_defaults(func=cmd_decode)

    p = sub.add_parser("monitor", help="show a live dice box's events and link state")
    p.add_argument("port", metavar="PORT", help="serial device or pySerial URL, or 'auto' to find a Pico")
    p.add_argument("--json", action="store_true", help="one JSON line per happening")
    p.add_argument("--seconds", type=float, default=None, help="stop after this long (default: until Ctrl-C)")
    p.set_defaults(func=cmd_monitor)

    p = sub.add_parser("fake-box", help="run a fake dice box on a pseudo-terminal (type to press its buttons)")
    p.add_argument("--faults", default="", metavar="NAME=P,...",
                   help="spoil its bytes: garbage, drop_byte, drop_frame, duplicate, corrupt (chances 0..1)")
    p.add_argument("--seed", type=int, default=None, help="seed for the faults")
    p.set_defaults(func=cmd_fake_box)
