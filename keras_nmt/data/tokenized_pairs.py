"""What the tf.data pipeline computes once: the tokenized corpus."""

from __future__ import annotations

import dataclasses

import numpy as np
import tensorflow as tf

from keras_nmt.plural import plural


@dataclasses.dataclass
class TokenizedPairs:
    """Token ids of a whole corpus, computed once by `keras_nmt.data.pipeline.tokenize_pairs`.

    Attributes:
        source_tokens: ``tf.RaggedTensor`` int32 ``(num_pairs, None)``: the source ids as
            ``source_tokenizer.tokenize(sources)`` returns them (no START/END); these become
            ``encoder_tokens``.
        target_tokens: ``tf.RaggedTensor`` int32 ``(num_pairs, None)``: ``[START] + y + [END]``;
            ``decoder_tokens`` are its rows without the last id, ``targets`` without the first.
        num_read: pairs given to `tokenize_pairs`.
        filtered_too_long: pairs dropped because ``len(source) > max_length`` or
            ``len(y) + 1 > max_length`` (the decoder input or target would exceed it).
        filtered_empty_source: pairs dropped because the source tokenized to nothing (an
            all-padding encoder row would leave attention with nothing to attend to).
        max_length: the limit used, or ``None``.
    """

    source_tokens: tf.RaggedTensor
    target_tokens: tf.RaggedTensor
    num_read: int = 0
    filtered_too_long: int = 0
    filtered_empty_source: int = 0
    max_length: int | None = None

    def __len__(self) -> int:
        return int(self.source_tokens.nrows())

    @property
    def source_lengths(self) -> np.ndarray:
        """``(num_pairs,)`` int64: encoder row lengths."""
        return self.source_tokens.row_lengths().numpy()

    @property
    def target_lengths(self) -> np.ndarray:
        """``(num_pairs,)`` int64: decoder row lengths, ``len(y) + 1``."""
        return self.target_tokens.row_lengths().numpy() - 1

    def summary(self) -> str:
        """One readable line: pairs kept and filtered, token counts."""
        text = f"tokenized {plural(self.num_read, 'pair')}, kept {len(self):,}"
        if self.max_length is not None:
            text += f"; {self.filtered_too_long:,} longer than {self.max_length} tokens filtered"
        if self.filtered_empty_source:
            text += f"; {self.filtered_empty_source:,} with an empty source filtered"
        return text
