"""`translate_batch` over parallel batches: the same results, in input order, as one by one."""

import subprocess
import sys
import threading

import numpy as np
import pytest

from keras_nmt.decoding.length_order import call_sizes
from tests.export.helpers import SOURCES

# Inputs of many lengths, so that the length-sorted batches differ from the input order.
TEXTS = [f"{source} {'x' * (i % 7)}".strip() for i, source in enumerate(SOURCES * 9)]


def same_results(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert a.texts == b.texts
        np.testing.assert_array_equal(a.scores, b.scores)  # bit for bit
        assert (a.source_tokens, a.target_tokens) == (b.source_tokens, b.target_tokens)
        assert (a.weights is None) == (b.weights is None)
        if a.weights is not None:
            np.testing.assert_array_equal(a.weights, b.weights)


@pytest.mark.parametrize("kind", ["in-process", "saved"])
def test_parallel_batches_give_the_same_results_in_input_order(lstm_export, lstm_saved, kind):
    translator = lstm_export[0] if kind == "in-process" else lstm_saved
    for options in ({}, {"beam_size": 2, "n_best": 2, "length_penalty": 0.6},
                    {"return_attention": True}):  # fmt: skip
        one_by_one = translator.translate_batch(TEXTS, batch_size=4, parallel=1, **options)
        sizes = []
        parallel = translator.translate_batch(TEXTS, batch_size=4, parallel=3,
                                              on_batch=sizes.append, **options)  # fmt: skip
        same_results(parallel, one_by_one)
        assert sizes == [4] * 9  # one call per batch, in order
        alone = [translator.translate_batch([text], **options)[0] for text in TEXTS[:3]]
        assert [r.text for r in alone] == [r.text for r in parallel[:3]]  # input order


def test_calls_of_equal_cost_give_the_same_translations_in_input_order(lstm_export):
    # The server's cut: the sorted batch in `calls` calls of about equal cost (the calls of
    # short sentences take more rows), not of equal counts.
    translator, _ = lstm_export
    sizes = []
    balanced = translator.translate_batch(TEXTS, batch_size=len(TEXTS), calls=3, parallel=3,
                                          on_batch=sizes.append)
    assert sizes == call_sizes(sorted(map(len, TEXTS)), len(TEXTS), calls=3)
    assert len(sizes) == 3 and sizes[0] > sizes[-1]
    by_count = translator.translate_batch(TEXTS, batch_size=4)
    assert [r.texts for r in balanced] == [r.texts for r in by_count]
    for a, b in zip(balanced, by_count, strict=True):  # other batches: the last bits may move
        np.testing.assert_allclose(a.scores, b.scores, rtol=1e-5, atol=1e-5)


def test_parallel_batches_run_at_once(lstm_export, monkeypatch):
    translator, _ = lstm_export
    # Each graph call waits for a second one to start: one thread at a time would time out.
    barrier = threading.Barrier(2, timeout=60)
    signature = translator._signature

    def beside_another(options):
        function, kind, inputs = signature(options)

        def call(**arguments):
            barrier.wait()
            return function(**arguments)

        return call, kind, inputs

    monkeypatch.setattr(translator, "_signature", beside_another)
    results = translator.translate_batch(TEXTS[:8], batch_size=2, parallel=2)
    assert len(results) == 8


CONFIGURE = """
import tensorflow as tf
from keras_nmt.inference.batch_translator import parallel_batches
from keras_nmt.workshop.translators.decoding_threads import configure_decoding_threads
if {ran_an_op}:
    tf.constant(1.0) + 1.0
print(configure_decoding_threads(2), parallel_batches(),
      tf.config.threading.get_intra_op_parallelism_threads(),
      tf.config.threading.get_inter_op_parallelism_threads())
"""


@pytest.mark.parametrize(("ran_an_op", "expected"), [(False, "2 2 1 2"), (True, "1 1 0 0")])
def test_configure_decoding_threads_before_tensorflow_runs(ran_an_op, expected):
    # A fresh process each: TensorFlow's thread pools are fixed by its first op.
    completed = subprocess.run(
        [sys.executable, "-c", CONFIGURE.format(ran_an_op=ran_an_op)], capture_output=True,
        text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.split("\n")[-2] == expected


def test_an_interruption_while_batches_are_queued_waits_only_for_those_under_way(
        lstm_export, monkeypatch):
    import concurrent.futures
    import threading

    translator = lstm_export[0]
    translator.translate_batch(TEXTS[:1])  # traced before counting
    executor = concurrent.futures.ThreadPoolExecutor
    submit, shutdown, signature = executor.submit, executor.shutdown, translator._signature
    queued, translated, interrupted = [0], [], threading.Event()

    def interrupted_submit(self, *args, **kwargs):
        queued[0] += 1
        if queued[0] == 200:  # Ctrl-C while `map` queues the batches
            raise KeyboardInterrupt
        return submit(self, *args, **kwargs)

    def counted_signature(options):  # the function each batch's thread calls, counted
        function, kind, inputs = signature(options)

        def counted(**batch):
            translated.append(1)
            interrupted.wait(60)  # under way until the pool is shut down: no timing guess
            return function(**batch)

        return counted, kind, inputs

    def shutdown_then_release(self, wait=True, *, cancel_futures=False):
        shutdown(self, wait=False, cancel_futures=cancel_futures)
        interrupted.set()
        shutdown(self, wait=wait)

    monkeypatch.setattr(executor, "submit", interrupted_submit)
    monkeypatch.setattr(executor, "shutdown", shutdown_then_release)
    monkeypatch.setattr(translator, "_signature", counted_signature)
    with pytest.raises(KeyboardInterrupt):
        translator.translate_batch(TEXTS * 20, batch_size=1, parallel=2)
    # 199 batches were queued; only those the two threads had started were translated.
    assert 1 <= len(translated) <= 2
