"""Decoding on the model inference contract: greedy, beam search and sampling in one loop.

``decode(model, encoder_tokens, strategy, **options)`` (`loop.py`) is the single entry point:
one ``keras.ops.while_loop`` over the whole batch that feeds the model and stops sentences,
whatever the strategy; a strategy is a step function (`greedy.py`, `sampling.py`,
`beam_search.py`) named in one table (`strategies.py`). It traces into a ``tf.function`` /
SavedModel with dynamic batch size and source length, and runs under JAX. ``DecodingOptions``
holds the options as one value (the apps' flags, the Translator, the comparison presets);
``DecodingModel`` states what a model must provide (the inference contract). The contract and
the layering: docs/architecture.md.
"""

from keras_nmt._lazy import lazy_package

__all__ = lazy_package(
    __name__,
    {
        "DecodeResult": "keras_nmt.decoding.decode_result",
        "DecodingModel": "keras_nmt.decoding.decoding_model",
        "DecodingOptions": "keras_nmt.decoding.decoding_options",
        "GREEDY": "keras_nmt.decoding.decoding_options",
        "STRATEGIES": "keras_nmt.decoding.strategies",
        "call_sizes": "keras_nmt.decoding.length_order",
        "coverage_penalty": "keras_nmt.decoding.scoring",
        "cut": "keras_nmt.decoding.length_order",
        "decode": "keras_nmt.decoding.loop",
        "filter_top_k": "keras_nmt.decoding.sampling",
        "filter_top_p": "keras_nmt.decoding.sampling",
        "gnmt_length_penalty": "keras_nmt.decoding.scoring",
        "length_normalizer": "keras_nmt.decoding.scoring",
        "length_order": "keras_nmt.decoding.length_order",
        "normalize_log_probs": "keras_nmt.decoding.scoring",
        "restore_order": "keras_nmt.decoding.length_order",
        "within_model_limit": "keras_nmt.decoding.length_limits",
    },
)
