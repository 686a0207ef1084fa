"""The tournament clock's arithmetic (``companion/clock.py``), on a fake monotonic clock: the Bronstein delay,
the Fischer increment, the flag, a question pausing it, and every refusal in words."""

from __future__ import annotations

import pytest

from willughby.companion.clock import ClockError, ClockTerms, MatchClock

from ..hardware.helpers import FakeClock


def _clock(mode: str = "bronstein", reserve: float = 60.0, delay: float = 12.0) -> tuple[MatchClock, FakeClock]:
    fake = FakeClock()
    return MatchClock(ClockTerms(reserve_s=reserve, delay_s=delay, mode=mode), now=fake), fake


def test_a_bronstein_delay_is_free_and_what_it_does_not_use_is_lost():
    clock, t = _clock("bronstein")
    clock.start("light")
    t.advance(5.0)                                   # within the delay: the reserve does not run
    assert clock.left("light") == 60.0 and clock.delay_left() == 7.0
    assert clock.switch() == ("light", 5.0)
    assert clock.left("light") == 60.0            # the 7 s of delay not used are not banked
    t.advance(20.0)                                  # dark uses the 12 s delay and 8 s of his reserve
    clock.switch()
    assert clock.left("dark") == 52.0 and clock.running == "light"


def test_a_fischer_increment_is_added_when_the_move_ends():
    clock, t = _clock("fischer", reserve=60.0, delay=5.0)
    clock.start("light")
    t.advance(3.0)
    assert clock.left("light") == 57.0            # the reserve runs from the first second ...
    clock.switch()
    assert clock.left("light") == 62.0            # ... and the increment is added at the move's end


def test_without_an_allowance_every_second_counts():
    clock, t = _clock("none", reserve=30.0, delay=0.0)
    clock.start("dark")
    t.advance(10.5)
    clock.switch()
    assert clock.left("dark") == 19.5


def test_a_reserve_run_out_is_a_flag_and_the_clock_stops():
    clock, t = _clock("bronstein", reserve=10.0, delay=2.0)
    clock.start("light")
    t.advance(11.9)
    assert clock.check() is None and clock.left("light") == pytest.approx(0.1)
    t.advance(0.2)
    assert clock.check() == "light" and clock.running is None and clock.left("light") == 0.0
    with pytest.raises(ClockError, match="light's flag has fallen"):
        clock.start("dark")
    doc = clock.to_doc()
    assert doc["flagged"] == "light" and doc["on_flag"] == "lose-match"


def test_a_turn_ended_after_the_flag_fell_is_refused():
    clock, t = _clock("none", reserve=5.0, delay=0.0)
    clock.start("dark")
    t.advance(6.0)
    with pytest.raises(ClockError, match="dark's flag has fallen before the turn ended"):
        clock.switch()


def test_a_question_pauses_the_running_clock():
    clock, t = _clock("none", reserve=60.0, delay=0.0)
    clock.start("light")
    t.advance(4.0)
    clock.pause()
    t.advance(100.0)                                  # the referee asks; the players answer slowly
    assert clock.left("light") == 56.0 and clock.to_doc()["paused"]
    clock.pause()                                  # harmless twice
    clock.resume()
    t.advance(1.0)
    clock.switch()
    assert clock.left("light") == 55.0


def test_a_bronstein_delay_is_not_renewed_by_a_pause():
    clock, t = _clock("bronstein", reserve=60.0, delay=12.0)
    clock.start("light")
    t.advance(10.0)
    clock.pause()
    clock.resume()
    t.advance(10.0)                                  # 20 s of one move: 12 free, 8 charged
    clock.switch()
    assert clock.left("light") == 52.0


def test_the_end_of_a_game_stops_the_clock_with_the_move_charged():
    clock, t = _clock("none", reserve=60.0, delay=0.0)
    clock.start("light")
    t.advance(3.0)
    clock.stop()
    t.advance(50.0)
    assert clock.running is None and clock.left("light") == 57.0 and clock.left("dark") == 60.0
    clock.start("dark")                           # the next game's first move


@pytest.mark.parametrize("terms, words", [
    (dict(reserve_s=0.5), "a reserve is 1 s to 24 hours"),
    (dict(reserve_s=60, delay_s=-1), "a delay or increment is 0 to 600 s"),
    (dict(reserve_s=60, mode="hourglass"), "a clock's mode is bronstein, fischer, none"),
    (dict(reserve_s=60, on_flag="shrug"), "a flag means lose-match or announce"),
])
def test_terms_a_clock_cannot_have_are_refused_in_words(terms, words):
    with pytest.raises(ClockError, match=words):
        ClockTerms(**terms)


def test_steps_the_state_does_not_allow_are_refused():
    clock, _ = _clock()
    with pytest.raises(ClockError, match="no clock is running"):
        clock.switch()
    clock.start("light")
    with pytest.raises(ClockError, match="light's clock is running"):
        clock.start("dark")
    with pytest.raises(ClockError, match="light's or dark's"):
        clock.left("blue")
