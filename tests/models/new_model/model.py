"""The bag-of-words model: what its two twins share."""

import keras
from keras import ops

from keras_nmt.models.constructor_config import ConstructorConfig


class BagOfWords(ConstructorConfig):
    """The previous target token and the mean of the source embeddings predict the next token.

        summary = tanh(W_b mean_s E x_s),   logits_t = W_o tanh(E' y_{t-1} + W_s summary).

    Args:
        source_vocab_size, target_vocab_size: the vocabularies (id 0 is padding).
        embedding_dim: width of both embeddings.
        bag_units: width of the source summary.

    Inference: memory `{"source_mask", "summary": (batch, bag_units)}`, state `{"step":
    (batch,)}`, `decode_step` -> `(logits (batch, vocab) float32, state, None)`.
    """

    has_attention = False
    model_name = "bow"

    def __init__(self, source_vocab_size, target_vocab_size, embedding_dim=128, bag_units=16,
                 name="bag_of_words", **kwargs):
        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.embedding_dim = embedding_dim
        self.bag_units = bag_units
        self.source_embedding = keras.layers.Embedding(source_vocab_size, embedding_dim,
                                                       name="source_embedding")
        self.summary_layer = keras.layers.Dense(bag_units, activation="tanh", name="summary")
        self.target_embedding = keras.layers.Embedding(target_vocab_size, embedding_dim,
                                                       name="target_embedding")
        self.summary_projection = keras.layers.Dense(embedding_dim, name="summary_projection")
        self.output_projection = keras.layers.Dense(target_vocab_size, name="output_projection")
        self._wire(name=name, **kwargs)

    def _summary(self, tokens):
        """Source ids `(batch, src)` -> `summary` `(batch, bag_units)`."""
        embedded = self.source_embedding(tokens)  # (batch, src, embedding_dim)
        # The embeddings' dtype, not `self.compute_dtype`: the functional twin wires this before
        # `keras.Model.__init__`, when the model has no dtype policy yet.
        mask = ops.cast(ops.not_equal(tokens, 0), embedded.dtype)[..., None]
        total = ops.sum(embedded * mask, axis=1)
        return self.summary_layer(total / ops.maximum(ops.sum(mask, axis=1), 1.0))

    def _logits(self, tokens, summary):
        """Previous tokens `(batch, tgt)` and the summary -> logits `(batch, tgt, vocab)`."""
        hidden = ops.tanh(self.target_embedding(tokens)
                          + ops.expand_dims(self.summary_projection(summary), 1))
        return ops.cast(self.output_projection(hidden), "float32")

    def initial_state(self, memory, max_length=None):
        del max_length  # no cache to size
        return {"step": ops.zeros_like(ops.cast(memory["source_mask"][:, 0], "int32"))}
