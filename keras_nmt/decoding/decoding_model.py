"""The inference contract: what every decoding strategy needs from a model."""

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class DecodingModel(Protocol):
    """A model that decoding can drive one token at a time (the contract in CONTRIBUTING.md).

    The models keep it structurally (they never import it: models -> decoding, one way).
    ``isinstance(model, DecodingModel)`` checks only that the four members exist; the shapes
    below are checked by ``tests/decoding/test_decoding_model.py`` on every model.

    Tensors are batch-major throughout: beam search tiles ``memory`` and reorders ``state`` with
    ``keras.ops.take(x, indices, axis=0)`` on every leaf. The state's shapes do not change from
    step to step, so each strategy is one ``keras.ops.while_loop``, except along a dimension
    TensorFlow did not know while tracing (a loop accepts any size there): a Transformer's
    self-attention caches, sized by a tensor, start small and double when full. A model may
    also have a python int ``max_length`` (a Transformer's positions): decoding then never asks
    for more (see ``within_model_limit``).

    Attributes:
        has_attention: python bool, read at trace time: whether ``decode_step`` returns
            attention weights (a tensor) or ``None``.

    Example:
        >>> memory = model.encode(encoder_tokens)                 # (batch, src_len) int32
        >>> state = model.initial_state(memory, max_length=20)
        >>> logits, state, attention = model.decode_step(tokens, state, memory)  # tokens (batch,)
    """

    has_attention: bool

    def encode(self, encoder_tokens) -> dict[str, Any]:
        """Encodes the source once per sentence.

        Args:
            encoder_tokens: int32 ``(batch, src_len)``, padded with ``PAD_ID``.

        Returns:
            The memory: a dict of batch-major tensors that includes ``"source_mask"``
            ``(batch, src_len)`` bool (``False`` at padding).
        """

    def initial_state(self, memory: dict[str, Any], max_length: int) -> Any:
        """The decoder state before the first (``START_ID``) token.

        Args:
            memory: the dict from ``encode`` (possibly tiled along the batch axis).
            max_length: python int, or int32 scalar tensor (the batch's longest limit): the
                most decoding steps; sizes caches (fixed for an int).

        Returns:
            A nested structure (dicts, lists) of batch-major tensors.
        """

    def decode_step(self, token, state, memory: dict[str, Any]) -> tuple[Any, Any, Any]:
        """Feeds one token per row and predicts the next.

        Args:
            token: int32 ``(batch,)``.
            state: the structure from ``initial_state`` or the previous ``decode_step``.
            memory: the dict from ``encode``.

        Returns:
            ``(logits, state, attention)``: logits float32 ``(batch, vocab)``, the new state
            (same structure, shapes and dtypes), and attention ``(batch, src_len)`` when
            ``has_attention``, else ``None``.
        """
