"""The per-stage timings that the debug log shows: each stage leaves out the counting inside it."""

from __future__ import annotations

import pytest

from mdchunk import timing
from mdchunk.timing import StageTimer, add_timings, describe_timings


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(timing.time, "perf_counter", fake)
    return fake


def test_counting_inside_a_stage_is_counted_once(clock: FakeClock) -> None:
    timer = StageTimer()

    def counter(text: str) -> int:
        clock.now += 2.0  # tiktoken at work
        return len(text)

    count = timer.counting(counter)
    before = timer.snapshot()
    with timer.stage("pack"):
        clock.now += 1.0
        assert count("abc") == 3
        clock.now += 0.5
    with timer.stage("describe"):
        count("x")
    assert timer.since(before) == {**dict.fromkeys(timing.STAGES, 0.0),
                                   "pack": 1.5, "count": 4.0, "describe": 0.0}


def test_a_stage_that_raises_is_still_timed(clock: FakeClock) -> None:
    timer = StageTimer()
    with pytest.raises(ValueError), timer.stage("convert"):
        clock.now += 0.25
        raise ValueError
    assert timer.seconds["convert"] == 0.25


def test_sums_and_description() -> None:
    total = add_timings([{"convert": 0.5, "count": 0.25}, {"convert": 0.25, "write": 0.125}])
    assert total["convert"] == 0.75 and total["count"] == 0.25 and total["write"] == 0.125
    assert describe_timings(total) == "1.125 s: convert 0.750 s, count 0.250 s, write 0.125 s"
    assert describe_timings({}) == "0.000 s: nothing to do"
