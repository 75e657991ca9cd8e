"""`BatchTranslator`: the Python API both translators share, written once.

`Translator` (in process, a `tf.Module`) and `SavedTranslator` (a reloaded SavedModel) differ
only in where their signatures come from and which strategies they serve (`export`); validating
the `DecodingOptions`, batching, dispatching to a signature and unpacking the outputs is here.
"""

import concurrent.futures
import os

import tensorflow as tf

from keras_nmt.decoding.decoding_options import GREEDY
from keras_nmt.decoding.length_order import call_sizes, cut, length_order, restore_order
from keras_nmt.decoding.strategies import STRATEGIES
from keras_nmt.inference.translation_result import results_from_outputs

# Options a translator fixes itself (its own `max_target_length`, GNMT scoring without coverage):
# changing them is refused rather than silently ignored.
_FIXED_OPTIONS = (
    "max_length", "max_length_a", "max_length_b", "trim", "normalization", "coverage_penalty",
)


def parallel_batches():
    """Batches `translate_batch` translates at once by default: TensorFlow's inter-op threads
    when each op has one thread (the workshop's `configure_decoding_threads` sets them so),
    else 1 (an op already uses every core)."""
    if tf.config.threading.get_intra_op_parallelism_threads() != 1:
        return 1
    return tf.config.threading.get_inter_op_parallelism_threads() or os.cpu_count() or 1


class BatchTranslator:
    """`translate_batch` and `translate_texts` over a translator's signatures.

    Subclasses set `max_beam_size` and have `Translator`'s signatures (`serving_default`,
    `attention`, `beam_search`: callables taking the inputs by keyword and returning the outputs
    by name), `beam_functions` and `_decoder(options)` (a callable as a signature, for the
    strategies without one). `calls_per_worker`: the calls a server cuts each batch into, per
    worker (one: a graph call has a large fixed cost, so fewer, fuller calls are faster).
    """

    calls_per_worker = 1

    def check_options(self, options):
        """Raises `ValueError` for `DecodingOptions` this translator cannot honour."""
        changed = [n for n in _FIXED_OPTIONS if getattr(options, n) != getattr(GREEDY, n)]
        if changed:
            raise ValueError(f"a translator decodes with its own {', '.join(changed)} (see "
                             "`decode` for them)")
        self.check_sizes(options)
        if options.return_attention and options.chosen_strategy != "greedy":
            raise ValueError("attention weights come with greedy decoding only (beam_size=1)")

    def check_sizes(self, options):
        """Raises `ValueError` for a beam size or n-best this translator cannot give."""
        strategy, beam_size, n_best = options.chosen_strategy, options.beam_size, options.n_best
        if not isinstance(beam_size, int) or not 1 <= beam_size <= self.max_beam_size:
            raise ValueError(f"beam_size must be an int in [1, {self.max_beam_size}], got "
                             f"{beam_size!r}")
        if n_best is not None and (not isinstance(n_best, int) or not 1 <= n_best <= beam_size):
            raise ValueError(f"n_best must be an int in [1, beam_size={beam_size}], got {n_best!r}")
        if "beam_size" not in STRATEGIES[strategy].options and beam_size > 1:
            raise ValueError(f"{STRATEGIES[strategy].title} gives one translation per "
                             "sentence: beam_size (--beam-size) must be 1")

    def translate_batch(self, texts, options=None, *, batch_size=64, calls=None, on_batch=None,
                        parallel=None, indices=None, **changes):
        """Translates a list of strings; returns one `TranslationResult` per input.

        Args:
            texts: Python strings (or bytes).
            options: a `DecodingOptions` (default: greedy decoding). Beam search needs
                `beam_size` in 2 .. `max_beam_size`; `return_attention` gives attention weights
                and tokens (greedy only); `strategy="sample"` samples (in-process and CTranslate2
                only), as any strategy a SavedModel does not export.
            batch_size: sentences per graph call (at most, given `calls`).
            calls: instead, this many graph calls of about equal cost (`call_sizes`): the calls
                of short sentences take more rows, so that calls decoded at once finish
                together (a server's batch, one call per worker).
            on_batch: called with the number of sentences after each graph call (progress bars),
                in input order of the batches.
            parallel: batches translated at once, each by a thread of its own calling the
                graph (default: `parallel_batches()`, more than 1 only after
                `configure_decoding_threads`). Each batch is the same graph call either way,
                so the results do not change.
            indices: each text's index in the caller's input (default `0 .. len(texts) - 1`):
                a sentence's sample depends only on the seed, its index and the step, never on
                the batch it is translated in (a server's batch of several requests passes
                each sentence's index in its own request).
            **changes: `DecodingOptions` fields overriding those of `options`, e.g.
                `translate_batch(texts, beam_size=4, n_best=2)`.
        """
        options = (GREEDY if options is None else options).replace(**changes)
        self.check_options(options)
        function, kind, inputs = self._signature(options)
        indices = range(len(texts)) if indices is None else indices
        if len(indices) != len(texts):
            raise ValueError(f"{len(indices)} indices for {len(texts)} texts")
        order = length_order(texts)  # batches of similar lengths; results in input order
        texts, indices = [texts[i] for i in order], [indices[i] for i in order]
        sizes = call_sizes([len(text) for text in texts], batch_size, calls)
        batches = zip(cut(texts, sizes), cut(indices, sizes), strict=True)
        parallel = min(parallel_batches() if parallel is None else parallel, len(sizes))
        results = []
        pool = concurrent.futures.ThreadPoolExecutor(max(parallel, 1))
        try:
            # One graph call per batch, each on a thread of the pool as one is free (with one
            # thread, one by one); the results are read in the batches' order.
            calls = [pool.submit(function, **inputs(tf.constant(texts, dtype=tf.string),
                                                    tf.constant(indices, dtype=tf.int32)))
                     for texts, indices in batches]
            for call, size in zip(calls, sizes, strict=True):
                outputs = {key: value.numpy() for key, value in call.result().items()}
                if kind == "beam":  # the beam functions pad to the largest beam size
                    outputs = {key: value[:, : options.beam_size]
                               for key, value in outputs.items()}
                results.extend(results_from_outputs(outputs, kind, options.n_best))
                if on_batch is not None:
                    on_batch(size)
        finally:
            # A Ctrl-C while the calls run must not wait for them all, only for those under way.
            pool.shutdown(cancel_futures=True)
        return restore_order(results, order)

    def _signature(self, options):
        """What translates a batch with `options`: `(function, kind, inputs)`, the signature
        (or function) to call, the kind of its outputs (see `results_from_outputs`) and
        `inputs(text, index)`, its keyword arguments for a batch's texts and their indices."""
        strategy = options.chosen_strategy
        if "savedmodel" not in STRATEGIES[strategy].exports:  # no signature: takes the indices
            return self._decoder(options), "greedy", lambda text, index: {"text": text,
                                                                           "index": index}
        if options.return_attention:
            return self.attention, "attention", lambda text, index: {"text": text}
        if strategy != "beam":
            return self.serving_default, "greedy", lambda text, index: {"text": text}
        # The function of that one beam size: the `beam_search` signature would prepare all.
        length_penalty = tf.constant(options.length_penalty, tf.float32)
        return self.beam_functions[options.beam_size - 1], "beam", (
            lambda text, index: {"text": text, "length_penalty": length_penalty})

    def __call__(self, texts, options=None, **changes):
        """The translations of a list of strings (or of one string), as strings.

        Example:
            >>> translator(["3rd of March 2021", "25.12.2001"], beam_size=4)
            ['2021-03-03', '2001-12-25']
        """
        one = isinstance(texts, str)
        results = self.translate_batch([texts] if one else list(texts), options, **changes)
        return results[0].text if one else [result.text for result in results]

    def translate_texts(self, texts, batch_size=64):
        """Translates a Python list of strings in batches (greedy); returns a list of strings."""
        return [r.text for r in self.translate_batch(list(texts), batch_size=batch_size)]
