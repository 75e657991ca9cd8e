"""The lanes explorations and language detection run in: bounded, and honest about time."""

import asyncio
import threading
import time

import pytest

from keras_nmt.workshop.serve.lanes import Busy, Lane


def test_a_lane_runs_its_workers_admits_its_waiting_and_refuses_the_rest():
    gate = threading.Event()
    ran = []

    def work(i):
        gate.wait(10)
        ran.append(i)
        return i

    async def scenario():
        lane = Lane("t", workers=1, max_waiting=2)
        tasks = [asyncio.create_task(lane.run(work, i)) for i in range(3)]
        await asyncio.sleep(0.05)
        with pytest.raises(Busy) as busy:
            await lane.run(work, 3)
        assert busy.value.retry_after >= 1
        gate.set()
        assert await asyncio.gather(*tasks) == [0, 1, 2]
        await asyncio.sleep(0.05)
        assert lane.admitted == 0
        assert await lane.run(work, 4) == 4  # room again
        lane.close()

    asyncio.run(scenario())
    assert ran == [0, 1, 2, 4]


def test_a_call_given_up_keeps_its_place_until_it_ends_and_a_waiting_one_never_runs():
    gate = threading.Event()
    ran = []

    def work(i):
        gate.wait(10)
        ran.append(i)

    async def scenario():
        lane = Lane("t", workers=1, max_waiting=1)
        running = asyncio.create_task(lane.run(work, 0))
        waiting = asyncio.create_task(lane.run(work, 1))
        await asyncio.sleep(0.05)
        running.cancel()
        waiting.cancel()
        await asyncio.sleep(0.05)
        # The running call cannot be stopped: its place stays taken until it ends (else more
        # calls would queue behind it than the lane admits); the waiting one is dropped.
        assert lane.admitted == 1
        behind = asyncio.create_task(lane.run(work, 2))
        await asyncio.sleep(0.05)
        with pytest.raises(Busy):
            await lane.run(work, 3)
        gate.set()
        await behind
        await asyncio.sleep(0.05)
        assert lane.admitted == 0
        lane.close()

    asyncio.run(scenario())
    assert ran == [0, 2]


def test_work_that_would_end_past_the_time_limit_is_refused():
    async def scenario():
        lane = Lane("t", workers=1, max_waiting=10, max_seconds=1.0)
        lane.mean_seconds = 0.3  # as measured over its calls so far
        tasks = [asyncio.create_task(lane.run(time.sleep, 0.3)) for _ in range(3)]
        await asyncio.sleep(0.01)
        with pytest.raises(Busy) as busy:  # a fourth would end 1.2 s from now
            await lane.run(time.sleep, 0.3)
        assert busy.value.retry_after == 1
        await asyncio.gather(*tasks)
        lane.close()

    asyncio.run(scenario())


def test_a_call_that_cannot_start_within_its_timeout_is_busy_one_that_started_is_answered():
    gate = threading.Event()

    async def scenario():
        lane = Lane("t", workers=1, max_waiting=1)
        running = asyncio.create_task(lane.run(lambda: gate.wait(10) and "done", timeout=0.3))
        waiting = asyncio.create_task(lane.run(gate.wait, 10, timeout=0.3))
        with pytest.raises(Busy):  # never started: the lane was too busy
            await waiting
        await asyncio.sleep(0.3)
        assert not running.done()  # past its timeout, still awaited
        gate.set()
        assert await running == "done"
        lane.close()

    asyncio.run(scenario())
