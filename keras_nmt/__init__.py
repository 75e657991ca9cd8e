"""keras_nmt: sequence-to-sequence learning (translation, spelling correction) in Keras 3.

Subpackages:
    text      tokenizers (tensorflow-text ops; traceable into tf.function and SavedModels)
    data      corpus readers, the built-in dataset, the tf.data pipeline
    layers    attention layers and Transformer blocks (keras.ops only)
    models    the model twins (functional and subclassed) and their registry
    decoding  greedy, beam search and sampling on the encode/decode_step contract
    metrics   BLEU/chrF (sacreBLEU), WER/CER, exact match
    inference the Translator (strings in, translations out), its SavedModel-backed twin,
              open_translator and the run directory format
    training  losses, metrics and callbacks for model.fit, train()
    export    SavedModel export of a Translator

The data flow and what each package may import: docs/architecture.md.
"""

__version__ = "0.1.0"
