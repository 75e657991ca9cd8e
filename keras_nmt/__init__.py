"""keras_nmt: sequence-to-sequence learning (translation, spelling correction) in Keras 3.

Subpackages:
    text      tokenizers (tensorflow-text ops; traceable into tf.function and SavedModels)
    data      corpus readers, the built-in dataset, the tf.data pipeline
    layers    attention layers and Transformer blocks (keras.ops only)
    models    the model twins (functional and subclassed) and their registry
    decoding  greedy, beam search and sampling on the encode/decode_step contract
    metrics   BLEU/chrF (sacreBLEU), WER/CER, exact match
    training  losses, metrics and callbacks for model.fit
    export    the Translator tf.Module and SavedModel export
"""

__version__ = "0.1.0"
