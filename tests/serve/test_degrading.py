"""A server that degrades, never breaks, in-process over fake models: bounded queues answered
429 with Retry-After, a plain translation answered while explorations pile up, the API key
read as UTF-8, and no request body a 500."""

import asyncio
import json
import threading
import urllib.parse

import pytest

from keras_nmt.workshop.serve.app import BatchSettings, Limits, create_app
from tests.serve.in_process import call, fake_model, running
from tests.serve.test_json_routes import PARSED_TYPES, _fuzzed_bodies

ES_EN = {"source": "es", "target": "en"}


def test_a_translation_is_answered_while_explorations_pile_up():
    """Twenty explorations stuck in their beam searches took every thread of the default pool
    (`asyncio.to_thread`): a plain /translate sent meanwhile waited for one, and timed out."""
    gate = threading.Event()  # the explorations' beam searches wait on it
    model = fake_model(beam_gate=gate)
    app = create_app([model], Limits(timeout=30),
                     BatchSettings(max_wait=0.001, explore_workers=1, max_explore_queue=2))

    async def scenario():
        async with running(app):
            explores = [asyncio.create_task(call(app, "/api/explore", {"q": f"e{i}"}))
                        for i in range(20)]
            await asyncio.sleep(0.3)
            status, _, answer = await asyncio.wait_for(
                call(app, "/translate", {"q": "hola", **ES_EN}), 10)
            assert (status, answer) == (200, {"translatedText": "HOLA"})
            refused = [t.result() for t in explores if t.done()]
            gate.set()
            answered = await asyncio.gather(*explores)
            return refused, answered

    refused, answered = asyncio.run(scenario())
    # One running and two waiting were admitted; the other 17 were refused at once.
    assert len(refused) == 17
    for status, head, answer in refused:
        assert status == 429
        assert int(head["retry-after"]) >= 1
        assert answer["error"].startswith("Slowdown: the server is busy exploring")
    assert sorted(status for status, _, _ in answered) == [200] * 3 + [429] * 17


def test_a_full_translation_queue_is_a_429_with_retry_after():
    gate = threading.Event()
    app = create_app([fake_model(gate=gate)], Limits(timeout=30),
                     BatchSettings(max_wait=0.001, max_gap=0.001, max_queue=1))

    async def scenario():
        async with running(app):
            first = asyncio.create_task(call(app, "/translate", {"q": "a", **ES_EN}))
            await asyncio.sleep(0.2)  # taken into a batch, which waits on the gate
            second = asyncio.create_task(call(app, "/translate", {"q": "b", **ES_EN}))
            await asyncio.sleep(0.1)  # waits in the queue, now full
            third = await call(app, "/translate", {"q": "c", **ES_EN})
            gate.set()
            return third, await first, await second

    (status, head, answer), first, second = asyncio.run(scenario())
    assert (status, head["retry-after"]) == (429, "1")
    assert answer["error"].startswith("Slowdown")
    assert first[0] == second[0] == 200
    assert (app.counters.errors, app.counters.busy) == (1, 1)  # in /metrics


KEY = "clé-ñ-鍵"


@pytest.mark.parametrize("how", ["x-api-key", "bearer", "bearer lower-case", "field"])
def test_a_non_ascii_api_key_is_read_as_utf8(how):
    """A non-ASCII key sent as a UTF-8 header was refused (403): the header was read as
    Latin-1 and encoded again."""
    app = create_app([fake_model()], api_key=KEY)
    key = KEY.encode("utf-8")
    headers, body = {
        "x-api-key": ([("x-api-key", key)], {}),
        "bearer": ([("authorization", b"Bearer " + key)], {}),
        "bearer lower-case": ([("authorization", b"bearer " + key)], {}),
        "field": ([], {"api_key": KEY}),
    }[how]

    async def scenario():
        async with running(app):
            right = await call(app, "/translate", {"q": "a", **ES_EN, **body}, headers=headers)
            wrong = await call(app, "/translate", {"q": "a", **ES_EN},
                               headers=[("x-api-key", key[:-1])])
            latin = await call(app, "/translate", {"q": "a", **ES_EN},
                               headers=[("x-api-key", KEY.encode("utf-8").decode(
                                   "latin-1").encode("utf-8"))])
            none = await call(app, "/translate", {"q": "a", **ES_EN})
            return right, wrong, latin, none

    right, wrong, latin, none = asyncio.run(scenario())
    assert right[0] == 200
    for status, _, answer in (wrong, latin, none):
        assert (status, answer) == (403, {"error": "Invalid API key"})


def test_no_body_sent_to_any_route_is_a_500():
    """The class of parser errors across every route that reads a body (fuzzed bodies under
    each content type): each is answered, and never with a 500."""
    app = create_app([fake_model()], Limits(timeout=30), BatchSettings(max_wait=0.001))
    routes = ("/translate", "/detect", "/translate_file", "/api/translate", "/api/explore")

    async def scenario():
        statuses = set()
        async with running(app):
            for path in routes:
                for content_type in PARSED_TYPES:
                    for body in _fuzzed_bodies(seed=len(path), count=12):
                        status, _, answer = await call(
                            app, path, raw=body, headers=[("content-type", content_type)])
                        assert status < 500, (path, content_type, body, answer)
                        statuses.add(status)
        return statuses

    assert {400, 415} <= asyncio.run(scenario())


NASTY_VALUES = ["²", "9" * 5000, "[" * 5000 + "]" * 5000, "-", "", "\x00", "１", "nan", "inf",
                "1e400", "true", "-1", "a" * 600, '{"a": ' * 3000]
FIELDS = {"/translate": ["q", "source", "target", "format", "alternatives", "glossary",
                         "confidence", "alignment", "api_key"],
          "/detect": ["q"],
          "/api/translate": ["q", "model", "strategy", "beam_size", "n_best", "length_penalty",
                             "temperature", "top_k", "top_p", "seed", "confidence"],
          "/api/explore": ["q", "model", "beam_size", "n_best", "length_penalty", "top_k"]}


def test_no_field_value_is_a_500():
    """Each field of each route, as a form field and in JSON, set to a value a parser chokes
    on: `alternatives=²` (a digit `int` cannot read), 5,000 digits (over `int`'s limit) and a
    glossary nested 5,000 deep were 500s."""
    app = create_app([fake_model()], Limits(timeout=30), BatchSettings(max_wait=0.001))
    valid = {"q": "a", "source": "es", "target": "en"}

    async def scenario():
        async with running(app):
            for path, fields in FIELDS.items():
                for name in fields:
                    for value in NASTY_VALUES:
                        body = {**({} if path.startswith("/api") else valid), name: value}
                        if path.startswith("/api"):
                            body.setdefault("q", "a")
                        form = urllib.parse.urlencode(body).encode()
                        for raw, kind in ((form, "application/x-www-form-urlencoded"),
                                          (json.dumps(body).encode(), "application/json")):
                            status, _, answer = await call(app, path, raw=raw,
                                                           headers=[("content-type", kind)])
                            assert status < 500, (path, name, value[:20], kind, answer)

    asyncio.run(scenario())
