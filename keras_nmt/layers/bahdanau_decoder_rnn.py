"""The recurrent decoder of Bahdanau et al. (2014) as one layer, for functional graphs."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_nmt")
class BahdanauDecoderRNN(keras.layers.Layer):
    """Runs Bahdanau's attention-conditioned LSTM decoder over a whole target sequence.

    Bahdanau, Cho and Bengio (2014), "Neural Machine Translation by Jointly Learning to Align and
    Translate", §3.1 and appendix A.2.2. At step `t` the previous decoder state `s_{t-1}` (its
    `h`) queries the annotations, then the context enters the recurrence with the previous token:

        c_t, α_t = attention(s_{t-1}, h_1..h_Tx)
        s_t = LSTMCell([E y_{t-1}; c_t], s_{t-1})

    Keras 3's `RNN` layer cannot hand extra tensors (the annotations and their mask) to its cell,
    so this layer runs its own `keras.ops.scan` over time. It holds the cell and the attention
    layer it is given: the functional Bahdanau twin passes the same objects its subclassed twin
    keeps at top level, and `copy_by_sublayer_names` makes `copy_weights_by_layer_name` match
    them by their own names (`decoder_lstm_0`, `attention`).

    Args:
        cell: a `keras.layers.LSTMCell`.
        attention: a `BahdanauAttention` (any layer with the same call signature; the score and
            the softmax: `attention.py`).
        **kwargs: base `keras.layers.Layer` arguments (`name`, `dtype`, ...).

    Call arguments:
        embedded_targets: `(batch, target_len, embedding_dim)`, the embedded decoder inputs.
        memory: `(batch, source_len, memory_dim)`, the annotations.
        keys: `(batch, source_len, attention_units)` from `attention.project_memory(memory)`;
            computed once inside the call when `None`.
        memory_mask: `(batch, source_len)` bool, False at padding.
        initial_states: `[h, c]`, each `(batch, units)`.

    Returns:
        `(outputs, contexts, weights, h, c)`: the decoder outputs `s_t`
        `(batch, target_len, units)`, the contexts `c_t` `(batch, target_len, memory_dim)`, the
        attention weights `(batch, target_len, source_len)` and the final states `(batch, units)`.

    Example:
        >>> rnn = BahdanauDecoderRNN(keras.layers.LSTMCell(16), BahdanauAttention(16))
        >>> outputs, contexts, weights, h, c = rnn(embedded, memory, None, mask, [h0, c0])
    """

    copy_by_sublayer_names = True

    def __init__(self, cell, attention, **kwargs):
        super().__init__(**kwargs)
        self.cell = cell
        self.attention = attention
        # The targets are right-padded and the recurrence is causal: padded steps cannot change
        # real ones, so the targets' mask is accepted and not propagated (see `compute_mask`).
        self.supports_masking = True

    def build(
        self,
        embedded_targets_shape,
        memory_shape,
        keys_shape=None,
        memory_mask_shape=None,
        initial_states_shape=None,
    ):
        # Build the sub-layers here, not inside the scan's loop body (no variables there).
        units = self.cell.units
        if not self.attention.built:
            self.attention.build((None, units), memory_shape)
        if not self.cell.built:
            self.cell.build((None, embedded_targets_shape[-1] + memory_shape[-1]))
        self.built = True

    def call(self, embedded_targets, memory, keys=None, memory_mask=None, initial_states=None):
        if keys is None:
            keys = self.attention.project_memory(memory)  # (batch, src, attention_units)
        batch = ops.shape(embedded_targets)[0]
        h, c = initial_states  # (batch, units) each

        def body(carry, x_t):
            # x_t = E y_{t-1}: (batch, emb); the query is the previous state s_{t-1}.
            context, weights = self.attention(
                carry["states"][0], memory, memory_mask=memory_mask, projected_memory=keys
            )  # (batch, memory_dim), (batch, src)
            output, states = self.cell(ops.concatenate([x_t, context], axis=-1), carry["states"])
            carry = {
                "states": list(states),
                "output": output,
                "context": context,
                "weights": ops.cast(weights, output.dtype),
            }
            # Keras' TensorFlow scan wants per-step outputs shaped like the carry: emit the carry.
            return carry, carry

        initial = {
            "states": [h, c],
            "output": ops.zeros_like(h),
            "context": ops.zeros((batch, ops.shape(memory)[2]), dtype=memory.dtype),
            "weights": ops.zeros((batch, ops.shape(memory)[1]), dtype=h.dtype),
        }
        # Scan over time: inputs (target_len, batch, emb).
        last, per_step = ops.scan(body, initial, ops.transpose(embedded_targets, (1, 0, 2)))

        def batch_major(x):
            return ops.transpose(x, (1, 0, 2))

        return (
            batch_major(per_step["output"]),  # (batch, tgt, units)
            batch_major(per_step["context"]),  # (batch, tgt, memory_dim)
            batch_major(per_step["weights"]),  # (batch, tgt, src)
            last["states"][0],
            last["states"][1],
        )

    def compute_mask(self, embedded_targets, previous_mask=None):
        return None

    def compute_output_spec(
        self, embedded_targets, memory, keys=None, memory_mask=None, initial_states=None
    ):
        batch, target_len = embedded_targets.shape[0], embedded_targets.shape[1]
        units, dtype = self.cell.units, self.compute_dtype
        return (
            keras.KerasTensor((batch, target_len, units), dtype=dtype),
            keras.KerasTensor((batch, target_len, memory.shape[-1]), dtype=dtype),
            keras.KerasTensor((batch, target_len, memory.shape[1]), dtype=dtype),
            keras.KerasTensor((batch, units), dtype=dtype),
            keras.KerasTensor((batch, units), dtype=dtype),
        )

    def get_config(self):
        # The model that owns this layer rebuilds it (with its shared cell and attention) from
        # its own constructor arguments, so the sub-layers are recorded for completeness only.
        config = super().get_config()
        config.update(
            {
                "cell": keras.saving.serialize_keras_object(self.cell),
                "attention": keras.saving.serialize_keras_object(self.attention),
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["cell"] = keras.saving.deserialize_keras_object(config["cell"])
        config["attention"] = keras.saving.deserialize_keras_object(config["attention"])
        return cls(**config)
