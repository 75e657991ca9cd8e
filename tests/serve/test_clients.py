"""Third-party LibreTranslate clients against `keras-nmt serve`: Python's `libretranslatepy`
and npm's `libretranslate` (run by Debian's node; installed into a folder of the test's own)."""

import json
import shutil
import subprocess

import pytest
from libretranslatepy import LibreTranslateAPI

from tests.serve.server import Server

pytestmark = pytest.mark.tensorflow

# The npm client's version, pinned: the one whose failure against an earlier server was seen.
NPM_CLIENT = "libretranslate@1.0.1"
SPANISH = "La biblioteca está cerrada los domingos."
ENGLISH = "The library is closed on Sundays."


@pytest.fixture(scope="module")
def server(runs):
    transformer, luong = runs
    server = Server(transformer, f"en:es={luong}", "--timeout", "600")
    yield server
    server.stop()


def test_libretranslatepy_translates_lists_languages_and_detects(server, opened):
    client = LibreTranslateAPI(server.url)
    transformer, luong = opened
    assert client.translate(SPANISH, "es", "en") == transformer(SPANISH)
    assert client.translate(ENGLISH, "auto", "es") == luong(ENGLISH)
    assert client.languages() == [{"code": "es", "name": "Spanish", "targets": ["en"]},
                                  {"code": "en", "name": "English", "targets": ["es"]}]
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
