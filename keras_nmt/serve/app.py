"""The HTTP application: LibreTranslate's API, the explorer's JSON API, health, and the page.

Routes (every error is a JSON body `{"error": "..."}` with a 4xx status, as LibreTranslate
answers; 429 when a queue is full, 503 when a request runs past its time):

* `POST /translate` (LibreTranslate): form or JSON fields `q` (a string or a list of them),
  `source`, `target`, `format` (`text`; `html` is refused), `alternatives` (extra
  translations per sentence, from beam search), `api_key`. Answers
  `{"translatedText": str | [str], "alternatives": [str] | [[str]]}` (alternatives only when
  asked for).
* `GET /languages` (LibreTranslate): `[{"code", "name", "targets"}]`.
* `GET /api/models`: the models, their pairs and what the explorer can show for each.
* `POST /api/translate`: JSON `{"model", "q", "beam_size", "n_best", "length_penalty",
  "strategy" (a `STRATEGIES` name: "greedy"|"beam"|"sample"), "temperature", "top_k", "top_p",
  "seed"}` -> the n-best list with scores (batched with other requests).
* `POST /api/explore`: JSON `{"model", "q", "beam_size", "n_best", "length_penalty", "top_k"}`
  for a run folder's model -> the n-best with per-token log-probabilities, the beam search
  tree step by step with each step's top-k next tokens, and the attention (per layer and head
  for a Transformer); see `served_model.explore`. For an export: its n-best list and, a
  SavedModel's, its greedy translation's attention (`served_model.explore_export`).
* `GET /health`: `{"status": "ok", "models", "counters", "gc"}`: requests, sentences, errors,
  and the batch sizes the batcher formed (count, mean, largest, a histogram); Python's garbage
  collections per generation and the objects frozen out of them (see `lifespan`).
* `GET /` and `GET /static/...`: the explorer page, from the package's `static/` folder only.
"""

import asyncio
import collections
import contextlib
import dataclasses
import functools
import gc
import hmac
import math
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from keras_nmt.decoding import GREEDY, STRATEGIES
from keras_nmt.serve.batcher import Batcher, QueueFull
from keras_nmt.serve.json_routes import JsonRoute, JsonRoutes, RequestError
from keras_nmt.serve.served_model import explore, explore_export

STATIC_DIR = Path(__file__).parent / "static"

# English names of the codes a pair may use; other codes are named by themselves.
LANGUAGE_NAMES = {
    "ar": "Arabic", "de": "German", "en": "English", "es": "Spanish", "fi": "Finnish",
    "fr": "French", "it": "Italian", "ja": "Japanese", "nl": "Dutch", "pt": "Portuguese",
    "ru": "Russian", "sv": "Swedish", "zh": "Chinese",
}


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one request may ask for (each refused with a 4xx beyond it).

    Attributes:
        max_body_bytes: request body size.
        max_chars: characters of all sentences of a request together.
        max_sentence_chars: characters of one sentence.
        max_sentences: sentences per request.
        max_beam_size: beam size (also the most alternatives + 1); at most the models' own.
        max_top_k: next tokens per step the explorer returns.
        timeout: seconds a request may take before it is answered 503.
    """

    max_body_bytes: int = 65536
    max_chars: int = 5000
    max_sentence_chars: int = 500
    max_sentences: int = 64
    max_beam_size: int = 8
    max_top_k: int = 20
    timeout: float = 30.0


@dataclasses.dataclass(frozen=True)
class BatchSettings:
    """The batcher's settings (see `Batcher`)."""

    max_batch: int = 64
    max_wait: float = 0.030
    max_queue: int = 256
    workers: int = 2
    max_gap: float = 0.002


class Counters:
    """Requests, sentences, errors and batch sizes since the server started."""

    def __init__(self):
        self.requests = self.sentences = self.errors = 0
        self.batch_sizes = collections.Counter()

    def as_json(self):
        batches = sum(self.batch_sizes.values())
        total = sum(size * count for size, count in self.batch_sizes.items())
        return {
            "requests": self.requests, "sentences": self.sentences, "errors": self.errors,
            "batches": batches, "mean_batch_size": total / batches if batches else 0.0,
            "largest_batch": max(self.batch_sizes, default=0),
            "batch_sizes": {str(k): v for k, v in sorted(self.batch_sizes.items())},
        }


# The decoding options `/api/translate` reads, each for the strategies that take it (the
# registry's `options`), and the other fields of the API's own routes. A field a route does not
# read is refused, not ignored: a misspelt "beam_szie", or a temperature sent with beam search,
# would otherwise translate with the defaults, and the client would never know.
_DECODING_FIELDS = ("beam_size", "n_best", "length_penalty", "temperature", "top_k", "top_p",
                    "seed")
_TRANSLATE_FIELDS = ("api_key", "model", "q", "strategy")
_EXPLORE_FIELDS = ("api_key", "model", "q", "beam_size", "n_best", "length_penalty", "top_k")


def _check_fields(body, route, fields, strategy=None):
    """Refuses a field of `body` (not null) outside `fields`, those `route` reads."""
    for name, value in body.items():
        if name in fields or value is None:
            continue
        if strategy is not None and name in _DECODING_FIELDS:
            raise RequestError(f"Invalid request: {name} does not apply to "
                               f"{STRATEGIES[strategy].title} (strategy {strategy!r})")
        raise RequestError(f"Invalid request: unknown field {name!r}: {route} reads "
                           f"{', '.join(fields)}")


def _check_type(body, name, kinds, default=None, required=False):
    """`body[name]`, checked to be of one of `kinds` (`bool` is not an `int` here)."""
    if name not in body or body[name] is None:
        if required:
            raise RequestError(f"Invalid request: missing {name} parameter")
        return default
    value = body[name]
    if isinstance(value, bool) and bool not in kinds:
        raise RequestError(f"Invalid request: {name} must be {_names(kinds)}, got a boolean")
    if not isinstance(value, kinds):
        raise RequestError(
            f"Invalid request: {name} must be {_names(kinds)}, got {type(value).__name__}")
    return value


def _names(kinds):
    words = {str: "a string", int: "an integer", float: "a number", list: "a list",
             bool: "true or false"}
    return " or ".join(words[k] for k in kinds)


def _in_range(name, value, low, high):
    if not (isinstance(value, int | float) and math.isfinite(value) and low <= value <= high):
        raise RequestError(f"Invalid request: {name} must be in [{low}, {high}], got {value!r}")
    return value


def create_app(models, limits=Limits(), batching=BatchSettings(), api_key=None):
    """The ASGI application serving `models` (a list of `ServedModel`): the API's routes
    (`JsonRoutes`) in front of a Starlette application for the page and its files.

    Args:
        models: the `ServedModel`s, from `load_served_models`.
        limits: a `Limits`.
        batching: a `BatchSettings`.
        api_key: when set, every API request must carry it (`api_key` field, or an
            `Authorization: Bearer KEY` or `X-API-Key` header); the page itself is public.
    """
    counters = Counters()
    by_name = {m.name: m for m in models}
    by_pair = {}
    for model in models:
        by_pair.setdefault(model.pair, model)  # the first model named serves its pair
    batchers = {
        m.name: Batcher(m.translator, batching.max_batch, batching.max_wait, batching.max_queue,
                        batching.workers,
                        on_batch=lambda size: counters.batch_sizes.update([size]),
                        max_gap=batching.max_gap)
        for m in models
    }

    def check_key(call, body):
        if api_key is None:
            return
        given = (body.get("api_key") if isinstance(body.get("api_key"), str) else None) \
            or call.headers.get("x-api-key") \
            or call.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not given or not hmac.compare_digest(given.encode(), api_key.encode()):
            raise RequestError("Invalid API key", 403)

    def sentences(body):
        q = _check_type(body, "q", (str, list), required=True)
        texts = [q] if isinstance(q, str) else q
        if not all(isinstance(t, str) for t in texts):
            raise RequestError("Invalid request: q must be a string or a list of strings")
        if len(texts) > limits.max_sentences:
            raise RequestError(
                f"Invalid request: {len(texts)} sentences; at most {limits.max_sentences} per "
                "request", 413)
        if not texts:
            raise RequestError("Invalid request: q is an empty list")
        longest = max(len(t) for t in texts)
        if longest > limits.max_sentence_chars:
            raise RequestError(
                f"Invalid request: a sentence of {longest} characters; at most "
                f"{limits.max_sentence_chars}", 413)
        if sum(len(t) for t in texts) > limits.max_chars:
            raise RequestError(
                f"Invalid request: over {limits.max_chars} characters in one request", 413)
        return q, texts

    def find_pair(body):
        source = _check_type(body, "source", (str,), required=True)
        target = _check_type(body, "target", (str,), required=True)
        served = ", ".join(f"{s}->{t}" for s, t in by_pair)
        if source == "auto":  # no detection: the one source served into `target`, if one
            sources = [s for s, t in by_pair if t == target]
            if len(sources) != 1:
                raise RequestError(f"source=auto: {len(sources)} served sources translate into "
                                   f"{target} and there is no language detection; give source; "
                                   f"served pairs: {served}")
            source = sources[0]
        model = by_pair.get((source, target))
        if model is None:
            raise RequestError(f"{source}->{target} is not served; served pairs: {served}")
        return model

    def find_model(body):
        name = _check_type(body, "model", (str,), default=models[0].name)
        if name not in by_name:
            raise RequestError(f"no model {name!r}; served: {', '.join(by_name)}", 404)
        return by_name[name]

    async def run_translation(model, texts, options):
        counters.sentences += len(texts)
        try:
            return await asyncio.wait_for(batchers[model.name].translate(texts, options),
                                          limits.timeout)
        except QueueFull:
            raise RequestError("the server is busy (its queue is full): try again", 429) \
                from None
        except TimeoutError:
            raise RequestError(f"translation took over {limits.timeout:g} s", 503) from None
        except ValueError as error:  # options the translator refuses
            raise RequestError(f"Invalid request: {error}") from None

    def decoding_options(body, model):
        strategy = _check_type(body, "strategy", (str,), default="beam")
        if strategy not in STRATEGIES:
            raise RequestError(
                f"Invalid request: strategy must be one of {', '.join(STRATEGIES)}")
        accepted = STRATEGIES[strategy].options
        _check_fields(body, "/api/translate", _TRANSLATE_FIELDS + tuple(
            name for name in _DECODING_FIELDS if name in accepted), strategy)
        most = min(limits.max_beam_size, model.translator.max_beam_size)
        beam_size = _check_type(body, "beam_size", (int,), default=4 if "beam_size" in accepted
                                else 1)
        beam_size = _in_range("beam_size", beam_size, 1, most)
        n_best = _in_range("n_best", _check_type(body, "n_best", (int,), default=beam_size),
                           1, beam_size)
        length_penalty = _in_range(
            "length_penalty", _check_type(body, "length_penalty", (int, float), default=0.0),
            0.0, 10.0)
        if "beam_size" in accepted:  # beam search; a beam of 1 is greedy decoding
            if beam_size == 1:
                return GREEDY
            return GREEDY.replace(beam_size=beam_size, n_best=n_best,
                                  length_penalty=float(length_penalty))
        fields = {}
        if "temperature" in accepted:
            fields = dict(
                temperature=float(_in_range("temperature", _check_type(
                    body, "temperature", (int, float), default=1.0), 0.0, 100.0)),
                top_k=_in_range("top_k", _check_type(body, "top_k", (int,), default=0), 0,
                                100000) or None,
                top_p=float(_in_range("top_p", _check_type(body, "top_p", (int, float),
                                                           default=1.0), 1e-6, 1.0)),
                seed=_in_range("seed", _check_type(body, "seed", (int,), default=0), 0,
                               2**31 - 1),
            )
        # `GREEDY` itself for greedy decoding: requests with equal options share batches.
        if strategy == GREEDY.chosen_strategy:
            return GREEDY
        return GREEDY.replace(strategy=strategy, **fields)

    async def libre_translate(call):
        body = await call.fields()
        check_key(call, body)
        model = find_pair(body)
        text_format = _check_type(body, "format", (str,), default="text")
        if text_format != "text":
            raise RequestError(f"Invalid request: format {text_format!r}: only text is "
                               "offered")
        alternatives = body.get("alternatives", 0)
        if isinstance(alternatives, str) and alternatives.strip().isdigit():
            alternatives = int(alternatives)  # a form field
        alternatives = _in_range("alternatives", _check_type(
            {"alternatives": alternatives}, "alternatives", (int,), default=0), 0,
            min(limits.max_beam_size, model.translator.max_beam_size) - 1)
        q, texts = sentences(body)
        options = GREEDY
        if alternatives:
            options = GREEDY.replace(beam_size=alternatives + 1, n_best=alternatives + 1)
        results = await run_translation(model, texts, options)
        translated = [r.text for r in results]
        answer = {"translatedText": translated[0] if isinstance(q, str) else translated}
        if alternatives:
            others = [r.texts[1:] for r in results]
            answer["alternatives"] = others[0] if isinstance(q, str) else others
        return answer

    async def languages(call):  # public, as LibreTranslate's
        codes = {}
        for source, target in by_pair:
            codes.setdefault(source, []).append(target)
        return [
            {"code": code, "name": LANGUAGE_NAMES.get(code, code), "targets": targets}
            for code, targets in codes.items()
        ]

    async def list_models(call):  # public: the page asks for the key when one is required
        return {"models": [m.describe() for m in models], "api_key_required": api_key is not None}

    async def api_translate(call):
        body = await call.fields()
        check_key(call, body)
        model = find_model(body)
        _, texts = sentences(body)
        options = decoding_options(body, model)
        results = await run_translation(model, texts, options)
        return {"model": model.name, "translations": [
            [{"text": t, "score": s} for t, s in zip(r.texts, r.scores, strict=True)]
            for r in results
        ]}

    async def api_explore(call):
        body = await call.fields()
        check_key(call, body)
        _check_fields(body, "/api/explore", _EXPLORE_FIELDS)
        model = find_model(body)
        q = _check_type(body, "q", (str,), required=True)
        sentences({"q": q})
        beam_size = _in_range("beam_size", _check_type(body, "beam_size", (int,), default=4), 1,
                              min(limits.max_beam_size, model.translator.max_beam_size))
        n_best = _in_range("n_best", _check_type(body, "n_best", (int,), default=beam_size), 1,
                           beam_size)
        length_penalty = float(_in_range("length_penalty", _check_type(
            body, "length_penalty", (int, float), default=0.0), 0.0, 10.0))
        top_k = _in_range("top_k", _check_type(body, "top_k", (int,), default=5), 1,
                          limits.max_top_k)
        counters.sentences += 1
        # A run folder's Keras model draws the tree; an export gives what it holds.
        view_of = (functools.partial(explore, top_k=top_k) if model.draws_tree
                   else explore_export)
        try:
            view = await asyncio.wait_for(asyncio.to_thread(
                view_of, model, q, beam_size, n_best, length_penalty), limits.timeout)
        except TimeoutError:
            raise RequestError(f"exploring took over {limits.timeout:g} s", 503) from None
        return {"model": model.name, **view}

    async def health(call):
        return {"status": "ok", "models": [m.name for m in models],
                "counters": counters.as_json(),
                "gc": {"collections": [g["collections"] for g in gc.get_stats()],
                       "frozen_objects": gc.get_freeze_count()}}

    async def index(request):
        return FileResponse(STATIC_DIR / "index.html")

    @contextlib.asynccontextmanager
    async def lifespan(app):
        # A full garbage collection walks every object Python tracks: with TensorFlow, Keras and
        # a model loaded, about 420,000 objects, 200-240 ms during which no request is answered
        # (the load test's 99th percentile of latency was such a pause). The objects that exist
        # now, once the models are loaded, are frozen out of every collection.
        gc.collect()
        gc.freeze()
        for batcher in batchers.values():
            batcher.start()
        yield
        for batcher in batchers.values():
            await batcher.stop()

    async def http_error(request, error):
        counters.errors += 1
        return JSONResponse({"error": error.detail or "error"}, status_code=error.status_code)

    async def unexpected(request, error):
        # Never a traceback to the client: the message names what failed.
        counters.errors += 1
        return JSONResponse({"error": f"cannot serve: {type(error).__name__}: {error}"},
                            status_code=500)

    # The page and its files, and the answers to paths that are not the API's.
    page = Starlette(
        routes=[Route("/", index, methods=["GET"]),
                Mount("/static", StaticFiles(directory=STATIC_DIR), name="static")],
        lifespan=lifespan,
        exception_handlers={HTTPException: http_error, Exception: unexpected},
    )
    api = {
        "/translate": JsonRoute(libre_translate, ("POST",)),
        "/languages": JsonRoute(languages, ("GET", "POST")),
        "/api/models": JsonRoute(list_models, ("GET",)),
        "/api/translate": JsonRoute(api_translate, ("POST",)),
        "/api/explore": JsonRoute(api_explore, ("POST",)),
        "/health": JsonRoute(health, ("GET",), counted=False),
    }
    return JsonRoutes(api, page, counters, limits.max_body_bytes)
