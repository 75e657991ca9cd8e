"""The batcher's waits, with a translator that only records its batches (no model, no server)."""

import asyncio
import time

from keras_nmt.decoding.length_order import call_sizes
from keras_nmt.workshop.serve.batcher import Batcher


class _Recorder:
    """Translates each text to itself after `seconds`, in the graph calls a translator would
    make (`call_sizes`, `on_batch` per call), and records every batch's size and call sizes."""

    def __init__(self, seconds=0.0, calls_per_worker=1):
        self.seconds, self.calls_per_worker = seconds, calls_per_worker
        self.batches, self.calls, self.indices = [], [], []

    def translate_batch(self, texts, options, batch_size, calls, on_batch, indices):
        time.sleep(self.seconds)
        self.batches.append(len(texts))
        self.indices.append(list(indices))
        for size in call_sizes(sorted(map(len, texts)), batch_size, calls):
            self.calls.append(size)
            on_batch(size)
        return list(texts)


def _run(arrivals, seconds=0.0, workers=1, answers=(), calls_per_worker=1, **settings):
    """Sends a request at each of `arrivals` (seconds from the start; a number: one sentence,
    a pair `(at, n)`: n sentences), and for each index `i` of `answers` one more request as soon
    as request `i` is answered (a client that was waiting for it). Returns the recorder, the
    sizes `on_batch` reported, and each request's seconds from its arrival to its answer."""

    async def main():
        recorder, reported = _Recorder(seconds, calls_per_worker), []
        batcher = Batcher(recorder, workers=workers, on_batch=reported.append, **settings)
        batcher.start()

        async def request(index, at):
            at, n = at if isinstance(at, tuple) else (at, 1)
            await asyncio.sleep(at)
            texts = [f"s{index}.{k}" for k in range(n)]
            sent = time.monotonic()
            assert await batcher.translate(texts, None) == texts
            waits = [time.monotonic() - sent]
            if index in answers:  # the same client, at once
                sent = time.monotonic()
                assert await batcher.translate([f"again{index}"], None) == [f"again{index}"]
                waits.append(time.monotonic() - sent)
            return waits

        waits = await asyncio.gather(*(request(i, at) for i, at in enumerate(arrivals)))
        await batcher.stop()
        return recorder, reported, [w for ws in waits for w in ws]

    return asyncio.run(main())


def test_a_lone_request_waits_the_gap_not_the_longest_wait():
    recorder, _, waits = _run([0.0], max_wait=2.0, max_gap=0.01)
    assert recorder.batches == [1]
    assert waits[0] < 1.0  # not the 2 s of max_wait


def test_requests_closer_than_the_gap_share_a_batch_and_a_later_one_starts_the_next():
    recorder, _, _ = _run([0.0, 0.02, 0.04, 0.6], max_wait=2.0, max_gap=0.3)
    assert recorder.batches == [3, 1]


def test_the_longest_wait_still_bounds_a_steady_stream():
    # A request every 20 ms, each within the gap: the batch closes at max_wait (0.2 s).
    recorder, _, _ = _run([0.02 * i for i in range(30)], max_wait=0.2, max_gap=0.1)
    batches = recorder.batches
    assert len(batches) >= 2 and sum(batches) == 30 and max(batches) < 30


def test_a_batch_gathers_max_batch_per_worker_and_is_cut_into_one_call_per_worker():
    # 7 requests of 8 sentences, all at once, for 2 workers of 16: a batch of 32, in 2 calls of
    # 16, then the other 24 in 2 of 12.
    recorder, reported, _ = _run([(0.0, 8)] * 7, workers=2, max_batch=16, max_wait=0.5,
                                 max_gap=0.2)
    assert recorder.batches == [32, 24]
    assert recorder.calls == reported == [16, 16, 12, 12]
    # Each sentence goes with its index in its own request (sampling draws by it).
    assert recorder.indices == [list(range(8)) * 4, list(range(8)) * 3]
    # Requests of 12: the one that passes 32 is taken whole, and the batch of 36 is still one
    # call per worker (it was 16, 16 and 4: the third call after the first two), of about
    # equal cost: 30 texts of 4 characters ("s0.9") and 6 of 5 ("s0.10") cut at 19 rows cost
    # 19 * (4 + 10) = 266 and 17 * (5 + 10) = 255, where 18 and 18 would cost 252 and 270.
    recorder, reported, _ = _run([(0.0, 12)] * 4, workers=2, max_batch=16, max_wait=0.5,
                                 max_gap=0.2)
    assert recorder.batches == [36, 12]
    assert recorder.calls == reported == [19, 17, 6, 6]


def test_a_translator_with_cheap_calls_gets_its_calls_per_worker():
    # A CTranslate2 export asks for 3 calls per worker: the batch of 32 (2 workers of at most
    # 16) comes in 6 calls of at most 6 sentences, the 24 after it in 6 of 4.
    recorder, reported, _ = _run([(0.0, 8)] * 7, workers=2, calls_per_worker=3, max_batch=16,
                                 max_wait=0.5, max_gap=0.2)
    assert recorder.batches == [32, 24]
    assert recorder.calls == reported == [6, 6, 6, 6, 6, 2] + [4] * 6


def test_requests_waiting_behind_a_batch_wait_for_the_clients_it_answers():
    # Request 0 is translated alone (0.3 s); 1 and 2 arrive meanwhile. When 0 is answered its
    # client sends again at once: 1, 2 and that request share the next batch, although the
    # gap (10 ms) is shorter than the time the task waits for it.
    recorder, _, _ = _run([0.0, 0.05, 0.06], seconds=0.3, answers={0}, max_wait=1.0,
                          max_gap=0.01)
    assert recorder.batches == [1, 3]


def test_a_batch_that_was_not_behind_stops_at_the_gap():
    # Nothing waits when request 0 is answered (0.3 s): its client's next request is a batch of
    # its own, closed by the 10 ms gap; it does not wait up to max_wait (1 s) for requests 1 and
    # 2, which come at 0.5 s and form the third batch.
    recorder, _, _ = _run([0.0, 0.5, 0.51], seconds=0.3, answers={0}, max_wait=1.0,
                          max_gap=0.01)
    assert recorder.batches == [1, 1, 2]
