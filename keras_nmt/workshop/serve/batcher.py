"""Sentences of concurrent requests translated together: a bounded queue, a largest batch, a
longest wait.

Each request puts its sentences (with its decoding options) on the model's queue and awaits
them. One task gathers a batch: the first waiting request, then more until the batch holds
`max_batch` sentences per worker (the request that reaches it taken whole), `max_wait` seconds
have passed, or no request has come for `max_gap` seconds. It translates the batch with ONE
`translate_batch` call per set of options, in a thread: that call sorts the sentences by
length and cuts them into the translator's `calls_per_worker` calls per worker (one graph call
per worker for TensorFlow, three cheaper calls per thread for CTranslate2) of about equal cost,
decoded at once on a thread each (both release the GIL while they run), and the task gathers
the next batch when it returns. A full queue refuses the request at once (`QueueFull`: the
server answers 429) rather than letting latency grow without bound.

Why one batch for all the workers, not one per worker: a graph call has a large fixed cost
(the decoding loop's steps: for the dates Transformer on one core, 33 ms for 8 sentences, 52 ms
for 32), and a call of mixed lengths pays for its longest sentence in every row. One large
batch, sorted, gives each worker fewer, fuller calls of similar lengths. Why of equal cost, not
equal counts: the batch returns when its last call does, and a call of long sentences costs
more (the dates Transformer's half of longer sentences took 1.5 times as long as the other, a
third of the batch's time with one core idle); the calls of short sentences take more rows.

Why the gap: requests come in bursts (the clients answered by the last batch send their next
ones within milliseconds), then nothing until another batch is answered; waiting out the whole
`max_wait` after a burst leaves the cores idle, and a lone request is answered `max_gap` after
it arrives. But requests that were already waiting when the task came back (it is behind) do
not stop at the gap: the task waits, up to `max_wait`, for the next request, so that the
clients answered a moment ago join them. Otherwise two halves of the clients would alternate
for ever, each in half-sized batches.

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
        translator: a `BatchTranslator` or `CTranslate2Translator`
            (`translate_batch(texts, options, batch_size=..., calls=..., on_batch=...,
            indices=...)`,
            `calls_per_worker`).
        max_batch: sentences per worker a batch gathers: `max_batch * workers` at most (a
            request larger than this is translated alone).
        max_wait: seconds the batch waits at most for more sentences after its first request.
        max_gap: seconds without a new request after which the batch stops waiting (unless
            requests were already waiting when it began: see the module).
        max_queue: requests waiting at most; more are refused (`QueueFull`).
        workers: graph calls decoding at once, each on a thread of its own (the translator's
            own count: `configure_decoding_threads`, a CTranslate2 export's `inter_threads`).
        on_batch: called with each graph call's sentence count (the server's counters).
    """

    def __init__(self, translator, max_batch=64, max_wait=0.03, max_queue=256, workers=2,
                 on_batch=None, max_gap=0.002):
        self.translator = translator
        self.max_batch, self.max_wait, self.workers = max_batch, max_wait, workers
        self.max_gap = max_gap
        self.on_batch = on_batch or (lambda size: None)
        self.queue = asyncio.Queue(max_queue)
        self.task = None

    def start(self):
        """Starts the batcher's task (in the running event loop)."""
        self.task = asyncio.create_task(self._work())

    async def stop(self):
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

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
        `max_gap` of the one before (the requests already waiting are taken at once, and then
        the next one is awaited without the gap), up to `max_batch` sentences per worker."""
        behind = not self.queue.empty()
        requests = [await self.queue.get()]
        size = len(requests[0].texts)
        deadline = time.monotonic() + self.max_wait
        while size < self.max_batch * self.workers:
            if self.queue.empty():
                timeout = deadline - time.monotonic()
                if not behind:
                    timeout = min(timeout, self.max_gap)
                if timeout <= 0:
                    break
                try:
                    request = await asyncio.wait_for(self.queue.get(), timeout)
                except TimeoutError:
                    break
                behind = False
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
        # Each sentence's index in its own request: sampling draws by it, so a request's
        # samples do not depend on the requests it is batched with.
        indices = [i for request in requests for i in range(len(request.texts))]
        sizes = []
        try:  # translate_batch sorts the texts by length, then cuts them into calls
            results = await asyncio.to_thread(
                self.translator.translate_batch, texts, options, batch_size=len(texts),
                calls=self.workers * self.translator.calls_per_worker, on_batch=sizes.append,
                indices=indices,
            )
        except Exception as error:  # handed to each request's handler, which answers it
            for request in requests:
                if not request.future.done():
                    request.future.set_exception(error)
            return
        for size in sizes:
            self.on_batch(size)
        start = 0
        for request in requests:
            end = start + len(request.texts)
            if not request.future.done():  # a request that timed out has gone
                request.future.set_result(results[start:end])
            start = end
