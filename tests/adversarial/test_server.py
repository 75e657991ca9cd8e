"""A hostile client against `keras-nmt serve` (a tiny model): idle connections past the
descriptor limit, a pile of explorations, malformed bodies, each while translations go on.
The full load test (1,000 idle connections, 100 explorations, 32 translating clients):
`python -m keras_nmt.workshop.benchmarks.serve_siege`, results in docs/results/."""

import concurrent.futures
import socket
import time
import urllib.parse

import pytest

from tests.export.helpers import make_run_folder
from tests.serve.server import Server, request

pytestmark = pytest.mark.tensorflow


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    run = make_run_folder(tmp_path_factory.mktemp("siege") / "luong", "luong", "functional")
    # 256 descriptors: the 300 idle connections below are more than the server may hold.
    server = Server(f"es:en={run}", "--read-timeout", "5", "--max-explore-queue", "2",
                    "--timeout", "300", descriptors=256)
    yield server
    server.stop()


def _translate(url, text="hola"):
    return request(url + "translate", {"q": text, "source": "es", "target": "en"})


def test_idle_connections_past_the_descriptor_limit_never_fail_a_translation(server):
    """Under `ulimit -n 256`, 300 idle connections made every translation fail: the server
    could not open a descriptor (`Too many open files`). The connection idle the longest now
    makes room, and a head not sent within --read-timeout is cut off."""
    port = int(urllib.parse.urlparse(server.url).port)
    assert _translate(server.url)[0] == 200  # warm
    idle = []
    for _ in range(300):
        idle.append(socket.create_connection(("127.0.0.1", port), timeout=10))
    time.sleep(1)
    for i in range(5):
        status, answer = _translate(server.url, f"hola {i}")
        assert status == 200, answer
    # Explorations pile up beside them: 200 or 429, never a 500, and translations go on.
    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        explores = [pool.submit(request, server.url + "api/explore",
                                {"q": f"hola {i}", "beam_size": 4}) for i in range(10)]
        translations = [pool.submit(_translate, server.url, f"adiós {i}") for i in range(2)]
        assert [f.result()[0] for f in translations] == [200, 200]
        statuses = [f.result()[0] for f in explores]
    assert set(statuses) <= {200, 429} and 200 in statuses, statuses
    status, answer = request(server.url + "translate", raw=b"--b\r\nnonsense", headers={
        "Content-Type": "multipart/form-data; boundary=b"})
    assert status == 400, answer
    closed = 0
    for connection in idle:
        connection.settimeout(0.01)
        try:
            closed += connection.recv(1) == b""
        except TimeoutError:
            pass
        except ConnectionResetError:
            closed += 1
        connection.close()
    assert closed >= 300 - 256  # at least those beyond the limit (all, after the timeout)
    printed = server.printed()
    assert "Traceback" not in printed and "Too many open files" not in printed, printed
