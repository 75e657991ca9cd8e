"""Decoding on the model inference contract: greedy, beam search and sampling.

Every strategy is written with ``keras.ops`` only and runs as one ``keras.ops.while_loop`` over
the whole batch, so under TensorFlow it traces into a ``tf.function`` / SavedModel with dynamic
batch size and source length (there, greedy decoding runs the ``tf.while_loop`` of
``compacting`` instead, which drops finished sentences from the batch; same outputs).
``decode(model, encoder_tokens, strategy, **options)`` is the
single entry point; ``DecodingOptions`` holds the options as one value (the apps' flags, the
Translator, the comparison presets); ``DecodingModel`` states what a model must provide (the
inference contract). The contract and the layering: docs/architecture.md.
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
        "beam_search": "keras_nmt.decoding.beam_search",
        "call_sizes": "keras_nmt.decoding.length_order",
        "coverage_penalty": "keras_nmt.decoding.scoring",
        "cut": "keras_nmt.decoding.length_order",
        "decode": "keras_nmt.decoding.api",
        "filter_top_k": "keras_nmt.decoding.sampling",
        "filter_top_p": "keras_nmt.decoding.sampling",
        "gnmt_length_penalty": "keras_nmt.decoding.scoring",
        "greedy_decode": "keras_nmt.decoding.greedy",
        "length_normalizer": "keras_nmt.decoding.scoring",
        "length_order": "keras_nmt.decoding.length_order",
        "normalize_log_probs": "keras_nmt.decoding.scoring",
        "restore_order": "keras_nmt.decoding.length_order",
        "sample_decode": "keras_nmt.decoding.sampling",
        "within_model_limit": "keras_nmt.decoding.length_limits",
    },
)
