"""The model twins (functional and subclassed), their registry and their configurations
(`configurations.py`: options, defaults, training recipes, reference configurations).

Names are imported on first use (`keras_nmt._lazy`): this package loads no Keras until a model is
asked for. `registry.register_models()` imports every twin, so `.keras` files reload.
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "APIS": "keras_nmt.models.registry",
        "BahdanauSeq2SeqFunctional": "keras_nmt.models.bahdanau_seq2seq_functional",
        "BahdanauSeq2SeqSubclassed": "keras_nmt.models.bahdanau_seq2seq_subclassed",
        "ConvS2SFunctional": "keras_nmt.models.convs2s_functional",
        "ConvS2SSubclassed": "keras_nmt.models.convs2s_subclassed",
        "LstmSeq2SeqFunctional": "keras_nmt.models.lstm_seq2seq_functional",
        "LstmSeq2SeqSubclassed": "keras_nmt.models.lstm_seq2seq_subclassed",
        "LuongSeq2SeqFunctional": "keras_nmt.models.luong_seq2seq_functional",
        "LuongSeq2SeqSubclassed": "keras_nmt.models.luong_seq2seq_subclassed",
        "MODEL_NAMES": "keras_nmt.models.registry",
        "ModelOptions": "keras_nmt.models.model_options",
        "TransformerFunctional": "keras_nmt.models.transformer_functional",
        "TransformerSubclassed": "keras_nmt.models.transformer_subclassed",
        "build_model": "keras_nmt.models.registry",
        "copy_weights_by_layer_name": "keras_nmt.models.copy_weights_by_layer_name",
        "model_class": "keras_nmt.models.registry",
    },
)
