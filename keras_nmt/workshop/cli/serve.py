"""Serve models over HTTP: a LibreTranslate-compatible API and an explorer page.

Examples:
    keras-nmt serve es:en=runs/spa-eng                  # then open http://127.0.0.1:5000/
    keras-nmt serve runs/spa-eng exports/spa-eng-ct2 --port 8080   # pairs from --languages
    keras-nmt serve es:en=saved_models/spa-eng --api-key SECRET --host 0.0.0.0
Each MODEL is a run folder, a SavedModel or a CTranslate2 export, as PATH (a run trained with
--languages SRC,TGT) or SRC:TGT=PATH. Clients: any LibreTranslate client (/translate with
source=auto, format=html, glossary, confidence and alignment; /languages, /detect,
/translate_file, /spec; /health, and /metrics for Prometheus); the page at / shows the n-best
list, attention and the beam search tree.
Needs the serve extra: pip install keras_nmt[serve].
"""

import argparse
import asyncio
import os
import socket
import sys

from keras_nmt.workshop.arguments import (
    new_parser,
    non_negative_int,
    positive_float,
    positive_int,
)
from keras_nmt.workshop.cli.common import (
    add_debug_flag,
    command,
    exit_status,
    start_tensorflow,
)
from keras_nmt.workshop.serve.model_spec import parse_model_spec


def port_number(text):
    """argparse type: a TCP port, 0-65535 (0: any free one)."""
    port = non_negative_int(text)
    if port > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, got {port}")
    return port


def _api_key(text):
    """argparse type: a key that is not empty (an empty one would refuse every request)."""
    if not text.strip():
        # Also the default: $KERAS_NMT_API_KEY set to white space arrives here as the flag's.
        raise argparse.ArgumentTypeError("an empty key would refuse every request: give one, "
                                         "or leave out both the flag and $KERAS_NMT_API_KEY "
                                         "to require none")
    return text


def listen(host, port):
    """A socket listening on `host:port`, opened before the models load: a busy port or an
    unknown host fails at once, in one line that names it and the way out."""
    # IPPROTO_TCP named: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets that
    # say they are TCP, and an accepted socket inherits this one's protocol. With Nagle on, a
    # response written in two parts waited for the client's delayed ACK: 40 ms each.
    listening = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                              socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn's own
    try:
        listening.bind((host, port))
        listening.listen(2048)  # uvicorn's backlog
        return listening
    except OSError as error:
        listening.close()
        raise ValueError(f"cannot listen on {host}:{port}: {error.strerror or error}; choose "
                         "another --port (0: any free one) or --host") from None


def _model(text):
    """A `MODEL` argument, checked before anything loads (a pair such as `EN:de` or `en-de` was
    taken for part of a path, and the error suggested `es:en=EN:de=...`)."""
    try:
        parse_model_spec(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def build_parser(prog=None):
    parser = new_parser(__doc__, prog)
    parser.add_argument("models", nargs="+", metavar="MODEL", type=_model,
                        help="PATH or SRC:TGT=PATH: a run folder, a SavedModel or a CTranslate2 "
                        "export; the first model of a language pair serves it")
    net = parser.add_argument_group("network")
    net.add_argument("--host", default="127.0.0.1",
                     help="address to listen on (default: %(default)s, this machine only; "
                     "0.0.0.0 listens on every interface)")
    net.add_argument("--port", type=port_number, default=5000,
                     help="port (default: %(default)s; 0: a free one, printed)")
    net.add_argument("--api-key", type=_api_key,
                     default=os.environ.get("KERAS_NMT_API_KEY") or None,
                     help="require this key on every API request (field api_key, or header "
                     "X-API-Key or Authorization: Bearer KEY); default: $KERAS_NMT_API_KEY, "
                     "else none")
    limits = parser.add_argument_group("limits (a request beyond them gets a 4xx JSON error)")
    limits.add_argument("--max-chars", type=positive_int, default=5000,
                        help="characters per request (default: %(default)s)")
    limits.add_argument("--max-sentence-chars", type=positive_int, default=500,
                        help="characters per sentence (default: %(default)s)")
    limits.add_argument("--max-sentences", type=positive_int, default=64,
                        help="sentences per request (default: %(default)s)")
    limits.add_argument("--max-beam-size", type=positive_int, default=8,
                        help="beam size, and alternatives + 1 (default: %(default)s)")
    limits.add_argument("--timeout", type=positive_float, default=30.0,
                        help="seconds before a request is answered 503 (a file: each batch of "
                        "--max-sentences of its sentences) (default: %(default)s)")
    limits.add_argument("--max-file-bytes", type=positive_int, default=1_000_000,
                        help="bytes of a file sent to /translate_file; a larger upload is "
                        "refused (413) before it is read whole (default: %(default)s)")
    limits.add_argument("--read-timeout", type=positive_float, default=10.0,
                        help="seconds a client has to send a request's head (from connecting, "
                        "and after each answer), and again its body; a slower connection is "
                        "closed (408 for a body) (default: %(default)s)")
    limits.add_argument("--max-connections", type=positive_int, default=None,
                        help="connections open at most; a new one beyond it closes the one "
                        "idle the longest (503 when all are answering) (default: what the "
                        "descriptor limit, ulimit -n, leaves once the models are loaded, less "
                        "64)")
    batching = parser.add_argument_group("batching")
    batching.add_argument("--max-batch", type=positive_int, default=64,
                          help="sentences a batch gathers per worker; sorted by length, it "
                          "is cut into one call per worker (three for a CTranslate2 export) "
                          "of about equal cost, a call of short sentences holding more "
                          "(default: %(default)s)")
    batching.add_argument("--max-wait-ms", type=positive_float, default=30.0,
                          help="milliseconds a batch waits at most for more sentences after its "
                          "first request (default: %(default)s; more: fuller batches under load)")
    batching.add_argument("--max-gap-ms", type=positive_float, default=2.0,
                          help="a batch stops waiting when no request has come for this many "
                          "milliseconds (default: %(default)s: requests come in bursts; a lone "
                          "request is answered after it, not after --max-wait-ms)")
    batching.add_argument("--max-queue", type=positive_int, default=256,
                          help="requests waiting per model; more are answered 429 (default: "
                          "%(default)s)")
    batching.add_argument("--max-explore-queue", type=non_negative_int, default=8,
                          help="explorer requests waiting beyond the one being explored; more "
                          "are answered 429 (default: %(default)s)")
    batching.add_argument("--workers", type=positive_int, default=None,
                          help="graph calls decoding at once per model, one thread each "
                          "(default: the CPU count)")
    add_debug_flag(parser)
    return parser


@command
def main(argv=None, prog=None):
    args = build_parser(prog).parse_args(argv)
    listening = listen(args.host, args.port)
    start_tensorflow(args.debug)
    # Imported after parsing: `--help` and flag errors must not wait for TensorFlow, and the
    # serve extra (Starlette, uvicorn) is needed only here.
    import uvicorn  # noqa: PLC0415

    from keras_nmt.workshop.serve.app import BatchSettings, Limits, create_app
    from keras_nmt.workshop.serve.connections import ConnectionGuard, guarded_protocol
    from keras_nmt.workshop.serve.served_model import load_served_models
    from keras_nmt.workshop.translators.decoding_threads import configure_decoding_threads  # noqa: PLC0415

    workers = configure_decoding_threads(args.workers)
    # The same number for a CTranslate2 export's threads: the batcher cuts a batch into
    # `workers` calls, and the export decodes that many at once.
    models = load_served_models(args.models, parallel=workers)
    limits = Limits(
        max_chars=args.max_chars, max_sentence_chars=args.max_sentence_chars,
        max_sentences=args.max_sentences, max_beam_size=args.max_beam_size,
        timeout=args.timeout, max_file_bytes=args.max_file_bytes,
        max_body_bytes=max(65536, 8 * args.max_chars), read_timeout=args.read_timeout,
    )
    batching = BatchSettings(max_batch=args.max_batch, max_wait=args.max_wait_ms / 1000,
                             max_queue=args.max_queue, workers=workers,
                             max_gap=args.max_gap_ms / 1000,
                             max_explore_queue=args.max_explore_queue)
    app = create_app(models, limits, batching, api_key=args.api_key)
    guard = ConnectionGuard(connection_limit(args.max_connections), args.read_timeout)
    app.counters.connections = guard  # its counts in /metrics
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning",
                            timeout_graceful_shutdown=5, http=guarded_protocol(guard))
    server = uvicorn.Server(config)
    serving = {}  # pair -> the model /translate answers it with: the first named
    for model in models:
        # Traced (prepared) before the first client waits on it, and a broken model fails here.
        model.translator.translate_batch(["warm up"])
        print(model_line(model, serving.setdefault(model.pair, model)), flush=True)

    async def announce():  # the bound port (also with --port 0), once the socket listens
        while not server.started:
            await asyncio.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"serving on {url(args.host, port)}", flush=True)

    async def serve():
        await asyncio.gather(server.serve(sockets=[listening]), announce())

    with event_loop(config) as runner:
        runner.run(serve())
    return 0


def connection_limit(asked):
    """The connections the server takes: `asked` (`--max-connections`), else all that the
    descriptor limit leaves (`connections.most_connections`, read once the models are
    loaded); refused when the limit leaves fewer."""
    from keras_nmt.workshop.serve.connections import RESERVED_DESCRIPTORS, most_connections

    most = most_connections()
    if most < 1 or (asked is not None and asked > most):
        import resource  # noqa: PLC0415

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        raise ValueError(
            f"--max-connections {asked or 'default'}: the descriptor limit (ulimit -n {soft}) "
            f"leaves {max(most, 0)} connections once the models are loaded and "
            f"{RESERVED_DESCRIPTORS} descriptors are kept free; raise it (ulimit -n) or ask "
            "for fewer")
    return most if asked is None else asked


def model_line(model, first):
    """The start-up line naming `model`; `first` is the model that `/translate` answers its
    pair with (the first named), which a second model of the pair says.

    Example:
        >>> from types import SimpleNamespace as M
        >>> a = M(pair=("es", "en"), name="spa", kind="run folder", path="runs/spa")
        >>> model_line(a, a)
        'es->en: spa (run folder, runs/spa)'
        >>> b = M(pair=("es", "en"), name="opus", kind="run folder", path="runs/opus",
        ...       provenance={"attribution": {"name": "opus-mt-es-en", "licence": "CC-BY 4.0"}})
        >>> model_line(b, b)
        'es->en: opus (run folder, runs/opus); from opus-mt-es-en (CC-BY 4.0)'
    """
    line = f"{model.pair[0]}->{model.pair[1]}: {model.name} ({model.kind}, {model.path})"
    attribution = (getattr(model, "provenance", None) or {}).get("attribution")
    if attribution:  # the credit its licence asks for, with every use
        line += (f"; from {attribution.get('name')} ({attribution.get('licence')}"
                 f"{', ' + attribution['credit'] if attribution.get('credit') else ''})")
    if first is not model:
        line += (f"; /translate answers {model.pair[0]}->{model.pair[1]} with {first.name}, "
                 "the API and the page this one by its name")
    return line


def url(host, port):
    """The server's address as a URL: an IPv6 host in brackets, as URLs write it.

    Example:
        >>> url("::1", 5000), url("127.0.0.1", 5000)
        ('http://[::1]:5000/', 'http://127.0.0.1:5000/')
    """
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def event_loop(config):
    """An `asyncio.Runner` on the event loop uvicorn itself would run `config` on (uvloop when
    installed, as the serve extra does). `asyncio.run` would take Python's own loop: under 32
    clients its thread used about 55% of a core, against 16% on uvloop."""
    return asyncio.Runner(loop_factory=config.get_loop_factory())


if __name__ == "__main__":
    sys.exit(exit_status(main()))
