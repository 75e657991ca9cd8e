"""A CTC model: every input position labelled at once, for aligned sequences (spelling).

One class, not twins: the seq2seq twins differ in their decoders (a static teacher-forced graph
against a step loop that can feed its own predictions). This model has no decoder and no
steps: every frame is labelled at once from the encoder's states, so a functional and a
subclassed version would compute the same thing the same way, and `diff` would show nothing
but the API. It is written as a subclassed model because its inputs are the training batches'
dict and its loss needs the input lengths (`compute_loss`).
"""

import keras
from keras import ops

from keras_nmt.models.constructor_config import ConstructorConfig
from keras_nmt.models.ctc.ctc_decoding import beam_decode, best_path_decode
from keras_nmt.models.ctc.ctc_loss import BLANK, ctc_loss
from keras_nmt.models.recurrent_parts import cudnn_setting
from keras_nmt.special_ids import PAD_ID

# The logit of every label but the blank at a padding frame: its softmax is exactly 0 in float32.
_IMPOSSIBLE = -1e9


@keras.saving.register_keras_serializable(package="keras_nmt")
class CtcModel(ConstructorConfig, keras.Model):
    """Bidirectional-LSTM encoder, upsampled frames, and a label-or-blank softmax per frame.

    Trained with Connectionist Temporal Classification (Graves et al. 2006, "Connectionist
    Temporal Classification: Labelling Unsegmented Sequence Data with Recurrent Neural
    Networks"); its loss is `ctc_loss.ctc_loss`, its decoding `ctc_decoding`.

    - `x_i = E s_i`, then `h_1..h_n = BiLSTM(x_1..x_n)` (`num_layers` layers, `units // 2` per
      direction), `(batch, n, units)`: each position sees the whole sentence.
    - Upsampling: position `i` becomes `upsampling = k` frames `f_{i,j} = relu(W_j h_i + b_j)`,
      `j = 1..k` (one `Dense(k * units)` split into `k` frames: a transposed convolution of
      stride and width `k`, as Libovický and Helcl 2018 upsample for CTC translation),
      `(batch, k n, units)`.
    - `y^t = softmax(W_o f_t)` over the target vocabulary, whose padding id 0 is the blank
      (`BLANK`): `(batch, k n, target_vocab)`.

    Why upsample: CTC can only emit as many labels as there are frames, fewer when a label
    repeats (`ctc_loss.frames_needed`: "letter" needs 7 frames for 6 letters). With one frame
    per character a corrector could not restore a dropped letter, nor even copy "letter". With
    `k = 2` every input character may become up to two output characters. Why project rather
    than repeat each state `k` times: `k` copies of one state give `k` equal distributions, so a
    position could still emit only one distinct label; `k` projections can emit, e.g., the typed
    letter and then a letter the typist left out.

    Masks: the embedding masks padding (`mask_zero`), the LSTMs skip it, and a padding frame
    emits the blank with probability 1 (logit 0 for the blank, -1e9 for the rest), so padding
    changes neither the loss nor any decoding, even one that ignores the lengths.

    Args:
        source_vocab_size, target_vocab_size: the vocabularies' sizes; id 0 is padding, and
            the target's the blank.
        embedding_dim: width of the source embedding.
        units: encoder width (`units // 2` per direction) and frame width; even.
        num_layers: bidirectional LSTM layers.
        dropout: dropout on the inputs of the upper LSTM layers and before the upsampling.
        upsampling: frames per input position (`k >= 1`).

    Call:
        inputs: `{"encoder_tokens": (batch, source_len) int32, ...}` (the training batches'
            dict; other keys are not read) or the `(batch, source_len)` tensor itself.
        returns: logits float32 `(batch, upsampling * source_len, target_vocab_size)`.

    Example:
        >>> model = CtcModel(source_vocab_size=40, target_vocab_size=40, units=64)
        >>> logits = model(encoder_tokens)                       # (batch, 2 * src_len, 40)
        >>> labels, lengths, log_probs = model.decode_aligned(encoder_tokens)  # best path
    """

    has_attention = False
    model_name = "ctc"

    def __init__(
        self,
        source_vocab_size,
        target_vocab_size,
        embedding_dim=128,
        units=256,
        num_layers=1,
        dropout=0.0,
        upsampling=2,
        name="ctc",
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        if units % 2:
            raise ValueError(f"the bidirectional encoder needs an even `units`, got {units}")
        if upsampling < 1:
            raise ValueError(f"upsampling must be >= 1, got {upsampling}")
        self.source_embedding = keras.layers.Embedding(
            source_vocab_size, embedding_dim, mask_zero=True, name="source_embedding"
        )
        self.encoder_lstms = [
            keras.layers.Bidirectional(
                keras.layers.LSTM(units // 2, return_sequences=True, use_cudnn=cudnn_setting()),
                name=f"encoder_lstm_{i}",
            )
            for i in range(num_layers)
        ]
        self.encoder_dropout = keras.layers.Dropout(dropout, name="encoder_dropout")
        self.upsampling_projection = keras.layers.Dense(
            upsampling * units, activation="relu", name="upsampling"
        )
        self.output_projection = keras.layers.Dense(target_vocab_size, name="output_projection")
        self._store_arguments(locals())

    def build(self, input_shape=None):
        self.frame_logits(ops.ones((1, 1), dtype="int32"))  # makes every layer's weights
        super().build(input_shape)

    def frame_lengths(self, encoder_tokens):
        """The real frames of each sequence, `upsampling` per real token: int32 `(batch,)`."""
        tokens = ops.sum(ops.cast(ops.not_equal(encoder_tokens, PAD_ID), "int32"), axis=1)
        return tokens * self.upsampling

    def frame_logits(self, encoder_tokens, training=None):
        """`(batch, source_len)` ids -> logits float32 `(batch, upsampling * source_len, vocab)`."""
        source_mask = ops.not_equal(encoder_tokens, PAD_ID)  # (batch, src)
        x = self.source_embedding(encoder_tokens)  # (batch, src, emb)
        for depth, lstm in enumerate(self.encoder_lstms):
            if depth:
                x = self.encoder_dropout(x, training=training)
            x = lstm(x, mask=source_mask, training=training)  # (batch, src, units)
        x = self.encoder_dropout(x, training=training)
        frames = self.upsampling_projection(x)  # (batch, src, k * units)
        # Position i's k slices become frames k i, ..., k i + k - 1: (batch, k src, units).
        frames = ops.reshape(frames, (ops.shape(frames)[0], -1, self.units))
        logits = ops.cast(self.output_projection(frames), "float32")  # (batch, k src, vocab)
        frame_mask = ops.repeat(source_mask, self.upsampling, axis=1)  # (batch, k src)
        padding = ops.where(ops.arange(self.target_vocab_size) == BLANK, 0.0, _IMPOSSIBLE)
        return ops.where(frame_mask[..., None], logits, padding)

    def call(self, inputs, training=None):
        tokens = inputs["encoder_tokens"] if isinstance(inputs, dict) else inputs
        return self.frame_logits(tokens, training=training)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The CTC loss (`ctc_loss`) of logits `y_pred` for targets `y` (`y + [END]`): a Keras
        loss sees no inputs, and the loss needs each sequence's real frames."""
        del sample_weight, training  # every sequence counts by its labels (see `ctc_loss`)
        tokens = x["encoder_tokens"] if isinstance(x, dict) else x
        return ctc_loss(y, y_pred, self.frame_lengths(tokens))

    # --- the aligned-model contract (`keras_nmt.decoding.aligned.AlignedModel`) ---
    def decode_aligned(self, encoder_tokens, beam_size=None, n_best=None):
        """Labellings of `(batch, source_len)` ids, without END, padded with `PAD_ID`.

        Args:
            encoder_tokens: int32 `(batch, source_len)`.
            beam_size: None for best-path decoding, else the width of CTC prefix beam search.
            n_best: labellings per sentence from beam search (default `beam_size`).

        Returns:
            `(labels, lengths, log_probs)`: best path: `(batch, frames)`, `(batch,)`,
            `(batch,)`; beam search: `(batch, n_best, frames)`, `(batch, n_best)`,
            `(batch, n_best)` (see `ctc_decoding`).
        """
        log_probs = ops.log_softmax(self.frame_logits(encoder_tokens), axis=-1)
        lengths = self.frame_lengths(encoder_tokens)
        if beam_size is None:
            return best_path_decode(log_probs, lengths)
        return beam_decode(log_probs, lengths, beam_size, n_best)
