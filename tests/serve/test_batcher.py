"""The batcher's waits, with a translator that only records its batches (no model, no server)."""

import asyncio
import time

from keras_nmt.serve.batcher import Batcher


class _Recorder:
    """Translates each text to itself and records the size of every batch."""

    def __init__(self):
        self.batches = []

    def translate_batch(self, texts, options, batch_size):
        self.batches.append(batch_size)
        return list(texts)


def _run(arrivals, **settings):
    """Sends one single-sentence request at each of `arrivals` (seconds from the start); returns
    the batches' sizes and each request's seconds from its arrival to its answer."""

    async def main():
        recorder = _Recorder()
        batcher = Batcher(recorder, workers=1, **settings)
        batcher.start()

        async def request(index, at):
            await asyncio.sleep(at)
            sent = time.monotonic()
            assert await batcher.translate([f"s{index}"], None) == [f"s{index}"]
            return time.monotonic() - sent

        waits = await asyncio.gather(*(request(i, at) for i, at in enumerate(arrivals)))
        await batcher.stop()
        return recorder.batches, waits

    return asyncio.run(main())


def test_a_lone_request_waits_the_gap_not_the_longest_wait():
    batches, waits = _run([0.0], max_wait=2.0, max_gap=0.01)
    assert batches == [1]
    assert waits[0] < 1.0  # not the 2 s of max_wait


def test_requests_closer_than_the_gap_share_a_batch_and_a_later_one_starts_the_next():
    batches, _ = _run([0.0, 0.02, 0.04, 0.6], max_wait=2.0, max_gap=0.3)
    assert batches == [3, 1]


def test_the_longest_wait_still_bounds_a_steady_stream():
    # A request every 20 ms, each within the gap: the batch closes at max_wait (0.2 s).
    batches, _ = _run([0.02 * i for i in range(30)], max_wait=0.2, max_gap=0.1)
    assert len(batches) >= 2 and sum(batches) == 30 and max(batches) < 30
