"""The single decoding entry point used by the apps and the exported Translator."""

from keras_nmt.decoding.decode_result import DecodeResult
from keras_nmt.decoding.decoding_model import DecodingModel
from keras_nmt.decoding.decoding_options import DecodingOptions
from keras_nmt.decoding.jax_compiled import can_compile, compiled_decode
from keras_nmt.decoding.strategies import STRATEGIES


def decode(
    model: DecodingModel, encoder_tokens, strategy: "str | DecodingOptions" = "greedy", *,
    sentence_ids=None, **options
) -> DecodeResult:
    """Decodes a batch with the chosen strategy, through the model inference contract only.

    Args:
        model: keeps the inference contract (``DecodingModel``: ``encode``,
            ``initial_state``, ``decode_step``, ``has_attention``).
        encoder_tokens: int ``(batch, src_len)`` source ids padded with ``PAD_ID``; a tensor
            with dynamic batch and length inside ``tf.function`` is fine.
        strategy: a ``STRATEGIES`` name (``keras_nmt.decoding.strategies``): ``"greedy"``
            (``greedy_decode``), ``"beam"`` (``beam_search``), ``"sample"`` (``sample_decode``);
            or a ``DecodingOptions`` whose fields ``options`` override.
        sentence_ids: int ``(batch,)``, each sentence's index in the caller's input: a
            strategy that draws random numbers (one taking a ``seed``) keys them by it, so a
            sentence's sample does not depend on the batch it is in. ``None``: ``0 .. batch-1``.
        **options: keyword arguments of that strategy's function; options of another
            strategy raise ``TypeError`` (a ``DecodingOptions`` ignores those of the others).

    Eager calls under JAX run through a jitted function compiled once per model, options and
    shape bucket (``keras_nmt.decoding.jax_compiled``); the result is the same.

    Returns:
        ``DecodeResult``: tokens ``(batch, L)`` for greedy/sample, ``(batch, n_best, L)`` for
        beam search; ``.best()`` gives ``(batch, L)`` for all.

    Raises:
        TypeError: ``model`` is not a ``DecodingModel``, or an option does not apply.
    """
    if not isinstance(model, DecodingModel):
        raise TypeError(
            f"{type(model).__name__} does not keep the inference contract "
            "(encode, initial_state, decode_step, has_attention)"
        )
    if isinstance(strategy, DecodingOptions):
        chosen = strategy.replace(**options) if options else strategy
        strategy, options = chosen.chosen_strategy, chosen.options()
    elif strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {tuple(STRATEGIES)}, got {strategy!r}")
    else:
        unknown = sorted(set(options) - set(STRATEGIES[strategy].options))
        if unknown:
            raise TypeError(f"options {unknown} do not apply to strategy {strategy!r}")
    function = STRATEGIES[strategy].load()
    if "seed" in STRATEGIES[strategy].options and sentence_ids is not None:
        options = {**options, "sentence_ids": sentence_ids}
    if can_compile(model, strategy, encoder_tokens, options):
        return compiled_decode(model, strategy, function, encoder_tokens, options)
    return function(model, encoder_tokens, **options)
