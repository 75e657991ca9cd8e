"""The server's listening socket (its accepted connections send small responses at once), its
address and its start-up lines."""

import asyncio
import socket
from types import SimpleNamespace

from keras_nmt.workshop.cli.serve import listen, model_line, url


def test_accepted_connections_have_nagles_algorithm_off():
    # asyncio sets TCP_NODELAY only on sockets whose protocol says TCP; with Nagle on, every
    # response the server wrote in two parts waited for the client's delayed ACK (40 ms: a
    # lone request took 68 ms instead of 20, GET /health 44 ms instead of 0.4).
    async def main():
        accepted = asyncio.get_running_loop().create_future()

        def connected(reader, writer):
            sock = writer.get_extra_info("socket")
            accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(connected, sock=listen("127.0.0.1", 0))
        port = server.sockets[0].getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        nodelay = await asyncio.wait_for(accepted, 10)
        writer.close()
        server.close()
        return nodelay

    assert asyncio.run(main()) != 0


def test_the_server_runs_on_uvicorns_own_event_loop():
    # `asyncio.run` took Python's selector loop, not the uvloop the serve extra installs: under
    # 32 clients the loop's thread used about 55% of a core, against 16% on uvloop.
    import uvicorn
    import uvloop

    from keras_nmt.workshop.cli.serve import event_loop

    async def loop_type():
        return type(asyncio.get_running_loop())

    with event_loop(uvicorn.Config(app=None)) as runner:
        assert runner.run(loop_type()) is uvloop.Loop


def test_the_announced_address_is_a_url_also_for_an_ipv6_host():
    # --host ::1 was announced as "http://::1:5000/", which no browser or client can open.
    assert url("::1", 5000) == "http://[::1]:5000/"
    assert url("127.0.0.1", 8080) == "http://127.0.0.1:8080/"


def test_a_second_model_of_a_pair_says_which_one_translate_answers_with():
    # Two models of one pair: /translate answered with the first, and nothing said so.
    first = SimpleNamespace(pair=("es", "en"), name="spa", kind="run folder", path="runs/spa")
    second = SimpleNamespace(pair=("es", "en"), name="spa-ct2", kind="CTranslate2 export",
                             path="exports/spa-ct2")
    assert model_line(first, first) == "es->en: spa (run folder, runs/spa)"
    assert model_line(second, first) == (
        "es->en: spa-ct2 (CTranslate2 export, exports/spa-ct2); /translate answers es->en "
        "with spa, the API and the page this one by its name")
