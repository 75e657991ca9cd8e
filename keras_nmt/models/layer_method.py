"""A method of a layer as a node of a functional graph (the functional twins' step models)."""

import keras


class LayerMethod(keras.layers.Layer):
    """Calls `getattr(layer, method)` as a layer of its own, so that a functional graph (which
    holds layer calls only) can run a method such as `TransformerDecoderBlock.step` or
    `ConvDecoderBlock.step`; the weights stay the layer's own.

    A method cannot run as a plain call of the layer: a layer called twice in graphs keeps the
    output structure of its first call, and a step returns more than a whole-sequence call.

    Example:
        >>> y, scores, key_cache, value_cache = LayerMethod(block, "step")(y, step, ...)
    """

    def __init__(self, layer, method, **kwargs):
        super().__init__(name=f"{layer.name}_{method}", **kwargs)
        self.layer = layer
        self.method = method
        # The methods take their masks as arguments: Keras masks are dropped without a warning.
        self.supports_masking = True

    def call(self, *args, **kwargs):
        return getattr(self.layer, self.method)(*args, **kwargs)

    def compute_mask(self, *args, **kwargs):
        return None
