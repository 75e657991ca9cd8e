"""The model twins (functional and subclassed), their registry and presets (`presets.py`).

Importing this package registers every model class with Keras, so `.keras` files reload.
"""

from keras_nmt.models.bahdanau_seq2seq_functional import BahdanauSeq2SeqFunctional
from keras_nmt.models.bahdanau_seq2seq_subclassed import BahdanauSeq2SeqSubclassed
from keras_nmt.models.copy_weights_by_layer_name import copy_weights_by_layer_name
from keras_nmt.models.lstm_seq2seq_functional import LstmSeq2SeqFunctional
from keras_nmt.models.lstm_seq2seq_subclassed import LstmSeq2SeqSubclassed
from keras_nmt.models.luong_seq2seq_functional import LuongSeq2SeqFunctional
from keras_nmt.models.luong_seq2seq_subclassed import LuongSeq2SeqSubclassed
from keras_nmt.models.model_options import ModelOptions
from keras_nmt.models.registry import APIS, MODEL_NAMES, build_model, model_class
from keras_nmt.models.transformer_functional import TransformerFunctional
from keras_nmt.models.transformer_subclassed import TransformerSubclassed

__all__ = [
    "APIS",
    "MODEL_NAMES",
    "BahdanauSeq2SeqFunctional",
    "BahdanauSeq2SeqSubclassed",
    "LstmSeq2SeqFunctional",
    "LstmSeq2SeqSubclassed",
    "LuongSeq2SeqFunctional",
    "LuongSeq2SeqSubclassed",
    "ModelOptions",
    "TransformerFunctional",
    "TransformerSubclassed",
    "build_model",
    "copy_weights_by_layer_name",
    "model_class",
]
