"""`keras.Model.__init__` for a functional twin whose layers are attributes already."""

from keras_nmt.models.constructor_config import ConstructorConfig


def functional_init(model, inputs, outputs, **kwargs):
    """Makes `model` the functional model from `inputs` to `outputs`, as if its layers were not
    its attributes.

    The shared constructor of a model (its `model.py`) makes the layers as attributes before the
    twin initialises Keras' side, and Keras tracks an attribute's layer when it is set. A
    functional model tracks the layers of its graph, in the graph's order: forgetting the earlier
    tracking keeps that order (the weights' order, by which a run's backups and kept averages
    list them) and leaves a layer the graph does not use (e.g. the dropout between encoder layers
    of a one-layer encoder) out of the model's weights.

    Args:
        model: a functional twin (`<Stem>(ConstructorConfig)` then `keras.Model`), before Keras'
            `__init__`.
        inputs, outputs: the graph's, as for `keras.Model(inputs, outputs)`.
        **kwargs: other `keras.Model` arguments (`name`, `trainable`).
    """
    vars(model).pop("_tracker", None)  # Keras' `__init__` starts a new one
    # The `__init__` after the shared class's: `keras.Model`'s, which makes the class a
    # `Functional` subclass once, and then `Functional`'s.
    super(ConstructorConfig, model).__init__(inputs=inputs, outputs=outputs, **kwargs)
