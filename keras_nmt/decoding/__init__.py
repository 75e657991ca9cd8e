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
