"""Whether our LSTM layers run on cuDNN on a GPU: the check behind docs/scale.md's claim that
every recurrent layer of the models is eligible (`keras_nmt.models.recurrent_parts` makes them).
"""

import keras


def cudnn_ineligibility(lstm):
    """Why `lstm` (an `LSTM` or a `Bidirectional` of one) cannot use the fused cuDNN kernel.

    On a GPU, Keras runs an `LSTM` layer through cuDNN only with its default `tanh` activation and
    `sigmoid` recurrent activation, `recurrent_dropout=0`, `unroll=False` and `use_bias=True`
    (`keras.src.backend.tensorflow.rnn.cudnn_ok`), and, when masked, only for right-padded masks:
    our pipeline pads on the right and `ReversePaddedSequence` keeps the padding there. Input
    dropout is applied by separate `Dropout` layers, never inside the LSTM.

    Returns:
        A list of reasons; empty when the layer is eligible.
    """
    layer = lstm.forward_layer if isinstance(lstm, keras.layers.Bidirectional) else lstm
    checks = {
        "activation is not tanh": layer.activation is not keras.activations.tanh,
        "recurrent_activation is not sigmoid": (
            layer.recurrent_activation is not keras.activations.sigmoid
        ),
        "recurrent_dropout is not 0": layer.recurrent_dropout != 0,
        "unroll is set": layer.unroll,
        "use_bias is off": not layer.use_bias,
        "use_cudnn is False (bfloat16 under JAX, see cudnn_setting)": layer.use_cudnn is False,
    }
    return [f"{lstm.name}: {reason}" for reason, failed in checks.items() if failed]
