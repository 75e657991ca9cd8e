"""Work of one kind on threads of its own, with a bounded number of requests waiting.

The explorer's requests (a beam search recorded step by step: seconds each) and language
detection run in lanes of their own, beside the translation batcher, so that a pile of them
can neither take the threads the batcher translates on nor wait without bound: a lane runs
`workers` calls at once, keeps at most `max_waiting` more waiting, and refuses the next at once
(`Busy`: the server answers 429 with `Retry-After`, its estimate of when a place frees).

It also refuses a call that, at the mean time of its calls, would end past `max_seconds`, and
one that has not started within its `timeout` (it then never starts); a call that has started
is awaited to its end, since a thread cannot be stopped and its answer is work already paid
for. A request that goes away keeps its place until its call has really ended: freeing it early
would let more calls queue behind a running one than the lane admits.

Example:
    >>> lane = Lane("explore", workers=1, max_waiting=8, max_seconds=15)
    >>> view = await lane.run(explore, model, "Hola.", timeout=30)  # in a running event loop
"""

import asyncio
import concurrent.futures
import math
import time


class Busy(Exception):
    """The lane holds its most requests; `retry_after`: whole seconds after which a place is
    likely free."""

    def __init__(self, retry_after):
        super().__init__(f"busy; retry after {retry_after} s")
        self.retry_after = retry_after


class Lane:
    """Runs functions on `workers` threads of its own, `max_waiting` more calls waiting at most.

    Args:
        name: names the lane's threads.
        workers: calls running at once.
        max_waiting: calls waiting at most beyond those running; more raise `Busy`.
        max_seconds: a call is also refused when the calls ahead of it and itself would
            take longer than this, at the mean call's time (`None`: no such limit): work
            that would time out before it is answered is not taken on.
    """

    def __init__(self, name, workers=1, max_waiting=8, max_seconds=None):
        self.workers, self.max_waiting, self.max_seconds = workers, max_waiting, max_seconds
        self.executor = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix=name)
        self.admitted = 0  # calls running or waiting, until each has really ended
        self.mean_seconds = 1.0  # a call's time: a guess, then the first, a moving average
        self.measured = False

    async def run(self, function, *args, timeout=None, **kwargs):
        """`function(*args, **kwargs)`, run on one of the lane's threads; raises `Busy` when
        the lane is full, or when `timeout` seconds pass before the call has started (it then
        never starts). A call that has started is awaited to its end: it cannot be stopped,
        and its answer is the work already paid for."""
        if self.admitted >= self.workers + self.max_waiting or (
                self.max_seconds is not None and self.admitted >= self.workers
                and self.mean_seconds * (self.admitted + 1) / self.workers > self.max_seconds):
            raise Busy(self.retry_after())
        loop = asyncio.get_running_loop()
        self.admitted += 1
        took = []  # the call's own time, not its wait

        def timed():
            start = time.monotonic()
            try:
                return function(*args, **kwargs)
            finally:
                took.append(time.monotonic() - start)

        future = self.executor.submit(timed)

        def ended(_):  # on the lane's thread, or here when a waiting call is cancelled
            loop.call_soon_threadsafe(self._release, took[0] if took else None)

        future.add_done_callback(ended)
        answer = asyncio.wrap_future(future)
        try:
            return await asyncio.wait_for(asyncio.shield(answer), timeout)
        except TimeoutError:
            if future.cancel():  # still waiting: the lane was too busy to start it
                raise Busy(self.retry_after()) from None
            return await answer
        except asyncio.CancelledError:  # the request has gone: a waiting call never starts
            future.cancel()
            raise

    def _release(self, seconds):
        self.admitted -= 1
        if seconds is not None:
            self.mean_seconds = (0.8 * self.mean_seconds + 0.2 * seconds if self.measured
                                 else seconds)
            self.measured = True

    def retry_after(self):
        """Seconds until the calls ahead of a new one have run: those admitted, `workers` at a
        time, at the mean call's time (at least 1: HTTP's `Retry-After` counts whole seconds)."""
        return max(1, math.ceil(self.mean_seconds * self.admitted / self.workers))

    def close(self):
        self.executor.shutdown(wait=False, cancel_futures=True)
