"""Layers (keras.ops only): attention, Transformer blocks, ConvS2S blocks, positional embeddings,
source reversal."""

from keras_nmt.layers.bahdanau_attention import BahdanauAttention
from keras_nmt.layers.bahdanau_decoder_rnn import BahdanauDecoderRNN
from keras_nmt.layers.cached_multi_head_attention import CachedMultiHeadAttention
from keras_nmt.layers.conv_decoder_block import ConvDecoderBlock
from keras_nmt.layers.conv_encoder_block import ConvEncoderBlock
from keras_nmt.layers.convs2s_attention import ConvS2SAttention
from keras_nmt.layers.gated_convolution import GatedConvolution
from keras_nmt.layers.learned_positional_embedding import LearnedPositionalEmbedding
from keras_nmt.layers.logits_bias import LogitsBias
from keras_nmt.layers.luong_attention import LuongAttention
from keras_nmt.layers.positional_embedding import PositionalEmbedding
from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.layers.transformer_decoder_block import TransformerDecoderBlock
from keras_nmt.layers.transformer_encoder_block import TransformerEncoderBlock
from keras_nmt.layers.weight_norm_dense import WeightNormDense

__all__ = [
    "BahdanauAttention",
    "BahdanauDecoderRNN",
    "CachedMultiHeadAttention",
    "ConvDecoderBlock",
    "ConvEncoderBlock",
    "ConvS2SAttention",
    "GatedConvolution",
    "LearnedPositionalEmbedding",
    "LogitsBias",
    "LuongAttention",
    "PositionalEmbedding",
    "ReversePaddedSequence",
    "TransformerDecoderBlock",
    "TransformerEncoderBlock",
    "WeightNormDense",
]
