"""The server's counters, and `GET /metrics`: the same numbers in Prometheus' text format.

The counters are plain integers, counted on the event loop's thread as requests are answered
(no lock, nothing on the hot path beyond an addition); `prometheus_client` reads them only when
`/metrics` is asked for, through a collector (`CountersCollector`), so a scrape costs the
server nothing between scrapes.

Example:
    >>> counters = Counters()
    >>> counters.requests += 1
    >>> exposition(counters).decode().splitlines()[2]
    'keras_nmt_requests_total 1.0'
"""

import collections
import gc

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

# The histogram's buckets of batch sizes (sentences per graph call); the last is everything.
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)

# What `/metrics` answers with (Prometheus' text format, version 0.0.4).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Counters:
    """Requests, sentences, errors and batch sizes since the server started."""

    def __init__(self):
        self.requests = self.sentences = self.errors = self.busy = 0
        self.batch_sizes = collections.Counter()
        self.connections = None  # the server's `ConnectionGuard`, when it has one


class CountersCollector:
    """A `prometheus_client` collector of a `Counters` and of Python's garbage collector."""

    def __init__(self, counters):
        self.counters = counters

    def collect(self):
        counters = self.counters
        for name, value, text in (
            ("requests", counters.requests, "requests to the API's routes"),
            ("sentences", counters.sentences, "sentences given to the models"),
            ("errors", counters.errors, "requests answered with an error"),
            ("busy", counters.busy, "requests answered 429: a queue was full"),
        ):
            yield CounterMetricFamily(f"keras_nmt_{name}", text, value=value)
        guard = counters.connections
        if guard is not None:
            yield GaugeMetricFamily("keras_nmt_connections_open", "connections open now",
                                    value=len(guard.open))
            for name, value, text in (
                ("closed_idle", guard.closed_idle,
                 "idle connections closed to make room for a new one"),
                ("timed_out", guard.timed_out,
                 "connections closed for not sending a request head in time"),
                ("refused", guard.refused, "connections refused (503): all were busy"),
            ):
                yield CounterMetricFamily(f"keras_nmt_connections_{name}", text, value=value)
        sizes = counters.batch_sizes
        buckets, below = [], 0
        for bound in BATCH_BUCKETS:
            below = sum(count for size, count in sizes.items() if size <= bound)
            buckets.append((str(bound), below))
        buckets.append(("+Inf", sum(sizes.values())))
        yield HistogramMetricFamily(
            "keras_nmt_batch_size", "sentences per graph call the batcher formed",
            buckets=buckets, sum_value=sum(size * count for size, count in sizes.items()))
        yield GaugeMetricFamily("keras_nmt_largest_batch", "the largest batch so far",
                                value=max(sizes, default=0))
        collections_ = GaugeMetricFamily(
            "keras_nmt_gc_collections", "Python's garbage collections per generation",
            labels=["generation"])
        for generation, stats in enumerate(gc.get_stats()):
            collections_.add_metric([str(generation)], stats["collections"])
        yield collections_
        yield GaugeMetricFamily(
            "keras_nmt_gc_frozen_objects",
            "objects frozen out of garbage collections at the start (the loaded models')",
            value=gc.get_freeze_count())


def exposition(counters):
    """`/metrics`' body: the counters in Prometheus' text format (bytes)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(CountersCollector(counters))
    return generate_latest(registry)
