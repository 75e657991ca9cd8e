"""The model twins (functional and subclassed) and their registry.

Importing this package registers every model class with Keras, so `.keras` files reload.
"""

from keras_nmt.models.copy_weights_by_layer_name import copy_weights_by_layer_name
from keras_nmt.models.lstm_seq2seq_functional import LstmSeq2SeqFunctional
from keras_nmt.models.lstm_seq2seq_subclassed import LstmSeq2SeqSubclassed
from keras_nmt.models.registry import APIS, MODEL_NAMES, build_model, model_class

__all__ = [
    "APIS",
    "MODEL_NAMES",
    "LstmSeq2SeqFunctional",
    "LstmSeq2SeqSubclassed",
    "build_model",
    "copy_weights_by_layer_name",
    "model_class",
]
