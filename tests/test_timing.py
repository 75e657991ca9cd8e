"""`keras_nmt.workshop.timing` on a fake clock: what is timed, in which order, and the
statistics."""

import doctest

import pytest

from keras_nmt.workshop import timing
from keras_nmt.workshop.timing import Timing, time_call, time_in_turn


@pytest.fixture
def clock(monkeypatch):
    """A clock that only moves when a timed function says so: `clock.advance(seconds)`."""

    class Clock:
        now = 100.0

        def advance(self, seconds):
            self.now += seconds
            return seconds

    fake = Clock()
    monkeypatch.setattr(timing, "perf_counter", lambda: fake.now)
    return fake


def test_warmup_is_timed_apart_and_repeats_each_timed(clock):
    durations = iter([0.5, 0.3, 0.1, 0.2])
    calls = []

    def function():
        calls.append("timed")
        return clock.advance(next(durations))

    result = time_call(function, repeats=3, warmup=lambda: calls.append("warm-up") or
                       clock.advance(7.0))
    assert calls == ["warm-up", "timed", "timed", "timed"]
    assert result.warmup_seconds == pytest.approx(7.0)
    assert result.seconds == pytest.approx((0.5, 0.3, 0.1))
    assert result.median == pytest.approx(0.3)
    assert result.best == pytest.approx(0.1)
    assert result.total == pytest.approx(0.9)
    assert result.result == pytest.approx(0.1)  # the last timed call's return value


def test_no_warmup_by_default(clock):
    result = time_call(lambda: clock.advance(2.0))
    assert result.warmup_seconds is None and result.seconds == pytest.approx((2.0,))


def test_in_turn_alternates_and_rotates(clock):
    order = []

    def part(name, seconds):
        return lambda: order.append(name) or clock.advance(seconds)

    parts = [part("a", 1.0), part("b", 2.0), part("c", 3.0)]
    plain = time_in_turn(parts, repeats=2)
    assert order == ["a", "b", "c", "a", "b", "c"]
    assert [t.seconds for t in plain] == [(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]
    order.clear()
    rotated = time_in_turn(parts, repeats=3, rotate=True)
    assert order == ["a", "b", "c", "c", "a", "b", "b", "c", "a"]
    assert [t.total for t in rotated] == pytest.approx([3.0, 6.0, 9.0])
    assert all(t.warmup_seconds is None for t in rotated)


def test_median_of_an_even_count_is_the_middle_mean():
    assert Timing((4.0, 1.0, 3.0, 2.0)).median == pytest.approx(2.5)


def test_docstring_examples_run():
    assert doctest.testmod(timing).failed == 0
