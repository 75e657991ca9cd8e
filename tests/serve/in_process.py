"""The server's application called in-process, over fake models: its lifespan run, requests
sent as ASGI messages on one event loop (no HTTP, no TensorFlow model)."""

import asyncio
import contextlib
import gc
import json
import time
import types

import numpy as np

from keras_nmt.inference.translation_result import TranslationResult


class FakeTranslator:
    """Translates a text to itself upper-cased, after `delay` seconds and once `gate` (a
    `threading.Event`) is set, a beam search also once `beam_gate` is; counts its calls."""

    max_beam_size = 8
    calls_per_worker = 1

    def __init__(self, delay=0.0, gate=None, beam_gate=None):
        self.delay, self.gate, self.beam_gate, self.calls = delay, gate, beam_gate, 0

    def translate_batch(self, texts, options=None, **_):
        self.calls += 1
        for gate in (self.gate, self.beam_gate if getattr(options, "beam_size", 1) > 1
                     else None):
            if gate is not None:
                gate.wait(30)
        time.sleep(self.delay)
        n = getattr(options, "n_best", 1) or 1
        if not getattr(options, "return_attention", False):
            return [TranslationResult([text.upper()] * n, [0.0] * n) for text in texts]
        return [TranslationResult(  # each word attends to itself
            [text.upper()], [-0.5], np.eye(len(text.split()) + 1, len(text.split()) or 1,
                                           dtype=np.float32),
            text.split(), [*text.upper().split(), "</s>"]) for text in texts]


def fake_model(name="m", pair=("es", "en"), **translator):
    """A served model of `FakeTranslator(**translator)` that draws no tree (the explorer asks
    its translator, as for an export)."""
    return types.SimpleNamespace(name=name, pair=pair, translator=FakeTranslator(**translator),
                                 draws_tree=False,
                                 describe=lambda: {"name": name, "attention": True})


@contextlib.asynccontextmanager
async def running(app):
    """`app` started (its lifespan: the batchers) for the block, stopped after it."""
    incoming, outgoing = asyncio.Queue(), asyncio.Queue()
    await incoming.put({"type": "lifespan.startup"})
    task = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}},
                                   incoming.get, outgoing.put))
    started = await outgoing.get()
    assert started["type"] == "lifespan.startup.complete", started
    try:
        yield
    finally:
        await incoming.put({"type": "lifespan.shutdown"})
        await outgoing.get()
        await task
        gc.unfreeze()  # the lifespan froze this process's objects out of collections


async def call(app, path, body=None, *, raw=None, headers=(), method="POST"):
    """`(status, headers as a dict, parsed JSON)` of one request; `body` is sent as JSON,
    `raw` as it is; `headers` are `(name, value)` pairs of str or bytes."""
    if raw is None and body is not None:
        raw, headers = json.dumps(body).encode(), (("content-type", "application/json"),
                                                   *headers)
    scope = {"type": "http", "path": path, "method": method, "query_string": b"",
             "headers": [(k if isinstance(k, bytes) else k.encode(),
                          v if isinstance(v, bytes) else v.encode()) for k, v in headers]}
    incoming = [{"type": "http.request", "body": raw or b"", "more_body": False}]
    sent = []

    async def receive():
        if incoming:
            return incoming.pop(0)
        await asyncio.Event().wait()  # no more: as a client waiting for its answer

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    head = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], head, json.loads(sent[1]["body"])
