"""Layers (keras.ops only): every attention in `attention.py` (its key/value cache in
`key_value_cache.py`), Transformer blocks, positional embedding, source reversal."""

from keras_nmt.layers.attention import BahdanauAttention, LuongAttention, MultiHeadAttention
from keras_nmt.layers.bahdanau_decoder_rnn import BahdanauDecoderRNN
from keras_nmt.layers.logits_bias import LogitsBias
from keras_nmt.layers.positional_embedding import PositionalEmbedding
from keras_nmt.layers.reverse_padded_sequence import ReversePaddedSequence
from keras_nmt.layers.transformer_decoder_block import TransformerDecoderBlock
from keras_nmt.layers.transformer_encoder_block import TransformerEncoderBlock

__all__ = [
    "BahdanauAttention",
    "BahdanauDecoderRNN",
    "LogitsBias",
    "LuongAttention",
    "MultiHeadAttention",
    "PositionalEmbedding",
    "ReversePaddedSequence",
    "TransformerDecoderBlock",
    "TransformerEncoderBlock",
]
