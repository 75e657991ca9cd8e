"""The API's routes as a bare ASGI application: a JSON or form body in, a JSON answer out.

`JsonRoutes` answers the routes it holds itself: it reads the body (refused beyond
`max_body_bytes`), calls the route's handler with a `Call` and writes what the handler returns
as JSON. Any other path, and the server's start and stop, go to `fallback` (the Starlette
application that serves the page and its files). Every answer, its own or the fallback's,
carries headers that keep the page from being framed or sniffed.

Why not Starlette's routing for the API: under load, a batch of sentences waits while the event
loop answers the requests of the batch before and reads the clients' next ones, one after the
other. Starlette's layers (its error and exception middleware, the router's pattern matching,
`Request` and `JSONResponse` objects) took about 50 of the 115 microseconds of event-loop time a
LibreTranslate request cost (an instant translator behind the server, 32 clients; one Zen 4
core), so at 28 requests a batch they added over a millisecond to every batch's wait.

Example:
    >>> async def hello(call):
    ...     return {"hello": (await call.fields()).get("name", "world")}
    >>> app = JsonRoutes({"/hello": JsonRoute(hello, ("POST",))}, fallback=starlette_app,
    ...                  counters=Counters(), max_body_bytes=65536)
"""

import asyncio
import dataclasses
import json
import logging
import re
import urllib.parse

from starlette.requests import Request

# What a JSON object or array starts with (no form body does), found without copying the body.
_JSON_START = re.compile(rb"\s*[{\[]")

# Keep the page from being framed (clickjacking) or its files from being sniffed as another type.
SECURITY_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY")]


class RequestError(Exception):
    """A bad request: answered with `status`, `{"error": message}` and extra `headers` (pairs
    of bytes: a 429's `Retry-After`)."""

    def __init__(self, message, status=400, headers=()):
        super().__init__(message)
        self.status, self.headers = status, tuple(headers)


@dataclasses.dataclass(frozen=True)
class JsonRoute:
    """One route: `handler(call)` returns the JSON answer or raises `RequestError`.

    A path that ends with `/` (`/download_file/`) answers every path it starts.

    Attributes:
        handler: an async function of a `Call`; returns what is written as JSON, or a
            `RawAnswer`.
        methods: the HTTP methods it answers (a GET route answers HEAD too, without a body).
        counted: whether its requests and errors count in the server's counters.
        max_body_bytes: the route's largest body (a file upload's), else the application's.
    """

    handler: object
    methods: tuple
    counted: bool = True
    max_body_bytes: int | None = None


@dataclasses.dataclass(frozen=True)
class RawAnswer:
    """An answer that is not JSON: `body` bytes of `content_type`, with extra `headers`
    (pairs of bytes)."""

    body: bytes
    content_type: bytes
    headers: tuple = ()


class Call:
    """One request to a route: its headers (lower-case names) and its whole body."""

    def __init__(self, scope, body):
        self.scope, self.body = scope, body
        self.headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}

    def header_bytes(self, name):
        """The header `name` (lower-case) as the client sent its bytes, or `None` (`headers`
        reads them as Latin-1, as HTTP defines them; a client may send UTF-8)."""
        name = name.encode("latin-1")
        return next((v for k, v in self.scope["headers"] if k == name), None)

    async def form(self):
        """A multipart or URL-encoded form: `(fields, files)`, `files` Starlette's
        `UploadFile`s by field name (the whole body is already in memory, within its limit)."""
        kind = self.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in ("multipart/form-data", "application/x-www-form-urlencoded"):
            raise RequestError("Invalid request: send the file as multipart/form-data", 415)
        fields, files = {}, {}
        for key, value in (await self._form()).multi_items():
            (fields if isinstance(value, str) else files)[key] = value
        return fields, files

    async def fields(self):
        """The request's fields: a JSON object, or form fields (LibreTranslate accepts both)."""
        kind = self.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "application/json":
            try:
                text = self.body.decode("utf-8-sig")  # a byte order mark is allowed
                body = json.loads(text)
            except (UnicodeDecodeError, ValueError) as error:
                raise RequestError(f"Invalid request: malformed JSON ({error})") from None
            except RecursionError:
                raise RequestError("Invalid request: malformed JSON (nested too deeply)") \
                    from None
            if not isinstance(body, dict):
                raise RequestError("Invalid request: the JSON body must be an object")
            if "\\u" in text and not _all_text(body):
                raise RequestError("Invalid request: malformed JSON (a \\u escape of half a "
                                   "surrogate pair, which is not a character)")
            return body
        if kind in ("application/x-www-form-urlencoded", "") and _JSON_START.match(self.body):
            # curl -d sends a form's content type: a JSON body read as a form has no fields.
            raise RequestError("a JSON body needs the header Content-Type: application/json",
                               415)
        if kind in ("application/x-www-form-urlencoded", ""):
            # Read as UTF-8, as LibreTranslate's Flask reads it: `curl -d q=¿Qué?` sends its
            # characters unescaped, and Starlette's parser took their bytes for Latin-1.
            try:
                pairs = urllib.parse.parse_qsl(self.body.decode("utf-8"), keep_blank_values=True,
                                               errors="strict")
            except UnicodeDecodeError as error:
                raise RequestError(f"Invalid request: the form is not UTF-8 ({error})") from None
            fields = {}
            for key, value in pairs:
                fields.setdefault(key, []).append(value)
            return {k: v[0] if len(v) == 1 else v for k, v in fields.items()}
        if kind == "multipart/form-data":
            fields = {}
            for key, value in (await self._form()).multi_items():
                if not isinstance(value, str):
                    raise RequestError(f"Invalid request: {key} must be text, not a file")
                fields.setdefault(key, []).append(value)
            return {k: v[0] if len(v) == 1 else v for k, v in fields.items()}
        raise RequestError(f"unsupported content type {kind!r}: send JSON or a form", 415)

    async def _form(self):
        """Starlette's form parser, fed the body already read; a body it cannot parse is a
        `RequestError` (400) with its message, whichever route asked (a malformed multipart
        body sent to a route of fields was a 500: `MultiPartException`)."""
        async def receive():
            return {"type": "http.request", "body": self.body, "more_body": False}

        try:
            return await Request(self.scope, receive).form()
        except Exception as error:  # the body is in memory: any error is the body's
            raise RequestError(f"Invalid request: malformed form ({error})") from None


class JsonRoutes:
    """The ASGI application (see the module).

    Args:
        routes: `{path: JsonRoute}`.
        fallback: the ASGI application for every other path, and for the lifespan.
        counters: the server's `Counters` (its `requests` and `errors` are counted here).
        max_body_bytes: the largest request body; a larger one is answered 413.
        body_timeout: seconds a request's body may take to arrive whole, from its head's
            arrival; a slower one is answered 408 and its connection closed (`None`: no limit).
    """

    def __init__(self, routes, fallback, counters, max_body_bytes, body_timeout=None):
        self.routes, self.fallback = routes, fallback
        self.counters, self.max_body_bytes = counters, max_body_bytes
        self.body_timeout = body_timeout

    async def __call__(self, scope, receive, send):
        route = None
        if scope["type"] == "http":
            path = scope["path"]
            route = self.routes.get(path)
            if route is None and "/" in path[1:]:  # a route of every path under a folder
                route = self.routes.get(path[: path.index("/", 1) + 1])
        if route is None:
            return await self.fallback(scope, receive, _with_security_headers(send))
        methods = route.methods + (("HEAD",) if "GET" in route.methods else ())
        status, extra, content_type = 200, [], b"application/json"
        if route.counted:
            self.counters.requests += 1
        try:
            if scope["method"] not in methods:
                extra = [(b"allow", ", ".join(methods).encode())]
                raise RequestError("Method Not Allowed", 405)
            try:
                body = await asyncio.wait_for(self._body(
                    scope, receive, route.max_body_bytes or self.max_body_bytes),
                    self.body_timeout)
            except TimeoutError:
                raise RequestError(f"the request's body did not arrive within "
                                   f"{self.body_timeout:g} s", 408,
                                   [(b"connection", b"close")]) from None
            if body is None:  # the client has gone
                return
            answer = await route.handler(Call(scope, body))
            if isinstance(answer, RawAnswer):
                content_type, extra, answer = answer.content_type, list(answer.headers), \
                    answer.body
            else:
                answer = _json(answer)
        except RequestError as error:
            status, answer = error.status, _json({"error": str(error)})
            extra += error.headers
        except Exception as error:  # never a traceback to the client: the message names it
            logging.getLogger("uvicorn.error").exception("error answering %s", scope["path"])
            status = 500
            answer = _json({"error": f"cannot translate: {type(error).__name__}: {error}"})
        if status != 200 and route.counted:
            self.counters.errors += 1
            self.counters.busy += status == 429
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", content_type if status == 200 else b"application/json"),
            (b"content-length", str(len(answer)).encode()),
            *extra, *SECURITY_HEADERS,
        ]})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else answer})

    async def _body(self, scope, receive, limit):
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > limit:
                raise RequestError(f"request body over {limit} bytes", 413)
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            if len(body) > limit:
                raise RequestError(f"request body over {limit} bytes", 413)
            if not message.get("more_body"):
                break
        return body


def _all_text(value):
    """Whether every string in `value` (decoded JSON: its keys too) is text UTF-8 can hold: JSON
    allows `\\ud800`, half of a surrogate pair, which is not a character."""
    pending = [value]
    while pending:  # not recursive: the JSON may be nested as deeply as its parser allows
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            pending += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            pending += item
    return True


def _json(answer):
    """As Starlette's `JSONResponse` writes it (NaN refused: JSON has none), but always writable:
    a string that is not text (half a surrogate pair) is written as its `\\u` escape."""
    try:
        return json.dumps(answer, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(answer, allow_nan=False, separators=(",", ":")).encode("ascii")


def _with_security_headers(send):
    async def send_with_headers(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
        await send(message)

    return send_with_headers
