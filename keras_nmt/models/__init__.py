"""The models: one folder each (`lstm/`, `luong/`, `bahdanau/`, `transformer/`) holding its card
(`__init__.py`: options, recipe, reference sizes, FLOPs), what its twins share (`model.py`) and
the twins (`functional.py`, `subclassed.py`); their registry (`registry.py`) and the
configurations read from the cards (`configurations.py`).

Names are imported on first use (`keras_nmt._lazy`): this package loads no Keras until a model is
asked for. `registry.register_models()` imports every twin, so `.keras` files reload.
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "APIS": "keras_nmt.models.registry",
        "BahdanauSeq2SeqFunctional": "keras_nmt.models.bahdanau.functional",
        "BahdanauSeq2SeqSubclassed": "keras_nmt.models.bahdanau.subclassed",
        "CARDS": "keras_nmt.models.registry",
        "LstmSeq2SeqFunctional": "keras_nmt.models.lstm.functional",
        "LstmSeq2SeqSubclassed": "keras_nmt.models.lstm.subclassed",
        "LuongSeq2SeqFunctional": "keras_nmt.models.luong.functional",
        "LuongSeq2SeqSubclassed": "keras_nmt.models.luong.subclassed",
        "MODEL_NAMES": "keras_nmt.models.registry",
        "ModelCard": "keras_nmt.models.model_card",
        "ModelOptions": "keras_nmt.models.model_options",
        "TransformerFunctional": "keras_nmt.models.transformer.functional",
        "TransformerSubclassed": "keras_nmt.models.transformer.subclassed",
        "build_model": "keras_nmt.models.registry",
        "copy_weights_by_layer_name": "keras_nmt.models.copy_weights_by_layer_name",
        "model_class": "keras_nmt.models.registry",
    },
)
