"""Reference handling shared by the metrics: one or several references per hypothesis.

Every metric in `keras_nmt.metrics` takes ``references`` aligned with ``hypotheses``: element ``i``
is either one reference string or a sequence of reference strings for hypothesis ``i``; the number
may vary from sentence to sentence (Tatoeba often has several translations of one sentence).
"""

from collections.abc import Sequence

References = Sequence[str | Sequence[str]]


def as_reference_lists(references: References,
                       num_hypotheses: int | None = None) -> list[list[str]]:
    """``references`` as one non-empty list of reference strings per sentence; ``ValueError``
    for a sentence without any, or when ``num_hypotheses`` is given and differs.

    Example:
        >>> as_reference_lists(["a b", ["c", "d"]])
        [['a b'], ['c', 'd']]
    """
    lists = [[refs] if isinstance(refs, str) else list(refs) for refs in references]
    if num_hypotheses is not None and len(lists) != num_hypotheses:
        raise ValueError(f"{num_hypotheses} hypotheses but {len(lists)} reference entries")
    for i, refs in enumerate(lists):
        if not refs:
            raise ValueError(f"sentence {i} has no reference")
        if not all(isinstance(r, str) for r in refs):
            raise TypeError(f"references of sentence {i} are not all strings: {refs!r}")
    return lists


def reference_streams(references: References) -> list[list[str | None]]:
    """Transposes per-sentence references into sacreBLEU's reference streams.

    sacreBLEU's ``corpus_score(hypotheses, references)`` wants ``references[k][i]``: the k-th
    reference of sentence ``i``, i.e. one stream (a whole reference "document") per reference
    index. With a variable number of references, sacreBLEU skips ``None`` entries (since 1.5, see
    mjpost/sacrebleu#130/#132) and reports ``nrefs:var`` in the signature; an empty string would be
    an actual (empty) reference and would change the brevity penalty, so missing references are
    padded with ``None``. Each sentence's own references come first, so stream 0 is always full.

    Example:
        >>> reference_streams([["a", "b"], "c"])
        [['a', 'c'], ['b', None]]
    """
    lists = as_reference_lists(references)
    max_refs = max((len(refs) for refs in lists), default=1)
    return [[refs[k] if k < len(refs) else None for refs in lists] for k in range(max_refs)]

