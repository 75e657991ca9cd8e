"""The Translator: strings in, strings out, with the tokenizers and the decoder inside.

One `tf.Module` serves both in-process translation (training callbacks, `apps/translate.py`) and
the exported SavedModel (`keras_nmt.workshop.translators.export_translator`), so both give the same
outputs. Its Python API (`translate_batch` with a `DecodingOptions`) is `BatchTranslator`'s, shared
with the reloaded SavedModel (`SavedTranslator`).

Signatures (the `tf.function` methods with fixed input signatures; `batch` is dynamic):

* `serving_default(text: string [batch])` -> `translation: string [batch]`,
  `score: float32 [batch]` (greedy decoding; the score is the sum of log-probabilities).
* `beam_search(text: string [batch], beam_size: int32 [], length_penalty: float32 [])` ->
  `translations: string [batch, beam_size]`, `scores: float32 [batch, beam_size]`, best first;
  scores are GNMT length-normalized log-probabilities, `length_penalty` is GNMT `alpha`.
* `attention(text: string [batch])` -> `translation: string [batch]`, `score: float32 [batch]`
  (as `serving_default`'s), `tokens: string [batch, target_len]` (produced tokens, `</s>`
  included, "" padding),
  `source_tokens: string [batch, source_len]` ("" padding),
  `weights: float32 [batch, target_len, source_len]` (greedy decoding). Models without attention
  (plain LSTM) return zero weights, so every export has the same signatures.

Beam size dispatch: `keras_nmt.decoding` sizes its buffers with a Python `beam_size`, so the
graph holds one beam search per supported size `1 .. max_beam_size` (default 8) and picks one at
run time with `tf.switch_case(beam_size - 1)`. Each branch pads its n-best to `max_beam_size`
columns so all branches have one output shape, and the result is sliced back to `beam_size`
columns. A `beam_size` outside `[1, max_beam_size]` (or a negative or non-finite
`length_penalty`, passed to decoding as a scalar tensor) fails with an `InvalidArgumentError`
naming the allowed range. The branches are the module's `beam_functions` (one `tf.function` per
size, saved with the SavedModel): `translate_batch`, in-process or on a reloaded SavedModel,
calls the one size it needs, so a fresh process prepares only that size (the signature's first
call prepares all of them). Tokenizing (`source_ids`) and detokenizing (`detokenize`) are
functions of their own, traced once and called by all (saved with the SavedModel too).

Bad input never crashes: invalid UTF-8 becomes U+FFFD and unknown characters `<unk>` (the
tokenizers normalize), inputs longer than `max_source_length` tokens are truncated, and empty or
white-space-only inputs translate to "" with score 0 (zero attention), also in a batch of zero.
"""

import functools

import tensorflow as tf

from keras_nmt.decoding.decoding_options import DEFAULT_MAX_BEAM_SIZE, DEFAULT_MAX_LENGTH
from keras_nmt.decoding.length_limits import within_model_limit
from keras_nmt.decoding.loop import decode
from keras_nmt.inference.batch_translator import BatchTranslator
from keras_nmt.special_ids import PAD_ID

# Decoding is plain graph code (keras.ops loops, no Python control flow on tensors: JAX forbids it
# too), so AutoGraph would only re-parse it, and make an export trace longer.
_graph_function = functools.partial(tf.function, autograph=False)
_TEXT = tf.TensorSpec([None], tf.string, name="text")


class _Untracked:
    """Holds what the SavedModel must not track: `Translator._decoder`'s `tf.function`s (not
    exported) and the Keras model (its variables are tracked on their own)."""

    def __init__(self, model):
        self.model = model
        self.functions = {}


def _outputs(texts, scores, empty, names=("translation", "score")):
    """A signature's texts and scores by name: an empty input (nothing to condition on) gets ""
    and score 0 (in every column of beam search's `(batch, beam)`)."""
    if texts.shape.rank == 2:
        empty = empty[:, None]
    return {names[0]: tf.where(empty, tf.constant(""), texts),
            names[1]: tf.where(empty, tf.zeros_like(scores), scores)}


class Translator(BatchTranslator, tf.Module):
    """Tokenizes, decodes and detokenizes in one TensorFlow graph (see the module docstring).

    Args:
        model: a model keeping the inference contract (see CONTRIBUTING.md).
        source_tokenizer: tokenizer of the source side (a `tf.Module`; its vocabulary file or
            SentencePiece model becomes a SavedModel asset or constant).
        target_tokenizer: tokenizer of the target side.
        max_source_length: source tokens kept; longer inputs are truncated. None:
            ``DEFAULT_MAX_LENGTH`` (100, decoding's own default), or the
            model's ``max_length`` when it has a smaller one (a Transformer's positions).
        max_target_length: the most tokens a translation may have (END included). None: as
            for ``max_source_length``.
        max_beam_size: the largest `beam_size` the `beam_search` signature accepts.

    Example:
        >>> translator = Translator(model, source_tokenizer, target_tokenizer)
        >>> translator.serving_default(tf.constant(["3rd of March 2021"]))["translation"]
        >>> translator.translate_batch(["3rd of March 2021"], beam_size=4, n_best=2)[0].texts
    """

    def __init__(self, model, source_tokenizer, target_tokenizer, max_source_length=None,
                 max_target_length=None, max_beam_size=DEFAULT_MAX_BEAM_SIZE):
        super().__init__(name="translator")
        # A plain object, not an attribute: tf.Module would track the model (and each Keras
        # layer's own serving function, traced again by `tf.saved_model.save`) in the export.
        self._untracked = _Untracked(model)
        # The model's tf.Variables, tracked by the module itself: without them the SavedModel
        # reloads in Python but the session-based loaders (TF Serving, `saved_model_cli run`)
        # cannot find the variables (keras-team/keras#20095); Keras' own export does the same.
        self.model_variables = [getattr(v, "value", v) for v in model.variables]
        self.source_tokenizer = source_tokenizer
        self.target_tokenizer = target_tokenizer
        limits = {"max_source_length": max_source_length, "max_target_length": max_target_length}
        for name, length in limits.items():
            length = int(length) if length else None  # None (or 0): the default
            setattr(self, name, within_model_limit(model, length, DEFAULT_MAX_LENGTH, name))
        self.max_beam_size = int(max_beam_size)
        if self.max_beam_size < 1:
            raise ValueError(f"max_beam_size must be >= 1, got {max_beam_size!r}")
        # One beam search per size, kept by the SavedModel ("Beam size dispatch" above).
        self.beam_functions = [self._beam_function(k) for k in range(1, self.max_beam_size + 1)]

    @property
    def model(self):
        """The Keras model (not part of the SavedModel's object graph: its variables are)."""
        return self._untracked.model

    # Graph pieces, the same in every signature and beam size: traced once, called by all.
    @_graph_function(input_signature=[_TEXT])
    def source_ids(self, text):
        """`text (batch,)` -> ids `(batch, max(1, longest))` int32 and `(batch,)` emptiness."""
        # At run time: a signature's placeholder does not check what is fed, and the tokenizer
        # would silently flatten a matrix or wrap a scalar.
        text = tf.ensure_shape(text, [None])
        ragged = self.source_tokenizer.tokenize(text)[:, : self.max_source_length]
        ids = ragged.to_tensor(default_value=PAD_ID)
        # One padding column at least, so an empty batch or all-empty inputs keep a valid shape.
        ids = tf.pad(ids, [[0, 0], [0, tf.maximum(1 - tf.shape(ids)[1], 0)]])
        return tf.cast(ids, tf.int32), tf.equal(ragged.row_lengths(), 0)

    @_graph_function(input_signature=[tf.TensorSpec([None, None], tf.int32, name="tokens")])
    def detokenize(self, tokens):
        """Target ids `(batch, length)` int32 -> translations, string `(batch,)`."""
        return self.target_tokenizer.detokenize(tokens)

    # Signatures
    @_graph_function(input_signature=[_TEXT])
    def serving_default(self, text):
        """Greedy: `text (batch,)` -> `translation` string and `score` float32, `(batch,)`."""
        ids, empty = self.source_ids(text)
        result = decode(self.model, ids, "greedy", max_length=self.max_target_length)
        return _outputs(self.detokenize(result.tokens), result.scores, empty)

    @_graph_function(input_signature=[_TEXT, tf.TensorSpec([], tf.int32, name="beam_size"),
                                      tf.TensorSpec([], tf.float32, name="length_penalty")])
    def beam_search(self, text, beam_size, length_penalty):
        """Beam search: -> `translations` string, `scores` float32, `(batch, beam_size)`."""
        tf.debugging.assert_greater_equal(
            beam_size, 1, message=f"beam_size must be in [1, {self.max_beam_size}]")
        tf.debugging.assert_less_equal(beam_size, self.max_beam_size, message=(
            f"beam_size must be in [1, {self.max_beam_size}] in this export"))
        # length_penalty is checked by the beam function the switch runs.
        index = tf.clip_by_value(beam_size - 1, 0, self.max_beam_size - 1)
        branches = [functools.partial(function, text, length_penalty)
                    for function in self.beam_functions]
        outputs = tf.switch_case(index, branches)
        return {key: value[:, :beam_size] for key, value in outputs.items()}

    def _beam_function(self, beam_size):
        """Beam search of one Python `beam_size`, its outputs padded to `max_beam_size` columns
        ("Beam size dispatch" above); not inlined, so that one size can be prepared alone."""

        @_graph_function(experimental_attributes={"_noinline": True}, input_signature=[
            _TEXT, tf.TensorSpec([], tf.float32, name="length_penalty")])
        def beam(text, length_penalty):
            tf.debugging.assert_greater_equal(
                length_penalty, 0.0, message="length_penalty (GNMT alpha) must be >= 0")
            tf.debugging.assert_all_finite(length_penalty, "length_penalty must be finite")
            ids, empty = self.source_ids(text)
            result = decode(self.model, ids, "beam", beam_size=beam_size,
                            length_penalty=length_penalty, max_length=self.max_target_length)
            # Texts and scores padded to `max_beam_size` columns.
            batch = tf.shape(result.tokens)[0]
            flat = tf.reshape(result.tokens, [batch * beam_size, -1])
            texts = tf.reshape(self.detokenize(flat), [batch, beam_size])
            padding = [[0, 0], [0, self.max_beam_size - beam_size]]
            texts = tf.pad(texts, padding, constant_values="")
            scores = tf.pad(tf.cast(result.scores, tf.float32), padding)
            return _outputs(texts, scores, empty, ("translations", "scores"))

        return beam

    @_graph_function(input_signature=[_TEXT])
    def attention(self, text):
        """Greedy with alignments: -> translation, tokens, source_tokens, weights (see module)."""
        ids, empty = self.source_ids(text)
        result = decode(self.model, ids, "greedy", max_length=self.max_target_length,
                        return_attention=True)
        batch, target_len = tf.shape(result.tokens)[0], tf.shape(result.tokens)[1]
        source_len = tf.shape(ids)[1]
        if result.attention is None:  # a model without attention: zeros, same signature
            weights = tf.zeros([batch, target_len, source_len], tf.float32)
        else:
            weights = tf.cast(result.attention, tf.float32)
        weights = tf.where(empty[:, None, None], tf.zeros_like(weights), weights)
        produced = tf.RaggedTensor.from_tensor(result.tokens, lengths=result.lengths)
        tokens = self.target_tokenizer.ids_to_tokens(produced)
        tokens = tokens.to_tensor(default_value="", shape=[batch, target_len])
        source = tf.RaggedTensor.from_tensor(ids, padding=PAD_ID)
        source_tokens = self.source_tokenizer.ids_to_tokens(source)
        source_tokens = source_tokens.to_tensor(default_value="", shape=[batch, source_len])
        return {**_outputs(self.detokenize(result.tokens), result.scores, empty),
                "tokens": tf.where(empty[:, None], tf.constant(""), tokens),
                "source_tokens": source_tokens, "weights": weights}

    @_graph_function(input_signature=[_TEXT])
    def source_lengths(self, text):
        """Source tokens per input before truncation, int32 `(batch,)` (truncation warnings)."""
        return tf.cast(self.source_tokenizer.tokenize(text).row_lengths(), tf.int32)

    def signatures(self):
        """The functions to export, by signature name (each with its input signature)."""
        # Not their concrete functions: `tf.saved_model.save` traces every function again in
        # its save context, so tracing them before would double the work.
        return {"serving_default": self.serving_default, "beam_search": self.beam_search,
                "attention": self.attention}

    # Python API
    def _decoder(self, options):
        """A cached `tf.function` decoding with these (Python) `DecodingOptions`: the strategies
        without a signature of their own (sampling, any strategy registered in
        `keras_nmt.decoding.strategies`), one translation per sentence. It takes the texts and
        each one's index in the caller's input (`index`, int32): sampling's random numbers
        belong to the sentence (`keras_nmt.decoding.sampling`)."""
        # `DecodingOptions` checked the values and made 0 top-k and a top-p of 1 `None`.
        options = options.replace(max_length=self.max_target_length)
        key = (options.chosen_strategy, tuple(sorted(options.options().items())))
        cache = self._untracked.functions
        if key not in cache:

            @_graph_function(input_signature=[_TEXT, tf.TensorSpec([None], tf.int32, "index")])
            def run(text, index):
                ids, empty = self.source_ids(text)
                result = decode(self.model, ids, options, sentence_ids=index).best()
                return _outputs(self.detokenize(result.tokens), result.scores, empty)

            cache[key] = run
        return cache[key]
