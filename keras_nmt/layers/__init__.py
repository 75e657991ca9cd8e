"""Layers (keras.ops only): every attention in `attention.py` (its key/value cache in
`key_value_cache.py`), Transformer blocks, ConvS2S blocks (gated convolutions, weight-normalised
projections), positional embeddings, source reversal."""

from keras_nmt.layers.attention import (
    BahdanauAttention,
    ConvS2SAttention,
    LuongAttention,
    MultiHeadAttention,
)
from keras_nmt.layers.bahdanau_decoder_rnn import BahdanauDecoderRNN
from keras_nmt.layers.conv_decoder_block import ConvDecoderBlock
from keras_nmt.layers.conv_encoder_block import ConvEncoderBlock
from keras_nmt.layers.gated_convolution import GatedConvolution
from keras_nmt.layers.learned_positional_embedding import LearnedPositionalEmbedding
from keras_nmt.layers.logits_bias import LogitsBias
from keras_nmt.layers.positional_embedding import PositionalEmbedding
from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.layers.transformer_decoder_block import TransformerDecoderBlock
from keras_nmt.layers.transformer_encoder_block import TransformerEncoderBlock
from keras_nmt.layers.weight_norm_dense import WeightNormDense

__all__ = [
    "BahdanauAttention", "BahdanauDecoderRNN", "ConvDecoderBlock", "ConvEncoderBlock",
    "ConvS2SAttention", "GatedConvolution", "LearnedPositionalEmbedding", "LogitsBias",
    "LuongAttention", "MultiHeadAttention", "PositionalEmbedding", "ReversePaddedSequence",
    "TransformerDecoderBlock", "TransformerEncoderBlock", "WeightNormDense"
]
