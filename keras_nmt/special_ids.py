"""Token ids reserved identically by every tokenizer, and the kinds of tokenizer.

Kept in a module free of TensorFlow imports so that models and decoding (written with
``keras.ops``) can use them under any Keras backend.
"""

PAD_ID = 0  # padding; Embedding(mask_zero=True) masks it
UNK_ID = 1  # unknown token / character / piece
START_ID = 2  # start of sentence, first decoder input
END_ID = 3  # end of sentence, last decoder target
NUM_RESERVED = 4

RESERVED_TOKENS = ("<pad>", "<unk>", "<s>", "</s>")

# The tokenizer kinds (`keras_nmt.text.make_tokenizer`, `--tokenizer`): the one list.
TOKENIZER_KINDS = ("char", "word", "subword")
# SentencePiece's model types (`SubwordTokenizer(model_type=...)`, `--subword-model`).
SUBWORD_MODELS = ("unigram", "bpe")
