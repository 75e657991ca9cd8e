"""ConvS2S, the convolutional sequence-to-sequence model (Gehring et al. 2017): what both twins
share, stated once (no Keras here: the options, configurations and `--help` read it too).

The twins, `convs2s_functional.py` and `convs2s_subclassed.py`, wire the same layers
(`convs2s_parts.make_layers`) in the two API styles; this page is the model.

**The model.** Between the recurrent models and the Transformer: no recurrence, so every
position of a sentence is computed at once in training, but still a fixed-size window per
layer, widened by stacking; attention gives the alignment; positions must be embedded.

- Embeddings (§3.1): `e_j = w_j + p_j`, a word embedding plus a learned position embedding
  (`LearnedPositionalEmbedding`, `embedding_dim` wide), then dropout; the target side's `g_i`
  likewise.
- Encoder (§3.2): a projection to `channels` (`encoder_input`), then `num_layers` blocks
  `z^l = (GLU(conv(dropout(z^{l-1}))) + z^{l-1}) · √½` (`ConvEncoderBlock`: a convolution of
  `kernel_size` positions centred on each one, a gated linear unit, a residual connection),
  and a projection back to `embedding_dim` (`encoder_output`): `z_j`.
- Decoder: `g_i` projected to `channels` (`decoder_input`), then `num_layers` blocks
  (`ConvDecoderBlock`) of causal convolutions (`kernel_size - 1` zeros on the left: position
  `i` never sees a later target token), each followed by its own attention (§3.3, multi-step
  attention, `ConvS2SAttention`): `d_i = (W_d h_i + b_d + g_i) · √½`,
  `a_ij = softmax_j(d_i · z_j)`, `c_i = √m · Σ_j a_ij (z_j + e_j) · √½` (`m` real source
  tokens: the paper's `m · √(1/m)`), added back to `h_i` with a residual sum scaled by √½.
- Output: a projection to `embedding_dim` (`output_hidden`), dropout, and the projection onto
  the target vocabulary (`output_projection`); logits in float32.
- The scalings of §3.4: every residual sum times √½; the encoder output's gradient divided
  by twice the number of attentive decoder layers (it feeds each of them), with the forward
  pass unchanged (`convs2s_parts.scale_gradient`); the source embeddings excluded.

**Initialisation and weight normalization.** Keras has no weight-normalization wrapper, so our
layers normalise their own kernels: every projection (`WeightNormDense`) and convolution
(`GatedConvolution`) computes `w = g · v / ‖v‖` per output unit at each call (Salimans and
Kingma 2016), as the paper (§3.4) and fairseq's `fconv` do. `v` starts as the paper's
N(0, sqrt((1 - p) / fan_in)) for a projection and N(0, sqrt(4 (1 - p) / (k · fan_in))) for a
convolution (`p`: the dropout on the layer's input; the 4 makes up for the GLU), `g` at the
expected norm of those columns, biases at 0, the embeddings N(0, 0.1). Weight normalization
rather than the initialisation alone: both together are the paper's recipe, and the cost is a
norm over each kernel per call, negligible next to the convolutions (docs/decisions.md).

**Incremental decoding.** `decode_step` keeps, per decoder layer, its last `kernel_size - 1`
inputs (`"window_{i}"`, `(batch, kernel_size - 1, channels)`, zeros at first as the causal
border) and the position (`"step"`), so a step costs one column per layer, not the prefix.
The memory holds `"keys"` (`z_j`), `"values"` (`(z_j + e_j) · √½`), both
`(batch, src_len, embedding_dim)`, and `"source_mask"`. The attention `decode_step` returns is
the mean of the decoder layers' attention, `(batch, src_len)`; every layer's own is given by
`layer_attention(encoder_tokens, decoder_tokens)` -> `(batch, num_layers, tgt_len, src_len)`
(teacher-forced), which the explorer page and `keras-nmt translate --attention-plot` draw.

**Layer names** (the same in both twins, so weights copy by name): `"source_embedding"`,
`"target_embedding"`, `"source_embedding_dropout"`, `"target_embedding_dropout"`,
`"encoder_input"`, `"encoder_block_{i}"`, `"encoder_output"`, `"decoder_input"`,
`"decoder_block_{i}"`, `"output_hidden"`, `"output_dropout"`, `"output_projection"`.

**Not here**: fairseq's per-layer widths and kernel sizes (every layer here has `channels` and
`kernel_size`), its adaptive softmax and its Nesterov SGD with learning rate 0.25 (we train with
Adam, as the other models; `RECIPE`). CTranslate2 runs no ConvS2S, so the model exports to a
SavedModel only.

References:
    Gehring, Auli, Grangier, Yarats and Dauphin, 2017, "Convolutional Sequence to Sequence
    Learning", https://arxiv.org/abs/1705.03122; Dauphin et al., 2017, "Language Modeling with
    Gated Convolutional Networks", https://arxiv.org/abs/1612.08083; Salimans and Kingma, 2016,
    "Weight Normalization", https://arxiv.org/abs/1602.07868
"""

NAME = "convs2s"
PAPER = "Gehring et al. 2017"

# The constructor arguments besides the vocabulary sizes, in constructor order; their defaults
# are `ModelOptions`' (`keras_nmt.models.configurations.OPTION_DEFAULTS`).
ARGUMENTS = ("embedding_dim", "channels", "kernel_size", "num_layers", "dropout", "max_length")

# Adam at a constant learning rate (`TrainConfig.learning_rate`), as the recurrent models.
RECIPE = {"schedule": "constant", "adam": {}}

_BENCHMARK = {"embedding_dim": 256, "channels": 256, "kernel_size": 3, "num_layers": 4,
              "dropout": 0.1, "max_length": 256}
_QUICK = {"embedding_dim": 16, "channels": 32, "kernel_size": 3, "num_layers": 2,
          "dropout": 0.1, "max_length": 256}

# The model's entry in each of `configurations.REFERENCE_CONFIGURATIONS`.
REFERENCES = {
    # Tuned in short runs (docs/decisions.md): 512 channels were half as fast for nothing yet;
    # a learning rate of 0.002 learned more per step than 0.001 and 0.003.
    "spa-eng": {
        "description": "4+4 layers of 256 channels, kernel 3, embeddings 256, learning rate "
                       "0.002, no dropout",
        "config": {"embedding_dim": 256, "channels": 256, "kernel_size": 3, "num_layers": 4,
                   "dropout": 0.0, "learning_rate": 2e-3},
    },
    "benchmark": {"description": "embedding 256, 4+4 layers of 256 channels, kernel 3",
                  "config": dict(_BENCHMARK)},
    "benchmark-quick": {"description": "embedding 16, 2+2 layers of 32 channels, kernel 3",
                        "config": dict(_QUICK)},
    "benchmark-gpu": {"description": "embedding 512, 8+8 layers of 512 channels, kernel 3",
                      "config": {**_BENCHMARK, "embedding_dim": 512, "channels": 512,
                                 "num_layers": 8}},
    "benchmark-jax-quick": {"description": "embedding 8, 1+1 layers of 16 channels, kernel 3",
                            "config": {**_QUICK, "embedding_dim": 8, "channels": 16,
                                       "num_layers": 1}},
    "tiny": {"description": "embedding 8, 2+2 layers of 8 channels, kernel 3, 12 positions",
             "config": {"embedding_dim": 8, "channels": 8, "kernel_size": 3, "num_layers": 2,
                        "max_length": 12}},
}


def check_arguments(kernel_size, num_layers):
    """`ValueError` unless the sizes make a ConvS2S (the options' own limits are checked by
    `ModelOptions`; these are the model's)."""
    if kernel_size < 2:
        raise ValueError(f"kernel_size={kernel_size}: a ConvS2S convolution needs at least 2 "
                         "positions (the decoder's window keeps kernel_size - 1 of them)")
    if num_layers < 1:
        raise ValueError(f"num_layers={num_layers}: a ConvS2S needs at least one layer per side")
