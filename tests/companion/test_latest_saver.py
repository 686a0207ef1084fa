"""The camera watcher saves what it learnt of the board off its own thread (companion/watch.py,
LatestSaver): the latest save only, none lost at a flush, none written after a new calibration drops it,
and a failing save logged, not fatal."""

from __future__ import annotations

import logging
import threading

import pytest

from willughby.companion.watch import LatestSaver


def test_a_save_runs_off_the_callers_thread_and_the_latest_one_waiting_replaces_the_others():
    saver = LatestSaver("test saver")
    gate, started, ran, threads = threading.Event(), threading.Event(), [], []

    def slow(name):
        def job():
            threads.append(threading.current_thread().name)
            started.set()
            gate.wait(5)
            ran.append(name)
        return job

    saver.submit(slow("first"))                 # runs, held at the gate
    assert started.wait(5)
    for name in ("second", "third", "latest"):
        saver.submit(slow(name))                # each waiting one replaced by the next
    assert ran == []                            # the caller did not wait for the disk
    gate.set()
    assert saver.flush(5)
    assert ran == ["first", "latest"]
    assert threads == ["test saver", "test saver"]


def test_dropping_forgets_the_save_waiting_and_waits_for_the_one_running():
    saver = LatestSaver("test saver")
    gate, started, ran = threading.Event(), threading.Event(), []
    saver.submit(lambda: (started.set(), gate.wait(5), ran.append("running")))
    assert started.wait(5)
    saver.submit(lambda: ran.append("waiting"))
    threading.Timer(0.2, gate.set).start()
    saver.drop()
    assert ran == ["running"]
    assert saver.flush(1) and ran == ["running"]


@pytest.mark.parametrize("error", [OSError("the disk is full"), TypeError("a look that cannot be written")],
                         ids=["disk", "anything else"])
def test_a_failing_save_is_logged_and_the_next_one_still_runs(caplog, error):
    saver = LatestSaver("test saver")
    ran = []

    def broken():
        raise error

    with caplog.at_level(logging.WARNING):
        saver.submit(broken)
        assert saver.flush(5)
        saver.submit(lambda: ran.append("next"))
        assert saver.flush(5)
    assert ran == ["next"]
    assert str(error) in caplog.text


def test_closing_ends_the_thread_and_a_later_save_starts_another():
    saver = LatestSaver("test saver")
    ran = []
    saver.submit(lambda: ran.append("first"))
    assert saver.flush(5)
    thread = saver._thread
    assert saver.close(5)
    assert thread is not None and not thread.is_alive()
    saver.submit(lambda: ran.append("after closing"))
    assert saver.close(5) and ran == ["first", "after closing"]
