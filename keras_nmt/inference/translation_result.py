"""`TranslationResult`: the translation(s) of one sentence, from one signature call's outputs."""

import dataclasses

import numpy as np


@dataclasses.dataclass
class TranslationResult:
    """The translation(s) of one sentence.

    Attributes:
        texts: the n-best translations, best first (one for greedy decoding and sampling).
        scores: their scores (greedy/sampling: log-probability; beam: GNMT-normalized).
        weights: float32 `(len(target_tokens), len(source_tokens))` attention, or `None` when not
            requested; all zeros for models without attention.
        source_tokens: the source tokens the model saw (after truncation), or `None`.
        target_tokens: the produced tokens (`</s>` included), or `None`.
    """

    texts: list
    scores: list
    weights: np.ndarray | None = None
    source_tokens: list | None = None
    target_tokens: list | None = None

    @property
    def text(self):
        """The best translation."""
        return self.texts[0]

    @property
    def score(self):
        """The score of the best translation."""
        return self.scores[0]


def _strings(array):
    return [s.decode("utf-8", "replace") for s in np.asarray(array).tolist()]


def _tokens(row):
    """A padded row of token strings as a list, without the "" padding."""
    return [t for t in _strings(row) if t]


def results_from_outputs(outputs, kind, n_best=1):
    """Per-sentence `TranslationResult`s from the numpy outputs of one signature call.

    Args:
        outputs: the signature's outputs as numpy arrays, by name.
        kind: `"greedy"` (`serving_default`, sampling), `"beam"` or `"attention"`.
        n_best: translations kept per sentence (beam search).
    """
    if kind == "beam":
        texts = [_strings(row)[:n_best] for row in outputs["translations"]]
        scores = [[float(s) for s in row[:n_best]] for row in outputs["scores"]]
        return [TranslationResult(t, s) for t, s in zip(texts, scores, strict=True)]
    results = []
    for i, text in enumerate(_strings(outputs["translation"])):
        score = float(np.asarray(outputs["score"])[i]) if "score" in outputs else 0.0
        result = TranslationResult([text], [score])
        if kind == "attention":
            result.source_tokens = _tokens(outputs["source_tokens"][i])
            result.target_tokens = _tokens(outputs["tokens"][i])
            result.weights = np.asarray(outputs["weights"][i], np.float32)[
                : len(result.target_tokens), : len(result.source_tokens)]
        results.append(result)
    return results
