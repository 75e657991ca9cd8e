"""`keras-nmt serve` answers as LibreTranslate 1.9 does: what its own API tests check (status
codes, methods, field names, error strings, the `/health` body), and what its clients read:
third-party LibreTranslate clients against it, Python's `libretranslatepy` and npm's
`libretranslate` (run by Debian's node; installed into a folder of the test's own)."""

import asyncio
import http.client
import json
import shutil
import subprocess
import types
import urllib.parse
import urllib.request
import uuid

import pytest
from libretranslatepy import LibreTranslateAPI

from keras_nmt.workshop.serve.app import create_app
from keras_nmt.workshop.serve.documents import (
    Element,
    Markup,
    Text,
    parse_html,
    translate_html,
    translate_text,
)
from keras_nmt.workshop.serve.openapi import openapi_document
from tests.serve.server import Server, request

pytestmark = pytest.mark.tensorflow

# The npm client's version, pinned: the one whose failure against an earlier server was seen.
NPM_CLIENT = "libretranslate@1.0.1"
SPANISH = "La biblioteca está cerrada los domingos."
ENGLISH = "The library is closed on Sundays."


@pytest.fixture(scope="module")
def server(runs):
    """English -> Spanish (the pair LibreTranslate's tests ask for) and Spanish -> English;
    one server for the module, the clients' tests too (a start is a TensorFlow import and two
    models loaded)."""
    transformer, luong = runs
    server = Server(f"en:es={luong}", transformer, "--timeout", "600",
                    "--max-file-bytes", "20000")
    yield server
    server.stop()


def form(url, fields):
    """`(status, parsed JSON)` of a POST of URL-encoded form fields."""
    data = urllib.parse.urlencode(fields).encode()
    return request(url, raw=data, headers={"Content-Type": "application/x-www-form-urlencoded"})


def test_translate_takes_a_form_or_json_and_a_text_or_a_list(server, opened):
    luong = opened[1]
    status, answer = form(server.url + "translate", {"q": "Hello", "source": "en",
                                                     "target": "es", "format": "text"})
    assert (status, answer) == (200, {"translatedText": luong("Hello")})
    status, answer = request(server.url + "translate", {
        "q": ["Hello", "World"], "source": "en", "target": "es", "format": "text"})
    assert status == 200
    assert answer == {"translatedText": [luong("Hello"), luong("World")]}


@pytest.mark.parametrize("fields, error", [
    ({"source": "en", "target": "es", "format": "text"}, "Invalid request: missing q parameter"),
    ({"q": "Hello", "source": "en", "target": "zz"}, "zz is not supported"),
    ({"q": "Hello", "source": "zz", "target": "es"}, "zz is not supported"),
    ({"q": "Hello", "target": "es"}, "Invalid request: missing source parameter"),
    ({"q": "Hello", "source": "en", "target": "es", "format": "pdf"},
     "pdf format is not supported"),
    ({"q": "Hello", "source": "en", "target": "es", "alternatives": "two"},
     "Invalid request: alternatives parameter is not a number"),
    ({"q": "Hello", "source": "es", "target": "es"},
     "Spanish (es) is not available as a target language from Spanish (es)"),
])
def test_refusals_carry_libretranslates_strings(server, fields, error):
    assert form(server.url + "translate", fields) == (400, {"error": error})


@pytest.mark.parametrize("path, right, wrong", [
    ("languages", "GET", "POST"), ("health", "GET", "POST"), ("spec", "GET", "POST"),
    ("frontend/settings", "GET", "POST"), ("metrics", "GET", "POST"),
    ("detect", "POST", "GET"), ("translate", "POST", "GET"), ("translate_file", "POST", "GET"),
])
def test_a_route_asked_with_the_wrong_method_answers_405(server, path, right, wrong):
    status, answer = request(server.url + path, method=wrong,
                             raw=b"" if wrong == "POST" else None)
    assert (status, answer) == (405, {"error": "Method Not Allowed"})


def test_health_is_exactly_libretranslates_and_the_counters_are_metrics(server):
    assert request(server.url + "health") == (200, {"status": "ok"})
    with urllib.request.urlopen(server.url + "metrics") as response:
        text = response.read().decode()
    assert "# TYPE keras_nmt_requests_total counter" in text
    assert "# TYPE keras_nmt_batch_size histogram" in text


def test_languages_lists_every_language_served_with_its_targets(server):
    status, languages = request(server.url + "languages")
    assert status == 200
    assert languages == [{"code": "en", "name": "English", "targets": ["es"]},
                         {"code": "es", "name": "Spanish", "targets": ["en"]}]


def test_detect_answers_served_languages_most_likely_first(server):
    status, answer = form(server.url + "detect", {"q": "¿Dónde está la biblioteca de la ciudad?"})
    assert status == 200
    assert [guess["language"] for guess in answer] == ["es", "en"]
    assert answer[0]["confidence"] > 90 and sum(g["confidence"] for g in answer) == \
        pytest.approx(100, abs=0.2)
    status, answer = request(server.url + "detect", {
        "q": ["The library is closed on Sundays.", "Where is the train station?"]})
    assert status == 200 and answer[0]["language"] == "en"
    assert form(server.url + "detect", {}) == (400, {
        "error": "Invalid request: missing q parameter"})


def test_source_auto_detects_each_texts_language(server, opened):
    luong, transformer = opened[1], opened[0]
    english = "The library is closed on Sundays."
    spanish = "La biblioteca está cerrada los domingos."
    status, answer = request(server.url + "translate", {"q": english, "source": "auto",
                                                        "target": "es"})
    assert status == 200 and answer["translatedText"] == luong(english)
    assert answer["detectedLanguage"]["language"] == "en"
    assert answer["detectedLanguage"]["confidence"] > 90
    # Into English only Spanish is served: a Spanish text is detected as such.
    status, answer = request(server.url + "translate", {"q": [spanish], "source": "auto",
                                                        "target": "en"})
    assert status == 200 and answer["translatedText"] == [transformer(spanish)]
    assert answer["detectedLanguage"][0]["language"] == "es"


def test_frontend_settings_and_the_spec(server):
    status, settings = request(server.url + "frontend/settings")
    assert status == 200
    assert settings["language"]["source"] == {"code": "auto", "name": "Auto Detect"}
    assert settings["supportedFilesFormat"] == [".txt", ".html", ".htm"]
    assert settings["charLimit"] == 5000 and settings["apiKeys"] is False
    status, spec = request(server.url + "spec")
    assert status == 200 and spec["openapi"].startswith("3.")
    for path, methods in spec["paths"].items():
        for method in methods:
            url = server.url + path[1:].replace("{filename}", "nothing.txt")
            code, _ = request(url, method=method.upper(), raw=b"" if method == "post" else None)
            assert code not in (405, 500), (path, method)


def test_the_spec_names_every_route_and_nothing_else():
    model = types.SimpleNamespace(name="m", pair=("es", "en"),
                                  translator=types.SimpleNamespace(max_beam_size=4))
    app = create_app([model])
    spec_paths = {path.replace("{filename}", "") for path in openapi_document("0")["paths"]}
    assert spec_paths == set(app.routes)


def test_a_text_file_and_an_html_file_are_translated_and_downloaded(server, opened, tmp_path):
    translator = opened[1]
    text = "Hello. Good morning!\n\n  Goodbye.\n"
    html = '<p class="x">Good <b>morning</b>.</p>'
    for name, body, expected in (
        ("notes.txt", text, f"{translator('Hello.')} {translator('Good morning!')}\n\n  "
                            f"{translator('Goodbye.')}\n"),
        ("page.html", html, None),
    ):
        status, answer = _upload(server, name, body.encode(), "en", "es")
        assert status == 200, answer
        url = answer["translatedFileUrl"]
        assert url.startswith(server.url + "download_file/") and url.endswith("." + name)
        with urllib.request.urlopen(url) as response:
            downloaded = response.read().decode()
            assert response.headers["content-disposition"] == f'attachment; filename="{name}"'
        if expected is not None:
            assert downloaded == expected
        else:
            assert _shape(parse_html(downloaded)) == _shape(parse_html(html))
    assert request(server.url + f"download_file/{uuid.uuid4().hex}.notes.txt")[0] == 404


def _upload(server, name, data, source, target, extra=b""):
    boundary = "b0undary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="source"\r\n\r\n{source}\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="target"\r\n\r\n{target}\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n",
    ]
    body = "".join(parts).encode() + data + extra + f"\r\n--{boundary}--\r\n".encode()
    return request(server.url + "translate_file", raw=body,
                   headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})


def _shape(node):
    """The tree without its text: tags, attributes and their order, comments kept."""
    if isinstance(node, Text):
        return None
    if isinstance(node, Markup):
        return node.value
    children = [_shape(child) for child in node.children]
    return (node.tag, node.attrs, [c for c in children if c is not None])


def _texts(node):
    if isinstance(node, Text):
        return [node.value] if node.value.strip() and not node.raw else []
    if isinstance(node, Element):
        return [t for child in node.children for t in _texts(child)]
    return []


# Twenty documents: nested inline markup, attributes, entities, scripts, styles, comments,
# void elements, preformatted text and untranslated parts.
HTML_DOCUMENTS = [
    "<p>Hello <b>world</b>.</p>",
    '<p class="intro" id="p1">The <a href="/x?a=1&amp;b=2" title="A &quot;link&quot;">cat</a> '
    "sleeps.</p>",
    "<div><p>One <em>two <strong>three</strong></em> four.</p><p>Five.</p></div>",
    "<ul><li>Red<li>Green<li><i>Blue</i></ul>",
    "<p>Tom &amp; Mary &lt;3 caf&eacute; &#169; &#x263A;</p>",
    "<html><head><title>My page</title><script>var a = 1 < 2 && 3 > 2;</script>"
    "<style>p { color: red; }</style></head><body><p>Text.</p></body></html>",
    "<!DOCTYPE html><p>Before<!-- a comment -->after.</p>",
    '<p>Line one<br>line two<br/>line <img src="x.png" alt="a cat"> three.</p>',
    "<table><tr><td>Cell one<td>Cell two</tr><tr><th>Head</th></tr></table>",
    "<pre>  keep   this\n  as it is </pre><p>But translate this.</p>",
    '<p>Run <code>ls -la</code> in the <span class="x">folder</span>.</p>',
    '<p translate="no">Do not translate.</p><p class="notranslate">Nor this.</p><p>This.</p>',
    "<h1>Title</h1><h2>Subtitle <small>small</small></h2>",
    '<p><a href="#a"><b>Bold link</b></a> and <a href="#b">plain link</a>.</p>',
    "<blockquote><p>A quote.</p><footer>Someone</footer></blockquote>",
    '<form><label for="n">Name</label><input id="n" name="n" value="x"><button>Send</button>'
    "</form>",
    "<p>Sentence one. Sentence two! Sentence three?</p>",
    "<p><sup>1</sup>Footnote <sub>a</sub> text <mark>marked</mark> <u>under</u>.</p>",
    '<div data-x="1" hidden><span lang="en">Hello</span> <span>there</span></div>',
    "<svg><text>not html text</text></svg><p>After the picture.</p>",
]


def test_html_keeps_every_tag_and_attribute_and_changes_only_text(server, opened):
    """Each document's tree (tags, attributes, order) comes back unchanged; its text is the
    model's (the untrained model writes other words)."""
    assert len(HTML_DOCUMENTS) == 20
    status, answer = request(server.url + "translate", {
        "q": HTML_DOCUMENTS, "source": "en", "target": "es", "format": "html"})
    assert status == 200, answer
    translator = opened[1]
    for document, translated in zip(HTML_DOCUMENTS, answer["translatedText"], strict=True):
        before, after = parse_html(document), parse_html(translated)
        assert _shape(after) == _shape(before), (document, translated)
        kept = [t for t in _texts(before) if t not in _texts(after)]
        assert all(translator(t.strip()) != t.strip() for t in kept)


def test_inline_markup_moves_with_its_words():
    """`documents.translate_html` with a translator that reverses word order: the inline
    element's words are found in the sentence's translation and the tag is put around them."""
    async def reverse(texts):
        return [" ".join(reversed(text.split())) for text in texts]

    translated = asyncio.run(translate_html(
        '<p>I went to <b class="c">Paris</b> last summer</p><pre>a b</pre>', reverse))
    assert translated == '<p>summer last <b class="c">Paris</b> to went I</p><pre>a b</pre>'
    # Two elements whose words swap places cannot keep the tree's order: each text node is
    # translated on its own instead (LibreTranslate would leave the sentence untranslated).
    translated = asyncio.run(translate_html("<p>I saw <b>Paris</b> in <i>May</i></p>", reverse))
    assert translated == "<p>saw I <b>Paris</b> in <i>May</i></p>"


def test_an_upload_over_the_limit_is_refused_before_it_is_read(server):
    """Refused by its Content-Length, before the body is read: the server answers while the
    client has sent only the headers."""
    host, port = server.url.removeprefix("http://").rstrip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    connection.putrequest("POST", "/translate_file")
    connection.putheader("Content-Type", "multipart/form-data; boundary=b")
    connection.putheader("Content-Length", str(50_000_000))
    connection.endheaders()  # no body sent at all
    response = connection.getresponse()
    assert response.status == 413
    assert json.loads(response.read()) == {"error": "request body over 85536 bytes"}


def test_a_piece_without_a_letter_is_kept_not_translated():
    """A lone `.` left after an inline element (or a line of dashes) was sent to the model,
    which wrote a sentence of its own for it (`He got up.`)."""
    sent = []

    async def record(texts):
        sent.extend(texts)
        return [f"<{text}>" for text in texts]

    html = asyncio.run(translate_html("<p>Hola <b>amigo</b>. 1999</p>", record))
    assert all(any(c.isalpha() for c in text) for text in sent), sent
    assert html == "<p>&lt;Hola&gt; <b>&lt;amigo&gt;</b>. 1999</p>"
    assert asyncio.run(translate_text("Hola.\n----\n1.", record)) == "<Hola.>\n----\n1."


def test_libretranslatepy_translates_lists_languages_and_detects(server, opened):
    client = LibreTranslateAPI(server.url)
    transformer, luong = opened
    assert client.translate(SPANISH, "es", "en") == transformer(SPANISH)
    assert client.translate(ENGLISH, "auto", "es") == luong(ENGLISH)
    assert client.languages() == [{"code": "en", "name": "English", "targets": ["es"]},
                                  {"code": "es", "name": "Spanish", "targets": ["en"]}]
    detected = client.detect(SPANISH)
    assert detected[0]["language"] == "es" and detected[0]["confidence"] > 90


@pytest.fixture(scope="module")
def npm_client(tmp_path_factory):
    """A folder with npm's `libretranslate` installed; skips where node or npm is absent."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("needs Debian's nodejs and npm (make test installs them as root)")
    folder = tmp_path_factory.mktemp("npm")
    installed = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(folder),
         NPM_CLIENT], capture_output=True, text=True, timeout=600)
    if installed.returncode != 0:
        pytest.skip(f"npm could not install {NPM_CLIENT}: {installed.stderr.strip()[-300:]}")
    return folder


def _node(folder, script):
    completed = subprocess.run(["node", "-e", script], cwd=folder, capture_output=True,
                               text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_the_npm_client_translates_with_a_source_and_with_detection(server, opened, npm_client):
    """npm's client reads /languages itself and refuses a target it does not list as a code
    (the server listed its sources only); without a source it sends `auto`. It has no call of
    its own to list languages or detect."""
    transformer, luong = opened
    script = f"""
        const {{ translate }} = require("libretranslate");
        const apiurl = {json.dumps(server.url.rstrip("/"))};
        (async () => {{
            const given = await translate({{ query: {json.dumps(SPANISH)}, source: "es",
                                             target: "en", apiurl }});
            const detected = await translate({{ query: {json.dumps(ENGLISH)}, target: "es",
                                                apiurl }});
            console.log(JSON.stringify([given, detected]));
        }})().catch((error) => {{ console.error(String(error)); process.exit(1); }});
    """
    assert _node(npm_client, script) == [transformer(SPANISH), luong(ENGLISH)]
