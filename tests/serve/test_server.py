"""`keras-nmt serve` as a real server: a LibreTranslate client, plain HTTP, bad requests."""

import asyncio
import concurrent.futures
import http.client
import json
import re
import shutil
import subprocess
import sys
import urllib.parse

import numpy as np
import pytest
from libretranslatepy import LibreTranslateAPI

from keras_nmt.workshop.benchmarks.load_clients import run_clients
from keras_nmt.workshop.translators.ctranslate2_export import export_ctranslate2
from keras_nmt.workshop.translators.export_translator import export_translator
from keras_nmt.workshop.translators.glossary import Glossary
from keras_nmt.workshop.translators.open_translator import open_translator
from keras_nmt.workshop.translators.word_alignment import confidence, word_alignment
from tests.cli.test_quiet import NATIVE_LINE
from tests.export.helpers import SOURCES
from tests.serve.server import REPO, Server, counters, request

pytestmark = pytest.mark.tensorflow


@pytest.fixture(scope="module")
def server(runs):
    transformer, luong = runs
    # A long batch wait and gap, so that concurrent requests certainly meet in one batch.
    # A long timeout: the first request of each beam size traces its graph on a loaded machine.
    server = Server(transformer, f"fr:en={luong}", "--max-wait-ms", "200", "--max-gap-ms", "200",
                    "--max-beam-size", "4", "--timeout", "600")
    yield server
    server.stop()


def test_a_libretranslate_client_translates_as_the_translator_does(server, opened):
    client = LibreTranslateAPI(server.url)
    translator = opened[0]
    for text in SOURCES[:2]:
        assert client.translate(text, "es", "en") == translator(text)
    assert client.translate(SOURCES[0], "fr", "en") == opened[1](SOURCES[0])
    assert client.languages() == [  # every language served, targets too
        {"code": "es", "name": "Spanish", "targets": ["en"]},
        {"code": "fr", "name": "French", "targets": ["en"]},
        {"code": "en", "name": "English", "targets": []},
    ]


def test_a_list_and_alternatives_as_beam_search_gives_them(server, opened):
    status, answer = request(server.url + "translate", {
        "q": SOURCES[:3], "source": "es", "target": "en", "alternatives": 2, "format": "text"})
    assert status == 200
    expected = opened[0].translate_batch(SOURCES[:3], beam_size=3, n_best=3)
    assert answer["translatedText"] == [r.texts[0] for r in expected]
    assert answer["alternatives"] == [r.texts[1:] for r in expected]


@pytest.mark.parametrize("source, target, error", [
    ("de", "en", "de is not supported"),
    ("es", "zz", "zz is not supported"),
    ("es", "fr", "French (fr) is not available as a target language from Spanish (es)"),
    ("auto", "es", "Spanish (es) is not available as a target language from any language "
                   "served"),
])
def test_a_pair_not_served_is_refused_as_libretranslate_refuses_it(server, source, target,
                                                                  error):
    status, answer = request(server.url + "translate", {"q": "x", "source": source,
                                                        "target": target})
    assert (status, answer) == (400, {"error": error})


def test_confidence_alignment_and_a_glossary_as_the_translator_gives_them(server, opened):
    """Opt-in fields of /translate (and /api/translate): greedy decoding with attention."""
    status, answer = request(server.url + "translate", {
        "q": SOURCES[:2], "source": "es", "target": "en", "confidence": True,
        "alignment": True})
    assert status == 200, answer
    expected = opened[0].translate_batch(SOURCES[:2], return_attention=True)
    assert answer["translatedText"] == [r.text for r in expected]
    assert answer["confidence"] == pytest.approx([confidence(r) for r in expected], abs=1e-4)
    assert [a["links"] for a in answer["alignment"]] == [
        word_alignment(r)["links"] for r in expected]
    status, answer = request(server.url + "api/translate", {
        "model": "transformer", "q": SOURCES[0], "strategy": "greedy", "confidence": True})
    assert status == 200 and answer["translations"][0][0]["confidence"] == pytest.approx(
        confidence(expected[0]), abs=1e-4)
    # A glossary: the term is written, whatever the untrained model says.
    status, answer = request(server.url + "translate", {
        "q": SOURCES[0], "source": "es", "target": "en", "glossary": {"March": "MARZO"}})
    assert status == 200
    assert answer["translatedText"] == Glossary({"March": "MARZO"}).apply(SOURCES[0],
                                                                          expected[0])
    assert "MARZO" in answer["translatedText"]
    # The Luong model of fr->en has attention too; a form's glossary is a JSON object.
    status, answer = request(server.url + "translate", raw=urllib.parse.urlencode({
        "q": SOURCES[1], "source": "fr", "target": "en",
        "glossary": json.dumps({"1999": "MCMXCIX"})}).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200 and "MCMXCIX" in answer["translatedText"]


def test_concurrent_requests_are_batched_and_counted(server):
    before = counters(server.url)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda text: request(server.url + "translate", {
            "q": [text, text], "source": "es", "target": "en"}), SOURCES * 2))
    assert [status for status, _ in answers] == [200] * 8
    after = counters(server.url)
    assert after["requests"] - before["requests"] == 8
    assert after["sentences"] - before["sentences"] == 16
    assert after["largest_batch"] > 2  # sentences of several requests in one batch


def test_the_loaded_models_objects_are_frozen_out_of_garbage_collections(server):
    # A full collection walked every object of TensorFlow, Keras and the models (about 420,000
    # with one model): a pause of 200-240 ms for every request in flight.
    collected = counters(server.url)
    assert collected["gc_frozen_objects"] > 100_000
    assert len(collected["gc_collections"]) == 3  # per generation


def test_the_load_clients_count_requests_sentences_and_errors(server):
    """The load benchmark's clients (keep-alive HTTP/1.1 over asyncio) against the server."""
    host, port = server.url.removeprefix("http://").rstrip("/").split(":")
    requests = [[[SOURCES[0]], SOURCES[:3]], [SOURCES[1:3]]]  # 2 clients, 3 requests
    measured = asyncio.run(run_clients(host, int(port), "es", "en", requests, 300,
                                       server_pid=server.process.pid))
    assert (len(measured["latencies"]), measured["sentences"], measured["errors"]) == (3, 6, 0)
    assert measured["server_cpu_seconds"] > 0  # it translated 6 sentences meanwhile
    assert measured["memory_mb"]["after half the requests"] > 100  # TensorFlow alone is more
    # A pair the server does not serve: every answer is a 400, counted as an error.
    refused = asyncio.run(run_clients(host, int(port), "de", "en", requests, 300))
    assert (len(refused["latencies"]), refused["sentences"], refused["errors"]) == (3, 6, 3)


def test_the_explorer_api_tree_finds_beam_searchs_best(server, opened):
    status, view = request(server.url + "api/explore", {
        "model": "transformer", "q": SOURCES[0], "beam_size": 3, "top_k": 4})
    assert status == 200
    expected = opened[0].translate_batch([SOURCES[0]], beam_size=3, n_best=3)[0]
    assert [h["text"] for h in view["hypotheses"]] == expected.texts
    assert [h["score"] for h in view["hypotheses"]] == pytest.approx(expected.scores, abs=1e-5)
    layers = view["attention"]["layers"]
    assert len(layers) == 2 and len(layers[0]) == 2  # 2 layers x 2 heads
    rows = layers[-1][0]
    assert len(rows) == len(view["hypotheses"][0]["tokens"])
    assert len(rows[0]) == len(view["source_tokens"]) == len(SOURCES[0])
    assert all(len(step["top_k"][0]["tokens"]) == 4 for step in view["tree"]["steps"])
    status, models = request(server.url + "api/models")
    assert [(m["name"], m["source"], m["beam_tree"]) for m in models["models"]] == [
        ("transformer", "es", True), ("luong", "fr", True)]
    # Its languages and tokenizers, as recorded (a run made before provenance.json: none).
    assert models["models"][0]["languages"]["source"]["code"] == "es"
    assert models["models"][1]["languages"]["source"]["code"] is None  # the pair is fr:en=RUN's


def test_the_server_prints_no_native_line_or_library_warning_while_the_explorer_answers(server):
    """Issue 68: Keras' softmax-over-axis and TensorFlow's `tf.function retracing` warnings
    (and C++ notes) while the explorer answered sentences of every length."""
    for length in range(1, 9):
        for model in ("transformer", "luong"):
            assert request(server.url + "api/explore", {
                "model": model, "q": SOURCES[2][:length], "beam_size": 2, "top_k": 2})[0] == 200
    printed = server.printed()
    assert not NATIVE_LINE.search(printed), printed
    assert "Warning" not in printed and "retracing" not in printed, printed


def test_a_sentence_without_tokens_is_explored_as_the_translators_translate_it(server, opened):
    # The explorer searched from an empty source and showed a made-up translation.
    status, view = request(server.url + "api/explore", {"model": "transformer", "q": "  ",
                                                        "beam_size": 2})
    assert status == 200
    expected = opened[0].translate_batch(["  "], beam_size=2, n_best=2)[0]
    assert [(h["text"], h["score"]) for h in view["hypotheses"]] == list(
        zip(expected.texts, expected.scores, strict=True)) == [("", 0.0)] * 2
    assert (view["source_tokens"], view["tree"], view["attention"]) == ([], None, None)


def test_the_rich_api_gives_n_best_and_samples(server, opened):
    status, answer = request(server.url + "api/translate", {
        "model": "luong", "q": SOURCES[:2], "beam_size": 2, "n_best": 2})
    assert status == 200
    expected = opened[1].translate_batch(SOURCES[:2], beam_size=2, n_best=2)
    assert [[t["text"] for t in row] for row in answer["translations"]] == [
        r.texts for r in expected]
    status, sampled = request(server.url + "api/translate", {
        "model": "luong", "q": SOURCES[0], "strategy": "sample", "temperature": 0.5, "seed": 3})
    assert status == 200 and len(sampled["translations"][0]) == 1


def test_samples_belong_to_the_sentences_of_a_request_in_any_batch(server, opened):
    # Eight copies of a sentence are eight draws, the translator's own for that input, and
    # the same for two requests the server batches together (each sentence draws by its index
    # in its own request).
    settings = {"strategy": "sample", "temperature": 1.5, "seed": 3}
    expected = [r.text for r in opened[1].translate_batch([SOURCES[0]] * 8, **settings)]
    assert len(set(expected)) == 8
    body = {"model": "luong", "q": [SOURCES[0]] * 8, **settings}
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: request(server.url + "api/translate", body), range(2)))
    for status, answer in answers:
        assert status == 200
        assert [row[0]["text"] for row in answer["translations"]] == expected


MANY = ["a"] * 65


def _multipart(fields, file=None):
    """A multipart body of text `fields` and `file`, a `(filename, bytes)` pair."""
    parts = [f'--b\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in fields.items()]
    if file is not None:
        parts.append(f'--b\r\nContent-Disposition: form-data; name="file"; filename="{file[0]}"'
                     "\r\nContent-Type: application/octet-stream\r\n\r\n".encode()
                     + file[1] + b"\r\n")
    return b"".join(parts) + b"--b--\r\n"


ES_EN = {"source": "es", "target": "en"}
MULTIPART = "multipart/form-data; boundary=b"
BAD_REQUESTS = {
    "malformed JSON": ("translate", b'{"q": "a", ', "application/json", 400),
    "a JSON list": ("translate", b"[1, 2]", "application/json", 400),
    "invalid UTF-8": ("translate", b'{"q": "\xff"}', "application/json", 400),
    "no q": ("translate", {"source": "es", "target": "en"}, None, 400),
    "q a number": ("translate", {"q": 3, "source": "es", "target": "en"}, None, 400),
    "q a list with a number": ("translate", {"q": ["a", 1], "source": "es", "target": "en"},
                               None, 400),
    "q an empty list": ("translate", {"q": [], "source": "es", "target": "en"}, None, 400),
    # LibreTranslate answers its limits with 400s.
    "too many sentences": ("translate", {"q": MANY, "source": "es", "target": "en"}, None, 400),
    "a sentence too long": ("translate", {"q": "a" * 501, "source": "es", "target": "en"}, None,
                            400),
    "too many characters": ("translate", {"q": ["a" * 400] * 20, "source": "es",
                                          "target": "en"}, None, 400),
    "too many sentences, own API": ("api/translate", {"q": MANY}, None, 413),
    "a body too large": ("translate", b"q=" + b"a" * 100_000,
                         "application/x-www-form-urlencoded", 413),
    "no source": ("translate", {"q": "a", "target": "en"}, None, 400),
    "source auto into a language only served as a source": (
        "translate", {"q": "a", "source": "auto", "target": "es"}, None, 400),
    "a number as target": ("translate", {"q": "a", "source": "es", "target": 1}, None, 400),
    "format xml": ("translate", {"q": "a", "source": "es", "target": "en", "format": "xml"},
                   None, 400),
    "negative alternatives": ("translate", {"q": "a", "source": "es", "target": "en",
                                            "alternatives": -1}, None, 400),
    "too many alternatives": ("translate", {"q": "a", "source": "es", "target": "en",
                                            "alternatives": 50}, None, 400),
    "alternatives true": ("translate", {"q": "a", "source": "es", "target": "en",
                                        "alternatives": True}, None, 400),
    "a file as q": ("translate", b'--b\r\nContent-Disposition: form-data; name="q"; '
                    b'filename="x.txt"\r\n\r\nhola\r\n--b--\r\n',
                    "multipart/form-data; boundary=b", 400),
    "plain text": ("translate", b"hola", "text/plain", 415),
    "beam size 0": ("api/translate", {"q": "a", "beam_size": 0}, None, 400),
    "beam size over the limit": ("api/translate", {"q": "a", "beam_size": 1000}, None, 400),
    "beam size a string": ("api/translate", {"q": "a", "beam_size": "4"}, None, 400),
    "n-best over the beam": ("api/translate", {"q": "a", "beam_size": 2, "n_best": 3}, None,
                             400),
    "an unknown strategy": ("api/translate", {"q": "a", "strategy": "best"}, None, 400),
    "temperature NaN": ("api/translate", b'{"q": "a", "strategy": "sample", "temperature": '
                        b'NaN}', "application/json", 400),
    "negative length penalty": ("api/translate", {"q": "a", "length_penalty": -1}, None, 400),
    "an unknown model": ("api/translate", {"q": "a", "model": "nope"}, None, 404),
    "top-k 0": ("api/explore", {"q": "a", "top_k": 0}, None, 400),
    "explore a list": ("api/explore", {"q": ["a", "b"]}, None, 400),
    # Each of these was a 500, the second a plain-text one (its error named the source, which
    # could not be written).
    "half a surrogate pair": ("translate", b'{"q": "\\ud800", "source": "es", "target": "en"}',
                              "application/json", 400),
    "half a surrogate pair as source": (
        "translate", b'{"q": "a", "source": "\\ud800", "target": "en"}', "application/json",
        400),
    "half a surrogate pair to explore": ("api/explore", b'{"q": "\\udfff"}', "application/json",
                                         400),
    "JSON nested too deeply": ("translate", b'{"q": ' + b"[" * 20_000 + b"]" * 20_000 + b"}",
                               "application/json", 400),
    # These were answered, the field ignored: a default beam, not the one asked for.
    "a misspelt field": ("api/translate", {"q": "a", "beam_szie": 2}, None, 400),
    "temperature with beam search": ("api/translate", {"q": "a", "beam_size": 2,
                                                       "temperature": 0.5}, None, 400),
    "a beam size with sampling": ("api/translate", {"q": "a", "strategy": "sample",
                                                    "beam_size": 4}, None, 400),
    "a strategy to explore": ("api/explore", {"q": "a", "strategy": "sample"}, None, 400),
    # curl -d sends a form's content type: the JSON was read as a form ("missing q").
    "JSON sent as a form": ("translate", b'{"q": "a", "source": "es", "target": "en"}',
                            "application/x-www-form-urlencoded", 415),
    # The routes LibreTranslate's surface added, and the fields translators asked for.
    "detect without q": ("detect", {}, None, 400),
    "detect a number": ("detect", {"q": 7}, None, 400),
    "detect an empty list": ("detect", {"q": []}, None, 400),
    "detect a text too long": ("detect", {"q": "a" * 501}, None, 400),
    "detect a list with a number": ("detect", {"q": ["a", 2]}, None, 400),
    "broken HTML": ("translate", {"q": "<p>a <b>b</p>", **ES_EN, "format": "html"}, None, 400),
    "HTML cut off in a tag": ("translate", {"q": '<p>a</p><a href="x', **ES_EN,
                                            "format": "html"}, None, 400),
    "HTML with alternatives": ("translate", {"q": "<p>a</p>", **ES_EN, "format": "html",
                                             "alternatives": 1}, None, 400),
    "format a number": ("translate", {"q": "a", **ES_EN, "format": 1}, None, 400),
    "an empty glossary": ("translate", {"q": "a", **ES_EN, "glossary": {}}, None, 400),
    "a glossary as a list": ("translate", {"q": "a", **ES_EN, "glossary": [["a", "b"]]}, None,
                             400),
    "a glossary term too long": ("translate", {"q": "a", **ES_EN, "glossary": {"a" * 101: "b"}},
                                 None, 400),
    "a glossary target a number": ("translate", {"q": "a", **ES_EN, "glossary": {"a": 1}},
                                   None, 400),
    "a glossary of too many terms": ("translate", {"q": "a", **ES_EN, "glossary": {
        f"t{i}": "x" for i in range(201)}}, None, 400),
    "a glossary with alternatives": ("translate", {"q": "a", **ES_EN, "glossary": {"a": "b"},
                                                   "alternatives": 1}, None, 400),
    "a glossary not JSON in a form": ("translate", b"q=a&source=es&target=en&glossary=a:b",
                                      "application/x-www-form-urlencoded", 400),
    "confidence maybe": ("translate", {"q": "a", **ES_EN, "confidence": "maybe"}, None, 400),
    "alignment with alternatives": ("translate", {"q": "a", **ES_EN, "alignment": True,
                                                  "alternatives": 1}, None, 400),
    "confidence with beam search": ("api/translate", {"q": "a", "confidence": True}, None, 400),
    "a file without a file": ("translate_file", _multipart(ES_EN), MULTIPART, 400),
    "a file without a target": ("translate_file", _multipart(
        {"source": "es"}, ("a.txt", b"hola")), MULTIPART, 400),
    "a file of a format not read": ("translate_file", _multipart(
        ES_EN, ("a.pdf", b"%PDF")), MULTIPART, 400),
    "a file without a name": ("translate_file", _multipart(ES_EN, ("", b"hola")), MULTIPART,
                              400),
    "a file not UTF-8": ("translate_file", _multipart(ES_EN, ("a.txt", b"ol\xe9")), MULTIPART,
                         400),
    "a file of broken HTML": ("translate_file", _multipart(ES_EN, ("a.html", b"<p><i>a</p>")),
                              MULTIPART, 400),
    "a file into a language not served": ("translate_file", _multipart(
        {"source": "es", "target": "zz"}, ("a.txt", b"hola")), MULTIPART, 400),
    "a file over the limit": ("translate_file", _multipart(
        ES_EN, ("a.txt", b"a" * 1_000_001)), MULTIPART, 413),
    "a file sent as JSON": ("translate_file", {"file": "hola", **ES_EN}, None, 415),
    "a malformed multipart body": ("translate_file", b"--b\r\nnonsense", MULTIPART, 400),
    "a file never made": ("download_file/0123.a.txt", None, None, 404),
}


@pytest.mark.parametrize("kind", list(BAD_REQUESTS))
def test_bad_requests_get_a_4xx_json_error(server, kind):
    path, body, content_type, expected = BAD_REQUESTS[kind]
    if body is None:
        status, answer = request(server.url + path)
    elif isinstance(body, bytes):
        status, answer = request(server.url + path, raw=body,
                                 headers={"Content-Type": content_type})
    else:
        status, answer = request(server.url + path, body)
    assert status == expected, answer
    assert isinstance(answer, dict) and set(answer) == {"error"}
    assert "Traceback" not in answer["error"]


def test_chunked_bodies_other_methods_and_head_are_answered_as_json(server):
    host, port = server.url.removeprefix("http://").rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=120)

    def send(method, path, body=None, headers=None):
        connection.request(method, path, body, headers or {},
                           encode_chunked="Transfer-Encoding" in (headers or {}))
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()

    # No Content-Length to refuse it by: the body is counted as its chunks come.
    chunks = (b'{"q": "' + b"a" * 8000 for _ in range(9))
    status, headers, body = send("POST", "/translate", chunks, {
        "Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    assert (status, json.loads(body)) == (413, {"error": "request body over 65536 bytes"})
    assert headers["x-frame-options"] == "DENY"
    connection.close()
    status, headers, body = send("DELETE", "/translate")
    assert (status, headers["allow"], json.loads(body)) == (405, "POST",
                                                            {"error": "Method Not Allowed"})
    status, headers, body = send("HEAD", "/languages")
    assert (status, headers["content-type"], body) == (200, "application/json", b"")
    assert int(headers["content-length"]) == len(json.dumps(request(server.url + "languages")[1],
                                                            separators=(",", ":")))


@pytest.mark.parametrize("path, status", [
    ("translate", 405),                    # GET on a POST route
    ("nowhere", 404),
    ("static/../app.py", 404),
    ("static/%2e%2e/app.py", 404),
    ("static/..%2fserved_model.py", 404),
    ("static/%2e%2e/%2e%2e/cli/serve.py", 404),
    ("static//etc/passwd", 404),
])
def test_nothing_outside_the_page_folder_is_served(server, path, status):
    code, answer = request(server.url + path)
    assert code == status
    assert "import" not in json.dumps(answer) and "root:" not in json.dumps(answer)


def test_the_page_and_its_files_are_served(server):
    status, page = request(server.url)
    assert status == 200 and "explorer.js" in page
    assert request(server.url + "static/explorer.js")[0] == 200


def test_exports_are_served_and_an_api_key_is_required_when_set(runs, tmp_path):
    """A SavedModel and a CTranslate2 export of the same runs, behind an API key."""
    pytest.importorskip("ctranslate2")
    saved = export_translator(runs[1], tmp_path / "saved", name="luong", max_beam_size=2)
    ct2 = export_ctranslate2(runs[0], tmp_path / "ct2")
    server = Server(f"es:en={saved}", f"fr:de={ct2}", "--api-key", "s3cret")
    try:
        refused = request(server.url + "translate", {"q": "a", "source": "es", "target": "en"})
        assert refused == (403, {"error": "Invalid API key"})
        wrong = request(server.url + "translate", {"q": "a", "source": "es", "target": "en",
                                                   "api_key": "guess"})
        assert wrong[0] == 403
        client = LibreTranslateAPI(server.url, api_key="s3cret")
        # Each opened once here: a SavedModel's load takes seconds.
        opened = {saved: open_translator(saved), ct2: open_translator(ct2)}
        for source, target, path in (("es", "en", saved), ("fr", "de", ct2), ("auto", "de", ct2)):
            assert client.translate(SOURCES[0], source, target) == opened[path](SOURCES[0])
        key = {"X-API-Key": "s3cret"}
        status, answer = request(server.url + "api/translate",
                                 {"model": "ct2", "q": SOURCES[0], "beam_size": 2}, headers=key)
        assert status == 200 and len(answer["translations"][0]) == 2
        # An export has no Keras model to draw the tree from: the explorer gets its n-best list
        # and, from a SavedModel, its greedy translation's attention (it was a 422).
        bearer = {"Authorization": "Bearer s3cret"}
        status, view = request(server.url + "api/explore", {
            "model": "luong", "q": SOURCES[0], "beam_size": 2}, headers=bearer)
        assert status == 200 and view["tree"] is None, view
        expected = opened[saved].translate_batch([SOURCES[0]], beam_size=2, n_best=2)[0]
        assert [h["text"] for h in view["hypotheses"]] == expected.texts
        greedy = opened[saved].translate_batch([SOURCES[0]], return_attention=True)[0]
        assert view["source_tokens"] == greedy.source_tokens
        assert view["attention"]["target_tokens"] == greedy.target_tokens
        np.testing.assert_allclose(view["attention"]["layers"][0][0], greedy.weights, atol=1e-6)
        status, view = request(server.url + "api/explore", {
            "model": "ct2", "q": SOURCES[0], "beam_size": 2}, headers=bearer)
        assert status == 200 and view["attention"] is None and len(view["hypotheses"]) == 2
        status, listed = request(server.url + "api/models")  # public, as the page is
        assert status == 200 and listed["api_key_required"] is True
        models = {m["name"]: m for m in listed["models"]}
        assert (models["luong"]["attention"], models["luong"]["beam_tree"]) == (True, False)
        _explore_with_a_key(server, expected.texts)
    finally:
        server.stop()


def _explore_with_a_key(server, texts):
    """The page behind --api-key asks for the key and sends it (it answered every sentence with
    "error: Invalid API key", with no way to give one)."""
    browser = _browser()
    from selenium.webdriver.common.by import By  # noqa: PLC0415 (selenium is optional)
    from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: PLC0415

    try:
        browser.get(server.url)
        WebDriverWait(browser, 60).until(
            lambda b: len(b.find_elements(By.CSS_SELECTOR, "#model-a option")) == 2)
        assert browser.find_element(By.ID, "key-field").is_displayed()
        Select(browser.find_element(By.ID, "model-b")).select_by_value("")
        browser.find_element(By.ID, "beam").clear()
        browser.find_element(By.ID, "beam").send_keys("2")
        browser.find_element(By.ID, "sentence").send_keys(SOURCES[0])
        browser.find_element(By.ID, "submit").click()
        assert _status_when_answered(browser, 120) == "error: Invalid API key"
        browser.find_element(By.ID, "api-key").send_keys("s3cret")
        browser.find_element(By.ID, "submit").click()
        assert _status_when_answered(browser, 120) == "done"
        rows = browser.find_elements(By.CSS_SELECTOR, ".nbest tbody tr")
        assert [row.find_elements(By.TAG_NAME, "td")[1].text for row in rows] == texts
    finally:
        browser.quit()


@pytest.mark.parametrize("spec, named", [
    ("es:en={missing}", "{missing}"),
    ("{run}", "{run}: no language pair"),
])
def test_a_model_that_cannot_be_served_is_named_and_the_command_fails(runs, tmp_path, spec,
                                                                      named):
    values = {"missing": tmp_path / "no-such-run", "run": runs[1]}
    completed = subprocess.run(
        [sys.executable, "-m", "keras_nmt", "serve", spec.format(**values), "--port", "0"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 1
    last = completed.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and named.format(**values) in last
    assert "Traceback" not in completed.stderr


def _browser():
    """Headless chromium (Debian's, with its driver), or a skip where it is missing."""
    webdriver = pytest.importorskip("selenium.webdriver")
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("needs Debian's chromium and chromium-driver (make test installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,1300"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options,
                            service=webdriver.ChromeService(executable_path=driver_path))


def _status_when_answered(browser, seconds):
    """The page's status line once the request it sent is done or has failed."""
    from selenium.webdriver.common.by import By  # noqa: PLC0415 (selenium is optional)
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: PLC0415

    def answered(b):
        status = b.find_element(By.ID, "status").text
        return status if status == "done" or status.startswith("error") else False

    return WebDriverWait(browser, seconds).until(answered)


def test_the_explorer_page_in_a_headless_browser(server, tmp_path):
    browser = _browser()
    from selenium.webdriver.common.by import By  # noqa: PLC0415 (selenium is optional)
    from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: PLC0415

    try:
        browser.get(server.url)
        WebDriverWait(browser, 60).until(
            lambda b: len(b.find_elements(By.CSS_SELECTOR, "#model-b option")) == 3)
        assert not browser.find_element(By.ID, "key-field").is_displayed()  # no key needed
        browser.find_element(By.ID, "sentence").send_keys(SOURCES[0])
        browser.find_element(By.ID, "submit").click()
        assert _status_when_answered(browser, 300) == "done"
        panels = browser.find_elements(By.CSS_SELECTOR, ".panel")
        assert len(panels) == 2  # the two models side by side
        for panel, name in zip(panels, ["transformer", "luong"], strict=True):
            _, view = request(server.url + "api/explore", {"model": name, "q": SOURCES[0],
                                                           "beam_size": 3, "top_k": 5})
            targets = len(view["hypotheses"][0]["tokens"])
            cells = panel.find_elements(By.CSS_SELECTOR, ".heatmap td.cell")
            assert len(cells) == len(SOURCES[0]) * targets
            nodes = panel.find_elements(By.CSS_SELECTOR, ".tree g.node")
            expected = 1 + sum(len(step["candidates"]) for step in view["tree"]["steps"])
            assert len(nodes) == expected
            assert panel.find_element(By.CSS_SELECTOR, ".translation").text == \
                view["hypotheses"][0]["text"]
        # The Transformer's layers and heads can be chosen.
        layers = panels[0].find_elements(By.CSS_SELECTOR, "select.layer option")
        heads = panels[0].find_elements(By.CSS_SELECTOR, "select.head option")
        assert (len(layers), len(heads)) == (2, 3)  # 2 layers; 2 heads and their mean
        _check_the_page_says_what_it_shows(browser, panels)
        screenshot = tmp_path / "explorer.png"
        assert browser.save_screenshot(str(screenshot))
        assert screenshot.stat().st_size > 10_000
        # Sampling: the form's settings reach the API, and the same seed draws the same samples.
        Select(browser.find_element(By.ID, "strategy")).select_by_value("sample")
        assert browser.find_element(By.ID, "sample-options").is_displayed()
        assert not browser.find_element(By.ID, "beam-options").is_displayed()
        for field, value in (("samples", "3"), ("temperature", "1.5"), ("seed", "7")):
            browser.find_element(By.ID, field).clear()
            browser.find_element(By.ID, field).send_keys(value)
        browser.find_element(By.ID, "submit").click()
        assert _status_when_answered(browser, 300) == "done"
        panels = browser.find_elements(By.CSS_SELECTOR, ".panel")
        for panel, name in zip(panels, ["transformer", "luong"], strict=True):
            _, answer = request(server.url + "api/translate", {
                "model": name, "q": [SOURCES[0]] * 3, "strategy": "sample", "temperature": 1.5,
                "top_k": 0, "top_p": 1.0, "seed": 7})
            rows = panel.find_elements(By.CSS_SELECTOR, ".nbest tbody tr")
            assert [row.find_elements(By.TAG_NAME, "td")[1].text for row in rows] == \
                [sample[0]["text"] for sample in answer["translations"]]
            assert "3 samples, temperature 1.5" in panel.find_element(By.CSS_SELECTOR, ".note").text
            # The boxes sampling cannot fill are hidden, each with its reason (not left empty).
            reasons = [r.text for r in panel.find_elements(By.CSS_SELECTOR, ".hidden-reasons li")]
            assert [r.split(":")[0] for r in reasons] == ["attention", "beam search tree"]
            assert not panel.find_element(By.CSS_SELECTOR, ".tree-box").is_displayed()
    finally:
        browser.quit()


def _check_the_page_says_what_it_shows(browser, panels):
    """Issue 68: the tree opened at its first steps (the finished hypotheses out of sight), the
    top-k captions named node ids ("after 8.2") the tree never showed, and the heatmap had no
    colour scale."""
    from selenium.webdriver.common.by import By  # noqa: PLC0415 (selenium is optional)

    for panel in panels:
        tree = panel.find_element(By.CSS_SELECTOR, ".tree")
        left, width, client = (browser.execute_script(f"return arguments[0].{name}", tree)
                               for name in ("scrollLeft", "scrollWidth", "clientWidth"))
        assert left + client >= width - 2  # scrolled to the end of the search
        assert width <= client or left > 0
        words = " ".join  # SVG text as the browser gives it: white space collapsed
        shown = {(node.get_attribute("data-step"),
                  words(node.find_element(By.TAG_NAME, "text").text.split()))
                 for node in panel.find_elements(By.CSS_SELECTOR, ".tree g.node[data-step]")}
        captions = [c.text for c in panel.find_elements(By.CSS_SELECTOR, ".topk caption")]
        assert captions
        for caption in captions:
            match = re.fullmatch(r"step \d+: after (<s> \(the start\)|“(.*)” \(step (\d+), "
                                 r"#(\d+)\))", caption)
            assert match, caption
            if match[3]:  # a node of the tree: its column and its "#rank text" label
                label = words(f"#{match[4]} {match[2]}".split())
                assert (str(int(match[3]) - 1), label) in shown, caption
        scale = panel.find_element(By.CSS_SELECTOR, ".attention-box .scale")
        assert scale.is_displayed() and "attention weight" in scale.text
        assert panel.find_elements(By.CSS_SELECTOR, ".hidden-reasons li") == []
