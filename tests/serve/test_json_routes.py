"""The API's bare ASGI router, called in-process with hand-made ASGI messages (no server)."""

import asyncio
import json
import random
import types

import pytest

from keras_nmt.workshop.serve.json_routes import (
    SECURITY_HEADERS,
    JsonRoute,
    JsonRoutes,
    RequestError,
)


async def _echo(call):
    return {"fields": await call.fields(), "key": call.headers.get("x-api-key")}


async def _refuse(call):
    raise RequestError("no such thing", 404)


async def _fail(call):
    raise KeyError("broken")


async def _nan(call):
    return {"score": float("nan")}


async def _half_a_pair(call):
    raise RequestError("no \ud800 here")


async def _fallback(scope, receive, send):
    """Stands for the page's Starlette application: records what reaches it."""
    _fallback.scopes.append(scope["type"])
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


def _app(max_body_bytes=200):
    counters = types.SimpleNamespace(requests=0, errors=0, busy=0)
    _fallback.scopes = []
    routes = {"/echo": JsonRoute(_echo, ("POST",)), "/refuse": JsonRoute(_refuse, ("GET",)),
              "/fail": JsonRoute(_fail, ("GET",)), "/nan": JsonRoute(_nan, ("GET",)),
              "/half": JsonRoute(_half_a_pair, ("GET",)),
              "/quiet": JsonRoute(_echo, ("POST",), counted=False)}
    return JsonRoutes(routes, _fallback, counters, max_body_bytes), counters


def _call(app, path, method="POST", chunks=(b"",), headers=(), disconnect=False):
    """Runs one request; returns (status, headers as a dict, body bytes, messages sent)."""
    scope = {"type": "http", "path": path, "method": method,
             "headers": [(k.encode(), v.encode()) for k, v in headers]}
    incoming = [{"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
                for i, chunk in enumerate(chunks)]
    if disconnect:
        incoming = [{"type": "http.request", "body": b"{", "more_body": True},
                    {"type": "http.disconnect"}]
    sent = []

    async def receive():
        return incoming.pop(0)

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    if not sent:
        return None, {}, b"", sent
    head = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], head, sent[1]["body"], sent


JSON = (("content-type", "application/json"),)


def test_a_json_body_reaches_the_handler_and_the_answer_is_json_with_security_headers():
    app, counters = _app()
    status, head, body, sent = _call(app, "/echo", chunks=(b'{"q": ', b'"h\xc3\xa9"}'),
                                     headers=(*JSON, ("x-api-key", "k")))
    assert status == 200
    assert json.loads(body) == {"fields": {"q": "hé"}, "key": "k"}
    assert head["content-type"] == "application/json"
    assert int(head["content-length"]) == len(body)
    for name, value in SECURITY_HEADERS:
        assert head[name.decode()] == value.decode()
    assert (counters.requests, counters.errors) == (1, 0)


def test_form_fields_are_read_and_a_repeated_field_is_a_list():
    app, _ = _app()
    status, _, body, _ = _call(app, "/echo", chunks=(b"q=a&q=b&source=es",), headers=(
        ("content-type", "application/x-www-form-urlencoded"),))
    assert (status, json.loads(body)["fields"]) == (200, {"q": ["a", "b"], "source": "es"})
    # UTF-8, escaped or not (curl -d sends it unescaped): Starlette's parser read raw bytes as
    # Latin-1, and "¿Dónde está?" reached the model as "Â¿DÃ³nde estÃ¡?".
    form = "q=¿Dónde está?&t=%C2%BFQu%C3%A9%3F+ya".encode()
    status, _, body, _ = _call(app, "/echo", chunks=(form,), headers=(
        ("content-type", "application/x-www-form-urlencoded"),))
    assert (status, json.loads(body)["fields"]) == (200, {"q": "¿Dónde está?", "t": "¿Qué? ya"})
    multipart = (b'--b\r\nContent-Disposition: form-data; name="q"; filename="a.txt"\r\n'
                 b"Content-Type: text/plain\r\n\r\nhola\r\n--b--\r\n")
    status, _, body, _ = _call(app, "/echo", chunks=(multipart,), headers=(
        ("content-type", "multipart/form-data; boundary=b"),))
    assert (status, json.loads(body)) == (400, {"error": "Invalid request: q must be text, "
                                                         "not a file"})


@pytest.mark.parametrize("chunks, headers, status, error", [
    ((b"{",), JSON, 400, "Invalid request: malformed JSON"),
    ((b"[1]",), JSON, 400, "Invalid request: the JSON body must be an object"),
    ((b"hola",), (("content-type", "text/plain"),), 415, "unsupported content type 'text/plain'"),
    ((b"q=%FF",), (("content-type", "application/x-www-form-urlencoded"),), 400,
     "Invalid request: the form is not UTF-8"),
    ((b"q=\xff",), (("content-type", "application/x-www-form-urlencoded"),), 400,
     "Invalid request: the form is not UTF-8"),
    # Refused from its announced length, before it is read, and when its chunks pass the limit.
    ((b"",), (*JSON, ("content-length", "201")), 413, "request body over 200 bytes"),
    ((b"{" + b" " * 110, b" " * 110 + b"}"), JSON, 413, "request body over 200 bytes"),
    # JSON allows an escape of half a surrogate pair, which no text holds (the tokenizers
    # failed on it, and an error naming it could not be written: a plain-text 500).
    ((b'{"q": "\\ud800"}',), JSON, 400, "Invalid request: malformed JSON (a \\u escape of "
                                        "half a surrogate pair"),
    ((b'{"q": ["a", {"k": "\\udfff"}]}',), JSON, 400, "Invalid request: malformed JSON (a \\u"),
    # A JSON body sent as a form (curl -d without the header) had no fields: "missing q".
    ((b' {"q": "a"}',), (("content-type", "application/x-www-form-urlencoded"),), 415,
     "a JSON body needs the header Content-Type: application/json"),
    ((b'{"q": "a"}',), (), 415, "a JSON body needs the header"),
])
def test_a_bad_body_is_a_4xx_json_error_and_counts_as_one(chunks, headers, status, error):
    app, counters = _app()
    got, head, body, _ = _call(app, "/echo", chunks=chunks, headers=headers)
    assert got == status
    assert json.loads(body)["error"].startswith(error)
    assert head["x-frame-options"] == "DENY"
    assert (counters.requests, counters.errors) == (1, 1)


def test_a_wrong_method_is_405_with_allow_and_head_answers_a_get_route_without_a_body():
    app, counters = _app()
    status, head, body, _ = _call(app, "/echo", method="GET")
    assert (status, head["allow"], json.loads(body)) == (405, "POST",
                                                         {"error": "Method Not Allowed"})
    status, head, body, _ = _call(app, "/refuse", method="HEAD")
    assert (status, body) == (404, b"")
    assert int(head["content-length"]) == len(b'{"error":"no such thing"}')
    assert (counters.requests, counters.errors) == (2, 2)


def test_a_handlers_exception_or_nan_is_a_500_json_error_without_a_traceback(caplog):
    app, counters = _app()
    status, _, body, _ = _call(app, "/fail", method="GET")
    assert (status, json.loads(body)) == (500, {"error": "cannot translate: KeyError: 'broken'"})
    assert "Traceback" in caplog.text  # in the server's log, not in the answer
    status, _, body, _ = _call(app, "/nan", method="GET")
    assert status == 500
    assert json.loads(body)["error"].startswith("cannot translate: ValueError: Out of range float")
    assert (counters.requests, counters.errors) == (2, 2)


def test_a_client_gone_before_its_body_came_is_not_answered():
    app, _ = _app()
    assert _call(app, "/echo", headers=JSON, disconnect=True)[3] == []


def test_other_paths_and_the_lifespan_go_to_the_fallback_with_the_security_headers():
    app, counters = _app()
    status, head, _, _ = _call(app, "/static/x.js", method="GET")
    assert status == 404
    assert head["x-content-type-options"] == "nosniff"

    async def lifespan():
        await app({"type": "lifespan"}, None, None)

    asyncio.run(lifespan())
    assert _fallback.scopes == ["http", "lifespan"]
    assert (counters.requests, counters.errors) == (0, 0)  # the page's own handlers count


def test_an_uncounted_route_leaves_the_counters_alone():
    app, counters = _app()
    assert _call(app, "/quiet", chunks=(b"{}",), headers=JSON)[0] == 200
    assert (counters.requests, counters.errors) == (0, 0)


def test_json_nested_deeper_than_the_parser_goes_is_a_400_not_a_500():
    app, _ = _app(max_body_bytes=100_000)
    nested = b'{"q": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"
    status, _, body, _ = _call(app, "/echo", chunks=(nested,), headers=JSON)
    assert (status, json.loads(body)) == (
        400, {"error": "Invalid request: malformed JSON (nested too deeply)"})


def test_a_byte_order_mark_and_an_escaped_surrogate_pair_are_read():
    app, _ = _app()
    status, _, body, _ = _call(app, "/echo", chunks=(b'\xef\xbb\xbf{"q": "\\ud83d\\ude00"}',),
                               headers=JSON)
    assert (status, json.loads(body)["fields"]) == (200, {"q": "\U0001f600"})


def test_an_answer_holding_half_a_surrogate_pair_is_written_with_its_escape():
    app, _ = _app()
    status, head, body, _ = _call(app, "/half", method="GET")
    assert (status, body) == (400, b'{"error":"no \\ud800 here"}')
    assert int(head["content-length"]) == len(body)


async def _form_echo(call):
    fields, files = await call.form()
    return {"fields": fields, "files": sorted(files)}


MULTIPART_TYPES = ("multipart/form-data; boundary=b", "multipart/form-data",
                   "multipart/form-data; boundary=", 'multipart/form-data; boundary="',
                   "multipart/form-data; boundary=" + "b" * 200, "multipart/form-data; charset=x")
PARSED_TYPES = ("application/json", "application/x-www-form-urlencoded", "", *MULTIPART_TYPES,
                "application/json; charset=latin-1", "text/plain")


def _fuzzed_bodies(seed=0, count=40):
    """Bodies a parser may choke on: pieces of valid multipart, JSON and form bodies, cut,
    repeated and mixed with random bytes (seeded)."""
    rng = random.Random(seed)
    pieces = [b"--b\r\n", b"--b--\r\n", b'Content-Disposition: form-data; name="q"\r\n',
              b'Content-Disposition: form-data; name="file"; filename="a.txt"\r\n',
              b"Content-Disposition: attachment\r\n", b"Content-Type: text/plain\r\n",
              b"Content-Type: \xff\r\n", b"\r\n", b"hola", b"\xff\xfe", b'{"q": ', b"[", b"]",
              b"}", b"q=a&", b"%", b"%zz", b"\x00", b'name="', b"=" * 3, b"\n", b"\r"]
    bodies = [b"--b\r\nnonsense", b"--b\r\n\r\n", b"--b", b"--b\r\n" + b"x" * 150,
              b'--b\r\nContent-Disposition: form-data; name="q"\r\n\r\nhola',  # never closed
              b"--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--\r\n",  # no name
              b'--b\r\nContent-Disposition: form-data; name="q"\r\nContent-Type: \xff\r\n\r\n'
              b"x\r\n--b--\r\n"]
    for _ in range(count):
        body = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
        if rng.random() < 0.3:
            body += bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
        bodies.append(body[:190])
    return bodies


@pytest.mark.parametrize("content_type", PARSED_TYPES)
def test_no_body_a_parser_chokes_on_is_a_500(content_type):
    """The class: every parser error (multipart, JSON, forms) is a 4xx naming it, never a 500
    (a malformed multipart body sent to a fields route was a 500: MultiPartException)."""
    app = JsonRoutes({"/echo": JsonRoute(_echo, ("POST",)),
                      "/form": JsonRoute(_form_echo, ("POST",))}, _fallback,
                     types.SimpleNamespace(requests=0, errors=0, busy=0), 200)
    for path in ("/echo", "/form"):
        for body in _fuzzed_bodies():
            status, _, answer, _ = _call(app, path, chunks=(body,),
                                         headers=(("content-type", content_type),))
            assert status in (200, 400, 413, 415), (path, body, answer)
            assert "error" in json.loads(answer) or status == 200


def test_a_body_that_does_not_arrive_in_time_is_a_408_that_closes_the_connection():
    app = JsonRoutes({"/echo": JsonRoute(_echo, ("POST",))}, _fallback,
                     types.SimpleNamespace(requests=0, errors=0, busy=0), 200, body_timeout=0.2)
    scope = {"type": "http", "path": "/echo", "method": "POST", "headers": list(
        (k.encode(), v.encode()) for k, v in JSON)}
    incoming = [{"type": "http.request", "body": b'{"q": ', "more_body": True}]
    sent = []

    async def receive():  # a client that sends half its body, then nothing
        if incoming:
            return incoming.pop(0)
        await asyncio.sleep(60)

    async def send(message):
        sent.append(message)

    asyncio.run(asyncio.wait_for(app(scope, receive, send), 5))
    head = dict(sent[0]["headers"])
    assert (sent[0]["status"], head[b"connection"]) == (408, b"close")
    assert json.loads(sent[1]["body"]) == {
        "error": "the request's body did not arrive within 0.2 s"}
