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
