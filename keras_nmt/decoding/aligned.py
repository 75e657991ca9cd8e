"""Decoding an aligned model (CTC): the model reads its labels off its frames in one pass.

The seq2seq strategies drive a model one token at a time through the inference contract
(``DecodingModel``). An aligned model has no steps: it labels every (upsampled) input position
at once and collapses the labels itself (``keras_nmt.models.ctc``: best-path decoding and CTC
prefix beam search). ``decode`` sends such a model here, and this module gives its labellings
the shape every strategy returns (``DecodeResult``), so the ``Translator``, its SavedModel
signatures and the spelling comparison treat it as any other model:

- ``END_ID`` is appended to each labelling (CTC needs none: the frames end);
- the length limits cut it as they cut a hypothesis: ``min(max_length,
  ceil(max_length_a * source_len + max_length_b))`` tokens, ``END`` included (a cut one has no
  ``END``);
- beam search's n-best list is ranked by ``normalize_log_probs`` of ``log p(l | x)``
  (``normalization``, ``length_penalty``), as beam search ranks finished hypotheses;
- ``coverage_penalty`` and ``return_attention`` need attention, which the model has not
  (``attention`` is ``None``, as for the plain LSTM); ``batch_cache`` sizes caches it has not.
"""

from typing import Any, Protocol, runtime_checkable

from keras import ops

from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.decoding.decoding_options import (
    DEFAULT_LENGTH_PENALTY,
    DEFAULT_MAX_LENGTH_A,
    DEFAULT_MAX_LENGTH_B,
)
from keras_nmt.decoding.length_limits import resolve_length_options, sentence_max_lengths
from keras_nmt.decoding.scoring import check_beam, normalize_log_probs
from keras_nmt.decoding.strategies import STRATEGIES
from keras_nmt.special_ids import END_ID, PAD_ID


@runtime_checkable
class AlignedModel(Protocol):
    """A model that labels its input positions and decodes the labels itself (CTC).

    ``keras_nmt.models.ctc.CtcModel`` keeps it; ``isinstance`` checks only that the members
    exist, ``tests/models/test_ctc.py`` the shapes.

    Attributes:
        has_attention: False: no attention weights.
    """

    has_attention: bool

    def decode_aligned(self, encoder_tokens, beam_size: int | None = None,
                       n_best: int | None = None) -> tuple[Any, Any, Any]:
        """Labellings of ``encoder_tokens`` (int32 ``(batch, src_len)``), without ``END``.

        Returns:
            ``(labels, lengths, log_probs)``, labels padded with ``PAD_ID``: ``(batch, L)``,
            ``(batch,)``, ``(batch,)`` for best-path decoding (``beam_size`` None), else
            ``(batch, n_best, L)``, ``(batch, n_best)``, ``(batch, n_best)``.
        """


def aligned_decode(model: AlignedModel, encoder_tokens, strategy="greedy", **options):
    """``decode`` for an ``AlignedModel``: ``"greedy"`` (best path) or ``"beam"`` (see the
    module docstring for what each option does here).

    Returns:
        A ``DecodeResult`` as the seq2seq strategies give: tokens ``(batch, L)`` for greedy,
        ``(batch, n_best, L)`` for beam search, each ending with ``END_ID`` unless cut;
        ``attention`` None.

    Raises:
        ValueError: ``strategy`` is ``"sample"``: the frames are labelled independently given
            the input, so there is no sequence of choices to sample one at a time.
    """
    if strategy not in ("greedy", "beam"):
        raise ValueError(f"a {getattr(model, 'model_name', type(model).__name__)} model decodes "
                         f"greedily or with beam search, not with {STRATEGIES[strategy].title}")
    return _decode(model, encoder_tokens, strategy, **options)


def _decode(model, encoder_tokens, strategy, *, beam_size=4, n_best=None, normalization="gnmt",
            length_penalty=DEFAULT_LENGTH_PENALTY, coverage_penalty=0.0, max_length=None,
            max_length_a=DEFAULT_MAX_LENGTH_A, max_length_b=DEFAULT_MAX_LENGTH_B,
            return_attention=False, trim=True, batch_cache=True) -> DecodeResult:
    del coverage_penalty, return_attention, batch_cache  # nothing to apply them to (above)
    max_length = resolve_length_options(model, max_length, max_length_a, max_length_b)
    encoder_tokens = ops.convert_to_tensor(encoder_tokens, dtype="int32")
    limits = sentence_max_lengths(ops.not_equal(encoder_tokens, PAD_ID), max_length,
                                  max_length_a, max_length_b)  # (batch,)
    if strategy == "greedy":
        labels, lengths, log_probs = model.decode_aligned(encoder_tokens)
        tokens, lengths = _with_end(labels, lengths, limits, max_length)
        result = DecodeResult(tokens, lengths, log_probs, log_probs)
    else:
        n_best = check_beam(beam_size, n_best)
        labels, lengths, log_probs = model.decode_aligned(encoder_tokens, beam_size, n_best)
        tokens, lengths = _with_end(labels, lengths, limits[:, None], max_length)
        scores = normalize_log_probs(log_probs, lengths, normalization, length_penalty)
        order = ops.argsort(-scores, axis=1)  # (batch, n_best), best first
        result = DecodeResult(
            ops.take_along_axis(tokens, order[..., None], axis=1),
            ops.take_along_axis(lengths, order, axis=1),
            ops.take_along_axis(scores, order, axis=1),
            ops.take_along_axis(log_probs, order, axis=1),
        )
    return result.trimmed() if trim else result


def _with_end(labels, lengths, limits, max_length):
    """Labellings ``(..., L)`` -> tokens ``(..., max_length)`` with ``END`` appended, each cut
    at its limit; lengths count ``END``."""
    rank = len(labels.shape)
    # max_length more columns: room for END, and for the full width.
    labels = ops.pad(ops.cast(labels, "int32"), [[0, 0]] * (rank - 1) + [[0, max_length]],
                     constant_values=PAD_ID)
    positions = ops.arange(ops.shape(labels)[-1], dtype="int32")
    tokens = ops.where(positions == lengths[..., None], END_ID, labels)
    lengths = ops.minimum(lengths + 1, limits)
    tokens = ops.where(positions < lengths[..., None], tokens, PAD_ID)
    return tokens[..., :max_length], lengths
