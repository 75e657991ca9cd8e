"""ConvS2S, the convolutional sequence-to-sequence model (Gehring et al. 2017): its card.

The model: `model.py` (what the twins share, with the paper's equations), `functional.py` and
`subclassed.py` (the twins); its attention: `keras_nmt/layers/attention.py`, section 7.
"""

import dataclasses

from keras_nmt.models.flops import attention_pair_flops, dense_flops
from keras_nmt.models.model_card import ModelCard
from keras_nmt.option_fields import option


@dataclasses.dataclass
class ConvS2SOptions:
    """The options ConvS2S brings (it also takes the LSTM's `embedding_dim`, `num_layers` and
    `dropout`, and `max_length`)."""

    channels: int = option(256, "ConvS2S convolution width (every layer's)", at_least=1)
    kernel_size: int = option(3, "ConvS2S kernel width: the positions each convolution sees",
                              at_least=2)


def forward_flops(config, s, t):
    """With `C` channels, `k` the kernel size, `E` the embedding size, `L` layers, `V` the
    target vocabulary: the encoder's projections in and out `S * 4EC`, each encoder layer's
    convolution `S * 2 * kC * 2C` (`2C` outputs for the gated linear unit); the decoder's
    projection in `T * 2EC`, each decoder layer's convolution `T * 4kC^2` and attention
    projections `T * 4CE` plus `T * S * 4E` (scores and context); output `T * 2CE + T * 2EV`.
    Incremental decoding computes one column per step: the same count."""
    e, c, k, layers = (config["embedding_dim"], config["channels"], config["kernel_size"],
                       config["num_layers"])
    convolution = 2 * k * c * 2 * c  # per position: k columns of C in, 2C out
    encoder = s.sum() * (2 * dense_flops(1, e, c) + layers * convolution)
    decoder = (t.sum() * (dense_flops(1, e, c) + layers * (convolution + 2 * dense_flops(1, c, e)))
               + layers * (s * t).sum() * attention_pair_flops(e))
    return (encoder + decoder + dense_flops(t.sum(), c, e)
            + dense_flops(t.sum(), e, config["target_vocab_size"]))


def step_matmuls(options, rows, sentences, vocab):
    """A convolution (one matmul of `kernel_size` columns in, `2 * channels` out), the
    attention's projections and the output projection, each over `rows` rows."""
    channels, embedding = options["channels"], options["embedding_dim"]
    return [(rows, options["kernel_size"] * channels, 2 * channels), (rows, channels, embedding),
            (rows, embedding, channels), (rows, embedding, vocab)]  # fmt: skip


BENCHMARK = {"embedding_dim": 256, "channels": 256, "kernel_size": 3, "num_layers": 4,
             "dropout": 0.1, "max_length": 256}
QUICK = {"embedding_dim": 16, "channels": 32, "kernel_size": 3, "num_layers": 2,
         "dropout": 0.1, "max_length": 256}

CARD = ModelCard(
    name="convs2s",
    package=__name__,
    class_stem="ConvS2S",
    arguments=("embedding_dim", "channels", "kernel_size", "num_layers", "dropout",
               "max_length"),
    options=ConvS2SOptions,
    # Adam at a constant learning rate (`TrainConfig.learning_rate`), as the recurrent models;
    # not the paper's Nesterov SGD at 0.25.
    recipe={"schedule": "constant", "adam": {}},
    sizes={
        # Tuned in short runs (docs/decisions.md): 512 channels were half as fast for nothing
        # yet; a learning rate of 0.002 learned more per step than 0.001 and 0.003.
        "spa-eng": {
            "description": "4+4 layers of 256 channels, kernel 3, embeddings 256, learning "
                           "rate 0.002, no dropout",
            "config": {"embedding_dim": 256, "channels": 256, "kernel_size": 3,
                       "num_layers": 4, "dropout": 0.0, "learning_rate": 2e-3},
        },
        "benchmark": {"description": "embedding 256, 4+4 layers of 256 channels, kernel 3",
                      "config": BENCHMARK},
        "benchmark-quick": {"description": "embedding 16, 2+2 layers of 32 channels, kernel 3",
                            "config": QUICK},
        "benchmark-gpu": {"description": "embedding 512, 8+8 layers of 512 channels, kernel 3",
                          "config": {**BENCHMARK, "embedding_dim": 512, "channels": 512,
                                     "num_layers": 8}},
        "benchmark-jax-quick": {"description": "embedding 8, 1+1 layers of 16 channels, "
                                               "kernel 3",
                                "config": {**QUICK, "embedding_dim": 8, "channels": 16,
                                           "num_layers": 1}},
        "tiny": {"description": "embedding 8, 2+2 layers of 8 channels, kernel 3, 12 positions",
                 "config": {"embedding_dim": 8, "channels": 8, "kernel_size": 3,
                            "num_layers": 2, "max_length": 12}},
    },
    forward_flops=forward_flops,
    step_matmuls=step_matmuls,
)
