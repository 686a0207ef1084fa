"""``willughby bridge decode``, ``monitor`` and ``fake-box`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from willughby.firmware_bridge.codec import Hello, Press, Throw, encode
from willughby.firmware_bridge.fake import FakeBox

CMD = [sys.executable, "-m", "willughby.companion"]


def test_decode_prints_one_json_line_per_message_and_a_summary_of_what_it_rejected():
    stream = (b"line noise" + encode(Hello(1, 0xABCD, 0, 0, "box 1")) + b"\x13\x37"
              + encode(Throw(0xABCD, 0, "box", (6, 3))) + encode(Press(0xABCD, 1, "done"))
              + b"\x00\x01\x01\x00" + encode(Throw(0xABCD, 2, "hand", (4, 4)))[:-4])
    run = subprocess.run(CMD + ["bridge", "decode"], input=stream, capture_output=True, timeout=60)
    assert run.returncode == 0
    lines = [json.loads(x) for x in run.stdout.decode().splitlines()]
    assert lines == [
        {"type": "hello", "protocol": 1, "session": 0xABCD, "oldest": 0, "next": 0, "firmware": "box 1"},
        {"type": "throw", "session": 0xABCD, "seq": 0, "source": "box", "dice": [6, 3]},
        {"type": "press", "session": 0xABCD, "seq": 1, "button": "done"},
    ]
    err = run.stderr.decode()
    # "line noise" and 13 37 (bad COBS), 01 01 (a body of one byte: too short), the unfinished throw
    assert err.startswith("decoded 3 messages from %d bytes; rejected " % len(stream))
    assert "unfinished: 1" in err and "too short: 1" in err
    assert "Traceback" not in err


def test_decode_of_nothing_is_no_error():
    run = subprocess.run(CMD + ["bridge", "decode"], input=b"", capture_output=True, timeout=60)
    assert run.returncode == 0 and run.stdout == b""
    assert "decoded 0 messages from 0 bytes; rejected 0 bytes in 0 frames" in run.stderr.decode()


def test_monitor_shows_a_live_box_then_its_stats():
    with FakeBox(seed=9) as box:
        proc = subprocess.Popen(CMD + ["bridge", "monitor", box.port, "--json", "--seconds", "4"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # press once the monitor's link has said hello to the box
        end = time.monotonic() + 20
        while box.box._last_heard is None and time.monotonic() < end:
            time.sleep(0.02)
        for pip in (5, 2):
            box.press(pip)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    rows = [json.loads(x) for x in out.splitlines()]
    kinds = [r["kind"] for r in rows]
    assert kinds[0] == "state" and "connected" in [r.get("state") for r in rows]
    events = [r["event"] for r in rows if r["kind"] == "event"]
    assert events == [{"type": "throw", "session": box.box.session, "seq": 0, "source": "hand", "dice": [5, 2]}]
    assert rows[-1]["kind"] == "stats" and rows[-1]["stats"]["delivered"] == 1


def test_fake_box_refuses_an_unknown_fault_with_one_line():
    run = subprocess.run(CMD + ["bridge", "fake-box", "--faults", "gremlins=0.5"], capture_output=True,
                         text=True, timeout=60, input="")
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "willughby: --faults: no fault 'gremlins': one of garbage, drop_byte, drop_frame, duplicate, corrupt"]


def test_fake_box_takes_presses_from_its_input():
    proc = subprocess.Popen(CMD + ["bridge", "fake-box"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    assert first.startswith("fake dice box on ") and "session" in first
    port = first.split(" on ", 1)[1].split(" (")[0]
    from willughby.firmware_bridge.link import BoxLink
    with BoxLink(port) as link:
        assert link.wait_connected(10)
        proc.stdin.write("6 6\nnonsense\n")
        proc.stdin.flush()
        ev = link.get(timeout=10)
        assert ev is not None and ev.dice == (6, 6) and ev.source == "hand"
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert "not understood: 'nonsense'" in err


def test_monitor_stops_on_ctrl_c_even_when_started_with_the_interrupt_ignored():
    import signal

    # a job a script puts in the background (`cmd &`) starts with SIGINT ignored; the monitor runs until
    # Ctrl-C, so it must still stop on it, and print its stats
    with FakeBox(seed=4) as box:
        proc = subprocess.Popen(CMD + ["bridge", "monitor", box.port, "--json"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        end = time.monotonic() + 20
        while box.box._last_heard is None and time.monotonic() < end:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert json.loads(out.splitlines()[-1])["kind"] == "stats"
