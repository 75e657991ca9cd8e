"""Copy weights between models that name their layers alike (the twins)."""

import keras


def _leaf_layers_by_name(model):
    """Maps name -> layer for every weighted layer, recursing into sub-models only.

    A layer that holds sub-layers (an attention layer, a Transformer block, ``Bidirectional``)
    is matched whole, unless it sets ``copy_by_sublayer_names = True``: a wrapper such as the
    functional Bahdanau decoder's recurrent layer, whose sub-layers (the cell, the attention)
    are top-level layers in the subclassed twin. An ``LSTM`` layer and the ``LSTMCell`` its
    subclassed twin steps through hold the same variables in the same order, so they match by
    name too.
    """
    found = {}
    pending = list(model.layers)
    while pending:
        layer = pending.pop(0)
        if isinstance(layer, keras.Model):
            pending.extend(layer.layers)
        elif getattr(layer, "copy_by_sublayer_names", False):
            pending.extend(layer._flatten_layers(include_self=False, recursive=False))
        elif layer.weights:
            if found.get(layer.name, layer) is not layer:
                raise ValueError(f"two layers are named {layer.name!r} in model {model.name!r}")
            found[layer.name] = layer
    return found


def copy_weights_by_layer_name(source_model, target_model):
    """Copies every weight of ``source_model`` into the layer of the same name in ``target_model``.

    The functional and subclassed twins of a model use the same layer names, so a trained
    functional model's weights can be loaded into its subclassed twin and back.

    Args:
        source_model: a built Keras model.
        target_model: a built Keras model with layers of the same names and weight shapes.

    Raises:
        ValueError: when the two models do not have the same named layers or weight shapes.

    Example:
        >>> copy_weights_by_layer_name(functional_model, subclassed_model)
    """
    source_layers = _leaf_layers_by_name(source_model)
    target_layers = _leaf_layers_by_name(target_model)
    if set(source_layers) != set(target_layers):
        raise ValueError(
            "the models' weighted layers differ: only in source "
            f"{sorted(set(source_layers) - set(target_layers))}, only in target "
            f"{sorted(set(target_layers) - set(source_layers))}"
        )
    for name, source_layer in source_layers.items():
        target_layer = target_layers[name]
        source_weights = source_layer.get_weights()
        target_shapes = [tuple(w.shape) for w in target_layer.weights]
        source_shapes = [tuple(w.shape) for w in source_weights]
        if source_shapes != target_shapes:
            raise ValueError(f"layer {name!r}: weight shapes {source_shapes} != {target_shapes}")
        target_layer.set_weights(source_weights)
