"""The Translator: strings in, strings out, with the tokenizers and the decoder inside."""

import numpy as np
import tensorflow as tf

from keras_nmt.decoding import decode
from keras_nmt.special_ids import PAD_ID


class Translator(tf.Module):
    """Tokenizes, decodes and detokenizes in one TensorFlow graph.

    The same object translates in-process (training callbacks, `apps/translate.py`) and is what
    `keras_nmt.export` saves as a SavedModel, so both give the same translations.

    Args:
        model: a model keeping the inference contract (see CONTRIBUTING.md).
        source_tokenizer: tokenizer of the source side.
        target_tokenizer: tokenizer of the target side.
        max_source_length: source tokens kept; longer inputs are truncated.
        max_target_length: the most tokens a translation may have (END included).

    Example:
        >>> translator = Translator(model, source_tokenizer, target_tokenizer)
        >>> translator.translate(tf.constant(["3rd of March 2021"]))["translation"]
    """

    def __init__(
        self, model, source_tokenizer, target_tokenizer, max_source_length=128, max_target_length=128
    ):
        super().__init__(name="translator")
        self.model = model
        self.source_tokenizer = source_tokenizer
        self.target_tokenizer = target_tokenizer
        self.max_source_length = int(max_source_length)
        self.max_target_length = int(max_target_length)

    def source_ids(self, text):
        """`text (batch,)` -> source ids `(batch, max(1, longest))` int32 and `(batch,)` emptiness."""
        ragged = self.source_tokenizer.tokenize(text)[:, : self.max_source_length]
        ids = ragged.to_tensor(default_value=PAD_ID)
        # One padding column at least, so an empty batch or all-empty inputs keep a valid shape.
        ids = tf.pad(ids, [[0, 0], [0, tf.maximum(1 - tf.shape(ids)[1], 0)]])
        return tf.cast(ids, tf.int32), tf.equal(ragged.row_lengths(), 0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def translate(self, text):
        """Greedy translation: `text (batch,)` -> `{"translation": (batch,), "score": (batch,)}`."""
        ids, empty = self.source_ids(text)
        result = decode(self.model, ids, "greedy", max_length=self.max_target_length)
        translation = self.target_tokenizer.detokenize(result.tokens)
        return {
            # An empty input translates to an empty string (nothing to condition on).
            "translation": tf.where(empty, tf.constant(""), translation),
            "score": tf.where(empty, tf.zeros_like(result.scores), result.scores),
        }

    def translate_texts(self, texts, batch_size=64):
        """Translates a Python list of strings in batches; returns a list of strings."""
        outputs = []
        for start in range(0, len(texts), batch_size):
            batch = tf.constant(list(texts[start : start + batch_size]), dtype=tf.string)
            outputs.extend(t.decode("utf-8") for t in self.translate(batch)["translation"].numpy())
        return outputs

    def warn_if_truncated(self, texts, warn):
        """Calls `warn(message)` for each text longer than `max_source_length` tokens."""
        lengths = self.source_tokenizer.tokenize(tf.constant(list(texts))).row_lengths().numpy()
        for index in np.flatnonzero(lengths > self.max_source_length):
            warn(
                f"input {index + 1} has {lengths[index]} tokens; only the first "
                f"{self.max_source_length} are translated"
            )
