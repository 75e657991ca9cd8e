"""The HTTP application: LibreTranslate's API, the explorer's JSON API, metrics, and the page.

LibreTranslate's routes answer as LibreTranslate 1.9 does (field names, status codes, error
strings its clients and its own API tests read; every error a JSON body `{"error": "..."}`):

* `POST /translate`: form or JSON fields `q` (a string or a list of them), `source` (a code,
  or `auto`: each text's language detected among the sources served into `target`, answered
  as `detectedLanguage`), `target`, `format` (`text` | `html`: the markup kept, see
  `documents`), `alternatives` (extra translations per text, from beam search), `api_key`.
  Answers `{"translatedText": str | [str]}` (+ `alternatives`, `detectedLanguage`).
* `GET /languages`: every language served, as a source or a target, with its `targets`.
* `POST /detect`: `q` -> `[{"confidence": 0-100, "language"}]`, among the served languages.
* `POST /translate_file` (multipart: `file` .txt/.html/.htm, `source`, `target`) ->
  `{"translatedFileUrl"}`; `GET /download_file/<name>` gives it back (`file_store`).
* `GET /frontend/settings`, `GET /spec` (OpenAPI, `openapi`), `GET /health` (`{"status":
  "ok"}`, no more). A route asked with another method answers 405.

The server's own: `GET /metrics` (Prometheus: requests, sentences, errors, batch sizes, garbage
collections; `metrics`); `GET /api/models`; `POST /api/translate` (n-best lists and samples of
a named model, batched with other requests); `POST /api/explore` (one sentence's beam search
tree, n-best list and attention: `served_model.explore`); `GET /` and `GET /static/...`, the
explorer page, from the package's `static/` folder only. 429 when a queue is full, 503 when a
request runs past its time.
"""

import asyncio
import contextlib
import dataclasses
import functools
import gc
import hashlib
import hmac
import json
import math
import re
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import keras_nmt
from keras_nmt.decoding.decoding_options import GREEDY
from keras_nmt.decoding.strategies import STRATEGIES
from keras_nmt.workshop.serve.batcher import Batcher, QueueFull
from keras_nmt.workshop.serve.detection import Detector
from keras_nmt.workshop.serve.documents import (
    DocumentError,
    parse_html,
    translate_html,
    translate_text,
)
from keras_nmt.workshop.serve.file_store import FileStore
from keras_nmt.workshop.serve.json_routes import JsonRoute, JsonRoutes, RawAnswer, RequestError
from keras_nmt.workshop.serve.lanes import Busy, Lane
from keras_nmt.workshop.serve.metrics import CONTENT_TYPE, Counters, exposition
from keras_nmt.workshop.serve.openapi import openapi_document
from keras_nmt.workshop.serve.served_model import explore, explore_export
from keras_nmt.workshop.translators.glossary import Glossary, GlossaryError
from keras_nmt.workshop.translators.word_alignment import confidence, word_alignment

STATIC_DIR = Path(__file__).parent / "static"

# The files `/translate_file` reads, by suffix, and the format each is translated as.
FILE_FORMATS = {".txt": "text", ".html": "html", ".htm": "html"}

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
        timeout: seconds a request may take before it is answered 503 (a file: each batch
            of `max_sentences` of its sentences).
        max_file_bytes: an uploaded file's size (its body is refused beyond it and the
            form's own bytes, before it is read whole).
        max_files: translated files kept for download (the oldest forgotten first).
        max_glossary_terms: terms of a request's glossary (each at most
            `glossary.MAX_TERM_CHARS` characters).
        read_timeout: seconds a request's body may take to arrive (408 beyond it; the server
            gives its head as long: `connections`).
    """

    max_body_bytes: int = 65536
    max_chars: int = 5000
    max_sentence_chars: int = 500
    max_sentences: int = 64
    max_beam_size: int = 8
    max_top_k: int = 20
    timeout: float = 30.0
    max_file_bytes: int = 1_000_000
    max_files: int = 64
    max_glossary_terms: int = 200
    read_timeout: float = 10.0


@dataclasses.dataclass(frozen=True)
class BatchSettings:
    """The queues' settings: the batcher's (see `Batcher`; `max_queue` also bounds language
    detection's queue) and the explorer's (`Lane`: `explore_workers` explorations at once,
    `max_explore_queue` more waiting; beyond them, 429)."""

    max_batch: int = 64
    max_wait: float = 0.030
    max_queue: int = 256
    workers: int = 2
    max_gap: float = 0.002
    explore_workers: int = 1
    max_explore_queue: int = 8


# The decoding options `/api/translate` reads, each for the strategies that take it (the
# registry's `options`), and the other fields of the API's own routes. A field a route does not
# read is refused, not ignored: a misspelt "beam_szie", or a temperature sent with beam search,
# would otherwise translate with the defaults, and the client would never know.
_DECODING_FIELDS = ("beam_size", "n_best", "length_penalty", "temperature", "top_k", "top_p",
                    "seed")
_TRANSLATE_FIELDS = ("alignment", "api_key", "confidence", "model", "q", "strategy")
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


def _flag(body, name):
    """An opt-in field: JSON `true`/`false`, or a form's `true`/`false`/`1`/`0`."""
    value = body.get(name)
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
        return value.lower() in ("true", "1")
    raise RequestError(f"Invalid request: {name} must be true or false, got {value!r}")


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
    # Every language served, as a source or a target, sources first (LibreTranslate lists
    # them all: its clients look a target up among the codes).
    served = list(dict.fromkeys([s for s, _ in by_pair] + [t for _, t in by_pair]))
    detector = Detector(served)
    most_alternatives = max(0, min(limits.max_beam_size, max(
        m.translator.max_beam_size for m in models)) - 1)
    store = FileStore(limits.max_files)
    batchers = {
        m.name: Batcher(m.translator, batching.max_batch, batching.max_wait, batching.max_queue,
                        batching.workers,
                        on_batch=lambda size: counters.batch_sizes.update([size]),
                        max_gap=batching.max_gap)
        for m in models
    }

    # The key's digest: keys are compared as UTF-8 bytes (a header's bytes as sent), by
    # digests of equal length, in constant time.
    key_digest = None if api_key is None else hashlib.sha256(api_key.encode("utf-8")).digest()

    # Exploring (seconds a sentence) and language detection run in lanes of their own: a pile
    # of them neither takes the threads the batchers translate on nor waits without bound.
    # Each refuses work it could not finish within half the timeout at its calls' mean time
    # (half: room for calls slower than the mean; a 429 at once beats a 503 after the timeout).
    exploring = Lane("explore", batching.explore_workers, batching.max_explore_queue,
                     limits.timeout / 2)
    detecting = Lane("detect", 1, batching.max_queue, limits.timeout / 2)

    async def in_lane(lane, doing, function, *args):
        """`function(*args)` in `lane`: 429 with `Retry-After` when its queue is full, or
        when the call could not start within the timeout (once started, it is answered)."""
        try:
            return await lane.run(function, *args, timeout=limits.timeout)
        except Busy as busy:
            raise RequestError(f"Slowdown: the server is busy {doing} (its queue is full, "
                               "or would not be through in time); "
                               f"try again in {busy.retry_after} s", 429,
                               [(b"retry-after", str(busy.retry_after).encode())]) from None

    def check_key(call, body):
        if key_digest is None:
            return
        field = body.get("api_key")
        bearer = call.header_bytes("authorization") or b""
        if bearer[:7].lower() == b"bearer ":
            bearer = bearer[7:]
        given = (field.encode("utf-8") if isinstance(field, str) and field else None) \
            or call.header_bytes("x-api-key") or bearer.strip()
        if not hmac.compare_digest(hashlib.sha256(given).digest(), key_digest):
            raise RequestError("Invalid API key", 403)

    def sentences(body, libre=False):
        """`(q, texts)`; `libre`: LibreTranslate's statuses and strings (its limits are 400s,
        as LibreTranslate's are), else the API's own (413 beyond a limit)."""
        q = _check_type(body, "q", (str, list), required=True)
        texts = [q] if isinstance(q, str) else q
        if not all(isinstance(t, str) for t in texts):
            raise RequestError("Invalid request: q must be a string or a list of strings")
        if not texts or (libre and q == ""):
            raise RequestError("Invalid request: missing q parameter")
        status = 400 if libre else 413
        for size, limit, what in (
            (len(texts), limits.max_sentences, "sentences"),
            (max(len(t) for t in texts), limits.max_sentence_chars, "characters in a text"),
            (sum(len(t) for t in texts), limits.max_chars, "characters"),
        ):
            if size > limit:
                raise RequestError(
                    f"Invalid request: request ({size}) exceeds text limit ({limit})" if libre
                    else f"Invalid request: {size} {what}; at most {limit} per request", status)
        return q, texts

    def language_name(code):
        return LANGUAGE_NAMES.get(code, code)

    def check_pair(source, target):
        """The model serving `source` -> `target` (`source` not `auto`), with LibreTranslate's
        errors: a language not served at all, or a pair not served."""
        for code in (source, target):
            if code not in served:
                raise RequestError(f"{code} is not supported")
        model = by_pair.get((source, target))
        if model is None:
            raise RequestError(
                f"{language_name(target)} ({target}) is not available as a target language "
                f"from {language_name(source)} ({source})")
        return model

    def languages_and_target(body):
        source = _check_type(body, "source", (str,), required=True)
        target = _check_type(body, "target", (str,), required=True)
        if source != "auto":
            check_pair(source, target)
        elif target not in served:
            raise RequestError(f"{target} is not supported")
        elif not any(t == target for _, t in by_pair):
            raise RequestError(f"{language_name(target)} ({target}) is not available as a "
                               "target language from any language served")
        return source, target

    async def detect_sources(texts, target):
        """Each text's detected language among the sources served into `target`:
        `[{"confidence", "language"}]`, one per text."""
        sources = {s for s, t in by_pair if t == target}
        guesses = await in_lane(detecting, "detecting languages",
                                lambda: [detector.detect(t) for t in texts])
        detected = []
        for guess in guesses:
            # The served source most likely, with its confidence among all served languages
            # (a text in the target's own language gets a low one).
            best = next((g for g in guess if g["language"] in sources), None)
            detected.append(best or {"confidence": 0.0, "language": sorted(sources)[0]})
        return detected

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
            raise RequestError("Slowdown: the server is busy (its queue is full); try again",
                               429, [(b"retry-after", b"1")]) from None
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

    def analyses(body, models_used, options):
        """`(options, confidence?, alignment?)`: the opt-in `confidence` and `alignment`
        fields, which greedy decoding with attention gives (`word_alignment`)."""
        wanted = _flag(body, "confidence"), _flag(body, "alignment")
        if not any(wanted):
            return options, False, False
        return aligned_options(models_used, options, "confidence and alignment",
                               wanted[1]), *wanted

    def aligned_options(models_used, options, what, alignment=True):
        """Greedy decoding with attention, for `what` (refused with beam search, sampling or,
        when `alignment`, a model without attention)."""
        if options is not GREEDY and options != GREEDY.replace(return_attention=True):
            raise RequestError(f"Invalid request: {what} come from greedy decoding: not with "
                               "alternatives, beam search or sampling")
        for model in models_used:
            if alignment and not model.describe()["attention"]:
                raise RequestError(f"Invalid request: {what} need a model with attention; "
                                   f"{model.name} has none")
        return GREEDY.replace(return_attention=True)

    def glossary_of(body):
        entries = body.get("glossary")
        if entries is None:
            return None
        if isinstance(entries, str):  # a form field: a JSON object
            try:
                entries = json.loads(entries)
            except (ValueError, RecursionError):  # RecursionError: nested too deeply
                raise RequestError("Invalid request: glossary must be an object of source "
                                   "term -> target term") from None
        if not isinstance(entries, dict):
            raise RequestError("Invalid request: glossary must be an object of source term -> "
                               f"target term, got {type(entries).__name__}")
        if len(entries) > limits.max_glossary_terms:
            raise RequestError(f"Invalid request: glossary has {len(entries)} terms; at most "
                               f"{limits.max_glossary_terms}")
        try:
            return Glossary(entries, where=lambda i: f"term {i + 1}")
        except GlossaryError as error:
            raise RequestError(f"Invalid request: glossary: {error}") from None

    def analysed(result, with_confidence, with_alignment):
        """The opt-in fields of one result."""
        fields = {}
        if with_confidence:
            fields["confidence"] = round(confidence(result), 6)
        if with_alignment:
            fields["alignment"] = word_alignment(result)
        return fields

    def alternatives_of(body, most):
        alternatives = body.get("alternatives")
        if alternatives is None:
            return 0
        if isinstance(alternatives, str):  # a form field: ASCII digits (int() reads "²"
            # as a digit it cannot convert, and refuses over 4,300 digits: both were 500s)
            if not re.fullmatch(r"\s*-?[0-9]{1,9}\s*", alternatives):
                raise RequestError("Invalid request: alternatives parameter is not a number")
            alternatives = int(alternatives)
        if isinstance(alternatives, bool) or not isinstance(alternatives, int):
            raise RequestError("Invalid request: alternatives parameter is not a number")
        if alternatives < 0:
            raise RequestError("Invalid request: alternatives parameter must be >= 0")
        if alternatives > most:
            raise RequestError(f"Invalid request: alternatives parameter must be <= {most}")
        return alternatives

    def translator_of(model, options=GREEDY):
        """An async function of a list of sentences -> their translations by `model`, in
        calls of at most `max_sentences` (a document's sentences queue as several
        requests, each within the timeout)."""
        async def translate(texts):
            out = []
            for start in range(0, len(texts), limits.max_sentences):
                chunk = texts[start:start + limits.max_sentences]
                out += [r.text for r in await run_translation(model, chunk, options)]
            return out
        return translate

    async def translate_document(text_format, model, text):
        try:
            if text_format == "html":
                return await translate_html(text, translator_of(model))
            return await translate_text(text, translator_of(model))
        except DocumentError as error:
            raise RequestError(f"Invalid request: {error}") from None

    async def libre_translate(call):
        body = await call.fields()
        check_key(call, body)
        q, texts = sentences(body, libre=True)
        source, target = languages_and_target(body)
        text_format = _check_type(body, "format", (str,), default="text")
        if text_format not in ("text", "html"):
            raise RequestError(f"{text_format} format is not supported")
        alternatives = alternatives_of(body, most_alternatives)  # and then the model's own
        glossary = glossary_of(body)
        if text_format == "html" and (alternatives or _flag(body, "confidence")
                                      or _flag(body, "alignment") or glossary is not None):
            raise RequestError("Invalid request: alternatives, confidence, alignment and "
                               "glossary are offered with format text only")
        detected = None
        if source == "auto":
            plain = texts
            if text_format == "html":
                try:
                    plain = [parse_html(t).text() for t in texts]
                except DocumentError as error:
                    raise RequestError(f"Invalid request: {error}") from None
            detected = await detect_sources(plain, target)
            chosen = [by_pair[(d["language"], target)] for d in detected]
        else:
            chosen = [by_pair[(source, target)]]
        answer = {}
        if text_format == "html":
            translated = await asyncio.gather(*(
                translate_document("html", model, text)
                for model, text in zip(chosen * len(texts) if detected is None else chosen,
                                       texts, strict=True)))
        else:
            options = GREEDY
            if alternatives:
                options = GREEDY.replace(beam_size=alternatives + 1, n_best=alternatives + 1)
            used = chosen[:1] if detected is None else list(
                {m.name: m for m in chosen}.values())
            if alternatives:
                most = min(m.translator.max_beam_size for m in used) - 1
                if alternatives > most:
                    raise RequestError(
                        f"Invalid request: alternatives parameter must be <= {most}")
            options, with_confidence, with_alignment = analyses(body, used, options)
            if glossary is not None:
                options = aligned_options(used, options, "glossary terms")
            if len(used) == 1:  # the usual case: one request to one batcher
                results = await run_translation(chosen[0], texts, options)
            else:  # source=auto found several languages: one request per model
                results = [None] * len(texts)
                groups = {}
                for i, model in enumerate(chosen):
                    groups.setdefault(model.name, (model, []))[1].append(i)

                async def run(model, indices):
                    done = await run_translation(model, [texts[i] for i in indices], options)
                    for i, result in zip(indices, done, strict=True):
                        results[i] = result

                await asyncio.gather(*(run(m, ix) for m, ix in groups.values()))
            translated = [r.text for r in results]
            if glossary is not None:
                translated = [glossary.apply(text, result)
                              for text, result in zip(texts, results, strict=True)]
            if alternatives:
                answer["alternatives"] = [r.texts[1:] for r in results]
            if with_confidence or with_alignment:
                extra = [analysed(r, with_confidence, with_alignment) for r in results]
                for name in extra[0]:
                    answer[name] = [fields[name] for fields in extra]
        one = isinstance(q, str)
        if not answer:  # the usual answer
            answer = {"translatedText": translated[0] if one else translated}
        else:
            answer = {"translatedText": translated[0] if one else translated,
                      **{k: v[0] if one else v for k, v in answer.items()}}
        if detected is not None:
            answer["detectedLanguage"] = detected[0] if one else detected
        return answer

    async def languages(call):  # public, as LibreTranslate's
        return [{"code": code, "name": language_name(code),
                 "targets": [t for s, t in by_pair if s == code]} for code in served]

    async def detect(call):
        body = await call.fields()
        check_key(call, body)
        q, texts = sentences(body, libre=True)
        if isinstance(q, str):
            return await in_lane(detecting, "detecting languages", detector.detect, q)
        return await in_lane(detecting, "detecting languages", detector.detect_many, texts)

    async def translate_file(call):
        fields, files = await call.form()
        check_key(call, fields)
        upload = files.get("file")
        if upload is None:
            raise RequestError("Invalid request: missing file parameter")
        for name in ("source", "target"):
            if not fields.get(name):
                raise RequestError(f"Invalid request: missing {name} parameter")
        if not upload.filename:
            raise RequestError("Invalid request: empty file")
        suffix = Path(upload.filename).suffix.lower()
        if suffix not in FILE_FORMATS:
            raise RequestError("Invalid request: file format not supported")
        source, target = languages_and_target(fields)
        data = await upload.read()
        if len(data) > limits.max_file_bytes:
            raise RequestError(f"Invalid request: the file is over {limits.max_file_bytes} "
                               "bytes", 413)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise RequestError(f"Invalid request: the file is not UTF-8 text (byte "
                               f"{error.start})") from None
        text_format = FILE_FORMATS[suffix]
        if source == "auto":
            plain = text
            if text_format == "html":
                try:
                    plain = parse_html(text).text()
                except DocumentError as error:
                    raise RequestError(f"Invalid request: {error}") from None
            [found] = await detect_sources([plain[:2000]], target)
            source = found["language"]
        translated = await translate_document(text_format, by_pair[(source, target)], text)
        content_type = "text/html" if text_format == "html" else "text/plain"
        name = store.add(upload.filename, translated.encode("utf-8"),
                         f"{content_type}; charset=utf-8")
        host = call.headers.get("host") or "localhost"
        return {"translatedFileUrl": f"{call.scope.get('scheme', 'http')}://{host}"
                                     f"/download_file/{name}"}

    async def download_file(call):
        name = call.scope["path"].removeprefix("/download_file/")
        stored = store.get(name)
        if stored is None:
            raise RequestError("Invalid filename: no such file (or it has expired)", 404)
        return RawAnswer(stored.body, stored.content_type.encode(), (
            (b"content-disposition", f'attachment; filename="{stored.filename}"'.encode()),))

    async def frontend_settings(call):
        target = next(iter(dict.fromkeys(t for _, t in by_pair)))
        return {
            "charLimit": limits.max_chars, "frontendTimeout": int(limits.timeout * 1000),
            "apiKeys": api_key is not None, "keyRequired": api_key is not None,
            "suggestions": False, "filesTranslation": True,
            "supportedFilesFormat": list(FILE_FORMATS),
            "language": {"source": {"code": "auto", "name": "Auto Detect"},
                         "target": {"code": target, "name": language_name(target)}},
        }

    async def spec(call):
        return openapi_document(keras_nmt.__version__)

    async def list_models(call):  # public: the page asks for the key when one is required
        return {"models": [m.describe() for m in models], "api_key_required": api_key is not None}

    async def api_translate(call):
        body = await call.fields()
        check_key(call, body)
        model = find_model(body)
        _, texts = sentences(body)
        options, with_confidence, with_alignment = analyses(
            body, [model], decoding_options(body, model))
        results = await run_translation(model, texts, options)
        return {"model": model.name, "translations": [
            [{"text": t, "score": s, **analysed(r, with_confidence, with_alignment)}
             for t, s in zip(r.texts, r.scores, strict=True)]
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
        view = await in_lane(exploring, "exploring", view_of, model, q, beam_size, n_best,
                             length_penalty)
        return {"model": model.name, **view}

    async def health(call):  # exactly LibreTranslate's answer
        return {"status": "ok"}

    async def metrics(call):
        return RawAnswer(exposition(counters), CONTENT_TYPE.encode())

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
        exploring.close()
        detecting.close()

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
        "/languages": JsonRoute(languages, ("GET",)),
        "/detect": JsonRoute(detect, ("POST",)),
        "/translate_file": JsonRoute(translate_file, ("POST",),
                                     max_body_bytes=limits.max_file_bytes + 65536),
        "/download_file/": JsonRoute(download_file, ("GET",)),
        "/frontend/settings": JsonRoute(frontend_settings, ("GET",), counted=False),
        "/spec": JsonRoute(spec, ("GET",), counted=False),
        "/api/models": JsonRoute(list_models, ("GET",)),
        "/api/translate": JsonRoute(api_translate, ("POST",)),
        "/api/explore": JsonRoute(api_explore, ("POST",)),
        "/health": JsonRoute(health, ("GET",), counted=False),
        "/metrics": JsonRoute(metrics, ("GET",), counted=False),
    }
    return JsonRoutes(api, page, counters, limits.max_body_bytes, limits.read_timeout)
