"""Decoding on the model inference contract: greedy, beam search and sampling.

Every strategy is written with ``keras.ops`` only and runs as one ``keras.ops.while_loop`` over
the whole batch, so under TensorFlow it traces into a ``tf.function`` / SavedModel with dynamic
batch size and source length. ``decode(model, encoder_tokens, strategy, **options)`` is the
single entry point; ``DecodingOptions`` holds the options as one value (the apps' flags, the
Translator, the comparison presets); ``DecodingModel`` states what a model must provide (the
inference contract). The contract and the layering: docs/architecture.md.
"""

from keras_nmt.decoding._common import within_model_limit
from keras_nmt.decoding.api import decode
from keras_nmt.decoding.beam_search import beam_search
from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import GREEDY, STRATEGIES, DecodingOptions
from keras_nmt.decoding.greedy import greedy_decode
from keras_nmt.decoding.length_order import length_order, restore_order
from keras_nmt.decoding.sampling import filter_top_k, filter_top_p, sample_decode
from keras_nmt.decoding.scoring import (
    coverage_penalty,
    gnmt_length_penalty,
    length_normalizer,
    normalize_log_probs,
)

__all__ = [
    "STRATEGIES",
    "DecodeResult",
    "DecodingModel",
    "DecodingOptions",
    "GREEDY",
    "beam_search",
    "coverage_penalty",
    "decode",
    "filter_top_k",
    "filter_top_p",
    "gnmt_length_penalty",
    "greedy_decode",
    "length_normalizer",
    "length_order",
    "normalize_log_probs",
    "restore_order",
    "sample_decode",
    "within_model_limit",
]
