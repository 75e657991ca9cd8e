"""Sentences of concurrent requests translated together: a bounded queue, a largest batch, a
longest wait.

Each request puts its sentences (with its decoding options) on the model's queue and awaits
them. `workers` tasks each take the first waiting request, then more until `max_batch`
sentences are gathered (the request that reaches it taken whole), `max_wait` seconds have
passed, or no request has come for `max_gap` seconds, and translate them with ONE
`translate_batch` call per set of options, in a thread (TensorFlow releases the GIL while it
runs, so two workers keep two cores busy). A full queue refuses the request at once
(`QueueFull`: the server answers 429) rather than letting latency grow without bound.

Why the gap: requests come in bursts (the clients answered by the last batch send their next
ones within a millisecond or two), then nothing until another batch is answered. A worker that
waited out the whole `max_wait` after a burst left its core idle: with 32 clients on 2 cores
(`keras_nmt.benchmarks.serve_load`, the dates Transformer, one short run each), a fixed 30 ms
wait served 808 sentences/s, a fixed 5 ms one 1,114, and 30 ms with a 2 ms gap 1,051-1,112.

Example:
    >>> batcher = Batcher(translator, max_batch=64, max_wait=0.03)
    >>> results = await batcher.translate(["Hola."], options)   # in a running event loop
"""

import asyncio
import dataclasses
import time


class QueueFull(Exception):
    """The model's queue holds `max_queue` requests already."""


@dataclasses.dataclass
class _Request:
    texts: list
    options: object
    future: asyncio.Future


class Batcher:
    """Batches the sentences of concurrent requests for one translator (see the module).

    Args:
        translator: a `BatchTranslator` (`translate_batch(texts, options)`).
        max_batch: most sentences per `translate_batch` call (a request larger than this is
            translated alone).
        max_wait: seconds a worker waits at most for more sentences after the first request.
        max_gap: seconds without a new request after which the worker stops waiting.
        max_queue: requests waiting at most; more are refused (`QueueFull`).
        workers: translations running at once.
        on_batch: called with each batch's sentence count (the server's counters).
    """

    def __init__(self, translator, max_batch=64, max_wait=0.03, max_queue=256, workers=2,
                 on_batch=None, max_gap=0.002):
        self.translator = translator
        self.max_batch, self.max_wait, self.workers = max_batch, max_wait, workers
        self.max_gap = max_gap
        self.on_batch = on_batch or (lambda size: None)
        self.queue = asyncio.Queue(max_queue)
        self.tasks = []

    def start(self):
        """Starts the workers (in the running event loop)."""
        self.tasks = [asyncio.create_task(self._work()) for _ in range(self.workers)]

    async def stop(self):
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def translate(self, texts, options):
        """The `TranslationResult`s of `texts`, translated in some batch; raises `QueueFull`."""
        future = asyncio.get_running_loop().create_future()
        try:
            self.queue.put_nowait(_Request(list(texts), options, future))
        except asyncio.QueueFull:
            raise QueueFull from None
        return await future

    async def _gather(self):
        """The first waiting request and those that join it within `max_wait`, each within
        `max_gap` of the one before (the requests already waiting are taken at once)."""
        requests = [await self.queue.get()]
        size = len(requests[0].texts)
        deadline = time.monotonic() + self.max_wait
        while size < self.max_batch:
            if self.queue.empty():
                timeout = min(deadline - time.monotonic(), self.max_gap)
                if timeout <= 0:
                    break
                try:
                    request = await asyncio.wait_for(self.queue.get(), timeout)
                except TimeoutError:
                    break
            else:
                request = self.queue.get_nowait()
            requests.append(request)
            size += len(request.texts)
        return requests

    async def _work(self):
        while True:
            requests = await self._gather()
            groups = {}  # one translate_batch call per set of options, in arrival order
            for request in requests:
                groups.setdefault(request.options, []).append(request)
            for options, group in groups.items():
                await self._translate(options, [r for r in group if not r.future.done()])

    async def _translate(self, options, requests):
        texts = [text for request in requests for text in request.texts]
        if not texts:
            return
        try:
            results = await asyncio.to_thread(
                self.translator.translate_batch, texts, options, batch_size=len(texts)
            )
        except Exception as error:  # handed to each request's handler, which answers it
            for request in requests:
                if not request.future.done():
                    request.future.set_exception(error)
            return
        self.on_batch(len(texts))
        start = 0
        for request in requests:
            end = start + len(request.texts)
            if not request.future.done():  # a request that timed out has gone
                request.future.set_result(results[start:end])
            start = end
