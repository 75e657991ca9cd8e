"""Layers (keras.ops only): attention, Transformer blocks, positional embedding, source reversal."""

from keras_nmt.layers.bahdanau_attention import BahdanauAttention
from keras_nmt.layers.bahdanau_decoder_rnn import BahdanauDecoderRNN
from keras_nmt.layers.cached_multi_head_attention import CachedMultiHeadAttention
from keras_nmt.layers.logits_bias import LogitsBias
from keras_nmt.layers.luong_attention import LuongAttention
from keras_nmt.layers.positional_embedding import PositionalEmbedding
from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.layers.transformer_decoder_block import TransformerDecoderBlock
from keras_nmt.layers.transformer_encoder_block import TransformerEncoderBlock

__all__ = [
    "BahdanauAttention",
    "BahdanauDecoderRNN",
    "CachedMultiHeadAttention",
    "LogitsBias",
    "LuongAttention",
    "PositionalEmbedding",
    "ReversePaddedSequence",
    "TransformerDecoderBlock",
    "TransformerEncoderBlock",
]
