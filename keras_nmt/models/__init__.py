"""The models: one folder each (`lstm/`, `luong/`, `bahdanau/`, `transformer/`, `convs2s/`)
holding its card (`__init__.py`: options, recipe, reference sizes, FLOPs), what its twins share
(`model.py`) and the twins (`functional.py`, `subclassed.py`), and the aligned `ctc/`; their
registry (`registry.py`).

Import names from their modules (`keras_nmt.models.registry.build_model`): this package and the
cards load no Keras. `registry.register_models()` imports every twin, so `.keras` files reload.
"""
