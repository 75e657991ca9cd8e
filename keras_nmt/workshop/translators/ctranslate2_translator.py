"""`CTranslate2Translator`: the translators' Python API over a CTranslate2 export.

`keras_nmt.workshop.translators.ctranslate2_export.export_ctranslate2` writes a Transformer run as a
CTranslate2 model directory with our tokenizers and a metadata file (`METADATA_FILE`). This
translator tokenizes with our tokenizers (ids -> the export's vocabulary strings), decodes with
`ctranslate2.Translator` and detokenizes, with the options of `BatchTranslator.translate_batch`
where the engine has them:

- greedy decoding and beam search give our decoder's tokens (float32: identical up to ties and
  float rounding), with our per-sentence length limit `min(max_length, ceil(a * source_len + b))`
  tokens, `</s>` included, and `min_decoding_length=0`. CTranslate2's `max_decoding_length` is
  per call, so beam search and sampling make one call per limit. A greedy hypothesis does not
  depend on the call's limit until it reaches its own, so greedy decoding makes one call per
  batch of similar lengths (at the batch's largest limit: one call per limit would cut a
  server's batch of mixed lengths into many small ones) and decodes again, at its own limit,
  any sentence whose hypothesis reached it. One difference: at the length limit
  CTranslate2's beam search ranks the unfinished hypotheses with the finished ones, ours ranks
  any finished one first, so they differ where a hypothesis without `</s>` outscores every
  finished one (a model looping with near-certainty; none of 2,000 spa-eng test sentences);
- beam search ranks hypotheses by their sum of log-probabilities (`length_penalty=0`, our
  default) or by their mean (`normalization="average"`, CTranslate2's `length_penalty=1`); a
  GNMT `alpha > 0` divides by `((5 + |Y|) / 6) ** alpha`, which CTranslate2 (it divides by
  `|Y| ** alpha`) cannot do: refused, as are the coverage penalty and attention weights;
- sampling (temperature, top-k, top-p) is ours on the engine's logits: a sentence's random
  numbers are `keras_nmt.decoding.sampling.uniforms(seed, index, step)`, so its sample depends
  only on the seed, its index in the input and the step, whatever the batching or the threads
  (CTranslate2's own generators belong to its worker threads, seeded once when they start).
  Each step is one engine call that decodes the sampled prefix again (`target_prefix`) and
  returns the next token's logits, so sampling costs about `L / 2` times greedy decoding for
  outputs of `L` tokens. Arg-max sampling (temperature 0) is the engine's greedy decoding.

Threading: on a CPU, by default one batch per core, each on one thread (`inter_threads` = the
cores this process may use, `intra_threads=1`): at our models' sizes, parallel batches use the
cores far better than one batch on several threads. Batches are queued asynchronously, so all
workers stay busy; both numbers can be chosen.

Example:
    >>> translator = CTranslate2Translator("exports/transformer-int8")
    >>> translator.translate_batch(["Hola."], beam_size=4)[0].text
"""

import itertools
import json
import math
import os
import random
from pathlib import Path

import numpy as np
import tensorflow as tf

from keras_nmt.decoding.decoding_options import GREEDY, SMALLEST_TEMPERATURE
from keras_nmt.decoding.length_order import call_sizes, cut
from keras_nmt.decoding.sampling import draw, uniforms
from keras_nmt.inference.batch_translator import BatchTranslator
from keras_nmt.inference.translation_result import TranslationResult
from keras_nmt.special_ids import END_ID
from keras_nmt.workshop.marian_tokenizer import load_run_tokenizer
from keras_nmt.workshop.run.run_folder import TOKENIZERS_DIR
from keras_nmt.workshop.translators.served_strategies import check_served

METADATA_FILE = "keras_nmt_ctranslate2.json"


def is_ctranslate2_export(path):
    """Whether `path` is a directory written by
    `keras_nmt.workshop.translators.ctranslate2_export.export_ctranslate2`."""
    return (Path(path) / METADATA_FILE).is_file()


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def ctranslate2_threads(parallel):
    """`CTranslate2Translator`'s thread arguments for `parallel` batches at once (see
    `open_translator`): `{}` (its defaults) for None.

    Example:
        >>> ctranslate2_threads(3), ctranslate2_threads(None)
        ({'inter_threads': 3, 'intra_threads': 1}, {})
    """
    if parallel is None:
        return {}
    if parallel == 1:  # one batch on every core, as `--parallel-batches 1` does for TensorFlow
        return {"inter_threads": 1, "intra_threads": _cores()}
    return {"inter_threads": parallel, "intra_threads": 1}


def _flat(ragged):
    """A ragged tensor's `(flat_values, row_splits)`."""
    return ragged.flat_values, ragged.row_splits


class CTranslate2Translator(BatchTranslator):
    """`translate_batch` and `translate_texts` over a CTranslate2 export.

    Args:
        path: the export directory.
        device: `"cpu"`, `"cuda"` or `"auto"` (CTranslate2's).
        compute_type: CTranslate2's compute type; `"default"` keeps the export's quantization
            (or the closest type the device has).
        inter_threads: batches decoded in parallel (default: the usable cores on a CPU, 1 on a
            GPU).
        intra_threads: threads per batch (default 1 on a CPU, CTranslate2's choice on a GPU).
        max_beam_size: the largest beam size accepted.

    Attributes:
        metadata: the export's metadata (model, length limits, quantization, data columns).
        max_source_length, max_target_length: the run's own limits (source tokens kept,
            tokens decoded at most).

    Raises:
        FileNotFoundError: not an export.
        ModuleNotFoundError: ctranslate2 is not installed (`pip install keras_nmt[ctranslate2]`).
    """

    export = "ctranslate2"
    # A CTranslate2 call costs little beyond its sentences, so a served batch is cut into three
    # calls per thread: calls of more similar lengths, queued for whichever thread is free. On
    # two threads of a loaded machine, a batch of 118 random dates sentences decoded in 19.5 ms
    # against 24 ms in two calls, and 32 clients were served 2,976-3,465 sentences/s against
    # 2,739-2,763 (alternated runs; docs/results/serving-load.md).
    calls_per_worker = 3

    def __init__(self, path, device="cpu", compute_type="default", inter_threads=None,
                 intra_threads=None, max_beam_size=16):
        # Imported here: CTranslate2 is an optional extra that only this translator needs.
        import ctranslate2

        path = Path(path)
        if not is_ctranslate2_export(path):
            raise FileNotFoundError(f"{path} is not a CTranslate2 export (no {METADATA_FILE})")
        self.path = path
        self.metadata = json.loads((path / METADATA_FILE).read_text())
        self.max_source_length = int(self.metadata["max_source_length"])
        self.max_target_length = int(self.metadata["max_target_length"])
        self.max_beam_size = int(max_beam_size)
        self.source_tokenizer = load_run_tokenizer(path / TOKENIZERS_DIR / "source")
        self.target_tokenizer = load_run_tokenizer(path / TOKENIZERS_DIR / "target")
        self._source_vocabulary = self.source_tokenizer.vocabulary
        self._target_ids = {token: i for i, token in enumerate(self.target_tokenizer.vocabulary)}
        on_cpu = device == "cpu"
        if inter_threads is None:
            inter_threads = _cores() if on_cpu else 1
        if intra_threads is None:
            intra_threads = 1 if on_cpu else 0
        self.inter_threads, self.intra_threads = int(inter_threads), int(intra_threads)
        # The tokenizers' ops in graphs: run eagerly, their many small ops cost a served batch
        # of 64 short sentences about as much time as decoding it.
        self._tokenize = tf.function(
            lambda texts: _flat(self.source_tokenizer.tokenize(texts)),
            input_signature=[tf.TensorSpec([None], tf.string)], autograph=False)
        self._detokenize_ids = tf.function(
            lambda flat, lengths: self.target_tokenizer.detokenize(
                tf.RaggedTensor.from_row_lengths(flat, lengths)),
            input_signature=[tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.int64)],
            autograph=False)
        self.engine = ctranslate2.Translator(
            str(path), device=device, compute_type=compute_type,
            inter_threads=self.inter_threads, intra_threads=self.intra_threads,
        )

    # ----------------------------------------------------------------------------------------------
    # Options
    # ----------------------------------------------------------------------------------------------
    def check_options(self, options):
        """Raises `ValueError` for `DecodingOptions` CTranslate2 cannot honour as we mean them."""
        strategy = options.chosen_strategy
        check_served(strategy, self.export)
        if options.return_attention:
            raise ValueError("a CTranslate2 export gives no attention weights: translate with "
                             "the run folder for them")
        if options.coverage_penalty:
            raise ValueError("a CTranslate2 export has no GNMT coverage penalty: use "
                             "coverage_penalty=0 or the run folder")
        self._length_penalty(options)
        self.check_sizes(options)
        max_length = options.max_length
        if max_length is not None and not (
            isinstance(max_length, int) and 1 <= max_length <= self.max_target_length
        ):
            raise ValueError(f"max_length must be an int in [1, {self.max_target_length}] (the "
                             f"model's limit), got {max_length!r}")
        if not (math.isfinite(options.max_length_a) and options.max_length_a >= 0
                and math.isfinite(options.max_length_b)):
            raise ValueError("max_length_a must be a finite number >= 0 and max_length_b finite, "
                             f"got {options.max_length_a!r}, {options.max_length_b!r}")
        if strategy == "sample" and not (
            math.isfinite(options.temperature) and options.temperature >= 0
        ):
            raise ValueError(f"temperature must be >= 0, got {options.temperature!r}")

    @staticmethod
    def _length_penalty(options):
        """CTranslate2's `length_penalty` (it divides by `|Y| ** value`) for our options."""
        normalization, alpha = options.normalization, options.length_penalty
        if normalization == "none" or (normalization == "gnmt" and alpha == 0):
            return 0.0
        if normalization == "average":
            return 1.0
        raise ValueError(
            f"a CTranslate2 export cannot rank beams with GNMT's length penalty (alpha "
            f"{alpha:g}: it divides by |Y| ** alpha, not ((5 + |Y|) / 6) ** alpha): use "
            "length_penalty=0, normalization='average', or the run folder"
        )

    def _engine_options(self, options):
        """Keyword arguments of `ctranslate2.Translator.translate_batch` for `options`."""
        strategy = options.chosen_strategy
        # length_penalty 0: scores are sums of log-probabilities, as ours (CTranslate2's default
        # 1 averages them, also in greedy decoding).
        engine = {"min_decoding_length": 0, "return_scores": True, "beam_size": 1,
                  "num_hypotheses": 1, "length_penalty": 0.0}
        if strategy == "beam":
            n_best = options.n_best or options.beam_size
            engine.update(
                beam_size=options.beam_size, num_hypotheses=n_best,
                length_penalty=self._length_penalty(options),
            )
        return engine

    # ----------------------------------------------------------------------------------------------
    # Translation
    # ----------------------------------------------------------------------------------------------
    def source_ids(self, texts):
        """Our source ids per text (python lists), truncated to `max_source_length`."""
        if not len(texts):
            return []
        flat, splits = self._tokenize(tf.constant(list(texts), dtype=tf.string))
        flat, splits = flat.numpy().tolist(), splits.numpy().tolist()
        return [flat[start:end][: self.max_source_length]
                for start, end in itertools.pairwise(splits)]

    def sentence_limits(self, lengths, options):
        """Our per-sentence limits `clip(ceil(a * length + b), 1, max_length)` (`decoding`)."""
        cap = options.max_length or self.max_target_length
        return [
            int(min(max(math.ceil(n * float(options.max_length_a) + float(options.max_length_b)),
                        1), cap))
            for n in lengths
        ]

    def translate_batch(self, texts, options=None, *, batch_size=64, calls=None, on_batch=None,
                        indices=None, **changes):
        """Translates a list of strings; returns one `TranslationResult` per input.

        Args:
            texts: Python strings (or bytes).
            options: a `DecodingOptions` (default: greedy decoding); see the module docstring
                for what a CTranslate2 export accepts.
            batch_size: sentences per CTranslate2 batch (`max_batch_size`; at most, given
                `calls`).
            calls: instead, about this many CTranslate2 calls: greedy decoding's of about
                equal cost (`call_sizes`), the others of equal counts.
            on_batch: called with the number of sentences of each CTranslate2 call once it is
                translated (sampling: of each step, those that ended) (progress bars).
            indices: each text's index in the caller's input (default `0 .. len(texts) - 1`):
                what sampling draws by (see the module).
            **changes: `DecodingOptions` fields overriding those of `options`.
        """
        options = (GREEDY if options is None else options).replace(**changes)
        self.check_options(options)
        ids = self.source_ids(texts)
        limits = self.sentence_limits([len(row) for row in ids], options)
        n_best = (options.n_best or options.beam_size) if options.chosen_strategy == "beam" else 1
        engine_options = self._engine_options(options)
        present = [i for i, row in enumerate(ids) if row]  # "" translates to "", score 0
        indices = range(len(texts)) if indices is None else indices
        if len(indices) != len(texts):
            raise ValueError(f"{len(indices)} indices for {len(texts)} texts")
        greedy = options.chosen_strategy == "greedy"
        if options.chosen_strategy == "sample" and options.temperature >= SMALLEST_TEMPERATURE:
            if calls is not None:
                batch_size = min(batch_size, max(1, -(-len(present) // calls)))
            decoded = self._sample(ids, present, limits, indices, options, batch_size, on_batch)
            return self._results(ids, decoded, 1)
        if greedy:  # batches of similar lengths, each at its largest limit (see the module)
            present.sort(key=lambda i: len(ids[i]))
            batches = cut(present, call_sizes([len(ids[i]) for i in present], batch_size, calls))
            batches = [(max(limits[i] for i in members), members) for members in batches]
        else:  # one call per limit
            groups = {}
            for i in present:
                groups.setdefault(limits[i], []).append(i)
            batches = sorted(groups.items())
            if calls is not None:
                batch_size = min(batch_size, max(1, -(-len(present) // calls)))
        decoded = self._decode(ids, batches, batch_size, engine_options, on_batch)
        if greedy:
            again = {}
            for limit, members in batches:
                for i in members:
                    if limits[i] < limit and len(decoded[i][0][0]) >= limits[i]:
                        again.setdefault(limits[i], []).append(i)
            decoded.update(self._decode(ids, sorted(again.items()), batch_size, engine_options))
        return self._results(ids, decoded, n_best)

    def _results(self, ids, decoded, n_best):
        """The `TranslationResult`s of `decoded` (`_decode`'s), "" and 0 for the others."""
        hypotheses = [decoded[i][0] if i in decoded else [[]] * n_best for i in range(len(ids))]
        scores = [decoded[i][1] if i in decoded else [0.0] * n_best for i in range(len(ids))]
        texts_out = self._detokenize([h for row in hypotheses for h in row])
        results, start = [], 0
        for row_hypotheses, row_scores in zip(hypotheses, scores, strict=True):
            count = len(row_hypotheses)
            results.append(TranslationResult(texts_out[start : start + count], row_scores))
            start += count
        return results

    def _decode(self, ids, calls, batch_size, engine_options, on_batch=None):
        """`{i: (hypotheses as target ids, scores)}` for the sentences of `calls`, a list of
        `(max_decoding_length, [i, ...])`: one asynchronous CTranslate2 call each, all queued at
        once; `on_batch(len(members))` as each call is done."""
        pending = []
        for limit, members in calls:
            tokens = [[self._source_vocabulary[t] for t in ids[i]] for i in members]
            pending.append((members, self.engine.translate_batch(
                tokens, max_batch_size=batch_size, max_decoding_length=limit,
                asynchronous=True, **engine_options,
            )))
        decoded = {}
        for members, results in pending:
            for i, result in zip(members, results, strict=True):
                result = result.result()
                decoded[i] = ([[self._target_ids[t] for t in h] for h in result.hypotheses],
                              [float(s) for s in result.scores])
            if on_batch is not None:
                on_batch(len(members))
        return decoded

    def _sample(self, ids, present, limits, indices, options, batch_size, on_batch=None):
        """Samples the sentences `present` (their `ids`, `limits`, `indices`), our sampling on
        the engine's logits (see the module): `_decode`'s `{i: ([tokens], [score])}`, the score
        the model's log-probability of the sampled tokens (temperature 1, unfiltered)."""
        seed = random.randrange(2**31) if options.seed is None else options.seed
        tokens = {i: [] for i in present}
        scores = {i: 0.0 for i in present}
        running = sorted(present, key=lambda i: len(ids[i]))  # similar lengths together
        step = 0
        while running:
            results = self.engine.translate_batch(
                [[self._source_vocabulary[t] for t in ids[i]] for i in running],
                target_prefix=[[self.target_tokenizer.vocabulary[t] for t in tokens[i]]
                               for i in running],
                max_batch_size=batch_size, max_decoding_length=step + 1, min_decoding_length=0,
                beam_size=1, length_penalty=0.0, return_logits_vocab=True,
            )
            logits = np.stack([np.asarray(r.logits[0][step], np.float32) for r in results])
            chosen = np.asarray(draw(
                logits, uniforms(seed, np.asarray([indices[i] for i in running], np.int32), step),
                options.temperature, options.top_k, options.top_p))
            shifted = logits - logits.max(axis=1, keepdims=True)
            log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            still = []
            for row, i in enumerate(running):
                token = int(chosen[row])
                scores[i] += float(log_probs[row, token])
                if token != END_ID:
                    tokens[i].append(token)
                if token != END_ID and step + 1 < limits[i]:
                    still.append(i)
            if on_batch is not None and len(still) < len(running):
                on_batch(len(running) - len(still))
            running, step = still, step + 1
        return {i: ([tokens[i]], [scores[i]]) for i in present}

    def _detokenize(self, rows):
        if not rows:
            return []
        lengths = np.fromiter(map(len, rows), np.int64, len(rows))
        flat = np.fromiter((t for row in rows for t in row), np.int32, int(lengths.sum()))
        return [t.decode("utf-8", "replace") for t in self._detokenize_ids(flat, lengths)
                .numpy().tolist()]

    def source_lengths(self, text):
        return self.source_tokenizer.tokenize(text).row_lengths()

    def score_batch(self, sources, targets, batch_size=64):
        """Teacher-forced log-probabilities of `targets` given `sources` (CTranslate2's).

        Args:
            sources, targets: lists of strings of the same length.
            batch_size: sentences per CTranslate2 batch.

        Returns:
            Per pair, the log-probability of each target token, `</s>` included (a list of
            floats).
        """
        source_tokens = [[self._source_vocabulary[t] for t in row] for row in self.source_ids(
            sources)]
        target_vocabulary = self.target_tokenizer.vocabulary
        target = self.target_tokenizer.tokenize(tf.constant(list(targets), dtype=tf.string))
        target_tokens = [[target_vocabulary[t] for t in row] for row in target.to_list()]
        results = self.engine.score_batch(source_tokens, target_tokens, max_batch_size=batch_size)
        return [list(result.log_probs) for result in results]
