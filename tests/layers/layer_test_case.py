"""`run_layer_test`: the checks every layer of `keras_nmt.layers` must pass, in one helper.

In the spirit of KerasHub's `TestCase.run_layer_test` (src/tests/test_case.py): configuration
round trip, build, symbolic call, one training step and mixed precision, for any layer class
given its constructor arguments and one batch of call arguments. Layer-specific behaviour
(masking numbers, caches, paper formulas) stays in each layer's own tests.
"""

import json

import keras
import numpy as np
import tensorflow as tf
from keras import ops

MIXED_POLICY = "mixed_bfloat16"


def run_layer_test(
    layer_cls,
    init_kwargs,
    input_data,
    *,
    call_kwargs=None,
    expected_output_shape=None,
    expected_num_trainable_weights=None,
    masking=None,
    seed=0,
):
    """Runs the generic checks on `layer_cls(**init_kwargs)(**input_data, **call_kwargs)`.

    1. Build: a symbolic call (`keras.KerasTensor` inputs) builds the layer with
       `expected_num_trainable_weights` trainable weights; an eager call creates no more (weights
       are made in `build`) and gives the symbolic call's output shapes and dtypes.
    2. Serialization: `get_config`/`from_config` and `keras.saving.serialize_keras_object`/
       `deserialize_keras_object` round-trip the config (JSON-safe), and the revived layer with
       the original's weights computes the same outputs.
    3. One training step (layers with trainable weights): the gradient of a loss on every float
       output exists, is finite and non-zero for every trainable weight, and one SGD step
       changes every weight and keeps it finite.
    4. Mixed precision (`mixed_bfloat16`): every sub-layer takes the policy, the variables stay
       float32, float outputs are `bfloat16` and close to the float32 ones (same weights), other
       outputs keep their dtype.
    5. Masking (optional): `supports_masking` is set and `compute_mask` gives the expected mask.

    Args:
        layer_cls: the layer class.
        init_kwargs: constructor arguments. Layer objects among them (e.g. a cell) are rebuilt
            from their config for every new instance, so instances never share weights.
        input_data: dict of call arguments that are arrays (or nested lists of arrays).
        call_kwargs: other call arguments (python flags), the same for every call.
        expected_output_shape: the eager outputs' shapes (a tuple, or a structure of tuples
            like the outputs), checked when given.
        expected_num_trainable_weights: checked when given.
        masking: `(input_mask, expected_mask)`: `layer.compute_mask(first input, input_mask)`
            must equal `expected_mask` (arrays, or None).
        seed: random seed for the weights and the training targets.
    """
    call_kwargs = dict(call_kwargs or {})
    inputs = keras.tree.map_structure(np.asarray, input_data)

    def make(dtype=None):
        keras.utils.set_random_seed(seed)
        kwargs = {key: _fresh(value, dtype) for key, value in init_kwargs.items()}
        if dtype is not None:
            kwargs["dtype"] = dtype
        return layer_cls(**kwargs)

    def call(layer, data, **extra):
        return layer(**data, **call_kwargs, **extra)

    # 1. Build: symbolic call, then eager call.
    layer = make()
    symbolic = keras.tree.map_structure(
        lambda x: keras.KerasTensor(x.shape, dtype=str(x.dtype)), inputs
    )
    symbolic_outputs = call(layer, symbolic)
    assert layer.built
    num_weights = len(layer.weights)
    if expected_num_trainable_weights is not None:
        assert len(layer.trainable_weights) == expected_num_trainable_weights, [
            w.path for w in layer.trainable_weights
        ]
    outputs = call(layer, inputs, training=False)
    assert len(layer.weights) == num_weights, "weights created outside build"
    keras.tree.assert_same_structure(outputs, symbolic_outputs)
    for got, spec in zip(_leaves(outputs), _leaves(symbolic_outputs), strict=True):
        dtype = keras.backend.standardize_dtype(got.dtype)
        assert (tuple(got.shape), dtype) == (tuple(spec.shape), spec.dtype), "symbolic != eager"
    if expected_output_shape is not None:
        shapes = keras.tree.map_structure(lambda x: tuple(x.shape), outputs)
        assert shapes == expected_output_shape, shapes

    # 2. Serialization.
    config = layer.get_config()
    json.dumps(config)
    revived = layer_cls.from_config(config)
    assert revived.get_config() == config
    serialized = keras.saving.serialize_keras_object(layer)
    json.dumps(serialized)
    deserialized = keras.saving.deserialize_keras_object(serialized)
    assert type(deserialized) is layer_cls
    assert deserialized.get_config() == config
    call(revived, inputs, training=False)
    revived.set_weights(layer.get_weights())
    for got, want in zip(
        _leaves(call(revived, inputs, training=False)), _leaves(outputs), strict=True
    ):
        np.testing.assert_allclose(_numpy(got), _numpy(want), rtol=1e-5, atol=1e-6)

    # 3. One training step.
    if layer.trainable_weights:
        _check_training_step(layer, lambda: call(layer, inputs, training=True), outputs, seed)

    # 4. Mixed precision.
    mixed = make(MIXED_POLICY)
    mixed_outputs = call(mixed, inputs, training=False)
    for sublayer in mixed._flatten_layers(include_self=True):
        assert sublayer.dtype_policy.name == MIXED_POLICY, sublayer.name
    for variable in mixed.weights:
        assert variable.dtype == "float32", variable.path
    keras.tree.assert_same_structure(mixed_outputs, outputs)
    for got, want in zip(_leaves(mixed_outputs), _leaves(outputs), strict=True):
        dtype = keras.backend.standardize_dtype(got.dtype)
        if _is_float(want):
            assert dtype == "bfloat16", f"{dtype} output under {MIXED_POLICY}"
            # The same seed gives the same weights: the outputs agree to bfloat16's precision.
            np.testing.assert_allclose(_numpy(got), _numpy(want), rtol=0.05, atol=0.05)
        else:
            assert dtype == keras.backend.standardize_dtype(want.dtype)

    # 5. Masking.
    if masking is not None:
        input_mask, expected_mask = masking
        assert layer.supports_masking
        first_input = next(iter(inputs.values()))
        mask = layer.compute_mask(first_input, input_mask)
        if expected_mask is None:
            assert mask is None
        else:
            np.testing.assert_array_equal(_numpy(mask), expected_mask)


def _fresh(value, dtype):
    """A new layer from `value`'s config (with `dtype` when given); other values as they are."""
    if not isinstance(value, keras.layers.Layer):
        return value
    config = value.get_config()
    if dtype is not None:
        config["dtype"] = dtype
    return type(value).from_config(config)


def _leaves(structure):
    return [x for x in keras.tree.flatten(structure) if x is not None]


def _numpy(x):
    return ops.convert_to_numpy(ops.cast(x, "float32") if _is_float(x) else x)


def _is_float(x):
    return "float" in keras.backend.standardize_dtype(x.dtype)


def _check_training_step(layer, forward, outputs, seed):
    """One gradient step on `sum(mean((output - target)^2))` over the float outputs."""
    rng = np.random.default_rng(seed)
    targets = [
        rng.normal(size=tuple(x.shape)).astype("float32") for x in _leaves(outputs) if _is_float(x)
    ]
    assert targets, "a layer with weights must have a float output"

    def loss_of(results):
        floats = [ops.cast(x, "float32") for x in _leaves(results) if _is_float(x)]
        return sum(ops.mean(ops.square(x - t)) for x, t in zip(floats, targets, strict=True))

    variables = layer.trainable_variables
    gradients = _gradients(layer, forward, loss_of, variables)
    before = [_numpy(v) for v in variables]
    for variable, gradient in zip(variables, gradients, strict=True):
        assert gradient is not None, f"no gradient for {variable.path}"
        gradient = _numpy(gradient)
        assert np.all(np.isfinite(gradient)), variable.path
        assert np.any(gradient != 0), f"zero gradient for {variable.path}"
    keras.optimizers.SGD(learning_rate=0.1).apply(gradients, variables)
    for variable, old in zip(variables, before, strict=True):
        new = _numpy(variable)
        assert np.all(np.isfinite(new)), variable.path
        assert not np.array_equal(new, old), f"{variable.path} did not change"


def _gradients(layer, forward, loss_of, variables):
    """d loss / d variables with the backend's automatic differentiation."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        with tf.GradientTape() as tape:
            loss = loss_of(forward())
        return tape.gradient(loss, [v.value for v in variables])
    if backend == "jax":
        # Imported here: JAX is an optional backend.
        import jax

        non_trainable = [v.value for v in layer.non_trainable_variables]

        def loss_fn(trainable):
            with keras.StatelessScope(
                state_mapping=list(
                    zip(
                        variables + layer.non_trainable_variables,
                        trainable + non_trainable,
                        strict=True,
                    )
                )
            ):
                return loss_of(forward())

        return jax.grad(loss_fn)([v.value for v in variables])
    raise NotImplementedError(f"no training step for the {backend} backend")


def check_attention_keras_file(layer, query, memory, memory_mask, tmp_path, after_build=None):
    """A model of `layer(query, memory, memory_mask=...)` (an attention layer: context and
    weights), saved to a `.keras` file and loaded back, gives the same outputs to the bit.

    `after_build()`, when given, runs once the layer is built (e.g. to set a weight that starts
    at a neutral value to one the round trip must keep).
    """
    query_in, memory_in = keras.Input(query.shape[1:]), keras.Input(memory.shape[1:])
    mask_in = keras.Input(memory_mask.shape[1:], dtype="bool")
    model = keras.Model([query_in, memory_in, mask_in],
                        list(layer(query_in, memory_in, memory_mask=mask_in)))
    if after_build:
        after_build()
    expected = model([query, memory, memory_mask])
    model.save(tmp_path / "model.keras")
    restored = keras.models.load_model(tmp_path / "model.keras")
    assert isinstance(restored.get_layer(layer.name), type(layer))
    for a, b in zip(restored([query, memory, memory_mask]), expected, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
